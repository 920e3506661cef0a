"""What a middleware is: an object that implements any of ADK's plugin
callbacks, under ADK's own names and keyword arguments (`before_model_callback(*,
callback_context, llm_request)`, ...), with a scope and a priority.

A stack of them compiles into one ADK plugin (adk/plugins/middleware.py), so middleware runs
before every agent's own callbacks and works under a plain Runner (adk web, api_server). The
built-ins (retry, cache, ...) live in the middleware room. This module holds only the rules that
need no ADK: which names are callbacks, how a scope and a priority are given, what is refused.
"""

from __future__ import annotations

import difflib
from typing import Any

from adk_fluent_generated.field_versions import PLUGIN_CALLBACK_VERSIONS

from adk_fluent.errors import BuildError, describe_value, did_you_mean

# Every plugin callback any scanned ADK release has (13 on 1.25, 15 from 2.5).
PLUGIN_CALLBACKS: tuple[str, ...] = tuple(sorted(PLUGIN_CALLBACK_VERSIONS))

# Callbacks of the whole run (no agent is current): only middleware scoped to the app sees them.
RUN_CALLBACKS = frozenset(
    {
        "on_user_message_callback",
        "before_run_callback",
        "after_run_callback",
        "on_run_error_callback",
        "close",
    }
)

_CALLBACK_STEMS = ("before_", "after_", "on_")

# The custom_metadata key of a model reply that another model gave in place of the agent's
# failed call (fallback_model): {"model": the answering model's name}. Middleware that prices
# or labels a reply (cost_attribution) reads it through `answering_model`.
FALLBACK_KEY = "adk_fluent.fallback"


def answering_model(llm_response: Any) -> str | None:
    """The model that gave `llm_response` in place of the agent's own (a fallback's name, as
    fallback_model marks it); None for a reply of the model the request named."""
    mark = (getattr(llm_response, "custom_metadata", None) or {}).get(FALLBACK_KEY)
    model = mark.get("model") if isinstance(mark, dict) else None
    return model if isinstance(model, str) and model else None


class Middleware:
    """Base class for a middleware (optional: any object with plugin-callback methods works).

    Implement any of ADK's plugin callbacks by their ADK names, as `async def` (or plain) methods
    taking ADK's keyword arguments. `scope` limits the middleware to the agents under the named
    nodes of the tree (None: the whole app); a lower `priority` runs earlier; equal priorities
    run in the order they were given.
    """

    scope: tuple[str, ...] | None = None
    priority: int = 0
    # True: it must see the callbacks of the whole run (on_user_message, before_run, ...), so
    # it is refused where it would be scoped (a scope, or `.middleware()` below the root)
    needs_whole_run: bool = False
    # True: a backend's own middleware (a replaying backend's), which the engine puts before
    # the config's; errors number ExecutionConfig's items as the user wrote them, without it
    from_backend: bool = False

    def __init__(self, *, scope: str | tuple[str, ...] | None = None, priority: int = 0) -> None:
        self.scope = scope_names(scope, middleware_name(self))
        self.priority = checked_priority(priority, middleware_name(self))

    def __repr__(self) -> str:
        shown = f"scope={list(self.scope)!r}" if self.scope else "app"
        return f"{middleware_name(self)}({shown}, priority={self.priority})"


def middleware_name(middleware: Any) -> str:
    """The name errors and logs use for a middleware: its `name`, else its class's name."""
    name = getattr(middleware, "name", None)
    return name if isinstance(name, str) and name else type(middleware).__name__


CONFIG_PLACE = "ExecutionConfig(middleware=...)"


def config_places(middleware: Any) -> list[str]:
    """Where each middleware of a config's stack was given, as errors name it: "ExecutionConfig(
    middleware=...) item 2 (retry)", numbered as the user wrote them (a backend's own middleware,
    `from_backend`, which the engine puts first, is not counted)."""
    places: list[str] = []
    number = 0
    for item in middleware:
        if getattr(item, "from_backend", False) is True:
            places.append(f"the backend's middleware ({middleware_name(item)})")
            continue
        number += 1
        named = item.__name__ if isinstance(item, type) else middleware_name(item)
        places.append(f"{CONFIG_PLACE} item {number} ({named})")
    return places


def given_at(where: str | None) -> dict[str, str | None]:
    """BuildError's keywords naming where a middleware was given: a place in ExecutionConfig
    (`config_places`) as it is, else an agent (or the middleware) by name."""
    if where is not None and where.startswith((CONFIG_PLACE, "the backend's")):
        return {"where": where}
    return {"agent": where}


def scope_names(scope: Any, where: str, *, middleware: str | None = None) -> tuple[str, ...] | None:
    """A scope as a tuple of node names (None: the whole app), refusing anything else; the
    error names `where` it was given (and the `middleware`, when that is another name)."""
    if scope is None:
        return None
    names = (scope,) if isinstance(scope, str) else scope
    if (
        not isinstance(names, tuple | list)
        or not names
        or not all(isinstance(n, str) and n for n in names)
    ):
        raise BuildError(
            f"{_of(middleware, where)}scope must be an agent name or a tuple of names, "
            f"got {describe_value(scope)}",
            **given_at(where),
            field="scope",
            hint="e.g. scope='writer' (that agent, or that composite and everything in it), "
            "scope=('writer', 'critic'), or no scope for the whole app.",
        )
    return tuple(names)


def checked_priority(priority: Any, where: str, *, middleware: str | None = None) -> int:
    """The priority, refusing anything but an int (a bool too), naming `where` it was given."""
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise BuildError(
            f"{_of(middleware, where)}priority must be an int, got {describe_value(priority)}",
            **given_at(where),
            field="priority",
            hint="lower runs first: priority=-10 before the default 0, 10 after it.",
        )
    return priority


def _of(middleware: str | None, where: str) -> str:
    named = middleware and middleware != where and "agent" in given_at(where)
    return f"middleware {middleware}: " if named else ""


def implemented_callbacks(middleware: Any) -> tuple[str, ...]:
    """The plugin callbacks (ADK names) a middleware implements, in PLUGIN_CALLBACKS order."""
    return tuple(name for name in PLUGIN_CALLBACKS if callable(getattr(middleware, name, None)))


def check_middleware(middleware: Any, where: str | None) -> None:
    """Refuse what cannot be a middleware, naming where it was given (`where`: the agent, or
    the item of ExecutionConfig, `config_places`) and why: a class instead of an instance, an object with no plugin
    callback, a method that looks like a callback ADK does not have (a misspelling)."""
    name = middleware_name(middleware)
    if isinstance(middleware, type):
        raise BuildError(
            f"the class {middleware.__name__} is not a middleware",
            **given_at(where),
            field="middleware",
            hint=f"pass an instance: {middleware.__name__}(...).",
        )
    for attr in dir(middleware):  # the instance's attributes too (a SimpleNamespace, self.x = f)
        if attr in PLUGIN_CALLBACKS or attr.startswith("_"):
            continue
        if _looks_like_a_callback(attr) and callable(getattr(middleware, attr, None)):
            suggestion = did_you_mean(attr, PLUGIN_CALLBACKS) or did_you_mean(
                attr + "_callback", PLUGIN_CALLBACKS
            )
            raise BuildError(
                f"middleware {name} has a method {attr}(), which is not one of ADK's plugin "
                "callbacks, so ADK would never call it",
                **given_at(where),
                field="middleware",
                hint=suggestion
                or f"the callbacks are: {', '.join(PLUGIN_CALLBACKS)} (ADK's own names).",
            )
    if not implemented_callbacks(middleware):
        raise BuildError(
            f"{describe_value(middleware)} implements none of ADK's plugin callbacks",
            **given_at(where),
            field="middleware",
            hint="a middleware defines methods such as before_model_callback(self, *, "
            "callback_context, llm_request); see docs/middleware.md.",
        )
    # named after where it was given: that is where the user looks
    scope_names(getattr(middleware, "scope", None), where or name, middleware=name)
    checked_priority(getattr(middleware, "priority", 0), where or name, middleware=name)


def _looks_like_a_callback(attr: str) -> bool:
    """A method name that is surely meant as a plugin callback: `..._callback`, a callback's
    short name (`before_model`), or a near-miss of a full name (`after_tool_callbak`)."""
    if attr.endswith("_callback") or attr in _SHORT_NAMES:
        return True
    return attr.startswith(_CALLBACK_STEMS) and bool(
        difflib.get_close_matches(attr, PLUGIN_CALLBACKS, n=1, cutoff=0.85)
    )


_SHORT_NAMES = frozenset(name.removesuffix("_callback") for name in PLUGIN_CALLBACKS)
