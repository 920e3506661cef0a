"""Live sessions (`pipeline.live(...)`) through ADK's real Runner.run_live, with the scripted
model's live connection (adk_fluent.testing.live), on both ADK ends: what the client
receives, what the model's connection was sent, and what the store holds, against raw ADK
running the same App live with the same script."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.agents.live_request_queue import LiveRequestQueue
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, BuildError, ExecutionConfig
from adk_fluent.testing import (
    audio,
    call,
    interrupted,
    live_turn,
    mock_backend,
    streamed,
    transcript,
)

pytestmark = pytest.mark.filterwarnings("ignore:.*EXPERIMENTAL.*:UserWarning")

TURN_SECONDS = 30  # a live turn's bound: a hang fails the test


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


def stored(session: Any) -> list[tuple[str, list[str]]]:
    """(author, a word per part) of every stored event: what the store holds, comparable."""
    out = []
    for event in session.events:
        parts = event.content.parts if event.content and event.content.parts else []
        words = []
        for part in parts:
            if part.text:
                words.append(part.text)
            elif part.function_call:
                words.append(f"call:{part.function_call.name}")
            elif part.function_response:
                words.append(f"result:{part.function_response.name}")
            elif part.inline_data:
                words.append(f"audio:{len(part.inline_data.data)}")
        out.append((event.author, words))
    return out


async def turn(live: Any) -> list[Any]:
    return await asyncio.wait_for(live.turn(), TURN_SECONDS)


async def raw_adk_live(app: Any, sends: list[Any], turns: int) -> Any:
    """The same App run live by raw ADK: its stored session after `turns` turns complete."""
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=app.name, user_id="u")
    runner = Runner(app=app, session_service=sessions)
    queue = LiveRequestQueue()
    done = 0
    config = RunConfig(streaming_mode=StreamingMode.BIDI, response_modalities=["TEXT"])

    async def consume() -> None:
        nonlocal done
        async for event in runner.run_live(
            user_id="u", session_id=session.id, live_request_queue=queue, run_config=config
        ):
            if event.turn_complete:
                done += 1
                if done < len(sends):
                    sends[done](queue)
            if done >= turns:
                return

    sends[0](queue)
    task = asyncio.create_task(consume())
    try:
        await asyncio.wait_for(task, TURN_SECONDS)
    finally:
        queue.close()
    return await sessions.get_session(app_name=app.name, user_id="u", session_id=session.id)


def said(text: str) -> Any:
    return lambda queue: queue.send_content(
        types.Content(role="user", parts=[types.Part(text=text)])
    )


async def test_text_streams_in_chunks_and_the_store_holds_what_raw_adk_stores():
    script = [streamed("Hel", "lo ", "there"), "Paris is sunny."]
    backend = mock_backend({"helper": script})
    helper = Agent("helper").instruct("Help.")
    async with helper.live(session_id="call", backend=backend) as live:
        await live.send("hi")
        first = await turn(live)
        await live.send("weather?")
        second = await turn(live)

    assert [(e.content, e.is_partial) for e in first] == [
        ("Hel", True),
        ("lo ", True),
        ("there", True),
        ("Hello there", False),
        (None, False),
    ]
    assert first[-1].is_turn_complete and second[-1].is_turn_complete
    assert [e.content for e in second if e.content] == ["Paris is sunny."]
    ours = stored(await helper.session("call", backend=backend))
    raw = await raw_adk_live(
        helper.to_app(backend=mock_backend({"helper": script})), [said("hi"), said("weather?")], 2
    )
    assert ours == stored(raw)
    assert ("helper", ["Hello there"]) in ours and ("user", ["weather?"]) in ours
    backend.assert_consumed()


async def test_audio_in_and_out_with_transcriptions():
    pcm_out = b"\x01\x02" * 240
    backend = mock_backend(
        {
            "voice": [
                live_turn(transcript("Hi, how can I help?"), audio(pcm_out), "Hi, how can I help?")
            ]
        }
    )
    voice = Agent("voice").instruct("Talk.")
    async with voice.live(backend=backend, modalities=("AUDIO",)) as live:
        live.activity_start()
        live.send_audio(b"\x00" * 320)
        live.send_audio(b"\x00" * 320)
        live.activity_end()
        events = await turn(live)

    sent = backend.live_inputs["voice"]
    assert [entry[0] for entry in sent] == ["activity_start", "audio", "audio", "activity_end"]
    assert sent[1][1].mime_type == "audio/pcm;rate=16000" and len(sent[1][1].data) == 320
    assert [e.transcription for e in events if e.transcription] == [
        ("output", "Hi, how can I help?")
    ]
    media = [part for e in events for part in e.media]
    assert [(p.inline_data.data, p.inline_data.mime_type) for p in media] == [
        (pcm_out, "audio/pcm;rate=24000")
    ]
    assert events[-1].is_turn_complete


async def test_a_tool_call_runs_and_its_result_goes_back_on_the_connection():
    backend = mock_backend({"helper": [call("get_weather", city="Paris"), "Sunny in Paris."]})
    helper = Agent("helper").instruct("Weather.").tool(get_weather)
    async with helper.live(session_id="w", backend=backend) as live:
        await live.send("weather in Paris?")
        events = await turn(live)

    assert [c.tool_name for e in events for c in e.tool_calls] == ["get_weather"]
    assert [r.result for e in events for r in e.tool_responses] == [
        {"city": "Paris", "sky": "sunny"}
    ]
    assert [e.content for e in events if e.content] == ["Sunny in Paris."]
    sent = [entry[1] for entry in backend.live_inputs["helper"] if entry[0] == "content"]
    assert sent[1].parts[0].function_response.response == {"city": "Paris", "sky": "sunny"}
    assert stored(await helper.session("w", backend=backend))[1:4] == [
        ("helper", ["call:get_weather"]),
        ("helper", ["result:get_weather"]),
        ("helper", ["Sunny in Paris."]),
    ]


async def test_a_delegate_transfer_opens_the_next_agents_connection_with_the_history():
    backend = mock_backend(
        {"front": [call("transfer_to_agent", agent_name="billing")], "billing": ["Billing here."]}
    )
    billing = Agent("billing").description("Bills and refunds.").instruct("Handle bills.")
    front = Agent("front").instruct("Route the caller.").delegate(billing)
    async with front.live(session_id="t", backend=backend) as live:
        await live.send("my bill is wrong")
        events = await turn(live)

    assert [e.transfer_to for e in events if e.transfer_to] == ["billing"]
    assert (events[-2].author, events[-2].content) == ("billing", "Billing here.")
    history = [entry for entry in backend.live_inputs["billing"] if entry[0] == "history"]
    assert "my bill is wrong" in str(history[0][1][0].parts[0].text)
    assert ("billing", ["Billing here."]) in stored(await front.session("t", backend=backend))
    backend.assert_consumed()


async def test_a_pipeline_of_agents_runs_live_each_step_ending_with_task_completed():
    backend = mock_backend(
        {"greeter": [live_turn("Hello.", call("task_completed"))], "closer": ["Goodbye."]}
    )
    pipeline = Agent("greeter").instruct("Greet.") >> Agent("closer").instruct("Close.")
    async with pipeline.live(session_id="p", backend=backend) as live:
        await live.send("hi")
        events = await turn(live)

    assert [(e.author, e.content) for e in events if e.content] == [
        ("greeter", "Hello."),
        ("closer", "Goodbye."),
    ]
    backend.assert_consumed()


async def test_an_interruption_ends_the_turn_and_the_next_message_is_answered():
    backend = mock_backend(
        {"helper": [live_turn(streamed("Let ", "me "), interrupted()), "Stopping."]}
    )
    helper = Agent("helper").instruct("Help.")
    async with helper.live(backend=backend) as live:
        await live.send("tell me a long story")
        cut = await turn(live)
        await live.send("stop")
        after = await turn(live)

    assert cut[-1].is_interrupted and not cut[-1].is_turn_complete
    assert [e.content for e in cut if e.is_partial] == ["Let ", "me "]
    assert [e.content for e in after if e.content] == ["Stopping."]


async def test_filtered_visibility_hides_an_internal_agents_text_from_the_client_not_the_store():
    backend = mock_backend(
        {
            "drafter": [live_turn("internal draft", call("task_completed"))],
            "speaker": ["Final words."],
        }
    )
    pipeline = Agent("drafter").instruct("Draft.").outputs("draft") >> Agent("speaker").instruct(
        "Speak from {draft}."
    )
    config = ExecutionConfig(visibility="filtered")
    async with pipeline.live(session_id="v", backend=backend, config=config) as live:
        await live.send("go")
        events = await turn(live)

    shown = [e.content for e in events if e.content]
    assert "internal draft" not in shown and "Final words." in shown
    kept = stored(await pipeline.session("v", backend=backend, config=config))
    assert ("drafter", ["internal draft"]) in kept  # nothing lost


async def test_a_run_waits_for_the_live_session_of_the_same_session_id():
    backend = mock_backend({"helper": ["Live answer.", "Plain answer."]})
    helper = Agent("helper").instruct("Help.")
    order: list[str] = []
    async with helper.live(session_id="shared", backend=backend) as live:
        plain = asyncio.create_task(helper.ask("and now?", session_id="shared", backend=backend))
        await live.send("hello")
        await turn(live)
        await asyncio.sleep(0.2)  # time for the plain turn to run, were it not waiting
        order.append("live done" if not plain.done() else "plain first")
    assert order == ["live done"]
    assert await asyncio.wait_for(plain, TURN_SECONDS) == "Plain answer."


async def test_sending_after_the_session_closed_is_refused():
    live = Agent("helper").instruct("Help.").live(backend=mock_backend({"helper": ["Hi."]}))
    async with live:
        await live.send("hi")
        await turn(live)
    with pytest.raises(BuildError, match="closed"):
        await live.send("again")


async def test_a_live_step_in_a_plain_turn_fails_saying_it_needs_a_live_session():
    from adk_fluent.errors import ScriptError

    backend = mock_backend({"voice": [audio(b"\x00\x00")]})
    with pytest.raises(ScriptError, match="only a live connection answers"):
        await Agent("voice").instruct("Talk.").ask("hi", backend=backend)


async def test_an_agent_tool_holding_state_steps_runs_inside_a_live_agent():
    # the tool's tree runs as a plain turn inside its call (ADK's AgentTool), so what it holds
    # need not run live
    from adk_fluent import S

    backend = mock_backend(
        {"front": [call("summary", request="refund"), "Here it is."], "writer": ["A summary."]}
    )
    summary = (S.capture("topic") >> Agent("writer").instruct("Summarise {topic}.")).named(
        "summary"
    )
    front = Agent("front").instruct("Help.").agent_tool(summary)
    async with front.live(session_id="tools", backend=backend) as live:
        await live.send("summarise my refund")
        events = await turn(live)

    assert [r.result for e in events for r in e.tool_responses] == [{"result": "A summary."}]
    assert [e.content for e in events if e.content and e.author == "front"] == ["Here it is."]
    backend.assert_consumed()
