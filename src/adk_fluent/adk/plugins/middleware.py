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

import functools
import inspect
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

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


# callback -> the parameter and the attribute naming the agent it runs for
_AGENT_OF: dict[str, tuple[str, str]] = {
    "before_agent_callback": ("callback_context", "agent_name"),
    "after_agent_callback": ("callback_context", "agent_name"),
    "before_model_callback": ("callback_context", "agent_name"),
    "after_model_callback": ("callback_context", "agent_name"),
    "on_model_error_callback": ("callback_context", "agent_name"),
    "before_tool_callback": ("tool_context", "agent_name"),
    "after_tool_callback": ("tool_context", "agent_name"),
    "on_tool_error_callback": ("tool_context", "agent_name"),
    "on_event_callback": ("event", "author"),
    "on_agent_error_callback": ("agent", "name"),
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


# What the middleware of a callback share while it runs (agent_path, agent_facts, model_call):
# [agent name -> path, agent name -> NodeFacts, the callback context or None, its model call key
# once worked out]. A context variable: concurrent runs (tasks) each see their own.
_Scope = list[Any]
_current: ContextVar[_Scope | None] = ContextVar("adk_fluent_middleware", default=None)


def agent_path(agent_name: str) -> str:
    """The path of an agent in the tree being run ('pipeline/writer'), for middleware that logs
    or labels calls; the bare name outside a middleware callback or for an unknown agent."""
    scope = _current.get()
    if scope is None:
        return agent_name
    paths: dict[str, str] = scope[0]
    return paths.get(agent_name, agent_name)


def agent_facts(agent_name: str) -> NodeFacts | None:
    """What the IR says about an agent of the tree being run (analysis/node_facts.py: path,
    kind, visibility, declared state keys, enclosing loop and route, ...), for middleware that
    labels spans or metrics; None outside a middleware callback or for an unknown agent."""
    scope = _current.get()
    if scope is None:
        return None
    facts: dict[str, NodeFacts] = scope[1]
    return facts.get(agent_name)


def root_facts() -> NodeFacts | None:
    """The facts of the root of the tree being run (whose path is the pipeline's name), for
    middleware that labels a whole run; None outside a middleware callback. (An ADK 2.x
    Workflow root is no agent: a run callback's invocation context has none to name it by.)"""
    scope = _current.get()
    if scope is None:
        return None
    facts: dict[str, NodeFacts] = scope[1]
    for node in facts.values():  # the root is the first (node_facts walks from it)
        if node.path == node.pipeline:
            return node
    return None


_CALLS_REMEMBERED = 4096  # model calls in flight at once whose before_model actions are kept


def model_call(callback_context: Any) -> tuple[Any, ...]:
    """A key for one model call in flight, the same from its before_model to its after_model
    (or on_model_error): calls of one agent in one branch of an invocation are sequential, so
    concurrent calls (parallel branches, sessions at once) never share one. map_over's items
    and race's alternatives run one agent at once on the same branch, each on a private copy
    of the session: the copy's identity tells them apart."""
    scope = _current.get()
    if scope is not None and scope[2] is callback_context:
        # inside the plugin's dispatch of this very context: its key is read once (what it is
        # made of does not change while one callback runs)
        key: tuple[Any, ...] | None = scope[3]
        if key is None:
            key = scope[3] = _call_key(callback_context)
        return key
    return _call_key(callback_context)


def _call_key(callback_context: Any) -> tuple[Any, ...]:
    ctx = invocation_of(callback_context)
    return (
        getattr(ctx, "invocation_id", None),
        getattr(ctx, "branch", None),
        callback_context.agent_name,
        id(getattr(ctx, "session", None)),
    )


async def _nothing(**kwargs: Any) -> None:
    return None


# One middleware method as the plugin calls it: (the method, whether it is a coroutine function;
# a plain method's result is awaited when it is awaitable).
_Call = tuple[Callable[..., Any], bool]
_AGENTS_REMEMBERED = 1024  # agent names whose scoped selection is kept (a tree has a few)


def _call(fn: Callable[..., Any]) -> _Call:
    # a built-in's callback whose body needs no await (sync_callback): its body is called as
    # it is, without a coroutine per call (what the method would await comes back awaitable)
    body = getattr(getattr(fn, "__func__", None), _SYNC_BODY, None)
    owner = getattr(fn, "__self__", None)
    if body is not None and owner is not None:
        return (body.__get__(owner), False)
    return (fn, inspect.iscoroutinefunction(fn))


_SYNC_BODY = "__adk_fluent_sync_body__"
_Result = TypeVar("_Result")


def sync_callback(body: Callable[..., _Result]) -> Callable[..., Coroutine[Any, Any, Any]]:
    """A middleware callback written as a plain method (for the built-ins): the method is a
    coroutine function as the protocol says (`await m.before_model_callback(...)`), and the
    middleware plugin calls the body itself, sparing a coroutine per call on every agent,
    model and tool call. The body may return an awaitable (when, now and then, it has to wait:
    an async store, a queue): it is awaited, and its result is the callback's."""

    @functools.wraps(body)
    async def callback(*args: Any, **kwargs: Any) -> Any:
        result: Any = body(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    setattr(callback, _SYNC_BODY, body)
    return callback


class _Selection:
    """The stack's methods for one callback whose scope holds the agent it runs for: worked
    out once per agent name (scopes are fixed when the plugin is made), not on every call."""

    __slots__ = ("_known", "_stack")

    def __init__(self, stack: Sequence[tuple[Callable[..., Any], frozenset[str] | None]]) -> None:
        self._stack = tuple((_call(fn), agents) for fn, agents in stack)
        self._known: dict[str | None, tuple[_Call, ...]] = {}

    def __call__(self, agent: Any) -> tuple[_Call, ...]:
        named = agent is None or isinstance(agent, str)
        if named:
            known = self._known.get(agent)
            if known is not None:
                return known
        calls = tuple(call for call, agents in self._stack if agents is None or agent in agents)
        if named and len(self._known) < _AGENTS_REMEMBERED:
            self._known[agent] = calls
        return calls


# -- the runners ---------------------------------------------------------------------------------
# One coroutine function per callback, made when the plugin is made, with the keyword parameters
# ADK's BasePlugin declares for it (ADK calls plugins by keyword): each middleware method and
# tail plugin is called with them as they are, no dict packed and unpacked per call, and the
# loops are written out (no coroutine per step). Every agent, model and tool call and every
# event goes through them. Written as source and compiled once, as dataclasses does, since the
# parameters are ADK's.
# The runners' own names start with "_", so that no parameter of ADK's can shadow one.
_MIDDLEWARE_LOOP = """\
    if _calls:  # a callback no middleware has costs no context switch (every event's path)
        _token = _current.set({scope})  # what agent_path(), agent_facts(), model_call() read
        try:
            for _fn, _is_async in _calls:
                if _is_async:
                    _result = await _fn({args})
                else:
                    _result = _fn({args})
                    if _result is not None and _isawaitable(_result):
                        _result = await _result
{on_result}
        finally:
            _current.reset(_token)
"""

# the first middleware (then tail plugin) returning a value answers
_FIRST = """\
async def {name}({params}):
    _calls = _static if _static is not None else _select({agent})
{loop}\
    for _tail in _tails:
        _result = await _tail({args})
        if _result is not None:
            return _result
    return None
"""
_FIRST_RESULT = """\
                if _result is not None:
                    return _result"""

# each middleware is handed what the one before returned (or the original)
_CHAIN = """\
async def {name}({params}):
    _calls = _static if _static is not None else _select({agent})
    _changed = False
{loop}\
    for _tail in _tails:
        _final = await _tail({args})
        if _final is not None:
            return _final
    return {value} if _changed else None
"""
_CHAIN_RESULT = """\
                if _result is not None:
                    {value} = _result
                    _changed = True"""

# every middleware, then every tail plugin, hears it
_NOTIFY = """\
async def {name}({params}):
    _calls = _static if _static is not None else _select({agent})
{loop}\
    for _tail in _tails:
        await _tail({args})
    return None
"""
_NOTIFY_RESULT = """\
                pass"""

# before_model: `_FIRST`, keeping the call's actions for after_model (`_remembers`), and handing
# a reply given here to the tail's after_model: ADK runs no after_model on a reply given here (a
# cache hit, a budget's error), and the tail annotates it now, so the stored event carries the
# annotations on releases where on_event comes after the store (1.25 .. 1.30) too.
_BEFORE_MODEL = """\
async def {name}({params}):
    _calls = _static if _static is not None else _select({agent})
    _scope = [_paths, _facts, callback_context, None]
    if _remembers:
        _plugin._remember_model_actions(callback_context, _scope)
    _result = None
{loop}\
    if _result is None:
        for _tail in _tails:
            _result = await _tail({args})
            if _result is not None:
                break
    if _result is not None:
        for _tail in _reply_tails:
            if await _tail(callback_context=callback_context, llm_response=_result) is not None:
                break
    return _result
"""
_BEFORE_MODEL_RESULT = """\
                if _result is not None:
                    break"""

# after_model: `_CHAIN`, then the state it wrote moved into the reply's own event
_AFTER_MODEL = """\
async def {name}({params}):
    _calls = _static if _static is not None else _select({agent})
    _scope = [_paths, _facts, callback_context, None]
    _response = llm_response
    _changed = False
{loop}\
    _final = None
    for _tail in _tails:
        _final = await _tail({args})
        if _final is not None:
            break
    if _final is None and _changed:
        _final = llm_response
    _plugin._carry_model_state(callback_context, _response, _scope)
    return _final
"""

_TEMPLATES = {
    "before_model_callback": (_BEFORE_MODEL, _BEFORE_MODEL_RESULT),
    "after_model_callback": (_AFTER_MODEL, _CHAIN_RESULT),
}
_NOTIFIED = frozenset(
    {"close", "after_run_callback", "on_run_error_callback", "on_agent_error_callback"}
)
# callbacks with a callback_context whose middleware may ask for its model call's key
_KEYED = frozenset({"on_model_error_callback", "after_agent_callback"})
# what each callback's parameters are where the installed ADK lacks it (never called there)
_DECLARED: dict[str, tuple[str, ...]] = {
    "on_agent_error_callback": ("agent", "callback_context", "error"),
    "on_run_error_callback": ("invocation_context", "error"),
}


def _parameters(callback: str) -> tuple[str, ...]:
    """The keyword parameters of `callback` in the installed ADK's BasePlugin."""
    method = getattr(BasePlugin, callback, None)
    if method is None:
        return _DECLARED[callback]
    names = []
    for parameter in list(inspect.signature(method).parameters.values())[1:]:
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"BasePlugin.{callback} takes {parameter} (not a keyword)")
        names.append(parameter.name)
    return tuple(names)


def _runner_source(callback: str) -> str:
    params = _parameters(callback)
    if callback in _TEMPLATES:
        template, on_result = _TEMPLATES[callback]
    elif callback in CHAINED:
        template, on_result = _CHAIN, _CHAIN_RESULT
    elif callback in _NOTIFIED:
        template, on_result = _NOTIFY, _NOTIFY_RESULT
    else:
        template, on_result = _FIRST, _FIRST_RESULT
    if callback in ("before_model_callback", "after_model_callback"):
        scope = "_scope"
    elif callback in _KEYED:
        scope = "[_paths, _facts, callback_context, None]"
    else:
        scope = "_shared"
    named = _AGENT_OF.get(callback)
    agent = f"getattr({named[0]}, {named[1]!r}, None)" if named else "None"
    value = CHAINED.get(callback, "")
    args = ", ".join(f"{name}={name}" for name in params)
    loop = _MIDDLEWARE_LOOP.format(scope=scope, args=args, on_result=on_result)
    loop = loop.format(value=value)
    return template.format(
        name=callback,
        params=f"*, {', '.join(params)}" if params else "",
        agent=agent,
        loop=loop,
        args=args,
        value=value,
    )


@functools.cache
def _compiled_runner(callback: str) -> Any:
    """The code of `callback`'s runner, compiled once per process."""
    return compile(_runner_source(callback), f"<adk_fluent middleware runner {callback}>", "exec")


def _runner(
    plugin: MiddlewarePlugin,
    callback: str,
    static: tuple[_Call, ...] | None,
    select: _Selection,
    tails: tuple[Callable[..., Any], ...],
    **names: Any,
) -> Callable[..., Any]:
    # the runner's globals start with "_": no ADK parameter name can shadow them
    namespace = {
        "_plugin": plugin,
        "_static": static,
        "_select": select,
        "_tails": tails,
        "_current": _current,
        "_shared": [plugin.paths, plugin.facts, None, None],
        "_paths": plugin.paths,
        "_facts": plugin.facts,
        "_isawaitable": inspect.isawaitable,
        **{f"_{name}": value for name, value in names.items()},
    }
    exec(_compiled_runner(callback), namespace)  # noqa: S102 - our own source, made above
    run: Callable[..., Any] = namespace[callback]
    return run


def _delegate(callback: str) -> Callable[..., Any]:
    """The class's method for `callback`: the instance's runner (made in __init__, an instance
    attribute ADK finds first) is what runs; this says the class implements the callback."""

    async def method(self: MiddlewarePlugin, **kwargs: Any) -> Any:
        return await self.__dict__[callback](**kwargs)

    method.__name__ = method.__qualname__ = callback
    return method


class MiddlewarePlugin(BasePlugin):
    """Runs a sorted middleware stack from ADK's plugin callbacks (the module says in which
    order and with what rules), then the `tail` plugins (adk-fluent's own).

    Each callback's runner is made once, here: the methods it calls in order (chosen per agent
    when some middleware is scoped) and the tail plugins that implement it."""

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
        # callback -> [(method, agents it sees)], in the order they run
        self._stack: dict[str, list[tuple[Callable[..., Any], frozenset[str] | None]]] = {}
        for entry in self.entries:
            for callback in implemented_callbacks(entry.middleware):
                if callback in RUN_CALLBACKS and entry.agents is not None:
                    continue
                self._stack.setdefault(callback, []).append(
                    (getattr(entry.middleware, callback), entry.agents)
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
        for callback in PLUGIN_CALLBACK_VERSIONS:
            setattr(self, callback, self._runner(callback))

    @property
    def middleware(self) -> tuple[Any, ...]:
        """The middleware in the order they run."""
        return tuple(entry.middleware for entry in self.entries)

    def _runner(self, callback: str) -> Callable[..., Any]:
        """The coroutine function ADK calls for `callback` on this plugin."""
        stack = self._stack.get(callback, [])
        tails = self._tails[callback]
        remembers = callback == "before_model_callback" and "after_model_callback" in self._stack
        if not stack and len(tails) <= 1 and not remembers:
            # no middleware implements it: straight to the tail (or nowhere), no dispatch on
            # every agent, model and tool call for middleware that does not care
            return tails[0] if tails else _nothing
        static = (
            tuple(_call(fn) for fn, _ in stack)
            if all(agents is None for _, agents in stack)
            else None
        )
        return _runner(
            self,
            callback,
            static,
            _Selection(stack),
            tails,
            remembers=remembers,
            reply_tails=self._tails["after_model_callback"],
        )

    # -- ADK's plugin callbacks (all 15: an ADK without one never calls it) ----------------------
    before_run_callback = _delegate("before_run_callback")
    before_agent_callback = _delegate("before_agent_callback")
    after_agent_callback = _delegate("after_agent_callback")
    before_model_callback = _delegate("before_model_callback")
    after_model_callback = _delegate("after_model_callback")
    on_model_error_callback = _delegate("on_model_error_callback")
    before_tool_callback = _delegate("before_tool_callback")
    after_tool_callback = _delegate("after_tool_callback")
    on_tool_error_callback = _delegate("on_tool_error_callback")
    on_user_message_callback = _delegate("on_user_message_callback")
    on_event_callback = _delegate("on_event_callback")
    close = _delegate("close")
    after_run_callback = _delegate("after_run_callback")
    on_run_error_callback = _delegate("on_run_error_callback")
    on_agent_error_callback = _delegate("on_agent_error_callback")

    # Some ADK releases (1.25) give plugins' after_model_callback a fresh CallbackContext whose
    # actions belong to no event, so state a middleware writes there would be dropped; the
    # context of before_model holds the actions of the very event the reply becomes (2.x gives
    # after_model that same context). So the actions seen in before_model are kept per call, and
    # whatever after_model wrote elsewhere is moved into them: the write lands in the model
    # reply's own state_delta on every release.
    def _remember_model_actions(self, callback_context: Any, scope: _Scope) -> None:
        actions = event_actions_of(callback_context)
        if actions is None:
            return
        key = scope[3] = _call_key(callback_context)
        remember(self._model_actions, key, actions, _CALLS_REMEMBERED)

    def _carry_model_state(self, callback_context: Any, llm_response: Any, scope: _Scope) -> None:
        key = scope[3]
        if key is None:
            key = _call_key(callback_context)
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
