"""Helpers for the streaming tests: one turn with or without SSE, through adk-fluent's own
`stream()` or a plain ADK Runner, and what the client received and the store holds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.artifacts import InMemoryArtifactService
from google.genai import types

from adk_fluent import restore_content
from adk_fluent.adk.event_visibility import MAP_OVER, RACE
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service

APP = "adk_fluent_app"
USER = "user"


@dataclass
class Turn:
    """One turn: the client's events (AgentEvents, or ADK events for a plain Runner), the
    events a fresh store reloads (filtered content restored), the stored state, the backend."""

    client: list[Any]
    stored: list[Any]
    state: dict[str, Any]
    backend: Any


async def fluent_turn(
    pipeline: Any,
    scripts: dict[str, Any],
    url: str,
    session_id: str,
    *,
    prompt: str = "go",
    **options: Any,
) -> Turn:
    """One turn through `pipeline.stream(...)` (options: streaming=, config=) on SQLite."""
    backend = mock_backend(scripts)
    client = [
        event
        async for event in pipeline.stream(
            prompt, backend=backend, session_id=session_id, session_store=url, **options
        )
    ]
    session = await fresh_db_service(url).get_session(
        app_name=APP, user_id=USER, session_id=session_id
    )
    return Turn(client, list(session.events), dict(session.state), backend)


async def runner_turn(
    pipeline: Any, scripts: dict[str, Any], url: str, session_id: str, *, prompt: str = "go"
) -> Turn:
    """One SSE turn through a plain ADK Runner built from `to_runner()` (as adk web runs an
    App), on SQLite, with an artifact service as adk web has."""
    backend = mock_backend(scripts)
    service = fresh_db_service(url)
    artifacts = InMemoryArtifactService()
    runner = pipeline.to_runner(
        backend=backend, session_service=service, artifact_service=artifacts
    )
    await service.create_session(app_name=APP, user_id=USER, session_id=session_id)
    client = [
        event
        async for event in runner.run_async(
            user_id=USER,
            session_id=session_id,
            new_message=types.Content(role="user", parts=[types.Part(text=prompt)]),
            run_config=RunConfig(streaming_mode=StreamingMode.SSE),
        )
    ]
    reload = fresh_db_service(url)
    session = await reload.get_session(app_name=APP, user_id=USER, session_id=session_id)
    restored = [
        await restore_content(
            event, artifact_service=artifacts, session=session, session_service=reload
        )
        for event in session.events
    ]
    return Turn(client, restored, dict(session.state), backend)


def text_of(event: Any) -> str | None:
    """The text of an AgentEvent or an ADK event (None when it has none)."""
    content = event.content
    if content is None or isinstance(content, str):
        return content
    texts = [part.text for part in content.parts or [] if part.text]
    return "".join(texts) if texts else None


def is_partial(event: Any) -> bool:
    return bool(getattr(event, "is_partial", None) or getattr(event, "partial", None))


def record(events: list[Any]) -> list[tuple[str, str | None, dict[str, Any]]]:
    """(author, text, state delta) of stored events: what two runs must agree on."""
    rows = []
    for event in events:
        delta = dict(event.actions.state_delta or {}) if event.actions else {}
        rows.append((event.author, text_of(event), delta))
    return rows


def metadata(event: Any) -> dict[str, Any]:
    """custom_metadata of an ADK event, metadata of an AgentEvent."""
    found = getattr(event, "metadata", None)
    if found is None:
        found = getattr(event, "custom_metadata", None)
    return dict(found or {})


def stream_key(event: Any) -> tuple[str, str]:
    """Which stream an event belongs to: its author, and the race contender or map_over item
    it came from (concurrent streams of one author are told apart by that tag)."""
    tags = {k: v for k, v in metadata(event).items() if k in (RACE, MAP_OVER)}
    return event.author, json.dumps(tags, sort_keys=True)


def streams(events: list[Any]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Per author, the finals that partials led up to, and the partial text left over with no
    final (a race's loser, a failed alternative). Asserts that each final an agent's partials
    led up to is exactly their concatenation, so partials come in order and before their final
    (a final of a map_over item carries no tag: it closes the stream of its author whose text
    it is)."""
    pending: dict[tuple[str, str], list[str]] = {}
    finals: dict[str, list[str]] = {}
    for event in events:
        text = text_of(event)
        key = stream_key(event)
        if is_partial(event):
            if text:
                pending.setdefault(key, []).append(text)
            continue
        if not text:
            continue
        if key not in pending:
            mine = [k for k in pending if k[0] == event.author]
            matching = [k for k in mine if "".join(pending[k]) == text]
            if not mine:
                continue  # a final with no partials (a step's text, a gate's question)
            assert len(mine) == 1 or matching, (key, pending, text)
            key = matching[0] if matching else mine[0]
        chunks = pending.pop(key)
        assert "".join(chunks) == text, (key, chunks, text)
        finals.setdefault(event.author, []).append(text)
    left: dict[str, list[str]] = {}
    for (author, _), chunks in pending.items():
        left.setdefault(author, []).extend(chunks)
    return finals, left


def payload(event: Any) -> str:
    """What a client receives of an ADK event, as JSON, without its state delta (every state
    change reaches every client by design)."""
    dumped = event.model_dump(mode="json", exclude_none=True)
    dumped.get("actions", {}).pop("state_delta", None)
    return json.dumps(dumped)
