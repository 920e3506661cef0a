"""A deleted key is a missing key at run time: writing None is how a step deletes, so after
`S.drop` a `S.transform` or `S.merge` of that key ends the run with STATE_KEY_MISSING instead of
computing on None. A function step whose dict has a key that is not a state key name ends the run
with STATE_STEP_BAD_RESULT naming the step, not a pydantic error from inside ADK. Each runs through
the Runner on SQLite; the reloaded session shows the error event and that nothing was written."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, S
from adk_fluent.testing import mock_backend
from tests.support.state import errors, reloaded


def int_keyed(state):
    return {"ok": 1, 1: "x"}


FAILURES: dict = {
    "transform-after-drop": (
        S.set(score=3, keep="k") >> S.drop("score") >> S.transform("score", str),
        "STATE_KEY_MISSING",
        ["step 'transform_score'", "state has no 'score'"],
    ),
    "merge-after-drop": (
        S.set(a=1, b=2, keep="k") >> S.drop("b") >> S.merge("a", "b", into="ab"),
        "STATE_KEY_MISSING",
        ["step 'merge_a_b_into_ab'", "needs 'b' in state"],
    ),
    "function-step-int-key": (
        S.set(keep="k") >> int_keyed,
        "STATE_STEP_BAD_RESULT",
        ["step 'int_keyed'", "a key name must be a str"],
    ),
}


@pytest.mark.parametrize("kind", list(FAILURES))
async def test_the_step_fails_with_one_error_event_and_writes_nothing(sqlite_url, kind):
    steps, code, fragments = FAILURES[kind]
    backend = mock_backend({})  # "after" has no script: calling it would fail the test
    pipeline = steps >> Agent("after")
    events = await pipeline.run("go", backend=backend, session_id="m", session_store=sqlite_url)
    [error] = errors(events)
    assert error.error_code == code
    for fragment in fragments:
        assert fragment in error.error_message, (fragment, error.error_message)
    assert "after" not in backend.requests
    session = await reloaded(pipeline, sqlite_url, "m")
    assert [e.error_code for e in errors(session.events)] == [code]
    state = session.state
    assert state["keep"] == "k"
    assert state.get("score") is None and state.get("b") is None  # still deleted
    assert "ab" not in state and "ok" not in state and 1 not in state  # nothing of the step


async def test_a_key_written_again_after_a_drop_is_there(sqlite_url):
    pipeline = S.set(score=3) >> S.drop("score") >> S.set(score=4) >> S.transform("score", str)
    events = await pipeline.run("go", session_id="w", session_store=sqlite_url)
    assert not errors(events)
    session = await reloaded(pipeline, sqlite_url, "w")
    assert session.state["score"] == "4"
