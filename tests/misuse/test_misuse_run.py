"""Misuse of the run methods (run, stream, ask, ask_sync, session, rewind): the prompt, the ids,
the options and the stores. Each is refused with a message naming the field and a hint, when
`stream()` is called or `run()` / `ask()` awaited, before anything is stored."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from google.genai import types

from adk_fluent import Agent
from adk_fluent.errors import BuildError
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.misuse.corpus import case, check, ids


def _agent() -> Agent:
    return Agent("greeter", ScriptedModel(["Hello."]))


def _run(prompt="hi", **options):
    return lambda: _agent().run(prompt, **options)


async def _ask_sync_inside_a_loop():
    return _agent().ask_sync("hi")


CASES = [
    # the prompt
    case("run-prompt-list-with-a-number", _run(["hi", 42]), "prompt[1]", "int"),
    case("run-prompt-none", _run(None), "prompt", "NoneType"),
    case("run-prompt-empty", _run(""), "prompt", "empty"),
    case("run-prompt-blank", _run("  \n "), "prompt", "empty"),
    case("run-prompt-empty-list", _run([]), "prompt", "empty list"),
    case("run-prompt-dict", _run({"text": "hi"}), "prompt", "dict"),
    case(
        "run-prompt-content-without-parts",
        _run(types.Content(role="user", parts=[])),
        "prompt",
        "no parts",
    ),
    case("run-stream-prompt-number", lambda: _agent().stream(42), "prompt", "int"),
    case("run-ask-prompt-bytes", lambda: _agent().ask(b"hi"), "prompt", "bytes"),
    # the ids
    case("run-user-id-none", _run(user_id=None), "user_id", "NoneType"),
    case("run-user-id-empty", _run(user_id=""), "user_id", "empty"),
    case("run-user-id-number", _run(user_id=7), "user_id", "int"),
    case("run-session-id-empty", _run(session_id=""), "session_id", "empty"),
    case("run-session-id-number", _run(session_id=42), "session_id", "int"),
    case("run-session-id-too-long", _run(session_id="x" * 200), "session_id", "200 characters"),
    case("run-session-lookup-empty-id", lambda: _agent().session(""), "session_id", "empty"),
    case("run-rewind-id-none", lambda: _agent().rewind(None, "inv-1"), "session_id", "NoneType"),
    # options
    case("run-option-typo", _run(sesion_id="s"), "sesion_id", "did you mean 'session_id'"),
    case("run-option-unknown", _run(temperature=0.2), "temperature", "the options are"),
    case("run-config-not-an-execution-config", _run(config="x"), "config", "ExecutionConfig"),
    case("run-backend-not-a-backend", _run(backend=object()), "backend", "mock_backend"),
    case("run-run-config-dict", _run(run_config={"max_llm_calls": 3}), "run_config", "RunConfig"),
    case(
        "run-ask-sync-inside-a-loop",
        _ask_sync_inside_a_loop,
        "ask_sync",
        "running event loop",
    ),
    # stores and services
    case(
        "run-store-mysql-without-driver",
        _run(session_store="mysql://app:secret@db.internal/sessions"),
        "session_store",
        "cannot be opened",
        "***",
    ),
    case("run-store-object", _run(session_store=object()), "session_store", "object"),
    case("run-store-bare-file-name", _run(session_store="sessions.db"), "sqlite:///sessions.db"),
    case(
        "run-store-and-service-both",
        _run(session_store="memory", session_service=object()),
        "session_service",
    ),
    case(
        "run-session-service-not-a-service",
        _run(session_service="sqlite:///x.db"),
        "session_service",
        "str",
    ),
    case(
        "run-artifact-service-wrong-type",
        _run(artifact_service="gcs://bucket"),
        "artifact_service",
        "BaseArtifactService",
    ),
    case(
        "run-memory-service-wrong-type",
        _run(memory_service={}),
        "memory_service",
        "BaseMemoryService",
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
