"""A PostgreSQL session store (`session_store="postgresql+asyncpg://..."`, ADK's
DatabaseSessionService) through the real Runner, on a real server (tests/support/postgres.py):
each test gets a fresh database. What a turn stores is read back through a NEW store object, as
another process or another replica would: history, state, a waiting gate, scoped state, and
many sessions written at once."""

from __future__ import annotations

import asyncio

import pytest
from google.adk.runners import Runner
from google.genai import types

from adk_fluent import Agent, S, gate
from adk_fluent.run.stores import prepare_session_store
from adk_fluent.testing import mock_backend, repeat
from tests.conftest import fresh_db_service, request_texts, system_instruction
from tests.support import postgres
from tests.support.gates import calls
from tests.support.gates import turn as gate_turn
from tests.support.servers import free_port

# the PostgreSQL fixtures, for this module's tests (a server per test session, a database per test)
postgres_server = postgres.postgres_server
postgres_url = postgres.postgres_url

APP = "adk_fluent_app"
GATE_KEY = "adk_fluent_gate__approval_gate"


def texts(session) -> list[tuple[str, str]]:
    """(author, text) of every stored event with text, in order."""
    return [
        (e.author, "".join(p.text or "" for p in e.content.parts))
        for e in session.events
        if e.content and e.content.parts and any(p.text for p in e.content.parts)
    ]


async def reloaded(url: str, session_id: str, user_id: str = "user"):
    """The session as a fresh store object over the same database holds it."""
    session = await fresh_db_service(url).get_session(
        app_name=APP, user_id=user_id, session_id=session_id
    )
    assert session is not None, session_id
    return session


def answering_pipeline():
    return S.capture("question") >> Agent("writer").instruct("Answer: {question}").outputs("answer")


async def test_history_and_state_survive_a_reopen_through_a_new_store(postgres_url):
    backend = mock_backend({"writer": ["ADK is a toolkit.", "A2A joins agents."]})
    await answering_pipeline().run(
        "What is ADK?", backend=backend, session_id="s1", session_store=postgres_url
    )
    # the second turn as another process would run it: a new pipeline value, a new store object
    events = await answering_pipeline().run(
        "And A2A?", backend=backend, session_id="s1", session_service=fresh_db_service(postgres_url)
    )
    assert [e.content for e in events if e.content] == ["A2A joins agents."]
    seen = request_texts(backend.requests["writer"][1])
    assert "What is ADK?" in seen and "ADK is a toolkit." in seen  # turn 1 came from the database
    assert "Answer: And A2A?" in system_instruction(backend.requests["writer"][1])

    session = await reloaded(postgres_url, "s1")
    assert texts(session) == [
        ("user", "What is ADK?"),
        ("writer", "ADK is a toolkit."),
        ("user", "And A2A?"),
        ("writer", "A2A joins agents."),
    ]
    assert session.state["question"] == "And A2A?"
    assert session.state["answer"] == "A2A joins agents."
    ids = [e.id for e in session.events]
    assert len(ids) == len(set(ids))


def refund_flow():
    return (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: "refund" in s["draft"], "Send this refund email?")
        >> Agent("sender").instruct("Send: {draft}")
    )


@pytest.mark.parametrize("approver", ["fluent", "runner"])
async def test_a_gate_asked_in_one_run_is_approved_through_a_fresh_store(postgres_url, approver):
    """Turn 1 in adk-fluent's runtime; turn 2 in a new pipeline, backend and store object
    (adk-fluent's runtime, or a plain ADK Runner over `.to_app()` as api_server runs it)."""
    first = mock_backend({"drafter": "refund of 20 EUR"})
    asked = await refund_flow().run(
        "write to the customer", backend=first, session_id="g1", session_store=postgres_url
    )
    assert asked[-1].author == "approval_gate"
    assert (await reloaded(postgres_url, "g1")).state[GATE_KEY]["status"] == "pending"

    second = mock_backend({"sender": "Sent."})
    if approver == "fluent":
        events = await refund_flow().run(
            "Approve.",
            backend=second,
            session_id="g1",
            session_service=fresh_db_service(postgres_url),
        )
        replies = [(e.author, e.content) for e in events if e.content]
    else:
        done = await gate_turn(
            refund_flow(), second, "Approve.", postgres_url, way="runner", sid="g1"
        )
        replies = done.texts
    assert replies == [("sender", "Sent.")]
    assert calls(second, "drafter") == 0  # resumed at the gate: nothing before it ran again
    assert "Send: refund of 20 EUR" in system_instruction(second.requests["sender"][0])
    stored = await reloaded(postgres_url, "g1")
    assert stored.state[GATE_KEY]["status"] == "approved"
    assert [author for author, _ in texts(stored)] == ["user", "drafter", "approval_gate"] + [
        "user",
        "sender",
    ]
    second.assert_consumed()


def _last_user_text(request) -> str:
    for content in reversed(request.contents or []):
        if content.role == "user":
            return "".join(p.text for p in content.parts or [] if p.text)
    return ""


def echo(request) -> str:
    """A reply naming the message it answers: a reply stored in the wrong session shows."""
    return "re: " + _last_user_text(request)


async def test_many_sessions_at_once_on_a_new_database_lose_and_mix_nothing(postgres_url):
    """20 sessions of 3 users, two turns each, all first turns racing on a database without
    tables yet; the second turns through another store object (another replica)."""
    agent = Agent("echo").instruct("Echo.").outputs("last")
    backend = mock_backend({"echo": repeat(echo)})
    sessions = [(f"u{i % 3}", f"c{i}") for i in range(20)]
    other_replica = fresh_db_service(postgres_url)

    async def converse(user: str, sid: str) -> None:
        await agent.run(
            f"{sid} one", backend=backend, user_id=user, session_id=sid, session_store=postgres_url
        )
        await agent.run(
            f"{sid} two",
            backend=backend,
            user_id=user,
            session_id=sid,
            session_service=other_replica,
        )

    await asyncio.gather(*[converse(user, sid) for user, sid in sessions])
    every_id: list[str] = []
    for user, sid in sessions:
        session = await reloaded(postgres_url, sid, user)
        assert texts(session) == [
            ("user", f"{sid} one"),
            ("echo", f"re: {sid} one"),
            ("user", f"{sid} two"),
            ("echo", f"re: {sid} two"),
        ]
        assert session.state["last"] == f"re: {sid} two"
        every_id += [e.id for e in session.events]
    assert len(every_id) == len(set(every_id)) == 4 * len(sessions)
    listed = await fresh_db_service(postgres_url).list_sessions(app_name=APP, user_id="u1")
    assert sorted(s.id for s in listed.sessions) == sorted(sid for u, sid in sessions if u == "u1")


async def test_user_and_app_state_reach_the_other_sessions_they_belong_to(postgres_url):
    setter = S.set(**{"user:tier": "gold", "app:region": "eu", "mood": "calm"})
    await setter.run("set", session_id="a", user_id="ann", session_store=postgres_url)

    backend = mock_backend({"reader": repeat("noted")})
    reader = Agent("reader").instruct("Region {app:region}; tier {user:tier?}.")
    other_store = fresh_db_service(postgres_url)
    await reader.run(
        "hi", backend=backend, session_id="b", user_id="ann", session_service=other_store
    )
    await reader.run(
        "hi", backend=backend, session_id="c", user_id="bob", session_service=other_store
    )
    # what each model was told, from state another session wrote through another store object
    assert "Region eu; tier gold." in system_instruction(backend.requests["reader"][0])
    assert "Region eu; tier ." in system_instruction(backend.requests["reader"][1])

    same_user = await reloaded(postgres_url, "b", "ann")
    other_user = await reloaded(postgres_url, "c", "bob")
    assert same_user.state == {"user:tier": "gold", "app:region": "eu"}  # not a's "mood"
    assert other_user.state == {"app:region": "eu"}


async def test_a_plain_adk_runner_reads_what_adk_fluent_stored(postgres_url):
    """The same database serves an ADK Runner built from `.to_app()` (what api_server runs)."""
    backend = mock_backend({"writer": ["first.", "second."]})
    await answering_pipeline().run(
        "one", backend=backend, session_id="r", session_store=postgres_url
    )
    runner = Runner(
        app=answering_pipeline().to_app(backend=backend),
        session_service=fresh_db_service(postgres_url),
    )
    message = types.Content(role="user", parts=[types.Part(text="two")])
    replies = [
        e.content.parts[0].text
        async for e in runner.run_async(user_id="user", session_id="r", new_message=message)
        if e.content and e.content.parts and e.content.parts[0].text
    ]
    assert replies == ["second."]
    assert "first." in request_texts(backend.requests["writer"][1])
    assert (await reloaded(postgres_url, "r")).state["question"] == "two"


async def test_a_server_that_is_down_is_adks_connection_error_unwrapped():
    """docs/errors.md: session-store failures propagate as ADK raises them, so
    `except ConnectionError:` means what it says. Nothing listens on the port."""
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/nothing"
    with pytest.raises(ConnectionError):
        await Agent("greeter").run(
            "hi", backend=mock_backend({"greeter": "Hi."}), session_store=url
        )


async def _first_sessions_from_two_stores_at_once(url: str, count: int = 20) -> None:
    """Two store objects (two replicas, each a first user of the database) creating sessions of
    new users at the same moment."""
    stores = [fresh_db_service(url), fresh_db_service(url)]
    await asyncio.gather(
        *[
            stores[i % 2].create_session(app_name=APP, user_id=f"u{i}", session_id=f"s{i}")
            for i in range(count)
        ]
    )


async def test_a_prepared_database_takes_first_sessions_from_two_replicas_at_once(
    postgres_server,
    postgres_url,
):
    await prepare_session_store(postgres_url, apps=[APP])
    await prepare_session_store(postgres_url, apps=[APP])  # again, as a second deploy would
    database = postgres_url.rsplit("/", 1)[1]
    tables = postgres_server.fetch(
        "select tablename from pg_tables where schemaname = 'public'", database
    )
    assert {"sessions", "events", "app_states", "user_states"} <= {t["tablename"] for t in tables}

    await _first_sessions_from_two_stores_at_once(postgres_url)
    reader = fresh_db_service(postgres_url)
    for i in range(20):
        assert await reader.get_session(app_name=APP, user_id=f"u{i}", session_id=f"s{i}")
    # preparing left no session behind
    rows = postgres_server.fetch("select app_name, user_id, id from sessions", database)
    assert sorted(row["id"] for row in rows) == sorted(f"s{i}" for i in range(20))
