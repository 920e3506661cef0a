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


def _not_a_database(tmp: Path) -> str:
    """A file that is there but is no SQLite database."""
    path = tmp / "notes.db"
    path.write_text("shopping list: milk\n")
    return f"sqlite:///{path}"


_TMP = Path(__file__).parent / "no-such-folder" / "below"  # never created (checked below)

CASES = [
    case(
        "run-store-mysql-without-driver",
        _run(session_store="mysql://app:secret@db.internal/sessions"),
        "session_store",
        "cannot be opened",
        "***",
        "mysql+aiomysql://",
    ),
    case(
        "run-store-sqlite-folder-missing",
        _run(session_store=f"sqlite:///{_TMP}/sessions.db"),
        "session_store",
        f"the folder '{_TMP}' does not exist",
        "SQLite creates the file, not its folder",
        f"os.makedirs('{_TMP}', exist_ok=True)",
    ),
    case(
        "run-store-sqlite-relative-folder-missing",
        _run(session_store="sqlite:///missing/dir/x.db"),
        "the folder 'missing/dir' (",
        "does not exist",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)


def test_no_password_reaches_the_message():
    with pytest.raises(BuildError) as caught:
        asyncio.run(_run(session_store="mysql://app:secret@db.internal/sessions")())
    assert "secret" not in str(caught.value)


async def test_a_missing_folder_is_refused_before_anything_is_made(tmp_path, monkeypatch):
    """Through the run (and session()): the folder is named with its absolute path, nothing is
    created, the model is never called; the same URL works once the folder exists."""
    monkeypatch.chdir(tmp_path)
    backend = mock_backend({"greeter": "Hello."})
    store = "sqlite:///data/chats/sessions.db"
    for attempt in (
        lambda: Agent("greeter").run("hi", backend=backend, session_store=store),
        lambda: Agent("greeter").session("s1", backend=backend, session_store=store),
    ):
        with pytest.raises(BuildError) as caught:
            await attempt()
        assert caught.value.field == "session_store"
        assert f"'data/chats' ({tmp_path / 'data' / 'chats'}) does not exist" in str(caught.value)
    assert list(tmp_path.iterdir()) == [] and backend.requests == {}
    (tmp_path / "data" / "chats").mkdir(parents=True)
    assert await Agent("greeter").ask("hi", backend=backend, session_store=store) == "Hello."
    assert (tmp_path / "data" / "chats" / "sessions.db").is_file()


async def test_a_file_that_is_no_database_is_named(tmp_path):
    """SQLite opens it and fails at the first read: the message names the file, not SQLAlchemy's
    OperationalError."""
    store = _not_a_database(tmp_path)
    with pytest.raises(BuildError) as caught:
        await _run(session_store=store)()
    message = str(caught.value)
    assert f"SQLite cannot open or create the file '{tmp_path / 'notes.db'}'" in message
    assert "file is not a database" in message and "hint:" in message
    assert (tmp_path / "notes.db").read_text() == "shopping list: milk\n"  # left as it was


def test_the_missing_folders_of_the_cases_were_never_made():
    assert not _TMP.parent.exists()


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
