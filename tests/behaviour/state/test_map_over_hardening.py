"""map_over at run time: a failed item leaves no stale item key, concurrent items leave no task
pending however the run ends, and the stored order of events is the order the client saw."""

from __future__ import annotations

import contextlib

import pytest

from adk_fluent import Agent, S, map_over
from adk_fluent.testing import delay, mock_backend
from tests.conftest import system_instruction
from tests.support.state import errors, reloaded
from tests.support.tasks import left_after, running


def _echo(request):
    return "done " + system_instruction(request).split("Do: ", 1)[1].split("\n", 1)[0]


def body():
    return Agent("worker").instruct("Do: {doc}").outputs("out")


@pytest.mark.parametrize("concurrency", [1, 3])
async def test_a_failed_step_in_an_item_ends_the_run_and_clears_the_item(sqlite_url, concurrency):
    guarded = S.guard(lambda s: s["doc"] != "bad", "bad document") >> body()
    pipeline = (
        S.set(docs=["a", "bad", "c"])
        >> map_over("docs", guarded, item_key="doc", output_key="outs", concurrency=concurrency)
        >> Agent("after")
    )
    backend = mock_backend({"worker": [_echo, _echo]})
    before = running()
    events = await pipeline.run("go", backend=backend, session_id="m", session_store=sqlite_url)
    assert await left_after(before) == set()  # no task of this run left pending
    [error] = errors(events)
    assert error.error_code == "STATE_GUARD_FAILED" and "bad document" in error.error_message
    assert "after" not in backend.requests
    session = await reloaded(pipeline, sqlite_url, "m")
    assert session.state.get("doc") is None  # no stale item
    assert "outs" not in session.state  # no partial results
    assert [e.error_code for e in errors(session.events)] == ["STATE_GUARD_FAILED"]


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_an_item_whose_body_raises_leaves_no_stale_item_and_no_task(sqlite_url, concurrency):
    pipeline = S.set(docs=["a", "b", "c"]) >> map_over(
        "docs", body(), item_key="doc", output_key="outs", concurrency=concurrency
    )
    slow = delay(30, "never")
    script = (
        [_echo, RuntimeError("model down"), slow]
        if concurrency > 1
        else [
            _echo,
            RuntimeError("model down"),
        ]
    )
    backend = mock_backend({"worker": script})
    before = running()
    with pytest.raises(RuntimeError, match="model down"):  # ADK's domain: it propagates
        await pipeline.run("go", backend=backend, session_id="r", session_store=sqlite_url)
    assert await left_after(before) == set()
    if concurrency > 1:
        assert slow.cancelled == [30]  # the third item was running and was cancelled
    session = await reloaded(pipeline, sqlite_url, "r")
    assert session.state.get("doc") is None and "outs" not in session.state


async def test_a_caller_that_stops_reading_leaves_no_task_pending():
    pipeline = S.set(docs=["a", "b", "c", "d"]) >> map_over(
        "docs", body(), item_key="doc", output_key="outs", concurrency=2
    )
    slow = delay(30, "never")
    backend = mock_backend({"worker": [_echo, slow, slow, slow]})
    before = running()
    async with contextlib.aclosing(pipeline.stream("go", backend=backend)) as events:
        async for event in events:
            if event.author == "worker":  # the first item's answer: stop reading here
                break
    assert await left_after(before) == set()
    assert len(slow.cancelled) == 2  # the items in flight were cancelled, not abandoned


async def test_the_stored_order_of_events_is_the_order_the_client_saw(sqlite_url):
    # later items finish first, so the items' events are made out of order on their copies
    def after(seconds):
        return lambda request: delay(seconds, _echo(request))(request)

    pipeline = S.set(docs=["a", "b", "c"]) >> map_over(
        "docs", body(), item_key="doc", output_key="outs", concurrency=3
    )
    backend = mock_backend({"worker": [after(0.3), after(0.15), after(0.01)]})
    events = await pipeline.run("go", backend=backend, session_id="o", session_store=sqlite_url)
    session = await reloaded(pipeline, sqlite_url, "o")
    stored = [e.id for e in session.events if e.author != "user"]
    assert stored == [e.id for e in events]
    assert session.state["outs"] == ["done a", "done b", "done c"]
    timestamps = [e.timestamp for e in session.events]
    assert timestamps == sorted(timestamps)


async def test_map_over_a_value_that_is_not_a_list_ends_the_run(sqlite_url):
    backend = mock_backend({})
    pipeline = S.set(docs="a, b") >> map_over("docs", body(), item_key="doc") >> Agent("after")
    events = await pipeline.run("go", backend=backend, session_id="n", session_store=sqlite_url)
    [error] = errors(events)
    assert error.error_code == "MAP_OVER_NOT_A_LIST"
    assert "map_over 'map_docs': state['docs'] is a str, not a list" in error.error_message
    assert backend.requests == {}


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_steps_after_the_body_s_agent_still_collect_its_output_key(sqlite_url, concurrency):
    """A body `agent.outputs(k) >> S.transform(k, ...)` collects state[k] after the transform
    (the agent's output, as the step left it), not the agent's raw reply text."""
    trailing = body() >> S.transform("out", str.upper) >> S.set(seen=True)
    pipeline = S.set(docs=["a", "b"]) >> map_over(
        "docs", trailing, item_key="doc", output_key="outs", concurrency=concurrency
    )
    backend = mock_backend({"worker": [_echo, _echo]})
    await pipeline.run("go", backend=backend, session_id="t", session_store=sqlite_url)
    session = await reloaded(pipeline, sqlite_url, "t")
    assert session.state["outs"] == ["DONE A", "DONE B"]
