"""Running one turn of a gated pipeline on SQLite, either through adk-fluent's runtime or through
a plain ADK Runner built from `.to_app()` (what `adk web` / `adk api_server` do), and reading what
the store holds afterwards through a fresh service (what a restarted process would see)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.adk.runners import Runner
from google.genai import types

from tests.conftest import fresh_db_service

WAYS = ("fluent", "runner")
USER = "user"


@dataclass
class Turn:
    texts: list[tuple[str, str]]  # (author, text) of every text event the client received
    errors: list[str]  # error codes the client received
    state: dict[str, Any]  # the session state reloaded from the store

    @property
    def last_text(self) -> str:
        return self.texts[-1][1] if self.texts else ""

    def said_by(self, author: str) -> list[str]:
        return [text for who, text in self.texts if who == author]


def _texts(raw_events: list[Any]) -> list[tuple[str, str]]:
    out = []
    for event in raw_events:
        if event.partial:
            continue
        for part in (event.content.parts if event.content else []) or []:
            if part.text:
                out.append((event.author, part.text))
    return out


async def turn(
    pipeline: Any, backend: Any, prompt: str, url: str, *, way: str = "fluent", sid: str = "s"
) -> Turn:
    """One turn of `pipeline` in session `sid` on the SQLite store at `url`."""
    app_name = pipeline.to_app(backend=backend).name
    if way == "fluent":
        events = await pipeline.run(prompt, backend=backend, session_id=sid, session_store=url)
        raw = [e.raw for e in events]
    else:  # a new Runner and a new session service each turn: nothing carried in memory
        service = fresh_db_service(url)
        if await service.get_session(app_name=app_name, user_id=USER, session_id=sid) is None:
            await service.create_session(app_name=app_name, user_id=USER, session_id=sid)
        runner = Runner(app=pipeline.to_app(backend=backend), session_service=service)
        message = types.Content(role="user", parts=[types.Part(text=prompt)])
        raw = [e async for e in runner.run_async(user_id=USER, session_id=sid, new_message=message)]
    session = await fresh_db_service(url).get_session(
        app_name=app_name, user_id=USER, session_id=sid
    )
    assert session is not None
    return Turn(_texts(raw), [e.error_code for e in raw if e.error_code], dict(session.state))


def calls(backend: Any, agent: str) -> int:
    """How many times `agent`'s scripted model was called."""
    return len(backend.requests.get(agent, []))
