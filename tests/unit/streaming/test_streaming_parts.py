"""The pieces of streaming that need no Runner: the `streamed` script step, the relay that hands
concurrent children's partial events to one consumer, and the tags AgentEvent reads."""

from __future__ import annotations

import asyncio

import pytest
from google.adk.events.event import Event
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_fluent import AgentEvent
from adk_fluent.adk.custom_agents.concurrency import Relay, tagged
from adk_fluent.adk.event_visibility import MAP_OVER, RACE
from adk_fluent.testing import ScriptedModel, repeat, streamed, with_usage


def _request() -> LlmRequest:
    return LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="hi")])])


async def _responses(model: ScriptedModel, stream: bool) -> list[tuple[str, bool]]:
    return [
        (r.content.parts[0].text, bool(r.partial))
        async for r in model.generate_content_async(_request(), stream=stream)
    ]


async def test_streamed_sends_each_chunk_then_the_whole_reply():
    model = ScriptedModel([streamed("Hel", "lo ", "there")])
    assert await _responses(model, stream=True) == [
        ("Hel", True),
        ("lo ", True),
        ("there", True),
        ("Hello there", False),
    ]
    model.assert_consumed()


async def test_without_streaming_it_answers_the_whole_reply_only():
    model = ScriptedModel([streamed("Hel", "lo")])
    assert await _responses(model, stream=False) == [("Hello", False)]


async def test_an_error_is_raised_after_the_chunks():
    model = ScriptedModel([streamed("Hel", "lo", error=RuntimeError("model down"))])
    seen = []
    with pytest.raises(RuntimeError, match="model down"):
        async for response in model.generate_content_async(_request(), stream=True):
            seen.append(response.content.parts[0].text)
    assert seen == ["Hel", "lo"]


async def test_the_gap_paces_the_chunks_and_a_cancellation_is_recorded():
    step = streamed("a", "b", "c", gap=30)
    model = ScriptedModel([step])

    async def consume() -> None:
        async for _ in model.generate_content_async(_request(), stream=True):
            pass

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert step.cancelled == [90]  # all three chunks' waits were still ahead


async def test_with_usage_and_repeat_wrap_a_streamed_step():
    model = ScriptedModel(
        [with_usage(streamed("a", "b"), input=10, output=2), repeat(streamed("c"))]
    )
    first = [r async for r in model.generate_content_async(_request(), stream=True)]
    assert [r.partial for r in first] == [True, True, None]
    assert first[-1].usage_metadata.prompt_token_count == 10
    for _ in range(2):
        assert await _responses(model, stream=True) == [("c", True), ("c", False)]


def _event(author: str, text: str, **fields) -> Event:
    return Event(
        author=author,
        invocation_id="i",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        **fields,
    )


def test_a_tag_is_set_on_a_copy_and_an_inner_tag_is_kept():
    event = _event("a", "x", partial=True)
    outer = tagged(event, RACE, {"race": "outer", "contender": "a"})
    assert event.custom_metadata is None  # the original is left alone
    inner = tagged(tagged(event, RACE, {"race": "inner", "contender": "a"}), RACE, {"race": "o"})
    assert inner.custom_metadata[RACE] == {"race": "inner", "contender": "a"}
    shown = AgentEvent.from_adk(tagged(outer, MAP_OVER, {"map_over": "m", "index": 2}))
    assert shown.race_contender == ("outer", "a")
    assert shown.map_item == ("m", 2)
    assert AgentEvent.from_adk(event).race_contender is None
    assert AgentEvent.from_adk(event).map_item is None


async def test_the_relay_hands_partials_over_one_at_a_time_until_a_child_is_done():
    relay = Relay()
    progress: list[str] = []

    async def child(name: str, count: int) -> str:
        forward = relay.forward(RACE, {"race": "r", "contender": name})
        for index in range(count):
            await forward(_event(name, f"{name}{index}", partial=True))
            progress.append(f"{name}{index} taken")
        return name

    first = asyncio.ensure_future(child("a", 2))
    taken = []
    while (event := await relay.next(first)) is not None:
        # the child waits while its event is with the consumer
        assert f"{event.content.parts[0].text} taken" not in progress
        taken.append((event.content.parts[0].text, event.custom_metadata[RACE]["contender"]))
    assert taken == [("a0", "a"), ("a1", "a")]
    assert first.result() == "a"
    relay.close()
