"""Misuse of a PostgreSQL session store: URLs that cannot open a store are refused when the run
starts (or a database is prepared for replicas), before anything is compiled or stored, with
the password hidden and the URL that works in the hint. (A server that is down is ADK's ConnectionError, unwrapped: docs/errors.md; see
tests/behaviour/run/test_postgres_store.py.)"""

from __future__ import annotations

import asyncio
import inspect

import pytest

from adk_fluent import Agent
from adk_fluent.errors import BuildError
from adk_fluent.run.stores import prepare_session_store
from adk_fluent.testing import ScriptedModel
from tests.support.misuse import case, check, ids

URL_TAIL = "app:hunter2@db.internal:5432/sessions"


def _agent() -> Agent:
    return Agent("greeter", ScriptedModel(["Hello."]))


def _run(store: str):
    return lambda: _agent().run("hi", session_id="s1", session_store=store)


def _ask(store: str):
    return lambda: _agent().ask("hi", session_store=store)


def _stream(store: str):
    return lambda: _agent().stream("hi", session_store=store)


def _session(store: str):
    return lambda: _agent().session("s1", session_store=store)


CASES = [
    case(
        "pg-scheme-postgres",
        _run(f"postgres://{URL_TAIL}"),
        "session_store",
        "'postgres://'",
        "postgresql+asyncpg://",
        "app:***@",
    ),
    case(
        "pg-no-driver",
        _run(f"postgresql://{URL_TAIL}"),
        "session_store",
        "names no driver",
        "[db]'",
    ),
    case("pg-no-driver-ask", _ask(f"postgresql://{URL_TAIL}"), "names no driver"),
    case("pg-no-driver-stream", _stream(f"postgresql://{URL_TAIL}"), "names no driver"),
    case("pg-no-driver-session-lookup", _session(f"postgresql://{URL_TAIL}"), "names no driver"),
    case(
        "pg-sync-driver-psycopg2",
        _run(f"postgresql+psycopg2://{URL_TAIL}"),
        "'psycopg2'",
        "asynchronous",
        "postgresql+asyncpg://",
    ),
    case("pg-sync-driver-pg8000", _run(f"postgresql+pg8000://{URL_TAIL}"), "'pg8000'"),
    case(
        "pg-password-in-query",
        _run("postgresql://db.internal/sessions?user=app&password=hunter2"),
        "password=***",
    ),
    # preparing a database for replicas
    case("pg-prepare-memory", lambda: prepare_session_store("memory"), "database URL"),
    case("pg-prepare-none", lambda: prepare_session_store(None), "database URL", "None"),
    case(
        "pg-prepare-apps-as-one-string",
        lambda: prepare_session_store(f"postgresql+asyncpg://{URL_TAIL}", apps="shop"),
        "apps",
        "list of app names",
    ),
    case(
        "pg-prepare-apps-with-an-empty-name",
        lambda: prepare_session_store(f"postgresql+asyncpg://{URL_TAIL}", apps=["shop", ""]),
        "apps",
    ),
    case(
        "pg-prepare-no-driver",
        lambda: prepare_session_store(f"postgresql://{URL_TAIL}", apps=["shop"]),
        "names no driver",
        "app:***@",
    ),
    case(
        "pg-to-runner-no-driver",
        lambda: _agent().to_runner(session_store=f"postgresql://{URL_TAIL}"),
        "session_store",
        "names no driver",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_no_password_reaches_the_message(misuse):
    with pytest.raises(BuildError) as caught:
        result = misuse.attempt()
        if inspect.isawaitable(result):
            asyncio.run(result)
        elif inspect.isasyncgen(result):
            asyncio.run(result.__anext__())
    assert "hunter2" not in str(caught.value)
