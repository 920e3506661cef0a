"""`@agent`: an Agent builder made from a function, which is left exactly as it was.

    @agent(model="gemini-2.5-flash")
    def triage():
        \"\"\"You triage support tickets: say whether each is billing, shipping or other.\"\"\"

`triage` is now an `Agent` builder named "triage" with the docstring as its instruction; it
composes like any other (`triage >> resolver`). A function that takes one parameter is the
agent's instruction provider instead (ADK calls it with the ReadonlyContext before each model
call and sends what it returns), and its docstring becomes the agent's description.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import FunctionType, NoneType
from typing import Any, overload

from adk_fluent.api.agent import Agent
from adk_fluent.api.builder import check_name
from adk_fluent.api.presets import Preset
from adk_fluent.arguments import checked_instance
from adk_fluent.errors import BuildError, describe_value


def _doc_only() -> None:
    """A function with a docstring and nothing else."""


async def _async_doc_only() -> None:
    """An async function with a docstring and nothing else."""


def _has_body(fn: FunctionType) -> bool:
    """Whether a function does anything beyond having a docstring (compared with functions
    compiled by this interpreter that do not)."""
    empty = (_async_doc_only if inspect.iscoroutinefunction(fn) else _doc_only).__code__
    code = fn.__code__
    # the docstring is the first constant of both; everything else must match
    return (code.co_code, code.co_consts[1:], code.co_names) != (
        empty.co_code,
        empty.co_consts[1:],
        empty.co_names,
    )


def _required_positional(fn: FunctionType) -> list[str]:
    signature = inspect.signature(fn)
    return [
        p.name
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]


def _refuse(message: str, hint: str, name: str | None = None, field: str = "agent") -> BuildError:
    return BuildError(message, agent=name, field=field, hint=hint)


def _agent_from(fn: Any, name: str | None, preset: Preset | None) -> Agent:
    if not isinstance(fn, FunctionType):  # a builder, a class, a callable object, ...
        raise _refuse(
            f"@agent decorates a function, not {describe_value(fn)}",
            "write def name(): with the instruction as its docstring, and put @agent(...) "
            "above it; an existing builder takes .use(Preset(...)) instead.",
        )
    if fn.__name__ == "<lambda>" and name is None:
        raise _refuse(
            "@agent needs a named function: a lambda has no name to give the agent",
            "define it with def, or pass name='...' to agent().",
        )
    agent_name = fn.__name__ if name is None else name
    try:
        check_name(agent_name)
    except BuildError as error:
        hint = "rename the function, or give the agent another name: @agent(name='...')."
        raise BuildError(
            error.message,
            agent=error.agent,
            field="name",
            hint=hint if name is None else error.hint,
        ) from None
    required = _required_positional(fn)
    doc = inspect.getdoc(fn)
    if len(required) > 1:
        raise _refuse(
            f"{fn.__name__}() takes {len(required)} arguments, but an instruction provider "
            "gets one (ADK's ReadonlyContext)",
            "take no parameter (the docstring is the instruction) or one: def "
            f"{fn.__name__}(ctx): return '...'.",
            agent_name,
            "instruction",
        )
    agent = Agent(agent_name)
    if preset is not None:
        agent = agent.use(preset)
    if required:
        agent = agent.instruct(fn)
        if doc and not (preset and "description" in preset.settings):
            agent = agent.description(doc)
        return agent
    if not doc:
        raise _refuse(
            f"{fn.__name__}() has no docstring, and a function without parameters gives its "
            "docstring as the agent's instruction",
            f'write the instruction as its docstring: def {fn.__name__}(): """You ..."""; or '
            "take the context to compute it: def "
            f"{fn.__name__}(ctx): return '...'.",
            agent_name,
            "instruction",
        )
    if _has_body(fn):
        raise _refuse(
            f"the body of {fn.__name__}() would never run: a function without parameters "
            "only gives its docstring as the instruction",
            "leave only the docstring, or take the context (def "
            f"{fn.__name__}(ctx): ...) so the body computes the instruction on each call.",
            agent_name,
            "instruction",
        )
    return agent.instruct(doc)


@overload
def agent(fn: Callable[..., Any], /) -> Agent: ...


@overload
def agent(
    *, name: str | None = None, use: Preset | None = None, **settings: Any
) -> Callable[[Callable[..., Any]], Agent]: ...


def agent(fn: Any = None, /, *, name: str | None = None, use: Any = None, **settings: Any) -> Any:
    """Make an Agent builder from a function (a decorator): `@agent` or
    `@agent(model="gemini-2.5-flash", tools=[search], use=base_preset, name="triage")`.

    The agent is named after the function (or `name`). A function without parameters gives
    its docstring as the instruction (its body must be empty: it never runs); a function of one
    parameter is the instruction provider ADK calls with the ReadonlyContext, and its docstring
    becomes the description. The keyword settings are a Preset's (any Agent setter name, checked
    at once with a did-you-mean), applied after `use` (a Preset). The function object itself is
    not changed: the decorated name refers to the builder, and nothing is patched onto it."""
    hint = "e.g. @agent(use=Preset(model='gemini-2.5-flash'))."
    preset = checked_instance(use, None, "use", (Preset, NoneType), what="a Preset", hint=hint)
    if settings:
        extra = Preset(**settings)
        preset = extra if preset is None else preset | extra
    for spelling in ("instruct", "instruction"):
        if preset is not None and spelling in preset.settings:
            raise _refuse(
                f"@agent takes its instruction from the function, not from {spelling}=",
                "write the instruction as the function's docstring (or return it from a "
                "function of one parameter).",
                field=spelling,
            )
    if fn is None:

        def decorate(function: Callable[..., Any]) -> Agent:
            return _agent_from(function, name, preset)

        return decorate
    if isinstance(fn, str):
        raise _refuse(
            f"agent() was given the text {fn[:40]!r} where it takes the function it decorates",
            "pass settings by keyword: @agent(model='gemini-2.5-flash') or @agent(name='triage').",
        )
    return _agent_from(fn, name, preset)
