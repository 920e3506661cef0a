"""Running expressions: build, to_app, to_runner, run / stream / ask / ask_sync, sessions, rewind.

Importing this module registers the engine with the builders (see builder_core.hooks).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from .builder_core import BuilderBase, hooks
from .config import ExecutionConfig
from .errors import BuildError
from .events import AgentEvent, final_text
from .visibility import client_filters, should_hide

DEFAULT_USER = "user"
_CACHED_RUNNERS = 8  # per builder value: compiled App + Runner + session service


_opened_stores: list[Any] = []  # database session services created from a URL by adk-fluent


async def close_session_stores() -> None:
    """Close the database connections of session stores adk-fluent opened from URLs
    (`session_store="sqlite:///..."`): call it when your app shuts down."""
    while _opened_stores:
        engine = getattr(_opened_stores.pop(), "db_engine", None)
        if engine is not None:
            await engine.dispose()


def session_service_for(store: Any) -> Any:
    """A session service from a store spec: None/'memory', 'sqlite:///file.db', any DB URL, or a service."""
    if store is None or store == "memory":
        from google.adk.sessions import InMemorySessionService

        return InMemorySessionService()
    if isinstance(store, str):
        url = store
        if url.startswith("sqlite:///"):
            url = "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
        try:
            from google.adk.sessions.database_session_service import DatabaseSessionService
        except ImportError as error:
            raise BuildError(
                f"session_store={store!r} needs ADK's DatabaseSessionService, which failed to import ({error})",
                field="session_store",
                hint="install the database extra: pip install 'adk-fluent[db]'.",
            ) from None
        service = DatabaseSessionService(db_url=url)
        _opened_stores.append(service)
        return service
    if hasattr(store, "append_event") and hasattr(store, "get_session"):
        return store
    raise BuildError(
        f"unsupported session_store {store!r}",
        field="session_store",
        hint="use 'memory', 'sqlite:///path.db', a database URL, or an ADK session service.",
    )


@dataclass
class _Bound:
    """One builder value compiled for one configuration: its App, Runner and session service."""

    app: Any
    runner: Any
    session_service: Any
    config: ExecutionConfig


class Engine:
    """What the builders' execution methods call."""

    def build(self, builder: BuilderBase, backend: Any = None) -> Any:
        from .backend import compile_tree

        return compile_tree(_checked(builder, backend), _model_for(backend))

    def to_app(
        self, builder: BuilderBase, config: ExecutionConfig | None = None, backend: Any = None
    ) -> Any:
        from .backend import build_app

        return build_app(
            _checked(builder, backend, config.visibility if config else None),
            config,
            _model_for(backend),
            visibility_mode=builder._meta.get("visibility_mode"),
        )

    def to_runner(
        self,
        builder: BuilderBase,
        config: ExecutionConfig | None = None,
        *,
        session_service: Any = None,
        artifact_service: Any = None,
        memory_service: Any = None,
        credential_service: Any = None,
        session_store: Any = None,
        backend: Any = None,
    ) -> Any:
        from google.adk.runners import Runner

        if session_service is None:
            session_service = session_service_for(session_store)
        return Runner(
            app=self.to_app(builder, config, backend),
            session_service=session_service,
            artifact_service=artifact_service,
            memory_service=memory_service,
            credential_service=credential_service,
        )

    def _bound(
        self,
        builder: BuilderBase,
        config: ExecutionConfig | None,
        session_store: Any,
        backend: Any,
        services: dict[str, Any],
    ) -> _Bound:
        # Keyed by the identity of the objects passed in; each entry holds those objects, so an
        # id can never be reused by a new object while its entry exists. A few entries suffice.
        cache: dict[Any, tuple[_Bound, tuple[Any, ...]]] = builder.__dict__.setdefault("_cache", {})
        held = (config, session_store, backend, *services.values())
        key = (
            id(config),
            _store_key(session_store),
            id(backend),
            tuple(sorted((k, id(v)) for k, v in services.items())),
        )
        entry = cache.get(key)
        bound = entry[0] if entry is not None else None
        if bound is None:
            config = config or ExecutionConfig()
            service = services.pop("session_service", None) or session_service_for(session_store)
            runner = self.to_runner(
                builder, config, session_service=service, backend=backend, **services
            )
            bound = _Bound(runner.app, runner, service, config)
            if len(cache) >= _CACHED_RUNNERS:
                cache.pop(next(iter(cache)))
            cache[key] = (bound, held)
        return bound

    async def _ensure_session(self, bound: _Bound, user_id: str, session_id: str) -> None:
        service = bound.session_service
        existing = await service.get_session(
            app_name=bound.app.name, user_id=user_id, session_id=session_id
        )
        if existing is None:
            await service.create_session(
                app_name=bound.app.name, user_id=user_id, session_id=session_id
            )

    async def stream(
        self,
        builder: BuilderBase,
        prompt: str,
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

        bound = self._bound(builder, config, session_store, backend, services)
        if session_id is None:  # a fresh id cannot exist yet: create without looking first
            session_id = _new_session_id()
            await bound.session_service.create_session(
                app_name=bound.app.name, user_id=user_id, session_id=session_id
            )
        else:
            await self._ensure_session(bound, user_id, session_id)
        if run_config is None:
            options: dict[str, Any] = {
                "streaming_mode": StreamingMode.SSE
                if bound.config.streaming_mode == "sse"
                else StreamingMode.NONE
            }
            if bound.config.max_llm_calls is not None:
                options["max_llm_calls"] = bound.config.max_llm_calls
            run_config = RunConfig(**options)
        message = _user_message(prompt)
        mode = _visibility_mode(bound.app)
        token = client_filters.set(True)  # we filter below, after the Runner stored each event
        try:
            async for event in bound.runner.run_async(
                user_id=user_id, session_id=session_id, new_message=message, run_config=run_config
            ):
                shown = _for_client(event, mode)
                if shown is not None:
                    yield AgentEvent.from_adk(shown)
        finally:
            client_filters.reset(token)

    async def run(self, builder: BuilderBase, prompt: str, **options: Any) -> list[AgentEvent]:
        return [event async for event in self.stream(builder, prompt, **options)]

    async def ask(self, builder: BuilderBase, prompt: str, **options: Any) -> str:
        return final_text(await self.run(builder, prompt, **options))

    def ask_sync(self, builder: BuilderBase, prompt: str, **options: Any) -> str:
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ask(builder, prompt, **options))
        raise BuildError(
            "ask_sync() was called inside a running event loop",
            agent=builder.name,
            hint="use `await pipeline.ask(...)` there instead.",
        )

    async def get_session(
        self,
        builder: BuilderBase,
        session_id: str,
        *,
        user_id: str = DEFAULT_USER,
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        **services: Any,
    ) -> Any:
        bound = self._bound(builder, config, session_store, backend, services)
        return await bound.session_service.get_session(
            app_name=bound.app.name, user_id=user_id, session_id=session_id
        )

    async def rewind(
        self,
        builder: BuilderBase,
        session_id: str,
        before_invocation_id: str,
        *,
        user_id: str = DEFAULT_USER,
        config: ExecutionConfig | None = None,
        session_store: Any = None,
        backend: Any = None,
        **services: Any,
    ) -> None:
        bound = self._bound(builder, config, session_store, backend, services)
        await bound.runner.rewind_async(
            user_id=user_id, session_id=session_id, rewind_before_invocation_id=before_invocation_id
        )

    def to_mermaid(self, builder: BuilderBase) -> str:
        from .viz import to_mermaid

        return to_mermaid(builder.to_ir())


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
    )


def _visibility_mode(app: Any) -> str:
    for plugin in app.plugins:
        if getattr(plugin, "name", None) == "adk_fluent_visibility":
            return str(plugin.mode)
    return "annotated"


def _for_client(event: Any, mode: str) -> Any:
    """The event as the client may see it: internal text removed in filtered mode (the stored
    event keeps it); an event left with nothing to say is not sent at all."""
    visibility = (event.custom_metadata or {}).get("adk_fluent.visibility", "user")
    if not should_hide(event, visibility, mode):
        return event
    actions = event.actions
    if actions is None or not (
        actions.state_delta
        or actions.artifact_delta
        or actions.transfer_to_agent
        or actions.escalate
    ):
        return None
    return event.model_copy(update={"content": None})


def _new_session_id() -> str:
    import uuid

    return f"session_{uuid.uuid4().hex[:12]}"


def _store_key(store: Any) -> Any:
    return store if store is None or isinstance(store, str) else id(store)


def _model_for(backend: Any) -> Any:
    return None if backend is None else backend.model_for


def _checked(builder: BuilderBase, backend: Any, visibility: str | None = None) -> Any:
    ir = builder.to_ir()
    if backend is not None and hasattr(backend, "check_tree"):
        backend.check_tree(ir)
    strict = builder._meta.get("strict")
    if strict:  # `.strict()`: contract errors refuse the build (the checker loads only then)
        from .contracts import enforce_strict

        enforce_strict(ir, strict, visibility or builder._meta.get("visibility_mode"))
    return ir


hooks.engine = Engine()
