"""Filtered mode through a plain Runner (what adk web / api_server run): the internal text is in no
payload the client receives, the stores keep it losslessly, later agents' requests are those of
an annotated run, a reloaded history filters like the live stream, and the ADK fork is decided by
a probe that agrees with what the store really holds. On both ADK ends, in memory and SQLite."""

from __future__ import annotations

import logging

import pytest

from adk_fluent import Agent
from adk_fluent.adk import probes
from adk_fluent.adk.compat import (
    plugin_edits_are_stored,
    workflow_agents_warn,
)
from adk_fluent.adk.event_visibility import HIDDEN_REF, for_client
from tests.conftest import request_texts
from tests.support.visibility import APP, run_turn

SECRET = "SECRET-PLAN-7"
# the thinker has no .outputs(): its text is meant to live in history only
pytestmark = pytest.mark.filterwarnings("ignore::adk_fluent.errors.AdkFluentWarning")


@pytest.fixture(params=["memory", "sqlite"])
def store(request, db_dir):
    return "memory" if request.param == "memory" else f"sqlite:///{db_dir / 'v.db'}"


def _writer_reply(request):
    return "Done. saw-plan=" + ("yes" if any(SECRET in t for t in request_texts(request)) else "no")


def plan_then_write(mode):
    return getattr(Agent("thinker") >> Agent("writer"), mode)()


def scripts(turns=1):
    return {
        "thinker": [f"{SECRET} turn {n}" for n in range(turns)],
        "writer": [_writer_reply] * turns,
    }


async def _run(mode, store, **kwargs):
    return await run_turn(plan_then_write(mode), scripts(), way="runner", store=store, **kwargs)


async def test_the_probe_agrees_with_what_the_store_holds(sqlite_url):
    outcome = await _run("filtered", sqlite_url)
    thinker = next(e for e in outcome.raw_stored if e.author == "thinker")
    if plugin_edits_are_stored():
        assert thinker.content is None and HIDDEN_REF in thinker.custom_metadata
    else:
        assert thinker.content.parts[0].text == f"{SECRET} turn 0"
        assert HIDDEN_REF not in (thinker.custom_metadata or {})


async def test_probes_run_inside_a_running_event_loop():
    # the probes themselves, from a coroutine (each runs its Runner in a worker thread)
    assert probes.plugin_edits_are_stored() == plugin_edits_are_stored()
    assert probes.workflow_agents_warn() == workflow_agents_warn()


async def test_no_client_payload_holds_internal_text(store):
    outcome = await _run("filtered", store)
    for event in outcome.client:
        assert SECRET not in event.model_dump_json()
    assert [t for _, t in outcome.client_texts()] == ["Done. saw-plan=yes"]
    # lossless: the store (and its artifacts) give the full text back
    assert outcome.stored_texts() == [
        ("thinker", f"{SECRET} turn 0"),
        ("writer", "Done. saw-plan=yes"),
    ]


async def test_later_turns_see_what_an_annotated_run_sees(store, db_dir):
    """Turn 2 through a NEW App (a fresh plugin: the hidden text comes back from the artifact
    service, not from memory): the writer's request equals the annotated run's."""
    from google.adk.artifacts import InMemoryArtifactService
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent.testing import mock_backend
    from tests.conftest import fresh_db_service

    seen = {}
    for mode in ("filtered", "annotated"):
        url = "memory" if store == "memory" else f"sqlite:///{db_dir / (mode + '.db')}"
        service = InMemorySessionService() if url == "memory" else fresh_db_service(url)
        artifacts = InMemoryArtifactService()
        backend = mock_backend(scripts(turns=2))
        for turn in range(2):
            app = plan_then_write(mode).to_app(backend=backend)
            runner = Runner(app=app, session_service=service, artifact_service=artifacts)
            if turn == 0:
                await service.create_session(app_name=app.name, user_id="u", session_id="s")
            message = types.Content(role="user", parts=[types.Part(text=f"turn {turn}")])
            async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
                pass
        seen[mode] = [request_texts(r) for r in backend.requests["writer"]]
    assert seen["filtered"] == seen["annotated"]
    assert any(f"{SECRET} turn 0" in t for t in seen["filtered"][1])


async def test_without_an_artifact_service_the_session_store_keeps_the_text(store):
    """No artifact service: the text is kept in the session store's companion session, never in
    the event's metadata (which every client receives), and later turns still see it."""
    outcome = await run_turn(
        plan_then_write("filtered"), scripts(), way="runner", store=store, artifacts=False
    )
    thinker = next(e for e in outcome.raw_stored if e.author == "thinker")
    for event in outcome.client:
        assert SECRET not in event.model_dump_json()
    if plugin_edits_are_stored():
        assert thinker.content is None and SECRET not in thinker.model_dump_json()
        assert thinker.custom_metadata[HIDDEN_REF] == {"session": f"{APP}.adk_fluent_hidden"}
    else:
        assert thinker.content.parts[0].text == f"{SECRET} turn 0"
    assert outcome.client_texts() == [("writer", "Done. saw-plan=yes")]
    assert outcome.stored_texts()[0] == ("thinker", f"{SECRET} turn 0")  # nothing lost


async def test_a_failing_artifact_service_hands_the_text_to_the_session_store(
    sqlite_url, db_dir, caplog
):
    from google.adk.artifacts.file_artifact_service import FileArtifactService
    from google.adk.runners import Runner
    from google.genai import types

    from adk_fluent import restore_content
    from adk_fluent.testing import mock_backend
    from tests.conftest import fresh_db_service

    class BrokenArtifacts(FileArtifactService):  # durable, so the plugin tries it first
        async def save_artifact(self, **kwargs):
            raise OSError("disk full")

    caplog.set_level(logging.ERROR, logger="adk_fluent.visibility")
    service = fresh_db_service(sqlite_url)
    app = plan_then_write("filtered").to_app(backend=mock_backend(scripts()))
    runner = Runner(
        app=app, session_service=service, artifact_service=BrokenArtifacts(db_dir / "a")
    )
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    message = types.Content(role="user", parts=[types.Part(text="go")])
    client = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]
    assert all(SECRET not in e.model_dump_json() for e in client)
    reload = fresh_db_service(sqlite_url)
    session = await reload.get_session(app_name=APP, user_id="u", session_id="s")
    restored = [
        await restore_content(e, session=session, session_service=reload) for e in session.events
    ]
    texts = [p.text for e in restored if e.author == "thinker" for p in e.content.parts]
    assert texts == [f"{SECRET} turn 0"]
    failed = [r for r in caplog.records if "disk full" in (r.exc_text or "")]
    assert len(failed) == (1 if plugin_edits_are_stored() else 0)


@pytest.mark.parametrize("way", ["fluent", "runner"])
async def test_a_reloaded_history_filters_like_the_live_stream(way, sqlite_url):
    """The stored events carry the annotations on every release (they are set on the model
    response before ADK stores it), so `for_client` over a reload gives what the client saw."""
    outcome = await run_turn(plan_then_write("filtered"), scripts(), way=way, store=sqlite_url)
    model_events = [e for e in outcome.raw_stored if e.author in ("thinker", "writer")]
    assert [e.custom_metadata["adk_fluent.visibility"] for e in model_events] == [
        "internal",
        "user",
    ]
    # depth is the place in the call tree, not visibility: both are steps of one pipeline
    assert [e.custom_metadata["adk_fluent.depth"] for e in model_events] == [0, 0]
    replayed = [for_client(e, "filtered") for e in outcome.raw_stored if e.author != "user"]
    texts = [
        (e.author, p.text)
        for e in replayed
        if e is not None and e.content
        for p in e.content.parts or []
        if p.text
    ]
    assert texts == outcome.client_texts() == [("writer", "Done. saw-plan=yes")]
