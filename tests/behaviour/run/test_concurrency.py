"""Concurrent turns through the real Runner: first turns racing on one new session id, first
runs racing on a new SQLite file, and 200 sessions at once. After each, the store (reloaded
from the file where there is one) holds every turn's events, none lost and none in the wrong
session."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing

import pytest

from adk_fluent import Agent
from adk_fluent.run.stores import SQLITE_BUSY_TIMEOUT, ensure_session, ready, session_service_for
from adk_fluent.testing import ScriptedModel
from tests.conftest import fresh_db_service

APP = "adk_fluent_app"


def _last_user_text(request) -> str:
    for content in reversed(request.contents or []):
        if content.role == "user":
            return "".join(p.text for p in content.parts or [] if p.text)
    return ""


def echo(request) -> str:
    """A scripted reply naming the message it answers: a reply in the wrong session shows."""
    return "re: " + _last_user_text(request).rsplit("msg ", 1)[-1]


def echo_agent(turns: int) -> Agent:
    return Agent("echo", ScriptedModel([echo] * turns)).instruct("Echo.")


async def stored_session(store: str, session_id: str, agent: Agent):
    if store == "memory":
        return await agent.session(session_id, session_store=store)
    return await fresh_db_service(store).get_session(
        app_name=APP, user_id="user", session_id=session_id
    )


def texts(session) -> list[tuple[str, str]]:
    return [
        (e.author, "".join(p.text for p in e.content.parts if p.text))
        for e in session.events
        if e.content and e.content.parts
    ]


@pytest.fixture(params=["memory", "sqlite"])
def store(request, sqlite_url):
    # "memory" is keyed by value in the engine's cache: a fresh agent script per test keeps
    # tests apart (the scripted model is part of the compiled App's key).
    return "memory" if request.param == "memory" else sqlite_url


@pytest.mark.parametrize("turns", [2, 20])
async def test_concurrent_first_turns_on_one_new_session_keep_every_turn(store, turns):
    agent = echo_agent(turns)
    results = await asyncio.gather(
        *[agent.ask(f"msg {i}", session_id="shared", session_store=store) for i in range(turns)]
    )
    assert sorted(results) == sorted(f"re: {i}" for i in range(turns))
    session = await stored_session(store, "shared", agent)
    pairs = texts(session)
    assert len(pairs) == 2 * turns  # every user message and every reply, none replaced
    # turns of one session ran one after the other: each reply follows its own message
    for (author, said), (replier, reply) in zip(pairs[::2], pairs[1::2], strict=True):
        assert author == "user" and replier == "echo"
        assert reply == "re: " + said.removeprefix("msg ")
    assert sorted(said for _, said in pairs[::2]) == sorted(f"msg {i}" for i in range(turns))


async def test_twenty_first_runs_on_a_new_sqlite_file_all_succeed(sqlite_url):
    agent = echo_agent(20)
    ids = [f"s{i}" for i in range(20)]
    results = await asyncio.gather(
        *[
            agent.ask(f"msg {i}", session_id=sid, session_store=sqlite_url)
            for i, sid in enumerate(ids)
        ]
    )
    assert results == [f"re: {i}" for i in range(20)]
    service = fresh_db_service(sqlite_url)
    for i, sid in enumerate(ids):
        session = await service.get_session(app_name=APP, user_id="user", session_id=sid)
        assert texts(session) == [("user", f"msg {i}"), ("echo", f"re: {i}")]


async def test_two_hundred_sessions_at_once_lose_and_mix_nothing(store):
    agent = echo_agent(200)
    results = await asyncio.gather(
        *[
            agent.run(f"msg {i}", session_id=f"c{i}", user_id=f"u{i % 7}", session_store=store)
            for i in range(200)
        ]
    )
    assert [[e.content for e in events] for events in results] == [[f"re: {i}"] for i in range(200)]
    if store == "memory":
        sessions = [
            await agent.session(f"c{i}", user_id=f"u{i % 7}", session_store=store)
            for i in range(200)
        ]
    else:
        service = fresh_db_service(store)
        sessions = [
            await service.get_session(app_name=APP, user_id=f"u{i % 7}", session_id=f"c{i}")
            for i in range(200)
        ]
    for i, session in enumerate(sessions):
        assert texts(session) == [("user", f"msg {i}"), ("echo", f"re: {i}")], i
        assert {e.invocation_id for e in session.events} == {results[i][0].invocation_id}


class _LateLook:
    """A store whose first look misses a session another process has just created: the window
    between looking and creating, made certain."""

    def __init__(self, service) -> None:
        self.service = service
        self.looks = 0

    async def get_session(self, **ids):
        self.looks += 1
        return None if self.looks == 1 else await self.service.get_session(**ids)

    async def create_session(self, **ids):
        return await self.service.create_session(**ids)


async def test_a_session_created_elsewhere_at_the_same_moment_is_used_not_replaced(sqlite_url):
    other_process = fresh_db_service(sqlite_url)
    created = await other_process.create_session(app_name=APP, user_id="user", session_id="r")
    late = _LateLook(fresh_db_service(sqlite_url))
    await ensure_session(late, APP, "user", "r")  # create fails (exists), then it is found
    assert late.looks == 2
    listed = await fresh_db_service(sqlite_url).list_sessions(app_name=APP, user_id="user")
    assert [s.id for s in listed.sessions] == ["r"]
    assert listed.sessions[0].last_update_time == pytest.approx(created.last_update_time)


async def test_an_existing_session_is_continued_not_recreated(store):
    agent = echo_agent(2)
    await agent.ask("msg 1", session_id="kept", session_store=store)
    await agent.ask("msg 2", session_id="kept", session_store=store)
    session = await stored_session(store, "kept", agent)
    assert texts(session) == [
        ("user", "msg 1"),
        ("echo", "re: 1"),
        ("user", "msg 2"),
        ("echo", "re: 2"),
    ]


async def test_a_sqlite_store_from_a_url_waits_for_locks_and_uses_the_wal_journal(sqlite_url):
    service = session_service_for(sqlite_url)
    await ready(service)
    async with service.db_engine.connect() as connection:
        journal = (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar()
        busy_ms = (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar()
    assert journal == "wal"
    assert busy_ms == SQLITE_BUSY_TIMEOUT * 1000
    # and the tables exist before any session was created (read from the file itself)
    with closing(sqlite3.connect(sqlite_url.removeprefix("sqlite:///"))) as db:
        tables = {row[0] for row in db.execute("select name from sqlite_master")}
    assert {"sessions", "events"} <= tables


class _Watched:
    """A store that notes what each get_session asked for."""

    def __init__(self, service) -> None:
        self.service = service
        self.asked: list[object] = []

    async def get_session(self, **ids):
        self.asked.append(ids.get("config"))
        return await self.service.get_session(**ids)

    async def create_session(self, **ids):
        return await self.service.create_session(**ids)


async def test_looking_for_an_existing_session_reads_none_of_its_history(sqlite_url):
    from google.adk.sessions import InMemorySessionService

    # a database store is asked for one event at most, not the whole conversation
    service = fresh_db_service(sqlite_url)
    await service.create_session(app_name=APP, user_id="user", session_id="long")
    watched = _Watched(service)
    await ensure_session(watched, APP, "user", "long")
    assert [getattr(config, "num_recent_events", None) for config in watched.asked] == [1]

    # an in-memory store's own table answers (its get_session deep-copies the session)
    class Counting(InMemorySessionService):
        reads = 0

        async def get_session(self, **ids):
            Counting.reads += 1
            return await super().get_session(**ids)

    memory = Counting()
    await memory.create_session(app_name=APP, user_id="user", session_id="long")
    await ensure_session(memory, APP, "user", "long")
    await ensure_session(memory, APP, "user", "new")
    assert Counting.reads == 0
    listed = await memory.list_sessions(app_name=APP, user_id="user")
    assert {s.id for s in listed.sessions} == {"long", "new"}
