"""race and map_over stream as they go: every contender's and every item's partial events reach
the client live, tagged with where they come from, while the complete events are committed as
without streaming (the race's winner only; map_over's items in order), so nothing a loser
produced reaches the store."""

from __future__ import annotations

import contextlib

import pytest

from adk_fluent import Agent, S, map_over, race
from adk_fluent.testing import call, streamed
from tests.behaviour.streaming.streams import fluent_turn, record, runner_turn, streams
from tests.conftest import system_instruction
from tests.support.tasks import left_after, running


def note(text: str, tool_context) -> str:
    """Keeps a note in state (the slow contender's work before it answers)."""
    tool_context.state["slow_note"] = text
    return "noted"


def contenders():
    return race(Agent("fast").outputs("answer"), Agent("slow").tool(note).outputs("answer"))


def race_scripts(slow_step=None):
    return {
        "fast": streamed("Fast ", "and ", "sure.", gap=0.15),
        # a tool call (a state change on its private copy), then a reply longer than fast's
        "slow": [call("note", text="slow work"), slow_step or _slow_reply()],
    }


def _slow_reply():
    # far longer than fast's (5 s against 0.45 s): a loaded machine still sees it cut off
    return streamed(*[f"slow{i} " for i in range(100)], gap=0.05)


async def test_every_contenders_partials_reach_the_client_live_and_tagged(sqlite_url):
    slow = _slow_reply()
    pipeline = contenders()
    turn = await fluent_turn(pipeline, race_scripts(slow), sqlite_url, "race", streaming="sse")
    name = pipeline.to_ir().name
    partials = [e for e in turn.client if e.is_partial]
    by_contender = {
        contender: [e.content for e in partials if e.race_contender == (name, contender)]
        for contender in ("fast", "slow")
    }
    assert by_contender["fast"] == ["Fast ", "and ", "sure."]
    assert by_contender["slow"] and by_contender["slow"] == [
        f"slow{i} " for i in range(len(by_contender["slow"]))
    ]
    assert {e.author for e in partials if e.race_contender[1] == "slow"} == {"slow"}
    # live: the loser's chunks came while the winner was still streaming
    final = next(i for i, e in enumerate(turn.client) if e.author == "fast" and e.is_final)
    first_slow = next(i for i, e in enumerate(turn.client) if e.author == "slow")
    assert first_slow < final
    # only the winner's complete events reach the client (the loser's tool call is dropped),
    # tagged as the winner's
    complete = [e for e in turn.client if not e.is_partial]
    assert [e.author for e in complete] == ["fast"]
    assert complete[0].race_contender == (name, "fast")
    assert slow.cancelled  # the loser was cut off mid-stream
    # nothing the loser produced is stored: no event, no state change
    assert [e.author for e in turn.stored] == ["user", "fast"]
    assert turn.state["answer"] == "Fast and sure."
    assert "slow_note" not in turn.state
    assert not any(e.partial for e in turn.stored)


async def test_the_same_race_without_streaming_stores_the_same(sqlite_url):
    streaming = await fluent_turn(contenders(), race_scripts(), sqlite_url, "s", streaming="sse")
    plain = await fluent_turn(contenders(), race_scripts(), sqlite_url, "p")
    assert [e.author for e in plain.client] == ["fast"]  # held until it won, as always
    assert record(streaming.stored) == record(plain.stored)
    assert streaming.state == plain.state


async def test_a_plain_runner_gets_the_tagged_contender_streams_too(sqlite_url):
    pipeline = contenders()
    turn = await runner_turn(pipeline, race_scripts(), sqlite_url, "r")
    tags = {
        (e.author, e.custom_metadata["adk_fluent.race"]["contender"])
        for e in turn.client
        if e.partial
    }
    assert tags == {("fast", "fast"), ("slow", "slow")}
    finals, leftover = streams(turn.client)
    assert finals == {"fast": ["Fast and sure."]} and set(leftover) == {"slow"}
    assert [e.author for e in turn.stored] == ["user", "fast"]
    assert "slow_note" not in turn.state


async def test_internal_contenders_partials_are_filtered_like_any_internal_text(sqlite_url):
    pipeline = (contenders() >> Agent("teller").instruct("Tell {answer}")).filtered()
    scripts = {**race_scripts(), "teller": streamed("Told.")}
    turn = await fluent_turn(pipeline, scripts, sqlite_url, "f", streaming="sse")
    assert [(e.author, e.content) for e in turn.client if e.content] == [
        ("teller", "Told."),
        ("teller", "Told."),
    ]
    annotated = await fluent_turn(
        contenders() >> Agent("teller").instruct("Tell {answer}"),
        scripts | {"teller": streamed("Told.")},
        sqlite_url,
        "a",
        streaming="sse",
    )
    loser = [e for e in annotated.client if e.author == "slow" and e.is_partial]
    assert loser and {e.visibility for e in loser} == {"internal"}


async def test_a_caller_that_stops_reading_mid_race_leaves_no_task_pending():
    from adk_fluent.testing import mock_backend

    backend = mock_backend(race_scripts())
    before = running()
    stream = contenders().stream("go", backend=backend, streaming="sse")
    async with contextlib.aclosing(stream) as events:
        async for event in events:
            if event.author == "slow" and event.is_partial:  # mid-race: stop reading here
                break
    assert await left_after(before) == set()  # every contender was cancelled and awaited


# -- map_over ----------------------------------------------------------------------------------


def summarise(request):
    """Item "a" streams slowly, the others quickly: their chunks overtake a's."""
    doc = system_instruction(request).split("Summarise: ", 1)[1].split("\n", 1)[0]
    gap = 0.1 if doc == "a" else 0.005
    return streamed(f"{doc}-one ", f"{doc}-two ", f"{doc}-three", gap=gap)


def mapped(concurrency: int):
    return S.set(docs=["a", "b", "c"]) >> map_over(
        "docs",
        Agent("summariser").instruct("Summarise: {doc}").outputs("summary"),
        item_key="doc",
        output_key="summaries",
        concurrency=concurrency,
    )


SUMMARIES = ["a-one a-two a-three", "b-one b-two b-three", "c-one c-two c-three"]


async def test_concurrent_items_stream_live_tagged_and_commit_in_item_order(sqlite_url):
    turn = await fluent_turn(
        mapped(2), {"summariser": [summarise] * 3}, sqlite_url, "m2", streaming="sse"
    )
    name = mapped(2).to_ir().children[1].name
    partials = [e for e in turn.client if e.is_partial]
    for event in partials:  # each chunk is tagged with its own item
        assert event.map_item == (name, "abc".index(event.content[0]))
    # live: b's chunks arrive while a (item 0) is still streaming, before a's final
    a_final = next(i for i, e in enumerate(turn.client) if e.content == SUMMARIES[0])
    b_first = next(i for i, e in enumerate(turn.client) if e.map_item == (name, 1))
    assert b_first < a_final
    # the complete events come in item order, each item behind its marker
    complete = [(e.author, e.content, e.state_delta) for e in turn.client if not e.is_partial]
    assert [c for _, c, _ in complete if c] == SUMMARIES
    assert turn.state["summaries"] == SUMMARIES
    finals, leftover = streams(turn.client)
    assert finals == {"summariser": SUMMARIES} and not leftover
    # state and history are what a run without streaming, one item at a time, stores
    reference = await fluent_turn(mapped(1), {"summariser": [summarise] * 3}, sqlite_url, "m1")
    assert record(turn.stored) == record(reference.stored)
    assert turn.state == reference.state


async def test_one_item_at_a_time_streams_inline_and_tags_each_item(sqlite_url):
    turn = await fluent_turn(
        mapped(1), {"summariser": [summarise] * 3}, sqlite_url, "m1", streaming="sse"
    )
    name = mapped(1).to_ir().children[1].name
    shown = [(e.map_item, e.content) for e in turn.client if e.author == "summariser"]
    expected = []
    for index, doc in enumerate("abc"):
        expected += [((name, index), f"{doc}-one "), ((name, index), f"{doc}-two ")]
        expected += [((name, index), f"{doc}-three"), (None, SUMMARIES[index])]
    assert shown == expected  # each item's chunks, then its final, item after item
    assert turn.state["summaries"] == SUMMARIES


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_an_item_failing_mid_stream_leaves_no_item_and_no_task(sqlite_url, concurrency):
    def answer(request):
        doc = system_instruction(request).split("Summarise: ", 1)[1].split("\n", 1)[0]
        if doc == "b":
            return streamed("b-one ", "b-two", gap=0.01, error=RuntimeError("model down"))
        return streamed(f"{doc}-one ", f"{doc}-two", gap=0.01)

    before = running()
    with pytest.raises(RuntimeError, match="model down"):  # ADK's domain: it propagates
        await fluent_turn(
            mapped(concurrency),
            {"summariser": [answer] * 3},
            sqlite_url,
            "x",
            streaming="sse",
        )
    assert await left_after(before) == set()
    from tests.conftest import fresh_db_service

    session = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="x"
    )
    assert session.state.get("doc") is None and "summaries" not in session.state
    assert not any(e.partial for e in session.events)
