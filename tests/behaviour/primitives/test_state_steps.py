"""S transforms through the real Runner on SQLite, checked after reloading through a fresh service."""

from __future__ import annotations

import logging

import pytest

from adk_fluent import Agent, S
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.conftest import fresh_db_service, request_texts, system_instruction


async def stored_state(url: str, session_id: str) -> dict:
    session = await fresh_db_service(url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id=session_id
    )
    return dict(session.state)


async def run_steps(pipeline, url, session_id="s", prompt="hello", backend=None):
    events = await pipeline.run(prompt, session_id=session_id, session_store=url, backend=backend)
    return events, await stored_state(url, session_id)


SEED = S.set(a=1, b=2, note="x", **{"user:tier": "gold", "app:region": "eu"})


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        (S.set(c=3), {"a": 1, "b": 2, "c": 3}),
        (S.default(a=100, z=26), {"a": 1, "z": 26}),
        (S.merge("a", "b", into="ab"), {"ab": {"a": 1, "b": 2}}),
        (S.merge("a", "b", into="total", fn=lambda a, b: a + b), {"total": 3}),
        (S.pick("a"), {"a": 1, "b": None, "note": None, "user:tier": "gold", "app:region": "eu"}),
        (S.drop("b", "note"), {"a": 1, "b": None, "note": None, "user:tier": "gold"}),
        (S.rename(a="alpha"), {"alpha": 1, "a": None}),
        (S.transform("b", lambda v: v * 10), {"b": 20}),
        (S.compute(sum=lambda s: s["a"] + s["b"]), {"sum": 3}),
        (lambda state: {"from_fn": state["a"] + 41}, {"from_fn": 42}),
    ],
    ids=[
        "set",
        "default",
        "merge",
        "merge_fn",
        "pick",
        "drop",
        "rename",
        "transform",
        "compute",
        "function",
    ],
)
async def test_state_step_persists(sqlite_url, step, expected):
    _, state = await run_steps(SEED >> step, sqlite_url)
    for key, value in expected.items():
        assert state.get(key) == value, key


async def test_steps_emit_state_deltas_and_no_text(sqlite_url):
    events, _ = await run_steps(SEED >> S.drop("b"), sqlite_url)
    assert [e.content for e in events] == [None, None]
    assert events[1].state_delta == {"b": None}


async def test_capture_stores_the_users_message_for_later_agents(sqlite_url):
    backend = mock_backend({"writer": "done"})
    pipeline = S.capture("question") >> Agent("writer").instruct("Answer: {question}")
    _, state = await run_steps(pipeline, sqlite_url, prompt="What is ADK?", backend=backend)
    assert state["question"] == "What is ADK?"
    assert "Answer: What is ADK?" in system_instruction(backend.requests["writer"][0])


async def test_capture_takes_the_latest_message_each_turn(sqlite_url):
    pipeline = S.capture("last")
    await pipeline.run("first", session_id="t", session_store=sqlite_url)
    await pipeline.run("second", session_id="t", session_store=sqlite_url)
    assert (await stored_state(sqlite_url, "t"))["last"] == "second"


async def test_guard_stops_the_run_with_its_message(sqlite_url):
    model = ScriptedModel({"after": ["never"]})
    pipeline = (
        S.set(amount=5000)
        >> S.guard(lambda s: s["amount"] < 1000, "amount over limit")
        >> Agent("after", model.for_agent("after"))
    )
    events = await pipeline.run("go", session_store=sqlite_url)
    assert events[-1].error_code == "STATE_GUARD_FAILED"
    assert events[-1].error_message == "step 'guard': guard failed: amount over limit"
    assert model.requests == {}


async def test_guard_that_holds_lets_the_run_continue(sqlite_url):
    backend = mock_backend({"after": "ran"})
    pipeline = S.set(amount=5) >> S.guard(lambda s: s["amount"] < 1000) >> Agent("after")
    events, _ = await run_steps(pipeline, sqlite_url, backend=backend)
    assert events[-1].content == "ran"


async def test_log_reports_keys(sqlite_url, caplog):
    with caplog.at_level(logging.INFO, logger="adk_fluent.state"):
        await run_steps(SEED >> S.log("a", "b"), sqlite_url)
    assert "{'a': 1, 'b': 2}" in caplog.text


async def test_transform_of_a_missing_key_is_a_clear_error(sqlite_url):
    events, _ = await run_steps(S.transform("missing", str), sqlite_url)
    assert events[-1].error_code == "STATE_KEY_MISSING"
    assert "S.transform('missing', ...) but state has no 'missing'" in events[-1].error_message


async def test_function_step_must_return_a_dict(sqlite_url):
    events, state = await run_steps(S.set(a=1) >> (lambda state: 42), sqlite_url)
    assert events[-1].error_code == "STATE_STEP_BAD_RESULT"
    assert "must return a dict" in events[-1].error_message and state == {"a": 1}


async def test_same_step_twice_in_one_tree(sqlite_url):
    _, state = await run_steps(
        S.set(n=1) >> S.transform("n", lambda v: v + 1) >> S.transform("n", lambda v: v + 1),
        sqlite_url,
    )
    assert state["n"] == 3


async def test_agents_see_state_written_by_steps_through_history_too(sqlite_url):
    backend = mock_backend({"reader": "ok"})
    await run_steps(
        S.set(topic="tides") >> Agent("reader").instruct("Topic: {topic}"),
        sqlite_url,
        backend=backend,
    )
    assert "Topic: tides" in system_instruction(backend.requests["reader"][0])
    assert request_texts(backend.requests["reader"][0])[-1] == "hello"
