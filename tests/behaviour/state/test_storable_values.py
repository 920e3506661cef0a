"""Values the session store cannot hold: constants are refused at build with a hint; computed
values are checked when written, and a bad one ends the run with one error event naming the step
and the key, with nothing of that step written. Checked after reloading SQLite."""

from __future__ import annotations

import datetime

import pytest

from adk_fluent import Agent, S
from adk_fluent.testing import mock_backend
from tests.support.state import errors, reloaded


class Point:
    pass


@pytest.mark.parametrize(
    ("step", "key", "what"),
    [
        (S.compute(when=lambda s: datetime.datetime(2026, 1, 1)), "when", "a datetime"),
        (S.transform("n", lambda n: {n}), "n", "a set"),
        (S.merge("n", "m", into="both", fn=lambda n, m: Point()), "both", "a Point object"),
        (lambda state: {"fine": 1, "blob": b"x"}, "blob", "bytes"),
    ],
    ids=["compute", "transform", "merge", "function"],
)
async def test_a_computed_value_the_store_cannot_hold_ends_the_run(sqlite_url, step, key, what):
    backend = mock_backend({"after": "never"})
    pipeline = S.set(n=1, m=2) >> step >> Agent("after")
    events = await pipeline.run("x", backend=backend, session_id="v", session_store=sqlite_url)
    [error] = errors(events)
    assert error.error_code == "STATE_VALUE_NOT_STORABLE"
    assert f"state['{key}'] is {what}" in error.error_message
    assert error.author in error.error_message  # names the step
    assert "Fix:" in error.error_message
    assert "after" not in backend.requests  # the run ended there
    session = await reloaded(pipeline, sqlite_url, "v")
    assert dict(session.state) == {"n": 1, "m": 2}  # nothing of the step was written
    assert session.events[-1].error_code == "STATE_VALUE_NOT_STORABLE"


async def test_a_computed_tuple_is_stored_as_a_list_in_every_store(sqlite_url):
    pipeline = S.set(n=1) >> S.compute(pair=lambda s: (s["n"], "a"))
    await pipeline.run("x", session_id="t")
    assert (await pipeline.session("t")).state["pair"] == [1, "a"]  # in memory, as on reload
    await pipeline.run("x", session_id="t", session_store=sqlite_url)
    assert (await reloaded(pipeline, sqlite_url, "t")).state["pair"] == [1, "a"]


async def test_json_values_round_trip_through_sqlite_unchanged(sqlite_url):
    value = {"name": "Ada", "tags": ["a", "b"], "n": 3, "x": 1.5, "ok": True, "none": None}
    pipeline = S.set(profile=value) >> S.transform("profile", lambda p: {**p, "n": p["n"] + 1})
    await pipeline.run("x", session_id="j", session_store=sqlite_url)
    assert (await reloaded(pipeline, sqlite_url, "j")).state["profile"] == {**value, "n": 4}
