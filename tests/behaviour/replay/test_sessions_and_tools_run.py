"""Sessions and tools under record and replay: concurrent sessions recorded by one Recorder stay
apart and replay apart; sessions without given ids replay in the order they began; an agent
tool's inner agent is replayed in its own sub-run; a tool's failure and results that JSON
cannot hold (bytes) come back as they were; a tool call beyond the recording is answered, not
run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.errors import ReplayedError, ReplayMismatchError
from adk_fluent.replay import Recorder, Recording, ReplayerBackend, diff_events
from adk_fluent.testing import call, delay, mock_backend, repeat
from tests.behaviour.replay.trip import client_view
from tests.conftest import request_texts


def echo(request: Any) -> str:
    """A scripted answer naming the user's last words (so mixed-up sessions would show)."""
    return f"About {request_texts(request)[0]}."


def slow_echo(request: Any) -> Any:
    return delay(0.002, echo(request))(request)


def helper_pipeline() -> Any:
    return Agent("first").instruct("Answer.").outputs("draft") >> Agent("second").instruct(
        "Polish {draft}."
    )


async def test_concurrent_sessions_are_recorded_apart_and_replayed_apart():
    pipeline = helper_pipeline()
    recorder = Recorder(tree=pipeline)
    config = ExecutionConfig(middleware=[recorder])
    backend = mock_backend({"first": repeat(slow_echo), "second": repeat(echo)})
    prompts = {f"s{n}": f"topic {n}" for n in range(4)}
    recorded = await asyncio.gather(
        *(pipeline.run(p, backend=backend, config=config, session_id=s) for s, p in prompts.items())
    )
    recording = recorder.recording()
    assert set(recording.sessions) == set(prompts)
    for call_ in recording.calls_of("first"):
        assert call_.text == f"About {prompts[call_.session_id]}." and call_.call == 1

    replayer = ReplayerBackend(recording)
    again = Recorder(tree=pipeline)
    replay_config = ExecutionConfig(middleware=[again])
    order = list(reversed(prompts.items()))  # begun in another order than recorded
    replayed = await asyncio.gather(
        *(pipeline.run(p, backend=replayer, config=replay_config, session_id=s) for s, p in order)
    )
    by_session = dict(zip([s for s, _ in order], replayed, strict=True))
    for (session, _), events in zip(prompts.items(), recorded, strict=True):
        assert [client_view(e) for e in by_session[session]] == [client_view(e) for e in events]
    assert replayer.mismatches == []
    replayer.assert_consumed()
    assert len(again.recording().model_calls) == len(recording.model_calls)


async def test_sessions_without_ids_replay_in_the_order_they_began():
    pipeline = helper_pipeline()
    recorder = Recorder()
    config = ExecutionConfig(middleware=[recorder])
    backend = mock_backend({"first": repeat(echo), "second": repeat(echo)})
    first = await pipeline.run("apples", backend=backend, config=config)
    second = await pipeline.run("pears", backend=backend, config=config)
    recording = recorder.recording()
    assert len(recording.sessions) == 2 and recording.header.tree is None

    replayer = ReplayerBackend(recording)
    assert [client_view(e) for e in await pipeline.run("apples", backend=replayer)] == [
        client_view(e) for e in first
    ]
    assert [client_view(e) for e in await pipeline.run("pears", backend=replayer)] == [
        client_view(e) for e in second
    ]
    # a third session has nothing left to replay
    with pytest.raises(ReplayMismatchError, match="agent 'first', model call #1"):
        await pipeline.run("plums", backend=replayer)


async def test_an_agent_tool_is_run_and_its_inner_agent_replayed():
    researcher = Agent("researcher").instruct("Find facts.").outputs("findings")
    boss = Agent("boss").instruct("Use the researcher.").tool(researcher)
    recorder = Recorder(tree=boss)
    config = ExecutionConfig(middleware=[recorder])
    backend = mock_backend(
        {
            "boss": [
                call("researcher", request="cats"),
                "Cats purr.",
                call("researcher", request="dogs"),
                "Dogs bark.",
            ],
            "researcher": ["purring", "barking"],
        }
    )
    recorded = [
        await boss.run(prompt, backend=backend, config=config, session_id=session)
        for session, prompt in (("a", "cats?"), ("b", "dogs?"))
    ]
    recording = recorder.recording()
    # the inner agent ran in sub-runs of their own sessions, recorded like any other
    assert [c.text for c in recording.calls_of("researcher")] == ["purring", "barking"]
    assert len(recording.sessions) == 4

    replayer = ReplayerBackend(recording)
    again = Recorder(tree=boss)
    replay_config = ExecutionConfig(middleware=[again])
    # replayed the other way round: each sub-run finds its recorded session by its request
    dogs = await boss.run("dogs?", backend=replayer, config=replay_config, session_id="b")
    cats = await boss.run("cats?", backend=replayer, config=replay_config, session_id="a")
    assert [client_view(e) for e in cats] == [client_view(e) for e in recorded[0]]
    assert [client_view(e) for e in dogs] == [client_view(e) for e in recorded[1]]
    assert replayer.mismatches == []
    assert [c.text for c in again.recording().calls_of("researcher")] == ["barking", "purring"]


class Inventory:
    """A tool with a side effect that fails for an unknown item and answers bytes."""

    def __init__(self) -> None:
        self.runs = 0

    def tool(self) -> Any:
        def fetch(item: str) -> dict:
            """Fetch an item's label."""
            self.runs += 1
            if item == "ghost":
                raise LookupError(f"no item {item!r}")
            return {"item": item, "label": item.encode() + b"\x00\xff", "tags": ("a", "b")}

        return fetch


async def test_tool_results_json_cannot_hold_and_tool_failures_come_back(tmp_path):
    inventory = Inventory()
    agent = Agent("clerk").instruct("Fetch items.").tool(inventory.tool())
    recorder = Recorder(tree=agent)
    config = ExecutionConfig(middleware=[recorder])
    backend = mock_backend(
        {"clerk": [call("fetch", item="box"), "Got it.", call("fetch", item="ghost")]}
    )
    recorded = await agent.run("the box", backend=backend, config=config, session_id="s")
    with pytest.raises(LookupError):
        await agent.run("the ghost", backend=backend, config=config, session_id="s")
    recording = Recording.load(recorder.recording().save(tmp_path / "clerk.jsonl"))
    assert inventory.runs == 2
    box, ghost = recording.tool_calls
    assert box.result["label"] == {"$type": "bytes", "base64": "Ym94AP8="}
    assert ghost.error == {"type": "builtins.LookupError", "message": "no item 'ghost'"}

    replayer = ReplayerBackend(recording)
    events = await agent.run("the box", backend=replayer, session_id="s")
    assert [client_view(e) for e in events] == [client_view(e) for e in recorded]
    result = next(r.result for e in events for r in e.tool_responses)
    assert result == {"item": "box", "label": b"box\x00\xff", "tags": ("a", "b")}
    with pytest.raises(ReplayedError) as failed:
        await agent.run("the ghost", backend=replayer, session_id="s")
    assert failed.value.original_type == "builtins.LookupError"
    assert "no item 'ghost'" in str(failed.value)
    assert inventory.runs == 2  # neither call ran the tool


async def test_skip_answers_a_tool_call_beyond_the_recording_without_running_it():
    inventory = Inventory()
    agent = Agent("clerk").instruct("Fetch items.").tool(inventory.tool())
    recorder = Recorder(tree=agent)
    backend = mock_backend({"clerk": [call("fetch", item="box"), "Got it."]})
    await agent.run("box", backend=backend, config=ExecutionConfig(middleware=[recorder]))
    recording = recorder.recording()
    # the model now asks for the tool twice in one reply: the second call is not recorded
    data = recording.to_dict()
    reply = data["model_calls"][0]["responses"][0]["content"]["parts"]
    reply.append({"function_call": {"name": "fetch", "args": {"item": "box"}}})
    replayer = ReplayerBackend(Recording.from_dict(data), on_mismatch="skip")
    events = await agent.run("box", backend=replayer)
    results = [r.result for e in events for r in e.tool_responses]
    assert results[0]["item"] == "box" and "no recorded result" in results[1]["error"]
    tools = [(m.tool, m.call) for m in replayer.mismatches if m.kind == "tool"]
    assert tools == [("fetch", 2)]
    # and the model call after them was not the recorded one either: answered anyway
    assert [(m.agent, m.call) for m in replayer.mismatches if m.kind == "model"] == [("clerk", 2)]
    assert inventory.runs == 1
    assert not diff_events(recording, recording)
