"""Misuse of the run methods that reaches a session store: a database URL whose driver is
missing, and refused runs on a real SQLite file, which must leave no row behind. The other run
misuses are build-time cases in tests/unit/misuse/test_misuse_run.py."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from adk_fluent import Agent
from adk_fluent.errors import BuildError
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.support.misuse import case, check, ids


def _agent() -> Agent:
    return Agent("greeter", ScriptedModel(["Hello."]))


def _run(prompt="hi", **options):
    return lambda: _agent().run(prompt, **options)


CASES = [
    case(
        "run-store-mysql-without-driver",
        _run(session_store="mysql://app:secret@db.internal/sessions"),
        "session_store",
        "cannot be opened",
        "***",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)


def test_no_password_reaches_the_message():
    with pytest.raises(BuildError) as caught:
        asyncio.run(_run(session_store="mysql://app:secret@db.internal/sessions")())
    assert "secret" not in str(caught.value)


def _stored_rows(url: str) -> int:
    """Sessions and events in the SQLite file, read directly (0 when there is no file)."""
    path = Path(url.removeprefix("sqlite:///"))
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path)) as db:
        tables = {row[0] for row in db.execute("select name from sqlite_master")}
        return sum(
            db.execute(f"select count(*) from {table}").fetchone()[0]
            for table in ("sessions", "events")
            if table in tables
        )


@pytest.mark.parametrize(
    "refused",
    [
        {"prompt": ["hi", 42]},
        {"prompt": ""},
        {"user_id": ""},
        {"session_id": 42},
        {"run_config": {"max_llm_calls": 3}},
        {"sesion_id": "typo"},
    ],
    ids=["prompt-list", "prompt-empty", "user-id", "session-id", "run-config", "typo"],
)
async def test_a_refused_run_stores_nothing(sqlite_url, refused):
    agent = Agent("greeter")
    backend = mock_backend({"greeter": "Hello."})
    settings = {"prompt": "hi", "session_id": "refused", **refused}
    prompt = settings.pop("prompt")
    with pytest.raises(BuildError, match="hint"):
        await agent.run(prompt, backend=backend, session_store=sqlite_url, **settings)
    assert backend.requests == {}  # the model was never called
    assert _stored_rows(sqlite_url) == 0  # and no session or event was written
    # the same run, put right, is stored: the check above can see rows
    await agent.run("hi", backend=backend, session_id="fine", session_store=sqlite_url)
    assert _stored_rows(sqlite_url) == 3  # one session, the user's message and the reply
