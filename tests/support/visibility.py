"""Running a pipeline the two ways apps run: adk-fluent's own runtime, and a plain ADK Runner
built from `.to_app()` (what `adk web` / `adk api_server` do)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.adk.runners import Runner
from google.genai import types

from adk_fluent import Agent, restore_content
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service

APP = "adk_fluent_app"  # the name both ways use outside an agent folder


@dataclass
class Outcome:
    """What one turn produced: what the client got, what the store holds, what models saw."""

    client: list[Any]  # ADK events as the client received them
    stored: list[Any]  # events reloaded from the store, full content restored
    raw_stored: list[Any]  # events reloaded from the store, as stored
    state: dict[str, Any]
    backend: Any
    artifact_service: Any = None
    session_service: Any = None

    def client_texts(self) -> list[tuple[str, str]]:
        """(author, text) of every text the client received (partials included)."""
        out = []
        for event in self.client:
            for part in (event.content.parts if event.content else []) or []:
                if part.text:
                    out.append((event.author, part.text))
        return out

    def client_text_authors(self) -> list[str]:
        return [author for author, _ in self.client_texts()]

    def stored_texts(self) -> list[tuple[str, str]]:
        out = []
        for event in self.stored:
            for part in (event.content.parts if event.content else []) or []:
                if part.text and event.author != "user":
                    out.append((event.author, part.text))
        return out


async def run_turn(
    pipeline,
    scripts,
    *,
    way: str,
    store: str,
    prompt: str = "hello",
    session_id: str = "s",
    backend=None,
    artifacts: bool = True,
) -> Outcome:
    """Run one turn `way`='fluent' or 'runner', on `store`='memory' or a sqlite URL. A plain
    Runner gets an in-memory artifact service as adk web / api_server have, unless `artifacts`
    is False."""
    backend = backend or mock_backend(scripts)
    artifact_service = reload = None
    if way == "fluent":
        events = await pipeline.run(
            prompt,
            backend=backend,
            session_id=session_id,
            session_store=None if store == "memory" else store,
        )
        client = [e.raw for e in events]
        if store == "memory":
            session = await pipeline.session(session_id, backend=backend)
        else:
            session = await fresh_db_service(store).get_session(
                app_name=APP, user_id="user", session_id=session_id
            )
    else:
        from google.adk.artifacts import InMemoryArtifactService
        from google.adk.sessions import InMemorySessionService

        service = InMemorySessionService() if store == "memory" else fresh_db_service(store)
        artifact_service = InMemoryArtifactService() if artifacts else None
        app = pipeline.to_app(backend=backend)
        assert app.name == APP
        runner = Runner(app=app, session_service=service, artifact_service=artifact_service)
        if await service.get_session(app_name=APP, user_id="user", session_id=session_id) is None:
            await service.create_session(app_name=APP, user_id="user", session_id=session_id)
        client = [
            e
            async for e in runner.run_async(
                user_id="user",
                session_id=session_id,
                new_message=types.Content(role="user", parts=[types.Part(text=prompt)]),
            )
        ]
        reload = service if store == "memory" else fresh_db_service(store)
        session = await reload.get_session(app_name=APP, user_id="user", session_id=session_id)
    return Outcome(
        client,
        [
            await restore_content(
                e, artifact_service=artifact_service, session=session, session_service=reload
            )
            for e in session.events
        ],
        list(session.events),
        dict(session.state),
        backend,
        artifact_service,
        reload,
    )


WAYS = ["fluent", "runner"]


def hidden_flow():
    """A hidden pipeline with a gate inside: the agents around it are hidden, the gate is not."""
    from adk_fluent import gate

    return (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: True, "Send it?", name="check")
        >> Agent("sender").instruct("Send: {draft}").outputs("sent")
    ).hide()
