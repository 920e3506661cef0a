"""Live (bidirectional) sessions: `pipeline.live(...)` over ADK's `Runner.run_live`.

    async with pipeline.live(session_id="call-1", modalities=("AUDIO",)) as live:
        await live.send("What's the weather in Paris?")
        async for event in live.until_turn_complete():
            play(event.media)                     # audio parts; event.transcription, ...
        live.send_audio(pcm_chunk)                 # 16 kHz 16-bit PCM by default
        live.activity_end()

ADK's run_live streams one model connection per agent and answers as the model speaks: text
chunks, audio, transcriptions, tool calls and their results, an interruption, the end of a
turn. A live session sends the user's text, audio and activity signals through ADK's
LiveRequestQueue and hands back every event as an AgentEvent, filtered for the client as run()
filters (visibility); what the store keeps is what ADK stores. The session holds its session
id while open, so a run() of the same session waits for it. Which trees can run live is
adk/live.py's question, asked when `live()` is called.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from adk_fluent.arguments import checked_choice, checked_instance
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, ExecutionConfig, visibility_mode
from adk_fluent.run.events import AgentEvent
from adk_fluent.run.stores import ensure_session, ready, session_turn
from adk_fluent.run.turn_inputs import (
    SESSION_OPTIONS,
    check_ids,
    check_settings,
    new_session_id,
    user_message,
)

MODALITIES = ("TEXT", "AUDIO")
# live()'s keyword options (a misspelt one gets a did-you-mean)
LIVE_OPTIONS = (*SESSION_OPTIONS, "session_id", "run_config", "modalities")
_CLOSED = object()  # the end of the event stream
_DRAIN_SECONDS = 1.0  # after close(): what the model still sends is taken this long


class LiveSession:
    """One live session (`pipeline.live(...)`): send with `send` / `send_audio` /
    `activity_start` / `activity_end`, receive by iterating (every event until closed) or with
    `until_turn_complete()`. Use it as an async context manager: leaving closes the stream,
    ends ADK's run and frees the session for other runs."""

    def __init__(
        self,
        runner: Any,
        mode: str,
        user_id: str,
        session_id: str | None,
        run_config: Any,
    ) -> None:
        self._runner, self._mode = runner, mode
        self.user_id, self.session_id = user_id, session_id
        self._run_config = run_config
        self._queue: Any = None
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._held = contextlib.AsyncExitStack()
        self._closed = False

    async def __aenter__(self) -> LiveSession:
        from google.adk.agents.live_request_queue import LiveRequestQueue

        runner = self._runner
        service, app_name = runner.session_service, runner.app_name
        await ready(service)
        if self.session_id is None:
            self.session_id = new_session_id()
            await ensure_session(service, app_name, self.user_id, self.session_id, fresh=True)
        else:  # one run of a session at a time, live or not
            await self._held.enter_async_context(
                session_turn(service, app_name, self.user_id, self.session_id)
            )
            await ensure_session(service, app_name, self.user_id, self.session_id)
        self._queue = LiveRequestQueue()
        self._task = asyncio.create_task(self._pump(), name=f"adk-fluent live {app_name}")
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def _pump(self) -> None:
        """ADK's live events, filtered for the client, onto the session's queue."""
        from adk_fluent.adk.event_visibility import for_client

        try:
            async for event in self._runner.run_live(
                user_id=self.user_id,
                session_id=self.session_id,
                live_request_queue=self._queue,
                run_config=self._run_config,
            ):
                shown = for_client(event, self._mode)
                if shown is not None:
                    self._events.put_nowait(AgentEvent.from_adk(shown))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # handed to the reader, who raises it
            if not self._closed:  # a connection ending because we closed it is no error
                self._events.put_nowait(error)
        finally:
            self._events.put_nowait(_CLOSED)

    # -- sending ------------------------------------------------------------------------------
    async def send(self, prompt: Any) -> None:
        """Send the user's text (or a google.genai Content, or text and Parts) as one turn."""
        self._check_open("send")
        self._queue.send_content(user_message(prompt))

    def send_audio(self, data: bytes, mime_type: str = "audio/pcm;rate=16000") -> None:
        """Send a chunk of the user's audio (Gemini Live takes 16 kHz 16-bit PCM)."""
        from google.genai import types

        self._check_open("send_audio")
        checked_instance(
            data,
            self._agent,
            "data",
            (bytes, bytearray),
            what="bytes",
            hint="live.send_audio(pcm_chunk), the raw 16-bit PCM samples.",
            where="send_audio()",
        )
        self._queue.send_realtime(types.Blob(data=bytes(data), mime_type=mime_type))

    def activity_start(self) -> None:
        """The user started speaking (manual activity detection)."""
        self._check_open("activity_start")
        self._queue.send_activity_start()

    def activity_end(self) -> None:
        """The user stopped speaking: the model answers what it heard."""
        self._check_open("activity_end")
        self._queue.send_activity_end()

    @property
    def _agent(self) -> str:
        return str(self._runner.agent.name)

    def _check_open(self, what: str) -> None:
        if self._queue is None or self._closed:
            raise BuildError(
                f"{what}() on a live session that is {'closed' if self._closed else 'not open'}",
                agent=self._agent,
                field=what,
                hint="use it inside `async with pipeline.live(...) as live:`.",
            )

    # -- receiving ----------------------------------------------------------------------------
    def __aiter__(self) -> AsyncIterator[AgentEvent]:
        return self._every_event()

    async def _every_event(self) -> AsyncIterator[AgentEvent]:
        while True:
            item = await self._events.get()
            if item is _CLOSED:
                self._events.put_nowait(_CLOSED)  # every later reader ends too
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    async def until_turn_complete(self) -> AsyncIterator[AgentEvent]:
        """The events of the model's current turn: up to and including the one that
        completes it (`is_turn_complete`), is interrupted (`is_interrupted`) or is an error."""
        async for event in self._every_event():
            yield event
            if event.is_turn_complete or event.is_interrupted or event.is_error:
                return

    async def turn(self) -> list[AgentEvent]:
        """`until_turn_complete()` as a list."""
        return [event async for event in self.until_turn_complete()]

    # -- closing ------------------------------------------------------------------------------
    async def close(self) -> None:
        """Close the stream; ADK's run ends (what the model still sends within a second is
        kept) and the session is free again. Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._queue is not None:
                self._queue.close()
            task = self._task
            if task is not None and not task.done():
                # ADK's live run waits on its model connection after the queue closes (a real
                # connection ends it from the server's side): give it a moment, then stop it
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(task), _DRAIN_SECONDS)
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
        finally:
            await self._held.aclose()


def open_live(
    engine: Any,
    ir: Node,
    options: BuildOptions,
    *,
    user_id: str,
    session_id: str | None,
    config: ExecutionConfig | None,
    session_store: Any,
    backend: Any,
    run_config: Any,
    modalities: tuple[str, ...],
    services: dict[str, Any],
) -> LiveSession:
    """A LiveSession for `ir` (not started: `async with` starts it). Everything that can be
    known before a connection is checked here: the ids, the options, the tree."""
    from adk_fluent.adk.live import live_refusal

    check_ids(user_id, session_id)
    check_settings(config, backend, run_config, session_store, services, LIVE_OPTIONS)
    modalities = _checked_modalities(modalities, ir.name)
    _check_live_adk()
    _check_live_config(ir, config, backend)
    if config is not None and config.target == "workflow":
        raise BuildError(
            "a live run compiles to the classic target: ADK runs agents live, not Workflow graphs",
            agent=ir.name,
            field="target",
            hint="leave ExecutionConfig.target unset for live runs.",
        )
    refusal = live_refusal(ir)
    if refusal is not None:
        raise refusal
    service, services = engine.session_service(ir, backend, session_store, services)
    runner = engine.to_runner(
        ir,
        options,
        config,
        session_service=service,
        backend=backend,
        client_filters=True,
        target="classic",
        **services,
    )
    if run_config is None:
        from google.adk.agents.run_config import RunConfig, StreamingMode
        from google.genai import types

        run_config = RunConfig(
            streaming_mode=StreamingMode.BIDI,
            response_modalities=[types.Modality(m) for m in modalities],
        )
    return LiveSession(runner, visibility_mode(options, config), user_id, session_id, run_config)


def _check_live_adk() -> None:
    """The installed ADK runs live (every supported release does; said plainly if not)."""
    from google.adk.agents.run_config import StreamingMode
    from google.adk.runners import Runner

    if not hasattr(StreamingMode, "BIDI") or not hasattr(Runner, "run_live"):
        from adk_fluent.adk.compat import adk_version

        raise BuildError(
            f"google-adk {adk_version()} has no live runs (StreamingMode.BIDI, Runner.run_live)",
            field="live",
            hint="install a google-adk release with run_live (1.25.0 and later have it).",
        )


def _check_live_config(ir: Node, config: ExecutionConfig | None, backend: Any) -> None:
    """Refuse what a live run would not honour: adk-fluent's middleware (the Recorder among
    them) and telemetry wrap model calls that a live connection does not make (it streams
    one connection per agent), a backend that replays a recording (it answers model calls),
    and a turn timeout (a live session lasts until closed)."""
    where = ir.name
    if backend is not None and getattr(backend, "middleware", None):
        raise BuildError(
            "a replaying backend cannot answer a live run: a recording holds model calls, "
            "and a live connection makes none",
            agent=where,
            field="backend",
            hint="script a live run with mock_backend(...) (adk_fluent.testing's live steps).",
        )
    if config is None:
        return
    refused = (
        (
            "middleware",
            bool(config.middleware),
            "middleware (the Recorder too) wraps each "
            "model and tool call of a turn; a live run streams one connection per agent",
        ),
        (
            "telemetry",
            config.telemetry is not None,
            "TelemetryConfig's metrics count model calls and turns; a live run has neither",
        ),
        (
            "timeout_seconds",
            config.timeout_seconds is not None,
            "a live session lasts until "
            "it is closed; bound it yourself (asyncio.timeout around the session)",
        ),
    )
    for field, given, why in refused:
        if given:
            raise BuildError(
                f"ExecutionConfig.{field} is not applied to live runs: {why}",
                agent=where,
                field=field,
                hint=f"leave {field} out of the config you pass to live(); ADK plugins "
                "(ExecutionConfig.plugins) run as ADK runs them live.",
            )


def _checked_modalities(modalities: Any, agent: str) -> tuple[str, ...]:
    """What the model answers in: "TEXT" and/or "AUDIO" (a str, a list or a tuple of them)."""
    values = (modalities,) if isinstance(modalities, str) else modalities
    hint = "modalities=('AUDIO',) for speech (Gemini Live's native audio models), ('TEXT',)."
    checked_instance(values, agent, "modalities", (tuple, list), what="a tuple", hint=hint)
    if not values:
        raise BuildError("modalities is empty", agent=agent, field="modalities", hint=hint)
    return tuple(
        checked_choice(value, agent, "modalities", MODALITIES, hint=hint) for value in values
    )
