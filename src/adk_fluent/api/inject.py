"""Dependency injection into tools: `Agent.inject(db=pool)` hands `pool` to every tool function
of that agent with a parameter named `db`, and hides that parameter from the model.

The user's functions are never changed: when the agent's IR is built, each function tool that
takes a resource is replaced (in the IR only) by a wrapper with the same name and docstring
whose signature (`__signature__`, which ADK's FunctionTool reads to declare the tool to the
model) lacks the resource parameters. At call time the wrapper passes the resources in.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from adk_fluent.adk.resources import Scoped, acquire
from adk_fluent.arguments import checked_function, checked_some
from adk_fluent.errors import BuildError, did_you_mean

# Parameters ADK itself fills in (the tool's context, a streaming tool's input): not resources.
_ADK_PARAMETERS = frozenset({"tool_context", "input_stream"})


@dataclass(frozen=True)
class PerCall:
    """A resource made afresh for each tool call (`per_call(factory)`)."""

    factory: Callable[[], Any]

    def __repr__(self) -> str:
        return f"per_call({getattr(self.factory, '__name__', type(self.factory).__name__)})"


def per_call(factory: Callable[[], Any]) -> PerCall:
    """A resource made for each tool call that takes it: `inject(db=per_call(open_connection))`
    calls `open_connection()` (or awaits it, for a coroutine function) once per call. Nothing
    closes what it returns: a tool that must release it uses it as a context manager."""
    checked_function(
        factory,
        None,
        "inject",
        takes=0,
        what="per_call(factory)",
        hint="a function (or class) of no arguments that makes the resource, e.g. "
        "per_call(lambda: make_client(settings)).",
    )
    return PerCall(factory)


def per_invocation(
    factory: Callable[[], Any], *, close: Callable[[Any], Any] | None = None
) -> Scoped:
    """A resource made once per invocation (a turn) and shared by every tool call in it, torn
    down when the invocation ends, also when it fails, is cancelled or times out:
    `inject(db=per_invocation(open_connection, close=lambda c: c.close()))`. `factory` (sync or
    async) takes no arguments; without `close`, the value's own `aclose()` / `close()` is called
    if it has one (adk/resources.py)."""
    return _scoped(factory, close, "invocation")


def per_session(factory: Callable[[], Any], *, close: Callable[[Any], Any] | None = None) -> Scoped:
    """A resource made once per session in this process (never shared between sessions) and
    torn down by `close_session_stores()`, when many sessions hold one (the least recently
    used first), or at exit: `inject(client=per_session(make_client))` (adk/resources.py)."""
    return _scoped(factory, close, "session")


def _scoped(factory: Any, close: Any, scope: Any) -> Scoped:
    shown = f"per_{scope}(factory)"
    checked_function(
        factory,
        None,
        "inject",
        takes=0,
        what=shown,
        hint=f"a function (or class) of no arguments that makes the resource, e.g. "
        f"per_{scope}(open_db).",
    )
    if close is not None:
        checked_function(
            close,
            None,
            "close",
            takes=1,
            what=f"per_{scope}(..., close=...)",
            hint="it takes the value to tear down: close=lambda connection: connection.close().",
            classes=False,
        )
    return Scoped(factory, close, scope)


def check_resources(agent: str, resources: Mapping[str, Any]) -> None:
    """Names a resource may have: identifiers, and not a parameter ADK fills in itself."""
    hint = "name each one after the tool parameter it fills: .inject(db=pool)."
    checked_some(resources, agent, "inject", shown="inject()", items="resource", hint=hint)
    for name in resources:
        if not name.isidentifier():
            raise BuildError(
                f"{name[:40]!r} cannot be a resource name: a resource reaches the tool "
                "parameter of the same name",
                agent=agent,
                field="inject",
                hint="use the parameter's name, e.g. .inject(db=pool) for def lookup(order_id, db).",
            )
        if name in _ADK_PARAMETERS:
            raise BuildError(
                f"'{name}' is filled in by ADK itself and cannot be injected",
                agent=agent,
                field="inject",
                hint="pick another parameter name for the resource, e.g. db or client.",
            )


def _signature(tool: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(tool)
    except (TypeError, ValueError):
        return None


def _is_function_tool(tool: Any) -> bool:
    """A plain callable ADK wraps in its FunctionTool (not a tool object, toolset or agent)."""
    return (
        callable(tool)
        and not isinstance(tool, type)
        and not hasattr(tool, "run_async")
        and not hasattr(tool, "get_tools")
    )


def _takes(signature: inspect.Signature, resources: Iterable[str]) -> list[str]:
    """The resource names a signature takes by name."""
    usable = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [
        name
        for name in resources
        if name in signature.parameters and signature.parameters[name].kind in usable
    ]


def _tool_label(tool: Any) -> str:
    target = getattr(tool, "func", tool)
    return str(getattr(target, "__name__", None) or type(target).__name__)


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - a callable object's async __call__
    )


def _docstring(fn: Any) -> str | None:
    """The description ADK would read: the callable's docstring, else its __call__'s."""
    target = fn.func if isinstance(fn, functools.partial) else fn
    doc = getattr(target, "__doc__", None)
    if not doc and not inspect.isroutine(target):
        doc = getattr(getattr(target, "__call__", None), "__doc__", None)  # noqa: B004
    return doc


async def _resolved_async(
    resources: Mapping[str, Any], names: list[str], tool_context: Any = None
) -> dict[str, Any]:
    values = {}
    for name in names:
        value = resources[name]
        if isinstance(value, PerCall):
            value = value.factory()
            if inspect.isawaitable(value):
                value = await value
        elif isinstance(value, Scoped):
            value = await acquire(value, tool_context)
        values[name] = value
    return values


def _resolved(resources: Mapping[str, Any], names: list[str]) -> dict[str, Any]:
    return {
        name: value.factory() if isinstance(value, PerCall) else value
        for name, value in ((name, resources[name]) for name in names)
    }


def injected_tool(
    agent: str, tool: Callable[..., Any], resources: Mapping[str, Any], names: list[str]
) -> Callable[..., Any]:
    """A wrapper of `tool` that passes `resources[name]` for each of `names` (overriding any
    value given for them) and whose signature, as ADK reads it, lacks those parameters."""
    signature = inspect.signature(tool)
    if inspect.isgeneratorfunction(tool) or inspect.isasyncgenfunction(tool):
        raise BuildError(
            f"the streaming tool '{_tool_label(tool)}' takes the resource "
            f"'{names[0]}', but resources reach only tools that return a value",
            agent=agent,
            field="inject",
            hint="make it an ordinary (async) function, or let it read the resource from "
            "its module.",
        )
    factories_async = any(
        isinstance(resources[n], PerCall) and _is_async(resources[n].factory) for n in names
    )
    scoped = any(isinstance(resources[n], Scoped) for n in names)
    # a scoped resource is found by the call's invocation or session: the wrapper takes ADK's
    # tool_context (never declared to the model) and hands it on only if the tool takes it
    takes_context = "tool_context" in signature.parameters
    if _is_async(tool) or factories_async or scoped:

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            context = (
                kwargs.get("tool_context") if takes_context else kwargs.pop("tool_context", None)
            )
            kwargs.update(await _resolved_async(resources, names, context))
            result = tool(*args, **kwargs)
            if inspect.isawaitable(result):
                result = await result
            return result

        wrapper: Callable[..., Any] = call_async
    else:

        def call_sync(*args: Any, **kwargs: Any) -> Any:
            kwargs.update(_resolved(resources, names))
            return tool(*args, **kwargs)

        wrapper = call_sync
    # the name, module and qualname ADK and tracebacks show; __wrapped__ for inspect.unwrap
    # (the source, for analyses); then what the model is told
    functools.update_wrapper(wrapper, tool, updated=())
    wrapper.__name__ = _tool_label(tool)
    wrapper.__doc__ = _docstring(tool)
    # Annotations resolved against the tool's own module: the wrapper lives in this one, where
    # a string annotation (`from __future__ import annotations`) would name nothing.
    hints = _hints(tool, names)
    visible = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name not in names
    ]
    if scoped and not takes_context:
        context = inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY)
        if visible and visible[-1].kind == inspect.Parameter.VAR_KEYWORD:
            visible.insert(len(visible) - 1, context)
        else:
            visible.append(context)
    shown = signature.replace(
        parameters=visible, return_annotation=hints.get("return", signature.return_annotation)
    )
    wrapper.__signature__ = shown  # type: ignore[attr-defined]
    annotations = {p.name: p.annotation for p in visible if p.annotation is not p.empty}
    if shown.return_annotation is not shown.empty:
        annotations["return"] = shown.return_annotation
    wrapper.__annotations__ = annotations
    return wrapper


def _hints(tool: Any, hidden: list[str]) -> dict[str, Any]:
    """The tool's type hints, resolved in its own module (Annotated kept). When one cannot be
    resolved (say a resource's type imported only under TYPE_CHECKING), the others still are;
    an unresolvable one stays as written, as ADK would see it on the tool itself."""
    try:
        return typing.get_type_hints(tool, include_extras=True)
    except Exception:  # noqa: BLE001 - a partial, a callable object, an unresolvable name
        pass
    written = getattr(tool, "__annotations__", None)
    scope = getattr(tool, "__globals__", None)
    if not isinstance(written, dict) or not isinstance(scope, dict):
        return {}
    hints = {}
    for name, value in written.items():
        if name in hidden:
            continue
        if isinstance(value, str):
            try:
                value = eval(value, scope)  # an annotation, evaluated as typing would
            except Exception:  # noqa: BLE001
                continue
        hints[name] = value
    return hints


def inject_tools(
    agent: str, tools: tuple[Any, ...], resources: Mapping[str, Any]
) -> tuple[Any, ...]:
    """An agent's tools with the resources injected; every resource must be taken by at least
    one of its function tools."""
    taken: set[str] = set()
    parameters: set[str] = set()
    result = []
    for tool in tools:
        if not _is_function_tool(tool):
            func = getattr(tool, "func", None)  # an ADK FunctionTool made from a function
            signature = _signature(func) if callable(func) else None
            wanted = _takes(signature, resources) if signature is not None else []
            if wanted:
                raise BuildError(
                    f"the tool '{_tool_label(tool)}' takes the resource '{wanted[0]}', but it is "
                    "an ADK tool object, which adk-fluent does not rewrap",
                    agent=agent,
                    field="inject",
                    hint="add the function itself (.tool(fn)) so the resource can reach it; "
                    "for a confirmation, ask in a before_tool callback.",
                )
            result.append(tool)
            continue
        signature = _signature(tool)
        if signature is None:
            result.append(tool)
            continue
        parameters.update(signature.parameters)
        names = _takes(signature, resources)
        if not names:
            result.append(tool)
            continue
        taken.update(names)
        result.append(injected_tool(agent, tool, resources, names))
    for name in sorted(set(resources) - taken):
        known = sorted(parameters - _ADK_PARAMETERS)
        raise BuildError(
            f"no tool of this agent takes a parameter named '{name}', so the resource would "
            "reach nothing",
            agent=agent,
            field="inject",
            hint=did_you_mean(name, known)
            or (
                f"a resource reaches the tool parameters of the same name; the tools' "
                f"parameters are {', '.join(known)}."
                if known
                else "add the tool that uses it (.tool(fn) with a parameter of that name), "
                "before or after .inject()."
            ),
        )
    return tuple(result)
