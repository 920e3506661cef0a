"""The test tiers, and the guards that keep each tier honest.

A test's tier is the first folder under tests/: `unit` (pure: no Runner, no session store, no
database file, no subprocess, no network), `behaviour` (the real ADK Runner with scripted
models, in memory or on SQLite; no subprocess, no network), `integration` (subprocesses,
servers, other tools) and `matrix` (other google-adk releases). The guards wrap the few entry
points a test could reach by accident and raise `TierViolation` naming what was reached, so a
"unit" test that quietly starts a Runner fails instead of slowing the unit tier down.
"""

from __future__ import annotations

import socket
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

TIERS = ("unit", "behaviour", "integration", "matrix")

# What each tier may not reach, with what to do instead.
RUNNER = "an ADK Runner (behaviour tests live in tests/behaviour/)"
STORE = "an ADK session service (behaviour tests live in tests/behaviour/)"
DATABASE = "an SQLite database (behaviour tests live in tests/behaviour/)"
PROCESS = "a subprocess (integration tests live in tests/integration/)"
NETWORK = "a network connection (integration tests live in tests/integration/)"

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "unit": (RUNNER, STORE, DATABASE, PROCESS, NETWORK),
    "behaviour": (PROCESS, NETWORK),
}

_active: tuple[str, str] | None = None  # (tier, nodeid) of the test running now, when guarded
_forbidden: frozenset[str] = frozenset()


class TierViolation(AssertionError):
    """A test reached something its tier may not use."""


def tier_of(parts: tuple[str, ...]) -> str | None:
    """The tier of a test file from its path parts below tests/ (None outside every tier)."""
    return parts[0] if parts and parts[0] in TIERS else None


def _guard(what: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if what in _forbidden and _active is not None:
            tier, nodeid = _active
            raise TierViolation(f"{nodeid}: a {tier} test reached {what}")
        return original(*args, **kwargs)

    guarded.__wrapped__ = original  # type: ignore[attr-defined]
    return guarded


def _is_loopback_or_local(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        return str(address[0]) in {"127.0.0.1", "::1", "localhost"}
    return isinstance(address, str | bytes)  # a Unix socket: asyncio's own plumbing


_installed = False


def install() -> None:
    """Wrap the entry points once per process (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    from google.adk.runners import Runner
    from google.adk.sessions.base_session_service import BaseSessionService

    Runner.__init__ = _guard(RUNNER, Runner.__init__)  # type: ignore[method-assign]
    # Every session service (in memory, database, SQLite, Vertex) passes through here; guarding
    # the base class also spares importing SQLAlchemy just to wrap DatabaseSessionService.
    BaseSessionService.__new__ = _guard(  # type: ignore[method-assign]
        STORE, lambda cls, *args, **kwargs: object.__new__(cls)
    )
    sqlite3.connect = sqlite3.dbapi2.connect = _guard(DATABASE, sqlite3.connect)  # type: ignore[assignment]
    subprocess.Popen.__init__ = _guard(PROCESS, subprocess.Popen.__init__)  # type: ignore[method-assign]

    connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if _is_loopback_or_local(address):
            return connect(self, address)
        return _guard(NETWORK, connect)(self, address)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign]


@contextmanager
def guarded(tier: str, nodeid: str) -> Iterator[None]:
    """While a test of `tier` runs, what its tier may not reach raises TierViolation."""
    global _active, _forbidden
    previous = _active, _forbidden
    _active, _forbidden = (tier, nodeid), frozenset(FORBIDDEN.get(tier, ()))
    try:
        yield
    finally:
        _active, _forbidden = previous
