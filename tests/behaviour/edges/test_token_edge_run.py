"""Token edges through the real Runner, scripted, on SQLite (both ADK ends): the consumer gets
each piece the producer's model streams, in order and as it came; a bounded buffer holds the
producer back while the consumer is slow (the producer's stream is read only as chunks are
taken), where an unbounded one lets the producer run ahead; the store holds every step after a
reload."""

from __future__ import annotations

import pytest

from adk_fluent import Agent
from adk_fluent.testing import mock_backend, repeat, streamed
from tests.conftest import fresh_db_service, system_instruction

PIECES = [f"word{i} " for i in range(12)]


def edge(buffer=None):
    writer = Agent("writer").instruct("Write.").outputs("draft")
    speaker = Agent("speaker").instruct("Say: {chunk}").outputs("spoken")
    return writer.then(speaker, edge="token", buffer=buffer)


def backend(consumer_gap: float = 0.0):
    return mock_backend(
        {"writer": streamed(*PIECES), "speaker": repeat(streamed("ok", gap=consumer_gap))}
    )


def piece_seen(request) -> str:
    return system_instruction(request).split("Say: ", 1)[1].split("\n", 1)[0]


async def test_the_consumer_gets_each_streamed_piece_in_order_and_the_store_keeps_it_all(
    sqlite_url,
):
    scripted = backend()
    await edge().run(
        "go", backend=scripted, session_id="t", session_store=sqlite_url, streaming="sse"
    )
    assert [piece_seen(r) for r in scripted.requests["speaker"]] == PIECES
    session = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="t"
    )
    writes = [
        e.actions.state_delta["chunk"]
        for e in session.events
        if e.actions and e.actions.state_delta.get("chunk")
    ]
    assert writes == PIECES  # as streamed, spaces kept
    assert session.state["draft"] == "".join(PIECES)
    assert session.state["spoken"] == "ok" * len(PIECES)  # joined as the pieces were
    assert session.state.get("chunk") is None


async def test_without_streaming_the_whole_reply_is_one_piece(sqlite_url):
    scripted = backend()
    await edge().run("go", backend=scripted, session_id="w", session_store=sqlite_url)
    assert len(scripted.requests["speaker"]) == 1
    assert piece_seen(scripted.requests["speaker"][0]) == "".join(PIECES)


async def _order(buffer: int) -> str:
    """P for each piece of the producer the client received, C for each piece handed on."""
    marks = []
    async for event in edge(buffer).stream("go", backend=backend(0.02), streaming="sse"):
        if event.author == "writer" and event.is_partial:
            marks.append("P")
        elif event.state_delta.get("chunk"):
            marks.append("C")
    return "".join(marks)


@pytest.mark.parametrize("buffer", [1, 2, 4])
async def test_a_slow_consumer_holds_the_producer_back_by_the_buffer(buffer):
    order = await _order(buffer)
    assert order.count("P") == order.count("C") == len(PIECES)
    for handed in range(1, len(PIECES) + 1):  # before the n-th piece is handed on ...
        before = order[: [i for i, m in enumerate(order) if m == "C"][handed - 1]]
        # ... the producer has streamed at most n pieces, the buffer and the one in hand
        assert before.count("P") <= handed + buffer + 1, order


async def test_an_unbounded_buffer_lets_the_producer_run_ahead():
    order = await _order(len(PIECES) * 2)
    second = [i for i, m in enumerate(order) if m == "C"][1]
    assert order[:second].count("P") == len(PIECES), order
