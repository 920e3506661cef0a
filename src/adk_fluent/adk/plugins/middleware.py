"""MiddlewarePlugin: a middleware stack (ir/middleware.py) compiled into one ADK plugin.

The order, documented in docs/middleware.md:

* The stack is sorted by priority (lower first), then by the order given: ExecutionConfig's
  middleware first, then each node's `.middleware(...)`, parents before children.
* Callbacks that may answer for ADK (`before_*`, `after_agent`, `on_model_error`,
  `on_tool_error`) stop at the first middleware that returns a value, as ADK's plugins do.
* Callbacks that hand a value on (`on_user_message`, `after_model`, `after_tool`, `on_event`)
  run as a chain: each middleware receives what the one before returned (or the original), so a
  cache, a budget and a PII filter all see the same model response.
* Notifications (`after_run`, `close`, `on_agent_error`, `on_run_error`) reach every middleware.
* adk-fluent's visibility plugin is the chain's last stage (`tail`): ADK stops at the first
  plugin returning a value, so a middleware returning an event would otherwise cut the
  visibility annotations off.
* A scoped middleware sees only the callbacks of the agents in its scope; the callbacks of the
  whole run (`on_user_message`, `before_run`, `after_run`, `on_run_error`, `close`) go to the
  unscoped ones only.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from adk_fluent_generated.field_versions import PLUGIN_CALLBACK_VERSIONS, releases_in
from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import adk_version, event_actions_of, invocation_of
from adk_fluent.analysis.node_facts import NodeFacts
from adk_fluent.errors import BuildError, did_you_mean
from adk_fluent.ir.middleware import (
    RUN_CALLBACKS,
    check_middleware,
    checked_priority,
    config_places,
    given_at,
    implemented_callbacks,
    middleware_name,
    scope_names,
)
from adk_fluent.ir.nodes import NativeAgentNode, Node

PLUGIN_NAME = "adk_fluent_middleware"

# The callbacks whose value is handed down the chain: callback -> the keyword holding it.
CHAINED = {
    "on_user_message_callback": "user_message",
    "after_model_callback": "llm_response",
    "after_tool_callback": "result",
    "on_event_callback": "event",
}


def _context_agent(kwargs: dict[str, Any]) -> str | None:
    return getattr(kwargs.get("callback_context"), "agent_name", None)


def _tool_agent(kwargs: dict[str, Any]) -> str | None:
    return getattr(kwargs.get("tool_context"), "agent_name", None)


# callback -> the name of the agent it runs for
_AGENT_OF: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "before_agent_callback": _context_agent,
    "after_agent_callback": _context_agent,
    "before_model_callback": _context_agent,
    "after_model_callback": _context_agent,
    "on_model_error_callback": _context_agent,
    "before_tool_callback": _tool_agent,
    "after_tool_callback": _tool_agent,
    "on_tool_error_callback": _tool_agent,
    "on_event_callback": lambda kwargs: getattr(kwargs.get("event"), "author", None),
    "on_agent_error_callback": lambda kwargs: getattr(kwargs.get("agent"), "name", None),
}


@dataclass(frozen=True)
class StackEntry:
    """One middleware of a compiled stack and the agents it sees (None: the whole app)."""

    middleware: Any
    agents: frozenset[str] | None
    order: int

    @property
    def sort_key(self) -> tuple[int, int]:
        return (getattr(self.middleware, "priority", 0), self.order)


_current: ContextVar[MiddlewarePlugin | None] = ContextVar("adk_fluent_middleware", default=None)


def agent_path(agent_name: str) -> str:
    """The path of an agent in the tree being run ('pipeline/writer'), for middleware that logs
    or labels calls; the bare name outside a middleware callback or for an unknown agent."""
    plugin = _current.get()
    if plugin is None:
        return agent_name
    return plugin.paths.get(agent_name, agent_name)


def agent_facts(agent_name: str) -> NodeFacts | None:
    """What the IR says about an agent of the tree being run (analysis/node_facts.py: path,
    kind, visibility, declared state keys, enclosing loop and route, ...), for middleware that
    labels spans or metrics; None outside a middleware callback or for an unknown agent."""
    plugin = _current.get()
    if plugin is None:
        return None
    return plugin.facts.get(agent_name)


_CALLS_REMEMBERED = 4096  # model calls in flight at once whose before_model actions are kept


def model_call(callback_context: Any) -> tuple[Any, ...]:
    """A key for one model call in flight, the same from its before_model to its after_model
    (or on_model_error): calls of one agent in one branch of an invocation are sequential, so
    concurrent calls (parallel branches, sessions at once) never share one. map_over's items
    and race's alternatives run one agent at once on the same branch, each on a private copy
    of the session: the copy's identity tells them apart."""
    ctx = invocation_of(callback_context)
    return (
        getattr(ctx, "invocation_id", None),
        getattr(ctx, "branch", None),
        callback_context.agent_name,
        id(getattr(ctx, "session", None)),
    )


async def _nothing(**kwargs: Any) -> None:
    return None


def _awaitable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` as a coroutine function (a plain method's result is handed back as it is)."""
    if inspect.iscoroutinefunction(fn):
        return fn

    async def called(**kwargs: Any) -> Any:
        result = fn(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    return called


def _dispatch(callback: str, how: Callable[..., Any]) -> Callable[..., Any]:
    """The plugin method for ADK's `callback`: `how` (MiddlewarePlugin._first, _chain or
    _notify) runs the stack for it."""

    async def method(self: MiddlewarePlugin, **kwargs: Any) -> Any:
        return await how(self, callback, kwargs)

    method.__name__ = method.__qualname__ = callback
    return method


class MiddlewarePlugin(BasePlugin):
    """Runs a sorted middleware stack from ADK's plugin callbacks (the module says in which
    order and with what rules), then the `tail` plugins (adk-fluent's own)."""

    def __init__(
        self,
        entries: Sequence[StackEntry],
        *,
        tail: Sequence[BasePlugin] = (),
        paths: dict[str, str] | None = None,  # agent name -> path (the visibility table's)
        facts: dict[str, NodeFacts] | None = None,  # agent name -> what the IR says of it
    ) -> None:
        super().__init__(name=PLUGIN_NAME)
        self.entries = tuple(sorted(entries, key=lambda entry: entry.sort_key))
        self.tail = tuple(tail)
        self.paths = dict(paths or {})
        self.facts = dict(facts or {})
        self._model_actions: OrderedDict[tuple[Any, ...], Any] = OrderedDict()  # see below
        # callback -> [(coroutine function, agents it sees)], in the order they run
        self._stack: dict[str, list[tuple[Callable[..., Any], frozenset[str] | None]]] = {}
        for entry in self.entries:
            for callback in implemented_callbacks(entry.middleware):
                if callback in RUN_CALLBACKS and entry.agents is not None:
                    continue
                self._stack.setdefault(callback, []).append(
                    (_awaitable(getattr(entry.middleware, callback)), entry.agents)
                )
        # callback -> the tail plugins' own methods for it (one BasePlugin leaves as it is,
        # returning None, is never called)
        self._tails: dict[str, tuple[Callable[..., Any], ...]] = {
            callback: tuple(
                getattr(plugin, callback)
                for plugin in self.tail
                if getattr(type(plugin), callback, None)
                not in (None, getattr(BasePlugin, callback, None))
            )
            for callback in PLUGIN_CALLBACK_VERSIONS
        }
        # a callback no middleware implements goes straight to the tail (or nowhere): no
        # dispatch on every agent, model and tool call for middleware that does not care
        for callback, tails in self._tails.items():
            if callback in self._stack or len(tails) > 1:
                continue
            if callback == "before_model_callback" and "after_model_callback" in self._stack:
                continue  # it keeps the reply's actions for after_model (below)
            setattr(self, callback, tails[0] if tails else _nothing)

    @property
    def middleware(self) -> tuple[Any, ...]:
        """The middleware in the order they run."""
        return tuple(entry.middleware for entry in self.entries)

    def _matching(self, callback: str, kwargs: dict[str, Any]) -> list[Callable[..., Any]]:
        """The stack's methods for `callback` whose scope holds the agent it runs for."""
        stack = self._stack.get(callback)
        if not stack:
            return []
        of = _AGENT_OF.get(callback)
        agent = of(kwargs) if of is not None else None
        return [fn for fn, agents in stack if agents is None or agent in agents]

    async def _tail(self, callback: str, kwargs: dict[str, Any]) -> Any:
        for method in self._tails[callback]:
            result = await method(**kwargs)
            if result is not None:
                return result
        return None

    async def _first(self, callback: str, kwargs: dict[str, Any]) -> Any:
        fns = self._matching(callback, kwargs)
        if fns:  # a callback no middleware has costs no context switch (every event's path)
            token = _current.set(self)  # agent_path() / agent_facts() answer from this plugin
            try:
                for fn in fns:
                    result = await fn(**kwargs)
                    if result is not None:
                        return result
            finally:
                _current.reset(token)
        return await self._tail(callback, kwargs)

    async def _chain(self, callback: str, kwargs: dict[str, Any]) -> Any:
        key = CHAINED[callback]
        changed = False
        fns = self._matching(callback, kwargs)
        if fns:
            token = _current.set(self)
            try:
                for fn in fns:
                    result = await fn(**kwargs)
                    if result is not None:
                        kwargs = {**kwargs, key: result}
                        changed = True
            finally:
                _current.reset(token)
        final = await self._tail(callback, kwargs)
        if final is not None:
            return final
        return kwargs[key] if changed else None

    async def _notify(self, callback: str, kwargs: dict[str, Any]) -> None:
        fns = self._matching(callback, kwargs)
        if fns:
            token = _current.set(self)
            try:
                for fn in fns:
                    await fn(**kwargs)
            finally:
                _current.reset(token)
        for method in self._tails[callback]:
            await method(**kwargs)

    # -- ADK's plugin callbacks (all 15: an ADK without one never calls it) ----------------------
    # the first answer wins
    before_run_callback = _dispatch("before_run_callback", _first)
    before_agent_callback = _dispatch("before_agent_callback", _first)
    after_agent_callback = _dispatch("after_agent_callback", _first)
    on_model_error_callback = _dispatch("on_model_error_callback", _first)
    before_tool_callback = _dispatch("before_tool_callback", _first)
    on_tool_error_callback = _dispatch("on_tool_error_callback", _first)
    # each middleware is handed what the one before returned
    on_user_message_callback = _dispatch("on_user_message_callback", _chain)
    on_event_callback = _dispatch("on_event_callback", _chain)
    after_tool_callback = _dispatch("after_tool_callback", _chain)
    # every middleware hears it
    close = _dispatch("close", _notify)
    after_run_callback = _dispatch("after_run_callback", _notify)
    on_run_error_callback = _dispatch("on_run_error_callback", _notify)
    on_agent_error_callback = _dispatch("on_agent_error_callback", _notify)

    async def before_model_callback(self, **kwargs: Any) -> Any:
        if "after_model_callback" in self._stack:
            self._remember_model_actions(kwargs["callback_context"])
        reply = await self._first("before_model_callback", kwargs)
        if reply is not None:
            # ADK runs no after_model on a reply given here (a cache hit, a budget's error):
            # the tail annotates it now, so the stored event carries the annotations on
            # releases where on_event comes after the store (1.25 .. 1.30) too
            context = kwargs["callback_context"]
            await self._tail(
                "after_model_callback", {"callback_context": context, "llm_response": reply}
            )
        return reply

    async def after_model_callback(self, **kwargs: Any) -> Any:
        result = await self._chain("after_model_callback", kwargs)
        self._carry_model_state(kwargs["callback_context"], kwargs["llm_response"])
        return result

    # Some ADK releases (1.25) give plugins' after_model_callback a fresh CallbackContext whose
    # actions belong to no event, so state a middleware writes there would be dropped; the
    # context of before_model holds the actions of the very event the reply becomes (2.x gives
    # after_model that same context). So the actions seen in before_model are kept per call, and
    # whatever after_model wrote elsewhere is moved into them: the write lands in the model
    # reply's own state_delta on every release.
    def _remember_model_actions(self, callback_context: Any) -> None:
        actions = event_actions_of(callback_context)
        if actions is None:
            return
        remember(self._model_actions, model_call(callback_context), actions, _CALLS_REMEMBERED)

    def _carry_model_state(self, callback_context: Any, llm_response: Any) -> None:
        key = model_call(callback_context)
        target = self._model_actions.get(key)
        if not getattr(llm_response, "partial", False):
            self._model_actions.pop(key, None)
        written = event_actions_of(callback_context)
        if target is None or written is None or written is target or not written.state_delta:
            return
        target.state_delta.update(written.state_delta)
        written.state_delta.clear()


# -- compiling a tree's middleware ---------------------------------------------------------------
def installed_plugin_callbacks() -> frozenset[str]:
    """The plugin callbacks the installed ADK has (asked of its BasePlugin, not of its version)."""
    return frozenset(name for name in PLUGIN_CALLBACK_VERSIONS if hasattr(BasePlugin, name))


def _check_installed(middleware: Any, where: str | None) -> None:
    installed = installed_plugin_callbacks()
    for callback in implemented_callbacks(middleware):
        if callback not in installed:
            releases = releases_in(PLUGIN_CALLBACK_VERSIONS[callback])
            raise BuildError(
                f"middleware {middleware_name(middleware)} implements {callback}, which the "
                f"installed google-adk {adk_version()} does not have, so it would never run",
                **given_at(where),
                field="middleware",
                hint=f"google-adk {releases[0]} and later have it; upgrade, or drop the method."
                if releases
                else "no scanned google-adk release has it.",
            )


class _Tree:
    """Name lookups over an IR tree for scopes: each name's subtree."""

    def __init__(self, root: Node, renamed: dict[str, str]) -> None:
        self.renamed = renamed
        self.nodes: dict[str, list[Node]] = {}
        self.native_names: dict[str, Node] = {}  # an agent inside a native tree -> its node
        for node in root.walk():
            self.nodes.setdefault(node.name, []).append(node)
            if isinstance(node, NativeAgentNode):
                for name in node.agent_names:
                    self.native_names.setdefault(name, node)

    def names(self) -> set[str]:
        return set(self.nodes) | set(self.native_names)

    def under(self, node: Node) -> set[str]:
        """Every agent name the subtree of `node` compiles to (agent tools included)."""
        found: set[str] = set()
        for inner in node.walk():
            found.add(inner.name)
            if isinstance(inner, NativeAgentNode):
                found.update(inner.agent_names)
        found.update(c for c, original in self.renamed.items() if original in found)
        return found

    def under_name(self, name: str) -> set[str]:
        if name in self.nodes:
            return set().union(*(self.under(node) for node in self.nodes[name]))
        from adk_fluent.adk.native import agents_inside

        holder = self.native_names[name]
        for agent in agents_inside(holder.agent, tools=True):  # type: ignore[attr-defined]
            if agent.name == name:
                return {inner.name for inner in agents_inside(agent, tools=True)}
        return {name}

    def resolve(self, scope: tuple[str, ...], middleware: Any, where: str | None) -> set[str]:
        known = self.names()
        agents: set[str] = set()
        for name in scope:
            if name not in known:
                raise BuildError(
                    f"middleware {middleware_name(middleware)} is scoped to '{name}', which is "
                    "not in this tree",
                    **given_at(where),
                    field="scope",
                    hint=did_you_mean(name, known)
                    or f"the tree's agents are: {', '.join(sorted(known)[:12])}.",
                )
            agents |= self.under_name(name)
        return agents


def stack_entries(
    root: Node, renamed: dict[str, str], app_middleware: Iterable[Any]
) -> list[StackEntry]:
    """The stack of a tree: the app's middleware (ExecutionConfig) and every node's, each with
    the agents it sees. Refuses, naming the middleware and where it was
    given, what cannot run: no callbacks, a callback the installed ADK lacks, an unknown scope."""
    tree = _Tree(root, renamed)
    entries: list[StackEntry] = []
    agents: set[str] | None
    app_middleware = tuple(app_middleware)
    for middleware, place in zip(app_middleware, config_places(app_middleware), strict=True):
        check_middleware(middleware, place)
        _check_installed(middleware, place)
        scope = scope_names(getattr(middleware, "scope", None), middleware_name(middleware))
        agents = None if scope is None else tree.resolve(scope, middleware, place)
        entries.append(_entry(middleware, agents, len(entries), place))
    for node in root.walk():
        for middleware in node.middleware:
            check_middleware(middleware, node.name)
            _check_installed(middleware, node.name)
            # the root's own middleware sees the whole app, run callbacks included
            agents = None if node is root else tree.under(node)
            scope = scope_names(getattr(middleware, "scope", None), middleware_name(middleware))
            if scope is not None:
                named = tree.resolve(scope, middleware, node.name)
                narrowed = named if agents is None else agents & named
                if not narrowed:
                    raise BuildError(
                        f"middleware {middleware_name(middleware)} is attached to '{node.name}' "
                        f"but scoped to {', '.join(scope)}, which is not inside it",
                        agent=node.name,
                        field="scope",
                        hint="attach it to a node that contains its scope, or give it to "
                        "ExecutionConfig(middleware=...) with that scope.",
                    )
                agents = narrowed
            entries.append(_entry(middleware, agents, len(entries), node.name))
    return entries


def _entry(
    middleware: Any, agents: set[str] | None, order: int, where: str | None = None
) -> StackEntry:
    checked_priority(getattr(middleware, "priority", 0), middleware_name(middleware))
    if agents is not None and getattr(middleware, "needs_whole_run", False):
        # its run callbacks would silently never be called (a scoped middleware gets none)
        raise BuildError(
            f"middleware {middleware_name(middleware)} must see the whole run (its "
            f"{', '.join(c for c in implemented_callbacks(middleware) if c in RUN_CALLBACKS)}), "
            "but here it is scoped to part of the tree",
            **given_at(where),
            field="middleware",
            hint="give it to ExecutionConfig(middleware=...) or to the expression you run, "
            "without a scope.",
        )
    return StackEntry(middleware, None if agents is None else frozenset(agents), order)
