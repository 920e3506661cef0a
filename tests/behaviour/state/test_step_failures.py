"""A failing adk-fluent step yields ONE error event naming the step (and key) and ends the whole
invocation: no later agent runs, wherever it sits. The event is stored like any other (SQLite,
reloaded), the original exception is logged, and `ask()` raises RunError."""

from __future__ import annotations

import logging

import pytest

from adk_fluent import Agent, FanOut, Pipeline, Route, S, map_over, tap, timeout, until
from adk_fluent.errors import RunError
from adk_fluent.testing import delay, mock_backend
from tests.support.state import errors, reloaded


def boom(*args):
    raise ValueError("bad input")


def _writes_nested(state):
    state["cart"].append("x")


FAILURES: dict = {
    "guard": (
        S.guard(lambda s: s["n"] < 0, "n must be negative"),
        "STATE_GUARD_FAILED",
        ["guard failed: n must be negative"],
    ),
    "transform_raises": (
        S.transform("n", boom),
        "STATE_STEP_RAISED",
        ["transform_n", "ValueError: bad input"],
    ),
    "compute_raises": (
        S.compute(total=boom),
        "STATE_STEP_RAISED",
        ["compute_total", "ValueError: bad input"],
    ),
    "merge_fn_raises": (
        S.merge("n", "cart", into="both", fn=boom),
        "STATE_STEP_RAISED",
        ["merge_n_cart_into_both", "ValueError"],
    ),
    "function_raises": (boom, "STATE_STEP_RAISED", ["boom", "ValueError: bad input"]),
    "function_bad_result": (
        (lambda state: 42),
        "STATE_STEP_BAD_RESULT",
        ["fn_step", "must return a dict", "got int"],
    ),
    "transform_missing_key": (
        S.transform("missing", str),
        "STATE_KEY_MISSING",
        ["transform_missing", "state has no 'missing'"],
    ),
    "merge_missing_key": (
        S.merge("n", "missing", into="both"),
        "STATE_KEY_MISSING",
        ["merge_n_missing_into_both", "'missing'"],
    ),
    "route_no_match": (
        Route("n").eq(5, Agent("five")),
        "ROUTE_NO_MATCH",
        ["Route 'route_n'", "no rule matched n=1", ".otherwise"],
    ),
    "route_missing_key": (
        Route("nothing").eq("x", Agent("x")),
        "ROUTE_KEY_MISSING",
        ["state has no 'nothing'"],
    ),
    "route_rule_raises": (
        Route("n").when(boom, Agent("w")),
        "STATE_STEP_RAISED",
        ["route_n", "ValueError"],
    ),
    "map_over_not_a_list": (
        map_over("n", Agent("body")),
        "MAP_OVER_NOT_A_LIST",
        ["map_n", "state['n'] is an int, not a list"],
    ),
    "tap_writes": (
        tap(_writes_nested, name="nosy"),
        "TAP_FAILED",
        ["nosy", "StateWriteError", "read-only"],
    ),
    "until_raises": (
        Agent("until_body") * until(boom, max=3),
        "STATE_STEP_RAISED",
        ["until", "ValueError"],
    ),
    "timeout": (
        timeout(Agent("timeout_body"), 0.2),
        "TIMEOUT",
        ["step 'timeout_body' timed out after 0.2s and was cancelled"],
    ),
}
SCRIPTS = {"timeout_body": delay(30, "too late"), "until_body": "looped"}


@pytest.mark.parametrize("nested", [False, True], ids=["flat", "nested"])
@pytest.mark.parametrize("kind", list(FAILURES))
async def test_a_failed_step_is_one_error_event_and_nothing_after_it_runs(sqlite_url, kind, nested):
    step, code, fragments = FAILURES[kind]
    # later agents have no script: calling one would fail the test with a ScriptError
    backend = mock_backend({k: v for k, v in SCRIPTS.items() if k.startswith(kind[:4])})
    if nested:  # deep inside a named pipeline inside a FanOut branch: the halt reaches the top
        inner = Pipeline(S.set(n=1, cart=["seed"]), step, Agent("inner_after"), name="inner")
        pipeline = FanOut(inner, name="fan") >> Agent("after")
    else:
        pipeline = S.set(n=1, cart=["seed"]) >> step >> Agent("after")
    events = await pipeline.run("go", backend=backend, session_id="f", session_store=sqlite_url)
    [error] = errors(events)
    assert error.error_code == code
    for fragment in fragments:
        assert fragment in error.error_message, (fragment, error.error_message)
    assert "after" not in backend.requests and "inner_after" not in backend.requests
    session = await reloaded(pipeline, sqlite_url, "f")
    assert [e.error_code for e in errors(session.events)] == [code]
    assert session.state["cart"] == ["seed"]


async def test_the_original_exception_is_logged_with_its_traceback(caplog):
    with caplog.at_level(logging.ERROR, logger="adk_fluent.state"):
        await (S.set(n=1) >> S.transform("n", boom)).run("go")
    [record] = [r for r in caplog.records if r.name == "adk_fluent.state"]
    assert record.exc_info and record.exc_info[0] is ValueError
    assert "transform_n" in record.getMessage()


async def test_ask_raises_run_error_naming_the_step():
    pipeline = S.set(amount=5000) >> S.guard(lambda s: s["amount"] < 1000, "over limit")
    with pytest.raises(RunError) as caught:
        await pipeline.ask("go")
    assert caught.value.code == "STATE_GUARD_FAILED"
    assert caught.value.author == "guard"
    assert "over limit" in str(caught.value)


async def test_a_fallback_tries_the_next_alternative_when_a_step_fails(sqlite_url):
    backend = mock_backend({"slow": delay(30, "late"), "backup": "from backup", "after": "ran"})
    pipeline = (
        timeout(Agent("slow").outputs("answer"), 0.2) // Agent("backup").outputs("answer")
    ) >> Agent("after")
    events = await pipeline.run("go", backend=backend, session_id="fb", session_store=sqlite_url)
    assert not errors(events)
    assert events[-1].content == "ran"
    session = await reloaded(pipeline, sqlite_url, "fb")
    assert session.state["answer"] == "from backup" and not errors(session.events)


async def test_when_every_alternative_fails_the_last_failure_stands(sqlite_url):
    backend = mock_backend({"after": "never"})
    pipeline = (
        S.guard(lambda s: False, "first") // S.guard(lambda s: False, "second").named("guard_2")
    ) >> Agent("after")
    events = await pipeline.run("go", backend=backend, session_store=sqlite_url)
    [error] = errors(events)
    assert "second" in error.error_message and "after" not in backend.requests


async def test_the_next_turn_runs_normally_after_a_failure(sqlite_url):
    backend = mock_backend({"after": ["ran"]})
    pipeline = S.guard(lambda s: s.get("ok") is True, "not ok") >> Agent("after")
    await pipeline.run("go", backend=backend, session_id="n", session_store=sqlite_url)
    fixed = S.set(ok=True) >> pipeline
    events = await fixed.run("go", backend=backend, session_id="n2", session_store=sqlite_url)
    assert not errors(events) and events[-1].content == "ran"
