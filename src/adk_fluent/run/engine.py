"""The engine: takes an IR tree and its BuildOptions and builds, runs, streams and rewinds it.

It keeps two tables, both keyed by value (`value_key`):

* the compiled Apps and Runners (the CACHED_APPS most recently used): equal trees with equal
  options, config, backend and services share one App; what has no value equality or holds
  state of its own (a backend, middleware, a plugin or service object) counts by identity.
* the in-memory session stores (`InMemoryStores`), keyed by the tree and the backend only, so
  a conversation continues across equal configs and outlives its App's eviction.

docs/sessions.md states the rule for users.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import AbstractContextManager, AsyncExitStack, aclosing, nullcontext, suppress
from dataclasses import dataclass
from typing import Any, Protocol

from adk_fluent.adk.event_visibility import AgentStates
from adk_fluent.errors import BuildError, RunError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import (
    BuildOptions,
    ExecutionConfig,
    VisibilityMode,
    check_target,
    visibility_mode,
)
from adk_fluent.run.cache_keys import (
    CACHED_APPS,
    ByIdentity,
    HashedKey,
    InMemoryStores,
    TreeKeys,
    settings_key,
    value_key,
)
from adk_fluent.run.events import AgentEvent, final_text, first_error
from adk_fluent.run.lifecycle import Lifecycle
from adk_fluent.run.stack_room import frames_needed, stack_room, tree_depth
from adk_fluent.run.stores import (
    append_state_event,
    close_loop_stores,
    ensure_session,
    ready,
    session_service_for,
    session_turn,
    shared_session_service,
)
from adk_fluent.run.turn_inputs import (
    RUN_OPTIONS,
    SESSION_OPTIONS,
    adk_run_config,
    check_config,
    check_ids,
    check_lifecycle,
    check_settings,
    check_streaming,
    checked_state,
    checked_tree,
    loop_running,
    model_for,
    new_session_id,
    user_message,
    with_backend_middleware,
)

DEFAULT_USER = "user"


@dataclass
class _Bound:
    """One tree compiled for one configuration: its App, Runner and session service."""

    app: Any
    runner: Any
    session_service: Any
    config: ExecutionConfig
    mode: VisibilityMode
    key: Any  # its key in the engine's table
    # an ADK 2.x Workflow root (the workflow target) and its annotations: no agent callbacks
    # report its start and end, so the turn's lifecycle events do (run/lifecycle.py)
    graph: tuple[str, dict[str, Any]] | None = None


class Backend(Protocol):
    """What `backend=` takes: an object that hands each LLM agent, by name, the model it runs
    on instead of its own (`adk_fluent.testing.mock_backend`, `adk_fluent.replay`'s
    ReplayerBackend)."""

    def model_for(self, agent_name: str, /) -> Any:
        """The model the agent named `agent_name` runs on."""
        ...


class Engine:
    """What the builders' execution methods call, with (IR tree, BuildOptions)."""

    def __init__(self, capacity: int = CACHED_APPS) -> None:
        self._bound: OrderedDict[Any, _Bound] = OrderedDict()
        self._capacity = capacity
        self._stores = InMemoryStores()
        self._tree_key = TreeKeys(lambda ir: HashedKey(value_key(ir, ByIdentity)))
        # the recursion limit ADK's run of a tree needs, walked once per tree, not per turn
        self._tree_frames = TreeKeys(lambda ir: frames_needed(tree_depth(ir)))
        # whether a tree has agent tools, whose runs' events stream() hands over as they come
        self._tree_tools = TreeKeys(lambda ir: any(node.attached for node in ir.walk()))
        # the last turn's inputs (by identity) and what they were bound to: a conversation's
        # turns hand the same objects every time, so their key is not worked out again
        self._last: tuple[tuple[Any, ...], dict[str, Any], _Bound] | None = None

    def build(
        self, ir: Node, options: BuildOptions, backend: Any = None, target: Any = None
    ) -> Any:
        from adk_fluent.adk.targets import make_compiler, resolve_target

        checked = checked_tree(ir, options, backend, None)
        return make_compiler(checked, model_for(backend), resolve_target(target)).compile(checked)

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

        check_config(config)
        mode = visibility_mode(options, config)
        return build_app(
            checked_tree(ir, options, backend, mode),
            with_backend_middleware(config, backend),
            model_for(backend),
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

    def session_service(
        self, ir: Node, backend: Any, session_store: Any, services: dict[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        """The session service a run of `ir` uses (the one given; in memory, this conversation
        key's own store; else the one service per database URL), and the other services
        given."""
        services = {name: value for name, value in services.items() if value is not None}
        service = services.pop("session_service", None)
        if service is None:
            if session_store is None or session_store == "memory":
                service = self._stores.service_for(ir, backend)
            else:
                service = shared_session_service(session_store)
        return service, services

    def _room(self, ir: Node) -> AbstractContextManager[None]:
        """Room on the stack for ADK's (and value_key's) recursion over `ir`, measured once per
        tree; nothing to do for a tree of ordinary depth."""
        frames = self._tree_frames(ir)
        return stack_room(frames) if frames else nullcontext()

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

        target = resolve_target(None, config)  # the default may differ (ADK_FLUENT_TARGET)
        inputs = (ir, options, config, session_store, backend, target)
        last = self._last
        if (
            last is not None
            and all(a is b for a, b in zip(last[0], inputs, strict=True))
            and last[1].keys() == services.keys()
            and all(last[1][name] is value for name, value in services.items())
            and session_store in (None, "memory")  # a database's service is one per loop
            and self._bound.get(last[2].key) is last[2]
        ):
            self._bound.move_to_end(last[2].key)
            return last[2]
        given = services
        service, services = self.session_service(ir, backend, session_store, services)
        settings = (options, config, target, backend, tuple(sorted(services.items())))
        key = (self._tree_key(ir), settings_key(settings), ByIdentity(service))
        bound = self._bound.get(key)
        if bound is not None:
            self._bound.move_to_end(key)
            self._last = (inputs, dict(given), bound)
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
        bound = _Bound(
            runner.app,
            runner,
            service,
            config,
            visibility_mode(options, config),
            key,
            _graph_root(runner.app.root_agent, ir),
        )
        self._bound[key] = bound
        self._last = (inputs, dict(given), bound)
        while len(self._bound) > self._capacity:
            self._bound.popitem(last=False)
        return bound

    def stream(
        self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any
    ) -> AsyncIterator[AgentEvent]:
        """One turn's events as the client sees them (`_begin` has the settings)."""
        return self._begin(ir, options, prompt, True, **settings)

    def _begin(
        self,
        ir: Node,
        options: BuildOptions,
        prompt: Any,
        handoff: bool,
        /,
        *,
        user_id: str = DEFAULT_USER,
        session_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        run_config: Any = None,
        streaming: str | None = None,
        lifecycle: bool = False,
        **services: Any,
    ) -> AsyncIterator[AgentEvent]:
        """One turn's events as the client sees them. The inputs are checked here, when
        `stream()` is called, before anything is compiled or stored; the tree is compiled on
        the first iteration (run/stack_room.py gives deep trees their recursion room there).

        `handoff` is False when the caller takes every event (run, ask): ADK's stream then runs
        in the caller's task, without the hand-over `_turn` otherwise puts around it.

        `streaming="sse"` asks the models for partial replies, which reach the caller as they
        come (`AgentEvent.is_partial`); it overrides the config's `streaming_mode` for this turn
        only, so the compiled App (and the conversation) is the same either way.

        `state` goes with the user's message as its state delta (ADK's `state_delta`): stored
        with the message's event in every store, in effect before the first agent runs, and
        undone by a rewind to before this turn.

        `lifecycle=True` adds an event when each agent starts and ends (`AgentEvent.agent_state`,
        run/lifecycle.py), in the client stream only.

        The events of agent tools' runs come too, each before its call's result
        (`AgentEvent.parent_call_id`; run/lifecycle.py), never stored; in filtered mode only
        those `.show()` made user-facing."""
        message = user_message(prompt)
        if any(part.inline_data or part.file_data for part in message.parts):
            # media a declared agent cannot read; a text prompt needs no check (nor its import)
            from adk_fluent.analysis.contracts.content import prompt_problem

            problem = prompt_problem(ir, message.parts)
            if problem is not None:
                raise problem
        check_ids(user_id, session_id)
        check_settings(config, backend, run_config, session_store, services, RUN_OPTIONS)
        check_streaming(streaming, run_config)
        if config is not None and config.streaming_mode == "bidi" and streaming is None:
            raise BuildError(
                "ExecutionConfig(streaming_mode='bidi') is for live sessions; run(), stream() "
                "and ask() take one message and answer it",
                agent=ir.name,
                field="streaming_mode",
                hint="open a live session: async with pipeline.live(config=config) as live: ...; "
                "or give this turn streaming='sse' (or 'none').",
            )
        check_lifecycle(lifecycle)
        state_delta = checked_state(state)
        return self._turn(
            (ir, options, config, session_store, backend, services),
            message,
            user_id,
            session_id,
            run_config,
            streaming,
            state_delta,
            handoff,
            lifecycle,
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
        handoff: bool = True,
        lifecycle: bool = False,
    ) -> AsyncGenerator[AgentEvent, None]:
        from adk_fluent.adk.compat import hide_adk_wrapper, runner_takes_state_delta
        from adk_fluent.adk.custom_agents.handoff import handed_over
        from adk_fluent.adk.event_visibility import AGENT_STATES, TOOL_CALL, for_client
        from adk_fluent.adk.resources import TURN_INVOCATIONS, end_invocations

        async with AsyncExitStack() as held:
            held.enter_context(self._room(binding[0]))  # ADK runs nested agents recursively
            bound = self._bind(*binding)
            service = bound.session_service
            app_name = bound.app.name
            await ready(service)
            if session_id is None:  # a fresh id cannot exist yet: create without looking first
                session_id = new_session_id()
                await ensure_session(service, app_name, user_id, session_id, fresh=True)
            else:  # one turn per session at a time (stores.session_turn says why)
                await held.enter_async_context(session_turn(service, app_name, user_id, session_id))
                await ensure_session(service, app_name, user_id, session_id)
            if state_delta and not runner_takes_state_delta():
                # the Runner would drop it (2.0.0): store it just before the turn instead
                await append_state_event(service, app_name, user_id, session_id, state_delta)
                state_delta = None
            # ADK's stream in a task of its own (adk/custom_agents/handoff.py) when the caller
            # may break out: ADK opens tracing context tokens inside its generator, and a caller
            # that breaks out of `stream()` would leave it to be closed later by the garbage
            # collector in another context ("created in a different Context"); in its own task
            # it opens and closes in one. run() and ask() take every event: no task needed.
            runner_events = bound.runner.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=message,
                state_delta=state_delta or None,
                run_config=adk_run_config(bound.config, streaming)
                if run_config is None
                else run_config,
            )
            # the plugin's notes: agent tools' events always, agents' starts and ends if asked
            agents = Lifecycle(bound.graph if lifecycle else None, bound.mode, lifecycle=lifecycle)
            graph = lifecycle and bound.graph is not None
            # ADK runs the agents in copies of this context (and its tasks copy it when they
            # start): this turn's notes go to this turn, never to an outer turn's, and a turn
            # run inside an agent tool's call is a turn of its own
            token = AGENT_STATES.set(agents.states)
            used: set[str] = set()  # invocations whose per_invocation resources this turn made
            used_token = TURN_INVOCATIONS.set(used)
            call_token = TOOL_CALL.set(None) if TOOL_CALL.get() is not None else None
            try:
                limit = bound.config.timeout_seconds
                deadline = None if limit is None else asyncio.get_running_loop().time() + limit
                if handoff or deadline is not None:  # a deadline stops ADK's task, not ours
                    events = handed_over([runner_events], deadline=deadline)
                else:
                    events = runner_events
                if handoff and self._tree_tools(binding[0]):
                    events = _waking(events, agents.states)
                last: Any = None  # the turn's last event, for a TIMEOUT event's invocation
                async with aclosing(events):
                    try:
                        async for event in _until_deadline(events):
                            if event is _TIMED_OUT:
                                for note in agents.pending():
                                    yield note
                                yield await _timed_out(bound, user_id, session_id, limit, last)
                                break
                            if event is None:  # notes of an agent tool's run, while it runs
                                for note in agents.pending():
                                    yield note
                                continue
                            if agents.states.notes:
                                for note in agents.pending():
                                    yield note
                            last = event
                            if graph:
                                agents.transferred(event)
                            shown = for_client(event, bound.mode)
                            if shown is not None:
                                yield AgentEvent.from_adk(shown)
                    except Exception as error:  # a tool's or model's own exception, as itself
                        hide_adk_wrapper(error)
                        raise
                for note in agents.close():
                    yield note
            finally:
                if used:  # however the turn ended: finished, failed, cancelled, timed out
                    await end_invocations(used)
                with suppress(ValueError, RuntimeError):
                    TURN_INVOCATIONS.reset(used_token)
                agents.states.open = False
                # closed in another context (a stream left to the garbage collector): that
                # context's value is not this generator's to reset
                with suppress(ValueError, RuntimeError):
                    AGENT_STATES.reset(token)
                if call_token is not None:
                    with suppress(ValueError, RuntimeError):
                        TOOL_CALL.reset(call_token)

    async def run(
        self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any
    ) -> list[AgentEvent]:
        """One turn's events; an error event of a failed step is among them (docs/errors.md)."""
        return [event async for event in self._begin(ir, options, prompt, False, **settings)]

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
        if loop_running():
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
        check_ids(user_id, session_id, session_required=True)
        check_settings(config, backend, None, session_store, services, SESSION_OPTIONS)
        with self._room(ir):  # a tree's fingerprint recurses
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
        check_ids(user_id, session_id, session_required=True)
        check_settings(config, backend, None, session_store, services, SESSION_OPTIONS)
        with self._room(ir):  # a tree's fingerprint recurses, and so may ADK's rewind
            bound = self._bind(ir, options, config, session_store, backend, services)
            service = bound.session_service
            await ready(service)
            async with session_turn(service, bound.app.name, user_id, session_id):
                await bound.runner.rewind_async(
                    user_id=user_id,
                    session_id=session_id,
                    rewind_before_invocation_id=before_invocation_id,
                )


async def _waking(
    events: AsyncGenerator[Any, None], states: AgentStates
) -> AsyncGenerator[Any, None]:
    """The handed-over Runner's events, and None whenever the plugin noted something inside an
    agent tool's run while the Runner yields nothing (it yields the call's result only when the
    tool is done): stream() hands those notes over as they come, not all at once after the
    call. The next event is asked for only when the caller asks, as without this."""
    wake = asyncio.Event()
    states.wake = wake.set
    step: asyncio.Future[Any] | None = None
    try:
        async with aclosing(events):
            try:
                while True:
                    step = asyncio.ensure_future(anext(events))
                    while not step.done():
                        woken = asyncio.ensure_future(wake.wait())
                        await asyncio.wait((step, woken), return_when=asyncio.FIRST_COMPLETED)
                        woken.cancel()
                        if wake.is_set():
                            wake.clear()
                            yield None
                    try:
                        event = step.result()
                    except StopAsyncIteration:
                        return
                    step = None
                    wake.clear()  # the caller takes every note before this event
                    yield event
            finally:
                # left while the next event is awaited (the caller broke out during a tool's
                # run): that wait ends first, then the stream is closed
                if step is not None and not step.done():
                    step.cancel()
                    with suppress(BaseException):
                        await step
    finally:
        states.wake = None


_TIMED_OUT = object()  # _until_deadline's last item when the turn's deadline passed


async def _until_deadline(events: AsyncGenerator[Any, None]) -> AsyncGenerator[Any, None]:
    """The events, then _TIMED_OUT if handed_over's deadline passed (its tasks are stopped)."""
    from adk_fluent.adk.custom_agents.handoff import DeadlinePassed

    try:
        async for event in events:
            yield event
    except DeadlinePassed:
        yield _TIMED_OUT


async def _timed_out(
    bound: Any, user_id: str, session_id: str, limit: float | None, last: Any
) -> AgentEvent:
    """The TIMEOUT event a turn past ExecutionConfig.timeout_seconds ends with, stored after the
    events the turn completed (an event ADK stored is whole: what was half done is not)."""
    from google.adk.events.event import Event

    event = Event(
        author=bound.app.root_agent.name,
        invocation_id=getattr(last, "invocation_id", None) or "",
        error_code="TIMEOUT",
        error_message=f"the turn did not finish within {limit or 0:g} s "
        "(ExecutionConfig.timeout_seconds) and was stopped after its last complete event",
    )
    session = await bound.session_service.get_session(
        app_name=bound.app.name, user_id=user_id, session_id=session_id
    )
    if session is not None:
        await bound.session_service.append_event(session, event)
    return AgentEvent.from_adk(event)


def _graph_root(root_agent: Any, ir: Node) -> tuple[str, dict[str, Any]] | None:
    """The root's name and annotations when it is an ADK 2.x Workflow (which gets no agent
    callbacks); None for an agent."""
    from google.adk.agents import BaseAgent

    if isinstance(root_agent, BaseAgent):
        return None
    from adk_fluent.adk.event_visibility import visibility_metadata
    from adk_fluent.analysis.visibility import infer_visibility_table

    return root_agent.name, visibility_metadata(infer_visibility_table(ir)[ir.name])


ENGINE = Engine()
