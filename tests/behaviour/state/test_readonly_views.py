"""What taps, steps and predicates receive is read-only at every depth: a nested write raises
StateWriteError (and ends the run as the step's failure), so what later agents see is always
what the store holds."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Route, S, loop_until, tap
from adk_fluent.errors import StateWriteError
from adk_fluent.testing import mock_backend
from tests.conftest import system_instruction
from tests.support.state import errors, reloaded

SEED = S.set(cart=["seed"], profile={"tier": "basic", "tags": ["a"]})


async def test_a_tap_that_swallows_its_failed_write_changes_nothing_later_agents_see(sqlite_url):
    def sneaky(state):
        try:
            state["profile"]["tier"] = "gold"
        except StateWriteError:
            pass
        try:
            state["cart"].append("x")
        except StateWriteError:
            pass

    backend = mock_backend({"reader": "ok"})
    pipeline = SEED >> tap(sneaky) >> Agent("reader").instruct("Tier {profile} cart {cart}")
    await pipeline.run("x", backend=backend, session_id="t", session_store=sqlite_url)
    session = await reloaded(pipeline, sqlite_url, "t")
    assert session.state["profile"] == {"tier": "basic", "tags": ["a"]}
    assert session.state["cart"] == ["seed"]
    shown = system_instruction(backend.requests["reader"][0])
    assert "'tier': 'basic'" in shown and "cart ['seed']" in shown  # the same as the store


@pytest.mark.parametrize(
    "step",
    [
        tap(lambda s: s["cart"].append(1), name="tap_nested"),
        S.compute(n=lambda s: s["profile"].update(tier="gold")),
        lambda s: s["cart"].append(1),
        Route("cart").when(lambda s: s["cart"].append(1), Agent("never")).otherwise(Agent("no")),
        loop_until(lambda s: s["cart"].append(1), Agent("body"), max_iterations=1),
    ],
    ids=["tap", "compute", "function", "route_rule", "until"],
)
async def test_a_nested_write_from_any_step_ends_the_run_and_the_store_is_unchanged(
    sqlite_url, step, request
):
    backend = mock_backend({"body": "ran"} if request.node.callspec.id == "until" else {})
    pipeline = SEED >> step >> Agent("after")
    events = await pipeline.run("x", backend=backend, session_id="w", session_store=sqlite_url)
    [error] = errors(events)
    assert "StateWriteError" in error.error_message and "read-only" in error.error_message
    assert "after" not in backend.requests
    session = await reloaded(pipeline, sqlite_url, "w")
    assert session.state["cart"] == ["seed"]
    assert session.state["profile"] == {"tier": "basic", "tags": ["a"]}
