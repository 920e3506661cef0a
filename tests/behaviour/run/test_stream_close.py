"""Leaving a stream early: `break` out of `.stream()`, `aclose()` it, or cancel the task that
reads it. ADK's generator is closed in the context that opened it (no OpenTelemetry "created in
a different Context"), nothing runs on after the consumer left, no task is left pending, and
no switch outlives the stream: a plain Runner used next in the same task still filters."""

from __future__ import annotations

import asyncio

import pytest

from adk_fluent import Agent
from adk_fluent.testing import ScriptedModel, call, mock_backend
from tests.support.tasks import left_after

CALLS: list[str] = []


def lookup(city: str) -> dict:
    """Look a city up."""
    CALLS.append(city)
    return {"city": city}


def pipeline() -> Agent:
    return Agent("classifier").outputs("intent") >> Agent("worker").tool(lookup)


async def others_settle() -> set[asyncio.Task]:
    """The tasks left once the loop has run what a dropped generator scheduled (its close)."""
    return await left_after(set())


async def test_nothing_runs_after_the_consumer_broke_out():
    CALLS.clear()
    backend = mock_backend({"classifier": "booking", "worker": [call("lookup", city="Rome"), "ok"]})
    async for event in pipeline().stream("go", backend=backend, session_id="left"):
        assert event.author == "classifier"
        break
    assert await others_settle() == set()
    assert CALLS == [] and "worker" not in backend.requests  # the worker never started
    session = await pipeline().session("left", backend=backend)
    assert [e.author for e in session.events] == ["user", "classifier"]


async def test_the_session_is_free_for_the_next_turn_after_a_break():
    backend = mock_backend({"classifier": ["a", "b"], "worker": ["first", "second"]})
    async for _ in pipeline().stream("one", backend=backend, session_id="again"):
        break
    # the next turn on the same session waits for the abandoned one to be closed, no longer
    assert await pipeline().ask("two", backend=backend, session_id="again") == "first"
    session = await pipeline().session("again", backend=backend)
    assert [e.author for e in session.events] == [
        "user",
        "classifier",
        "user",
        "classifier",
        "worker",
    ]


async def test_aclose_ends_the_turn_at_once():
    backend = mock_backend({"classifier": "booking", "worker": "unused"})
    stream = pipeline().stream("go", backend=backend)
    first = await anext(stream)
    await stream.aclose()
    assert first.author == "classifier"
    assert {t for t in asyncio.all_tasks() if t is not asyncio.current_task()} == set()
    assert "worker" not in backend.requests


async def test_cancelling_the_reader_cancels_the_model_call_and_leaves_nothing_pending():
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def slow(request):
        started.set()
        try:
            await asyncio.Event().wait()  # never answers
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    reader = asyncio.create_task(Agent("slow", ScriptedModel([slow])).run("go"))
    # the run failing before the model call must fail the test, not leave it waiting forever
    waiting = asyncio.create_task(started.wait())
    await asyncio.wait({reader, waiting}, return_when=asyncio.FIRST_COMPLETED)
    if reader.done():
        waiting.cancel()
        reader.result()  # raises what ended the run
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert cancelled == [True]
    assert await others_settle() == set()


async def test_an_error_inside_the_turn_reaches_the_reader_as_itself():
    def explode(city: str) -> dict:
        """Fails."""
        raise LookupError(f"no such city: {city}")

    agent = Agent("worker", ScriptedModel([call("explode", city="Atlantis")])).tool(explode)
    with pytest.raises(LookupError, match="no such city: Atlantis"):
        async for _ in agent.stream("go"):
            pass
    assert await others_settle() == set()
