"""The engine: takes an IR tree and its BuildOptions and builds, runs, streams and rewinds it.

It owns the cache of compiled Apps and Runners, keyed by value: equal trees with equal options,
config, store and services share one compiled App (and one in-memory session store); objects
without value equality (a backend, a service instance) count by identity, and the cache holds
them so that identity is never reused while their entry lives.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, ExecutionConfig, VisibilityMode, visibility_mode
from adk_fluent.run.events import AgentEvent, final_text
from adk_fluent.run.stores import session_service_for

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

    def build(self, ir: Node, options: BuildOptions, backend: Any = None) -> Any:
        from adk_fluent.adk.compile import compile_tree

        return compile_tree(_checked(ir, options, backend, None), _model_for(backend))

    def to_app(
        self,
        ir: Node,
        options: BuildOptions,
        config: ExecutionConfig | None = None,
        backend: Any = None,
        *,
        client_filters: bool = False,
    ) -> Any:
        from adk_fluent.adk.app import build_app

        mode = visibility_mode(options, config)
        return build_app(
            _checked(ir, options, backend, mode),
            config,
            _model_for(backend),
            visibility_mode=mode,
            client_filters=client_filters,
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
    ) -> Any:
        from google.adk.runners import Runner

        if session_service is None:
            session_service = session_service_for(session_store)
        return Runner(
            app=self.to_app(ir, options, config, backend, client_filters=client_filters),
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
        key = (
            _key_part(ir),
            options,
            _key_part(config),
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

    async def stream(
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
        **services: Any,
    ) -> AsyncIterator[AgentEvent]:
        from google.adk.agents.run_config import RunConfig, StreamingMode

        from adk_fluent.adk.event_visibility import for_client

        bound = self._bind(ir, options, config, session_store, backend, services)
        service = bound.session_service
        if session_id is None:  # a fresh id cannot exist yet: create without looking first
            session_id = _new_session_id()
            await service.create_session(
                app_name=bound.app.name, user_id=user_id, session_id=session_id
            )
        elif (
            await service.get_session(
                app_name=bound.app.name, user_id=user_id, session_id=session_id
            )
            is None
        ):
            await service.create_session(
                app_name=bound.app.name, user_id=user_id, session_id=session_id
            )
        if run_config is None:
            settings: dict[str, Any] = {
                "streaming_mode": StreamingMode.SSE
                if bound.config.streaming_mode == "sse"
                else StreamingMode.NONE
            }
            if bound.config.max_llm_calls is not None:
                settings["max_llm_calls"] = bound.config.max_llm_calls
            run_config = RunConfig(**settings)
        async for event in bound.runner.run_async(
            user_id=user_id,
            session_id=session_id,
            new_message=_user_message(prompt),
            run_config=run_config,
        ):
            shown = for_client(event, bound.mode)
            if shown is not None:
                yield AgentEvent.from_adk(shown)

    async def run(
        self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any
    ) -> list[AgentEvent]:
        return [event async for event in self.stream(ir, options, prompt, **settings)]

    async def ask(self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any) -> str:
        return final_text(await self.run(ir, options, prompt, **settings))

    def ask_sync(self, ir: Node, options: BuildOptions, prompt: Any, **settings: Any) -> str:
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ask(ir, options, prompt, **settings))
        raise BuildError(
            "ask_sync() was called inside a running event loop",
            agent=ir.name,
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
        bound = self._bind(ir, options, config, session_store, backend, services)
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
        bound = self._bind(ir, options, config, session_store, backend, services)
        await bound.runner.rewind_async(
            user_id=user_id, session_id=session_id, rewind_before_invocation_id=before_invocation_id
        )


def _user_message(prompt: Any) -> Any:
    """A prompt as ADK's user Content: text, a Content, or a list of parts (text, images, files)."""
    from google.genai import types

    if isinstance(prompt, str):
        return types.Content(role="user", parts=[types.Part(text=prompt)])
    if isinstance(prompt, types.Content):
        return prompt
    if isinstance(prompt, list | tuple):
        parts = [types.Part(text=p) if isinstance(p, str) else p for p in prompt]
        return types.Content(role="user", parts=parts)
    raise BuildError(
        f"a prompt must be text, a google.genai Content or a list of parts, not {type(prompt).__name__}",
        field="prompt",
        hint="e.g. pipeline.run('Paris please') or a list of google.genai Parts.",
    )


def _new_session_id() -> str:
    import uuid

    return f"session_{uuid.uuid4().hex[:12]}"


def _model_for(backend: Any) -> Any:
    return None if backend is None else backend.model_for


def _checked(ir: Node, options: BuildOptions, backend: Any, mode: VisibilityMode | None) -> Node:
    if backend is not None and hasattr(backend, "check_tree"):
        backend.check_tree(ir)
    if options.strict is not None:  # `.strict()`: contract errors refuse the build
        from adk_fluent.adk.compat import adk_version
        from adk_fluent.analysis.contracts import enforce_strict

        enforce_strict(ir, options.strict, mode or options.visibility_mode, adk_version())
    return ir


ENGINE = Engine()
