"""The engine: takes an IR tree and its BuildOptions and builds, runs, streams and rewinds it.

It keeps two tables, both keyed by value (`_value_key`):

* the compiled Apps and Runners (the CACHED_APPS most recently used): equal trees with equal
  options, config, backend and services share one App; what has no value equality or holds
  state of its own (a backend, middleware, a plugin or service object) counts by identity.
* the in-memory session stores (`_InMemoryStores`), keyed by the tree and the backend only, so
  a conversation continues across equal configs and outlives its App's eviction.

docs/sessions.md states the rule for users.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from types import MethodType
from typing import Any, Protocol

from adk_fluent.errors import BuildError, RunError, did_you_mean, with_article
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import (
    BuildOptions,
    ExecutionConfig,
    VisibilityMode,
    check_target,
    visibility_mode,
)
from adk_fluent.ir.state_keys import GATE_KEY_PREFIX, RESUME_KEY_PREFIX, key_problem
from adk_fluent.ir.values import storable_copy
from adk_fluent.run.events import AgentEvent, final_text, first_error
from adk_fluent.run.stores import (
    append_state_event,
    close_loop_stores,
    ensure_session,
    is_session_service,
    ready,
    session_service_for,
    session_turn,
    shared_session_service,
)

DEFAULT_USER = "user"
CACHED_APPS = 64  # compiled (App, Runner) entries kept, least recently used out


@dataclass
class _Bound:
    """One tree compiled for one configuration: its App, Runner and session service."""

    app: Any
    runner: Any
    session_service: Any
    config: ExecutionConfig
    mode: VisibilityMode


class Backend(Protocol):
    """What `backend=` takes: an object that hands each LLM agent, by name, the model it runs
    on instead of its own (`adk_fluent.testing.mock_backend`, `adk_fluent.replay`'s
    ReplayerBackend)."""

    def model_for(self, agent_name: str, /) -> Any:
        """The model the agent named `agent_name` runs on."""
        ...


# -- cache keys by value -----------------------------------------------------------------------
#
# A key is a value fingerprint: equal (==) inputs give equal keys even when they hold lists or
# dicts (which have no hash) or are distinct objects built the same way. What has no value
# equality, or holds state of its own, counts by identity: a backend and the scripted models
# in it (each with its own queue of replies), a model or tool object, middleware (a call log's
# records, a circuit breaker's counts), plugins, services. Such an object is "equal" only to
# itself; the key keeps it alive (or, in the session-store table, watches it die).


class _ByIdentity:
    """A key part for an object compared by identity: equal only to itself, and kept alive by
    the key, so its id cannot be reused while the key exists."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.value is self.value


class _WeakIdentity:
    """A key part compared by identity that does not keep its object alive: when the object
    dies, `on_death` runs (the table then drops the entries holding it: no equal key can be
    made again). An object that takes no weak reference is held like _ByIdentity."""

    __slots__ = ("_hash", "_ref", "__weakref__")

    def __init__(self, value: Any, on_death: Callable[[Any], None]) -> None:
        self._hash = id(value)
        try:
            self._ref: Callable[[], Any] = weakref.ref(value, on_death)
        except TypeError:
            self._ref = lambda: value

    def __hash__(self) -> int:
        return self._hash

    @property
    def dead(self) -> bool:
        return self._ref() is None

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, _WeakIdentity):
            return False
        mine = self._ref()
        return mine is not None and mine is other._ref()


_PLAIN = (str, int, float, bool, bytes, complex, type(None), type, Enum, range)


def _value_key(value: Any, by_identity: Callable[[Any], Any], *, conversation: bool = False) -> Any:
    """A hashable fingerprint of `value`, equal for equal values (see above).

    Trees (IR nodes) and frozen dataclasses count by their fields, tuples and lists by their
    items, dicts by their items in any order, sets by their members, google.genai data (a
    GenerateContentConfig, a Content) by its fields; a bound method by its function and the
    identity of its object. Other hashable values with an `==` of their own count as they are;
    everything else by identity (`by_identity` makes the part). `conversation`: leave out the
    middleware attached to nodes (it changes how a turn runs, not whose conversation it is).
    """
    seen: dict[int, Any] = {}  # a subtree shared in a tree is fingerprinted once

    def part(item: Any) -> Any:
        if isinstance(item, _PLAIN):
            return item
        known = seen.get(id(item))
        if known is not None:
            return known
        kind = type(item)
        made: Any
        if isinstance(item, Node):
            made = (
                kind,
                tuple(
                    (name, part(field_value))
                    for name, field_value in sorted(item.__dict__.items())
                    if not (conversation and name == "middleware")
                ),
            )
        elif isinstance(item, tuple | list):
            made = (kind, tuple(part(member) for member in item))
        elif isinstance(item, dict):
            made = (dict, frozenset((part(k), part(v)) for k, v in item.items()))
        elif isinstance(item, set | frozenset):
            made = (frozenset, frozenset(part(member) for member in item))
        elif is_dataclass(item) and kind.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            made = (
                kind,
                tuple((f.name, part(getattr(item, f.name))) for f in fields(item) if f.compare),
            )
        elif _is_genai_data(item):
            made = (kind, tuple((name, part(v)) for name, v in vars(item).items()))
        elif isinstance(item, MethodType):
            made = (MethodType, part(item.__func__), by_identity(item.__self__))
        elif kind.__eq__ is not object.__eq__ and _hashable(item):  # type: ignore[comparison-overlap]
            made = item
        else:
            made = by_identity(item)
        seen[id(item)] = made
        return made

    return part(value)


class _TreeKeys:
    """Fingerprints of trees, remembered by the tree object: a builder hands run() the same
    frozen tree every turn, so its walk is paid once, not per turn. Holds the last `capacity`
    trees alive (an id is never reused while its entry exists)."""

    def __init__(self, make: Callable[[Node], Any], capacity: int = 4 * CACHED_APPS) -> None:
        self._make = make
        self._keys: OrderedDict[int, tuple[Node, Any]] = OrderedDict()
        self._capacity = capacity

    def __call__(self, ir: Node) -> Any:
        known = self._keys.get(id(ir))
        if known is not None and known[0] is ir:
            self._keys.move_to_end(id(ir))
            return known[1]
        key = self._make(ir)
        self._keys[id(ir)] = (ir, key)
        while len(self._keys) > self._capacity:
            self._keys.popitem(last=False)
        return key


def _settings_key(settings: tuple[Any, ...]) -> Any:
    """`_value_key` of a turn's settings, without the walk when they hash: hashable values
    compare by their own `==` (ExecutionConfig and BuildOptions by value, a backend or a
    service by identity), which is what the walk would give them; it is the usual case."""
    try:
        hash(settings)
    except TypeError:  # a list or dict somewhere (middleware=[...], custom_metadata values)
        return ("walked", _value_key(settings, _ByIdentity))
    return ("hashed", settings)


def _is_genai_data(value: Any) -> bool:
    """google.genai's types are plain data (pydantic models without behaviour of their own)."""
    from pydantic import BaseModel

    return isinstance(value, BaseModel) and type(value).__module__.startswith("google.genai.")


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class _InMemoryStores:
    """The in-memory session stores of run() / stream(): one per conversation key, kept apart
    from the compiled Apps so that a conversation outlives its App's eviction from the cache.

    The key is the tree (without its middleware) and the backend: equal trees share a store,
    different trees never do (a session id such as "s1" in two pipelines is two
    conversations). The config, the options and the services choose how a turn runs, not the
    store (as with a database store, where the app name keeps apps apart). A store lives until
    the process ends, or until an object its key holds by identity (the backend, a model or
    tool object in the tree) is garbage: then no equal key can be made again, and it goes.
    """

    def __init__(self) -> None:
        self._services: dict[Any, Any] = {}
        self._watched_parts: dict[Any, tuple[_WeakIdentity, ...]] = {}
        self._some_died = False  # set by a weak reference's callback; swept at the next lookup
        # A tree's part of the key is made once per tree object (run() gets the same frozen
        # tree every turn), not walked again on every turn.
        self._tree_key = _TreeKeys(lambda ir: _value_key(ir, self._watch, conversation=True))

    def service_for(self, ir: Node, backend: Any) -> Any:
        self._drop_dead()
        key = (self._tree_key(ir), _value_key(backend, self._watch))
        service = self._services.get(key)
        if service is None:
            from google.adk.sessions import InMemorySessionService

            service = self._services[key] = InMemorySessionService()
            self._watched_parts[key] = tuple(_weak_parts(key))
        return service

    def __len__(self) -> int:
        self._drop_dead()
        return len(self._services)

    def _watch(self, value: Any) -> _WeakIdentity:
        return _WeakIdentity(value, self._noted_death)

    def _noted_death(self, _: Any) -> None:  # may run inside any allocation: only note it
        self._some_died = True

    def _drop_dead(self) -> None:
        if not self._some_died:
            return
        self._some_died = False
        for key, parts in list(self._watched_parts.items()):
            if any(part.dead for part in parts):
                del self._watched_parts[key]
                self._services.pop(key, None)


def _weak_parts(key: Any) -> list[_WeakIdentity]:
    """The identity parts inside a key (nested tuples and frozensets)."""
    found: list[_WeakIdentity] = []
    todo = [key]
    while todo:
        item = todo.pop()
        if isinstance(item, _WeakIdentity):
            found.append(item)
        elif isinstance(item, tuple | frozenset):
            todo.extend(item)
    return found


class Engine:
    """What the builders' execution methods call, with (IR tree, BuildOptions)."""

    def __init__(self, capacity: int = CACHED_APPS) -> None:
        self._bound: OrderedDict[Any, _Bound] = OrderedDict()
        self._capacity = capacity
        self._stores = _InMemoryStores()
        self._tree_key = _TreeKeys(lambda ir: _value_key(ir, _ByIdentity))

    def build(
        self, ir: Node, options: BuildOptions, backend: Any = None, target: Any = None
    ) -> Any:
        from adk_fluent.adk.targets import make_compiler, resolve_target

        checked = _checked(ir, options, backend, None)
        return make_compiler(checked, _model_for(backend), resolve_target(target)).compile(checked)

    def to_app(
        self,
        ir: Node,
        options: BuildOptions,
        config: ExecutionConfig | None = None,
        backend: Any = None,
        *,
        client_filters: bool = False,
        target: Any = None,
    ) -> Any:
        from adk_fluent.adk.app import build_app

        _check_config(config)
        mode = visibility_mode(options, config)
        return build_app(
            _checked(ir, options, backend, mode),
            _with_backend_middleware(config, backend),
            _model_for(backend),
            visibility_mode=mode,
            client_filters=client_filters,
            target=target,
        )

    def to_runner(
        self,
        ir: Node,
        options: BuildOptions,
        config: ExecutionConfig | None = None,
        *,
        session_service: Any = None,
        artifact_service: Any = None,
        memory_service: Any = None,
        credential_service: Any = None,
        session_store: Any = None,
        backend: Any = None,
        client_filters: bool = False,
        target: Any = None,
    ) -> Any:
        from google.adk.runners import Runner

        if target is not None:  # before any store is opened
            check_target(target)
        if session_service is None:
            session_service = session_service_for(session_store)
        return Runner(
            app=self.to_app(
                ir, options, config, backend, client_filters=client_filters, target=target
            ),
            session_service=session_service,
            artifact_service=artifact_service,
            memory_service=memory_service,
            credential_service=credential_service,
        )

    def _bind(
        self,
        ir: Node,
        options: BuildOptions,
        config: ExecutionConfig | None,
        session_store: Any,
        backend: Any,
        services: dict[str, Any],
    ) -> _Bound:
        """The compiled App and Runner for these inputs, from the cache when equal ones were
        compiled before; its session service is the store the inputs name (a service given,
        the one service per database URL, or the in-memory store of this conversation key)."""
        from adk_fluent.adk.targets import resolve_target

        services = {name: value for name, value in services.items() if value is not None}
        service = services.pop("session_service", None)
        if service is None:
            if session_store is None or session_store == "memory":
                service = self._stores.service_for(ir, backend)
            else:
                service = shared_session_service(session_store)
        settings = (
            options,
            config,
            resolve_target(None, config),  # the default may differ (ADK_FLUENT_TARGET)
            backend,
            tuple(sorted(services.items())),
        )
        key = (self._tree_key(ir), _settings_key(settings), _ByIdentity(service))
        bound = self._bound.get(key)
        if bound is not None:
            self._bound.move_to_end(key)
            return bound
        config = config or ExecutionConfig()
        # The engine filters what it streams itself, after the Runner stored each event whole.
        runner = self.to_runner(
            ir,
            options,
            config,
            session_service=service,
            backend=backend,
            client_filters=True,
            **services,
        )
        bound = _Bound(runner.app, runner, service, config, visibility_mode(options, config))
        self._bound[key] = bound
        while len(self._bound) > self._capacity:
            self._bound.popitem(last=False)
        return bound

    def stream(
        self,
        ir: Node,
        options: BuildOptions,
        prompt: Any,
        *,
        user_id: str = DEFAULT_USER,
        session_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        run_config: Any = None,
        streaming: str | None = None,
        **services: Any,
    ) -> AsyncIterator[AgentEvent]:
        """One turn's events as the client sees them. The inputs are checked here, when
        `stream()` is called, before anything is compiled or stored; the tree is compiled on
        the first iteration (api/running.py gives deep trees their recursion room there).

        `streaming="sse"` asks the models for partial replies, which reach the caller as they
        come (`AgentEvent.is_partial`); it overrides the config's `streaming_mode` for this turn
        only, so the compiled App (and the conversation) is the same either way.

        `state` goes with the user's message as its state delta (ADK's `state_delta`): stored
        with the message's event in every store, in effect before the first agent runs, and
        undone by a rewind to before this turn."""
        message = _user_message(prompt)
        if any(part.inline_data or part.file_data for part in message.parts):
            # media a declared agent cannot read; a text prompt needs no check (nor its import)
            from adk_fluent.analysis.contracts.content import prompt_problem

            problem = prompt_problem(ir, message.parts)
            if problem is not None:
                raise problem
        _check_ids(user_id, session_id)
        _check_settings(config, backend, run_config, session_store, services, _RUN_OPTIONS)
        _check_streaming(streaming, run_config)
        state_delta = _checked_state(state)
        return self._turn(
            (ir, options, config, session_store, backend, services),
            message,
            user_id,
            session_id,
            run_config,
            streaming,
            state_delta,
        )

    async def _turn(
        self,
        binding: tuple[Node, BuildOptions, ExecutionConfig | None, Any, Any, dict[str, Any]],
        message: Any,
        user_id: str,
        session_id: str | None,
        run_config: Any,
        streaming: str | None = None,
        state_delta: dict[str, Any] | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
        from adk_fluent.adk.compat import hide_adk_wrapper, runner_takes_state_delta
        from adk_fluent.adk.custom_agents.handoff import handed_over
        from adk_fluent.adk.event_visibility import for_client

        bound = self._bind(*binding)
        service = bound.session_service
        app_name = bound.app.name
        await ready(service)
        async with AsyncExitStack() as held:
            if session_id is None:  # a fresh id cannot exist yet: create without looking first
                session_id = _new_session_id()
                await ensure_session(service, app_name, user_id, session_id, fresh=True)
            else:  # one turn per session at a time (stores.session_turn says why)
                await held.enter_async_context(session_turn(service, app_name, user_id, session_id))
                await ensure_session(service, app_name, user_id, session_id)
            if state_delta and not runner_takes_state_delta():
                # the Runner would drop it (2.0.0): store it just before the turn instead
                await append_state_event(service, app_name, user_id, session_id, state_delta)
                state_delta = None
            # ADK's stream in a task of its own (adk/custom_agents/handoff.py): ADK opens tracing
            # context tokens inside its generator, and a caller that breaks out of `stream()`
            # would leave it to be closed later by the garbage collector in another context
            # ("created in a different Context"); in its own task it opens and closes in one.
            runner_events = bound.runner.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=message,
                state_delta=state_delta or None,
                run_config=_run_config(bound.config, streaming)
                if run_config is None
                else run_config,
            )
            events = handed_over([runner_events])
            async with aclosing(events):
                try:
                    async for event in events:
                        shown = for_client(event, bound.mode)
                        if shown is not None:
                            yield AgentEvent.from_adk(shown)
                except Exception as error:  # a tool's or model's own exception, as itself
                    hide_adk_wrapper(error)
                    raise

    async def run(
        self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any
    ) -> list[AgentEvent]:
        """One turn's events; an error event of a failed step is among them (docs/errors.md)."""
        return [event async for event in self.stream(ir, options, prompt, **settings)]

    async def ask(self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any) -> str:
        """The turn's final text; RunError when the turn produced an error event."""
        events = await self.run(ir, options, prompt, **settings)
        error = first_error(events)
        if error is not None:
            raise RunError(
                error.error_code or "ERROR", error.error_message or "(no message)", error.author
            )
        return final_text(events)

    def ask_sync(self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any) -> str:
        if _loop_running():
            raise BuildError(
                "ask_sync() was called inside a running event loop",
                agent=ir.name,
                field="ask_sync",
                hint="use `await pipeline.ask(...)` there instead.",
            )
        # Outside the `except` that found no loop: an error of the turn is raised alone, not
        # chained under "RuntimeError: no running event loop" (issue 36).
        return asyncio.run(self._ask_in_own_loop(ir, options, prompt, settings))

    async def _ask_in_own_loop(
        self, ir: Node, options: BuildOptions, prompt: Any, settings: dict[str, Any]
    ) -> str:
        """`ask()` in the loop ask_sync() made: the database stores opened in it are closed
        with it (their connections belong to it, and nothing can use them afterwards), and the
        compiled Apps bound to them leave the cache."""
        try:
            return await self.ask(ir, options, prompt, **settings)
        finally:
            closed = await close_loop_stores()
            for key in [k for k, bound in self._bound.items() if bound.session_service in closed]:
                del self._bound[key]

    async def get_session(
        self,
        ir: Node,
        options: BuildOptions,
        session_id: str,
        *,
        user_id: str = DEFAULT_USER,
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        **services: Any,
    ) -> Any:
        _check_ids(user_id, session_id, session_required=True)
        _check_settings(config, backend, None, session_store, services, _SESSION_OPTIONS)
        bound = self._bind(ir, options, config, session_store, backend, services)
        await ready(bound.session_service)
        return await bound.session_service.get_session(
            app_name=bound.app.name, user_id=user_id, session_id=session_id
        )

    async def rewind(
        self,
        ir: Node,
        options: BuildOptions,
        session_id: str,
        before_invocation_id: str,
        *,
        user_id: str = DEFAULT_USER,
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        **services: Any,
    ) -> None:
        _check_ids(user_id, session_id, session_required=True)
        _check_settings(config, backend, None, session_store, services, _SESSION_OPTIONS)
        bound = self._bind(ir, options, config, session_store, backend, services)
        service = bound.session_service
        await ready(service)
        async with session_turn(service, bound.app.name, user_id, session_id):
            await bound.runner.rewind_async(
                user_id=user_id,
                session_id=session_id,
                rewind_before_invocation_id=before_invocation_id,
            )


def _loop_running() -> bool:
    """Whether this thread is inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _user_message(prompt: Any) -> Any:
    """A prompt as ADK's user Content: text, a Content, or a list of parts (text, images, files)."""
    from google.genai import types

    if isinstance(prompt, str):
        if not prompt.strip():
            raise BuildError(
                "the prompt is empty",
                field="prompt",
                hint="send the user's words, e.g. pipeline.run('Paris please'); a model "
                "cannot answer an empty message.",
            )
        return types.Content(role="user", parts=[types.Part(text=prompt)])
    if isinstance(prompt, types.Content):
        if not prompt.parts:
            raise BuildError(
                "the prompt Content has no parts",
                field="prompt",
                hint="give it at least one part, e.g. types.Part(text='hello').",
            )
        return prompt
    if isinstance(prompt, list | tuple):
        if not prompt:
            raise BuildError(
                "the prompt is an empty list",
                field="prompt",
                hint="give at least one part: text or a google.genai Part.",
            )
        parts = []
        for index, part in enumerate(prompt):
            if isinstance(part, str):
                parts.append(types.Part(text=part))
            elif isinstance(part, types.Part):
                parts.append(part)
            else:
                raise BuildError(
                    f"prompt[{index}] is {with_article(type(part).__name__)}; a prompt list "
                    "holds text and google.genai Parts only",
                    field="prompt",
                    hint=f"convert it first, e.g. str(value), or "
                    f"types.Part.from_bytes(data=..., mime_type=...) for a file "
                    f"(prompt[{index}]).",
                )
        return types.Content(role="user", parts=parts)
    raise BuildError(
        f"a prompt must be text, a google.genai Content or a list of parts, "
        f"not {type(prompt).__name__}",
        field="prompt",
        hint="e.g. pipeline.run('Paris please') or a list of google.genai Parts.",
    )


MAX_ID_LENGTH = 128  # characters ADK's database schema holds in an id column


def _check_ids(user_id: Any, session_id: Any, *, session_required: bool = False) -> None:
    for field, value, example in (
        ("user_id", user_id, "user_id='alice' (the default is 'user')"),
        ("session_id", session_id, "session_id='chat-42', or leave it out for a new session"),
    ):
        if value is None and field == "session_id" and not session_required:
            continue
        if not isinstance(value, str):
            raise BuildError(
                f"{field} must be text, not {type(value).__name__}",
                field=field,
                hint=f"pass a non-empty string, e.g. {example}.",
            )
        if not value.strip():
            raise BuildError(
                f"{field} is empty",
                field=field,
                hint=f"pass a non-empty string, e.g. {example}.",
            )
        if len(value) > MAX_ID_LENGTH:
            raise BuildError(
                f"{field} is {len(value)} characters long; session stores hold up to "
                f"{MAX_ID_LENGTH}",
                field=field,
                hint="use a shorter id, e.g. a uuid4 hex or a hash of the long one.",
            )


_STATE_EXAMPLE = "e.g. state={'city': 'Paris', 'user:language': 'fr'}"


def _checked_state(state: Any) -> dict[str, Any] | None:
    """`run(state=...)`, checked before anything is stored: a mapping of usable state keys to
    JSON values, returned as a copy (tuples as lists: what a database store gives back)."""
    if state is None:
        return None
    if not isinstance(state, Mapping):
        raise BuildError(
            f"state must be a dict of state keys to values, not {type(state).__name__}",
            field="state",
            hint=f"{_STATE_EXAMPLE}.",
        )
    checked: dict[str, Any] = {}
    for key, value in state.items():
        problem = key_problem(key)
        if problem is not None:
            raise BuildError(
                f"state has the key {key!r}: {problem}",
                field="state",
                hint=f"state keys are non-empty names, {_STATE_EXAMPLE}.",
            )
        if key.startswith("temp:"):
            # temp: state lasts one invocation and is never stored; and ADK releases differ on
            # whether a caller's temp: keys reach the agents at all (1.25 drops them).
            raise BuildError(
                f"state has the key {key!r}: temp: keys are never stored, and not every ADK "
                "release shows a caller's temp: keys to the agents",
                field="state",
                hint=f"give it as a session key, state={{{key[len('temp:') :]!r}: ...}}, or set "
                "it inside the pipeline (S.set, a tool, a callback).",
            )
        if key.startswith((GATE_KEY_PREFIX, RESUME_KEY_PREFIX)):
            raise BuildError(
                f"state has the key {key!r}, which adk-fluent keeps for its gates",
                field="state",
                hint="choose another name; a gate's record is set by the gate itself.",
            )
        copied, unstorable = storable_copy(value)
        if unstorable is not None:
            raise BuildError(
                f"{unstorable.describe(key)} (session stores keep state as JSON)",
                field="state",
                hint=f"{unstorable.hint}.",
            )
        checked[key] = copied
    return checked


_SERVICES = ("session_service", "artifact_service", "memory_service", "credential_service")
# the keyword options of run() / stream() / ask() / ask_sync(), and of session() / rewind()
_SESSION_OPTIONS = ("user_id", "config", "session_store", "backend", *_SERVICES)
_RUN_OPTIONS = (
    "user_id",
    "session_id",
    "state",
    "config",
    "session_store",
    "backend",
    "run_config",
    "streaming",
    *_SERVICES,
)
STREAMING_MODES = ("none", "sse")


def _check_streaming(streaming: Any, run_config: Any) -> None:
    """`streaming=` is "sse" or "none" (or left out), and not given beside a run_config."""
    if streaming is None:
        return
    if streaming not in STREAMING_MODES:
        raise BuildError(
            f"streaming must be 'sse' or 'none', not {streaming!r}",
            field="streaming",
            hint=did_you_mean(str(streaming), STREAMING_MODES)
            or "streaming='sse' sends partial replies as the models produce them.",
        )
    if run_config is not None:
        raise BuildError(
            "both streaming and run_config were given",
            field="streaming",
            hint="set streaming_mode on the RunConfig you pass, or leave run_config out.",
        )


def _check_settings(
    config: Any,
    backend: Any,
    run_config: Any,
    session_store: Any,
    services: dict[str, Any],
    known: tuple[str, ...],
) -> None:
    """Every run option has the type it needs; unknown names get a did-you-mean among `known`."""
    _check_services(services, known)
    _check_config(config)
    if backend is not None and not callable(getattr(backend, "model_for", None)):
        raise BuildError(
            f"backend must be a test backend such as mock_backend(...), not "
            f"{type(backend).__name__}",
            field="backend",
            hint="from adk_fluent.testing import mock_backend; "
            "backend=mock_backend({'agent': 'reply'}).",
        )
    if run_config is not None:
        from google.adk.agents.run_config import RunConfig

        if not isinstance(run_config, RunConfig):
            raise BuildError(
                f"run_config must be ADK's RunConfig, not {type(run_config).__name__}",
                field="run_config",
                hint="from google.adk.agents.run_config import RunConfig; or set "
                "streaming and max_llm_calls on ExecutionConfig instead.",
            )
    if session_store is not None and services.get("session_service") is not None:
        raise BuildError(
            "both session_store and session_service were given",
            field="session_store",
            hint="give one: session_store='sqlite:///s.db' opens a store, "
            "session_service=... uses one you built.",
        )


def _check_config(config: Any) -> None:
    """`config` (of run(), to_app(), to_runner()) is None or an ExecutionConfig."""
    if config is not None and not isinstance(config, ExecutionConfig):
        raise BuildError(
            f"config must be an ExecutionConfig, not {type(config).__name__}",
            field="config",
            hint="e.g. config=ExecutionConfig(app_name='support', max_llm_calls=20).",
        )


def _check_services(services: dict[str, Any], known: tuple[str, ...]) -> None:
    from google.adk.artifacts import BaseArtifactService
    from google.adk.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )
    from google.adk.memory import BaseMemoryService

    kinds = {
        "artifact_service": BaseArtifactService,
        "memory_service": BaseMemoryService,
        "credential_service": BaseCredentialService,
    }
    for name, value in services.items():
        if name not in _SERVICES:
            raise BuildError(
                f"unknown run option {name!r}",
                field=name,
                hint=did_you_mean(name, known) or f"the options are: {', '.join(known)}.",
            )
        if value is None:
            continue
        if name == "session_service":
            if not is_session_service(value):
                raise BuildError(
                    f"session_service must be an ADK session service, not {type(value).__name__}",
                    field=name,
                    hint="e.g. InMemorySessionService(), or session_store='sqlite:///s.db'.",
                )
        elif not isinstance(value, kinds[name]):
            raise BuildError(
                f"{name} must be an ADK {kinds[name].__name__}, not {type(value).__name__}",
                field=name,
                hint=f"pass an instance of {with_article(kinds[name].__name__)} subclass, or "
                "leave it out.",
            )


def _run_config(config: ExecutionConfig, streaming: str | None = None) -> Any:
    from google.adk.agents.run_config import RunConfig, StreamingMode

    mode = streaming or config.streaming_mode
    settings: dict[str, Any] = {
        "streaming_mode": StreamingMode.SSE if mode == "sse" else StreamingMode.NONE
    }
    if config.max_llm_calls is not None:
        settings["max_llm_calls"] = config.max_llm_calls
    return RunConfig(**settings)


def _with_backend_middleware(config: ExecutionConfig | None, backend: Any) -> Any:
    """The config with the backend's own middleware first (a replaying backend answers tool
    calls from its recording through one); unchanged for a backend without any."""
    extra = tuple(getattr(backend, "middleware", None) or ()) if backend is not None else ()
    if not extra:
        return config
    from dataclasses import replace

    config = config or ExecutionConfig()
    return replace(config, middleware=(*extra, *config.middleware))


def _new_session_id() -> str:
    import uuid

    return f"session_{uuid.uuid4().hex[:12]}"


def _model_for(backend: Any) -> Any:
    return None if backend is None else backend.model_for


def _checked(ir: Node, options: BuildOptions, backend: Any, mode: VisibilityMode | None) -> Node:
    if backend is not None and hasattr(backend, "check_tree"):
        backend.check_tree(ir)
    if options.strict is not None:  # `.strict()`: contract errors refuse the build
        from adk_fluent.adk.compat import adk_version, behaviour
        from adk_fluent.analysis.contracts import enforce_strict

        enforce_strict(
            ir, options.strict, mode or options.visibility_mode, adk_version(), behaviour
        )
    return ir


ENGINE = Engine()
