"""The engine: takes an IR tree and its BuildOptions and builds, runs, streams and rewinds it.

It owns the cache of compiled Apps and Runners, keyed by value: equal trees with equal options,
config, store and services share one compiled App (and one in-memory session store); objects
without value equality (a backend, a service instance) count by identity, and the cache holds
them so that identity is never reused while their entry lives.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass
from typing import Any

from adk_fluent.errors import BuildError, RunError, did_you_mean
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import (
    BuildOptions,
    ExecutionConfig,
    VisibilityMode,
    check_target,
    visibility_mode,
)
from adk_fluent.run.events import AgentEvent, final_text, first_error
from adk_fluent.run.stores import (
    ensure_session,
    is_session_service,
    ready,
    session_service_for,
    session_turn,
)

DEFAULT_USER = "user"
CACHED_APPS = 64  # compiled (App, Runner, session store) entries kept, least recently used out


@dataclass
class _Bound:
    """One tree compiled for one configuration: its App, Runner and session service."""

    app: Any
    runner: Any
    session_service: Any
    config: ExecutionConfig
    mode: VisibilityMode


class _ByIdentity:
    """A cache-key part for an object without value equality: equal only to itself, and kept
    alive by the key, so its id cannot be reused while the entry exists."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.value is self.value


def _key_part(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return _ByIdentity(value)
    return value


class Engine:
    """What the builders' execution methods call, with (IR tree, BuildOptions)."""

    def __init__(self, capacity: int = CACHED_APPS) -> None:
        self._bound: OrderedDict[tuple[Any, ...], _Bound] = OrderedDict()
        self._capacity = capacity

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
        from adk_fluent.adk.targets import resolve_target

        key = (
            _key_part(ir),
            options,
            _key_part(config),
            resolve_target(None, config),  # the default may differ (ADK_FLUENT_TARGET)
            _key_part(session_store),
            _key_part(backend),
            tuple(sorted((name, _key_part(value)) for name, value in services.items())),
        )
        bound = self._bound.get(key)
        if bound is not None:
            self._bound.move_to_end(key)
            return bound
        config = config or ExecutionConfig()
        services = dict(services)
        service = services.pop("session_service", None) or session_service_for(session_store)
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
        if len(self._bound) > self._capacity:
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
        only, so the compiled App (and the conversation) is the same either way."""
        message = _user_message(prompt)
        if any(part.inline_data or part.file_data for part in message.parts):
            # media a declared agent cannot read; a text prompt needs no check (nor its import)
            from adk_fluent.analysis.contracts.content import prompt_problem

            problem = prompt_problem(ir, message.parts)
            if problem is not None:
                raise problem
        _check_ids(user_id, session_id)
        _check_settings(config, backend, run_config, session_store, services)
        _check_streaming(streaming, run_config)
        return self._turn(
            (ir, options, config, session_store, backend, services),
            message,
            user_id,
            session_id,
            run_config,
            streaming,
        )

    async def _turn(
        self,
        binding: tuple[Node, BuildOptions, ExecutionConfig | None, Any, Any, dict[str, Any]],
        message: Any,
        user_id: str,
        session_id: str | None,
        run_config: Any,
        streaming: str | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
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
            # ADK's stream in a task of its own (adk/custom_agents/handoff.py): ADK opens tracing
            # context tokens inside its generator, and a caller that breaks out of `stream()`
            # would leave it to be closed later by the garbage collector in another context
            # ("created in a different Context"); in its own task it opens and closes in one.
            runner_events = bound.runner.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=message,
                run_config=_run_config(bound.config, streaming)
                if run_config is None
                else run_config,
            )
            events = handed_over([runner_events])
            async with aclosing(events):
                async for event in events:
                    shown = for_client(event, bound.mode)
                    if shown is not None:
                        yield AgentEvent.from_adk(shown)

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
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ask(ir, options, prompt, **settings))
        raise BuildError(
            "ask_sync() was called inside a running event loop",
            agent=ir.name,
            field="ask_sync",
            hint="use `await pipeline.ask(...)` there instead.",
        )

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
        _check_settings(config, backend, None, session_store, services)
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
        _check_settings(config, backend, None, session_store, services)
        bound = self._bind(ir, options, config, session_store, backend, services)
        service = bound.session_service
        await ready(service)
        async with session_turn(service, bound.app.name, user_id, session_id):
            await bound.runner.rewind_async(
                user_id=user_id,
                session_id=session_id,
                rewind_before_invocation_id=before_invocation_id,
            )


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
                    f"prompt[{index}] is a {type(part).__name__}; a prompt list holds text and "
                    "google.genai Parts only",
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


_SERVICES = ("session_service", "artifact_service", "memory_service", "credential_service")
_RUN_OPTIONS = (
    "user_id",
    "session_id",
    "config",
    "session_store",
    "backend",
    "run_config",
    "streaming",
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
    config: Any, backend: Any, run_config: Any, session_store: Any, services: dict[str, Any]
) -> None:
    """Every run option has the type it needs; unknown names get a did-you-mean."""
    _check_services(services)
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


def _check_services(services: dict[str, Any]) -> None:
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
            known = _RUN_OPTIONS + _SERVICES
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
                hint=f"pass an instance of a {kinds[name].__name__} subclass, or leave it out.",
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
