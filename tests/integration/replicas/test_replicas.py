"""Many replicas over one PostgreSQL: two `adk api_server` processes serve the same adk-fluent
pipeline (scripted models, state writes, a gate) with `--session_service_uri` on one database,
and nothing else in common. The turns of one session alternate between them, a gate asked on one
replica is approved on the other, and 50 sessions run at once spread over both. Afterwards the
database, reopened with ADK's DatabaseSessionService, holds every turn once: no lost turn, no
duplicate event or text, and each session's state equal to the replay of its events' deltas.
(Throughput per replica count: bench/bench_replicas.py.)"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from adk_fluent.run.stores import prepare_session_store
from tests.conftest import fresh_db_service
from tests.support import postgres
from tests.support import replicas as r
from tests.support.postgres import PostgresServer

postgres_server = postgres.postgres_server  # the fixture: one server per test session
httpx = pytest.importorskip("httpx", reason="the HTTP client of the replica test")
REPLICAS = 2
SESSIONS = 50
TRAFFIC_SECONDS = 120  # the whole concurrent phase; a hung replica fails the test, not the run


def skip_without_server() -> None:
    """Skip, with the reason, where this environment cannot run ADK's server on PostgreSQL."""
    if not r.ADK_CLI.exists():
        pytest.skip(f"no `adk` CLI beside {sys.executable}")
    for module in ("fastapi", "uvicorn", "asyncpg"):
        pytest.importorskip(module, reason=f"adk api_server on PostgreSQL needs {module}")


class Cluster:
    """The replicas and the database they share."""

    def __init__(self, replicas: list[r.Replica], url: str) -> None:
        self.replicas = replicas
        self.url = url

    def logs(self) -> str:
        return "\n".join(
            f"--- replica {i} ({replica.base}):\n{replica.log_tail()}"
            for i, replica in enumerate(self.replicas)
        )

    def reader(self):
        """A session service of our own over the database (one per test: it binds to the
        test's event loop)."""
        return fresh_db_service(self.url)

    @staticmethod
    async def stored(reader, user: str, sid: str):
        """The session as the database holds it."""
        session = await reader.get_session(app_name=r.FLUENT_APP, user_id=user, session_id=sid)
        assert session is not None, f"{sid} is not in the database"
        return session


@pytest.fixture(scope="module")
def cluster(
    postgres_server: PostgresServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Cluster]:
    skip_without_server()
    root = tmp_path_factory.mktemp("replicas")
    url = postgres_server.create_database("replicas")
    # ADK creates its tables on first use in each process (and 1.x the app's state row with its
    # first session), and replicas racing to do that on a new database fail: created once
    # before the replicas start, as a deployment would (docs/deployment.md).
    asyncio.run(prepare_session_store(url, apps=[r.FLUENT_APP]))
    replicas = r.start_replicas(REPLICAS, r.write_agents(root), url, root / "logs")
    try:
        yield Cluster(replicas, url)
    finally:
        r.stop_all(replicas)


def texts(session) -> list[tuple[str, str]]:
    return [
        (e.author, "".join(p.text or "" for p in e.content.parts))
        for e in session.events
        if e.content and e.content.parts and any(p.text for p in e.content.parts)
    ]


async def test_turns_alternate_between_replicas_and_one_approves_what_another_asked(cluster):
    a, b = cluster.replicas[0].base, cluster.replicas[1].base
    user, sid = "ann", "alternating"
    steps = [
        (b, "hello alternating", "sent: draft for hello alternating"),
        (a, "refund alternating", r.GATE_QUESTION),  # the gate asks on replica A
        (b, "approve", "sent: draft for refund alternating"),  # and B continues from it
        (a, "hello again", "sent: draft for hello again"),
    ]
    async with r.http_client(4) as client:
        try:
            await r.create_session(client, a, r.FLUENT_APP, user, sid)
            for index, (replica, message, expected) in enumerate(steps):
                events = await r.send(client, replica, r.FLUENT_APP, user, sid, message)
                assert r.final_text(events) == expected, (index, events)
                if index == 1:  # the waiting gate, as the OTHER replica reads it over HTTP
                    seen = await client.get(f"{b}/apps/{r.FLUENT_APP}/users/{user}/sessions/{sid}")
                    gate_state = seen.json()["state"]["adk_fluent_gate__approval_gate"]
                    assert gate_state["status"] == "pending"
        except (AssertionError, httpx.HTTPError) as error:
            raise AssertionError(f"{error}\n{cluster.logs()}") from error

    session = await cluster.stored(cluster.reader(), user, sid)
    assert texts(session) == [
        ("user", "hello alternating"),
        ("drafter", "draft for hello alternating"),
        ("sender", "sent: draft for hello alternating"),
        ("user", "refund alternating"),
        ("drafter", "draft for refund alternating"),
        ("approval_gate", r.GATE_QUESTION),
        ("user", "approve"),
        ("sender", "sent: draft for refund alternating"),
        ("user", "hello again"),
        ("drafter", "draft for hello again"),
        ("sender", "sent: draft for hello again"),
    ]
    ids = [e.id for e in session.events]
    assert len(ids) == len(set(ids))
    assert session.state == r.replay(session.events)
    assert session.state["adk_fluent_gate__approval_gate"]["status"] == "approved"
    assert (session.state["turns"], session.state["user:turns"]) == (3, 3)  # approval: no rerun


async def test_fifty_sessions_at_once_over_the_replicas_lose_and_repeat_nothing(cluster):
    sessions = [r.plan(i, REPLICAS, prefix="c") for i in range(SESSIONS)]
    async with r.http_client(SESSIONS) as client:
        try:
            await asyncio.wait_for(
                r.converse_all(
                    client, cluster.replicas, r.FLUENT_APP, sessions, in_flight=SESSIONS
                ),
                TRAFFIC_SECONDS,
            )
        except (AssertionError, httpx.HTTPError, TimeoutError) as error:
            raise AssertionError(f"{error!r}\n{cluster.logs()}") from error

    reader = cluster.reader()
    every_id: list[str] = []
    for plan in sessions:
        # every session's turns really were spread: each replica served some of them
        assert set(plan.replicas) == set(range(REPLICAS))
        assert [r.final_text(events) for events in plan.received] == plan.finals, plan.session
        session = await cluster.stored(reader, plan.user, plan.session)
        stored = texts(session)
        assert stored == r.stored_texts(plan), plan.session  # no lost turn, in order
        assert len(stored) == len(set(stored)), plan.session  # no text stored twice
        assert session.state == r.replay(session.events), plan.session
        assert session.state["turns"] == session.state["user:turns"] == 2
        assert session.state["adk_fluent_gate__approval_gate"]["status"] == "approved"
        every_id += [e.id for e in session.events]
    assert len(every_id) == len(set(every_id))  # no event stored twice, in any session
