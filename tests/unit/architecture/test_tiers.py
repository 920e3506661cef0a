"""The tier guards (tests/support/tiers.py) stop what each tier may not reach, and only that."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys

import pytest

from tests.support import tiers


def _runner():
    from google.adk.agents import LlmAgent
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    with tiers.guarded("behaviour", "setup"):  # the service is not what this case is about
        service = InMemorySessionService()
    return Runner(app_name="a", agent=LlmAgent(name="a"), session_service=service)


def _memory_store():
    from google.adk.sessions import InMemorySessionService

    return InMemorySessionService()


def _database_store():
    from google.adk.sessions.database_session_service import DatabaseSessionService

    return DatabaseSessionService(db_url="sqlite+aiosqlite:///:memory:")


def _remote_connect():
    with socket.socket() as sock:
        sock.settimeout(0.01)
        sock.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed; the guard must stop it first


REACHES = {
    "runner": (_runner, tiers.RUNNER),
    "memory-store": (_memory_store, tiers.STORE),
    "database-store": (_database_store, tiers.STORE),
    "sqlite": (lambda: sqlite3.connect(":memory:"), tiers.DATABASE),
    "sqlite-dbapi2": (lambda: sqlite3.dbapi2.connect(":memory:"), tiers.DATABASE),
    "subprocess-run": (lambda: subprocess.run([sys.executable, "-c", "pass"]), tiers.PROCESS),
    "subprocess-popen": (lambda: subprocess.Popen([sys.executable, "-V"]), tiers.PROCESS),
    "network": (_remote_connect, tiers.NETWORK),
}


@pytest.mark.parametrize("reach", REACHES.values(), ids=REACHES.keys())
def test_a_unit_test_cannot_reach_it(reach):
    attempt, what = reach
    with (
        tiers.guarded("unit", "tests/unit/x.py::test_x"),
        pytest.raises(tiers.TierViolation) as caught,
    ):
        attempt()
    assert str(caught.value) == f"tests/unit/x.py::test_x: a unit test reached {what}"


@pytest.mark.parametrize("name", ["runner", "memory-store", "database-store", "sqlite"])
def test_a_behaviour_test_may_use_the_runner_and_stores(name):
    attempt, _ = REACHES[name]
    with tiers.guarded("behaviour", "t"):
        attempt()  # no TierViolation


@pytest.mark.parametrize("name", ["subprocess-run", "network"])
def test_a_behaviour_test_cannot_start_processes_or_reach_the_network(name):
    attempt, what = REACHES[name]
    with tiers.guarded("behaviour", "t"), pytest.raises(tiers.TierViolation) as caught:
        attempt()
    assert str(caught.value) == f"t: a behaviour test reached {what}"


def test_loopback_connections_are_never_stopped():
    """asyncio and local servers use loopback: a refused local port is an OSError, not a guard."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound but not listening: connecting is refused at once
        with (
            tiers.guarded("unit", "t"),
            socket.socket() as sock,
            pytest.raises(ConnectionRefusedError),
        ):
            sock.connect(("127.0.0.1", port))


def test_the_guard_is_lifted_after_the_test():
    with tiers.guarded("unit", "t"):
        pass
    with tiers.guarded("integration", "t"):
        sqlite3.connect(":memory:").close()  # integration may use anything


@pytest.mark.parametrize(
    ("parts", "tier"),
    [
        (("unit", "core", "test_x.py"), "unit"),
        (("behaviour", "run", "test_x.py"), "behaviour"),
        (("integration", "server", "test_x.py"), "integration"),
        (("matrix", "test_x.py"), "matrix"),
        (("support", "misuse.py"), None),
        (("test_x.py",), None),
        ((), None),
    ],
)
def test_a_test_file_s_tier_is_its_first_folder(parts, tier):
    assert tiers.tier_of(parts) == tier


def test_this_test_carries_the_unit_marker(request):
    assert [m.name for m in request.node.iter_markers() if m.name in tiers.TIERS] == ["unit"]
