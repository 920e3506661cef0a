"""`//` with a plain function step on its left runs like any Fallback: when the function raises,
the next alternative runs; when it returns its changes, nothing after it in the Fallback runs.
Checked through the real Runner on SQLite, after reloading the session."""

from __future__ import annotations

from adk_fluent import Agent
from adk_fluent.testing import mock_backend
from tests.support.state import errors, reloaded


def cached_answer(state):
    if "cache" not in state:
        raise LookupError("cache is cold")
    return {"answer": state["cache"]}


async def test_a_failing_function_on_the_left_falls_back_to_the_agent(sqlite_url):
    backend = mock_backend({"backup": "from backup", "after": "done"})
    pipeline = (cached_answer // Agent("backup").outputs("answer")) >> Agent("after")
    events = await pipeline.run("go", backend=backend, session_id="cold", session_store=sqlite_url)
    assert not errors(events)
    assert events[-1].content == "done"
    session = await reloaded(pipeline, sqlite_url, "cold")
    assert session.state["answer"] == "from backup" and not errors(session.events)


async def test_a_function_that_succeeds_on_the_left_skips_the_agent(sqlite_url):
    backend = mock_backend({"after": "done"})  # backup has no script: calling it would fail
    pipeline = (
        (lambda state: {"cache": "warm"})
        >> (cached_answer // Agent("backup").outputs("answer"))
        >> Agent("after")
    )
    events = await pipeline.run("go", backend=backend, session_id="warm", session_store=sqlite_url)
    assert not errors(events) and "backup" not in backend.requests
    session = await reloaded(pipeline, sqlite_url, "warm")
    assert session.state["answer"] == "warm"
