"""ReplayerBackend without a Runner: its models answer each agent's calls from the recording in
order (whole replies, or the partial chunks too when streaming), compare each request with the
recorded one, and act on a mismatch as on_mismatch says; `check_tree` refuses a recording of
other agents at build and notes how the tree changed; the tree's fingerprint."""

from __future__ import annotations

import pytest
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_fluent import Agent, FanOut
from adk_fluent.errors import RecordingError, ReplayedError, ReplayMismatchError
from adk_fluent.replay import Recorder, ReplayerBackend, tree_fingerprint, tree_summary
from adk_fluent.replay.fingerprint import tree_changes
from adk_fluent.testing import ScriptedModel
from tests.unit.replay.recordings import made, reply

CALLS = [
    ("writer", "Write.", "a haiku", "Old pond."),
    ("writer", "Write.", "again", "Frog jumps."),
    ("critic", "Judge.", "Old pond.", "Fine."),
]


def llm_request(instruction: str, text: str) -> LlmRequest:
    return LlmRequest(
        model="some-model",
        contents=[types.Content(role="user", parts=[types.Part(text=text)])],
        config=types.GenerateContentConfig(system_instruction=instruction),
    )


async def ask(backend: ReplayerBackend, agent: str, instruction: str, text: str, stream=False):
    model = backend.model_for(agent)
    return [r async for r in model.generate_content_async(llm_request(instruction, text), stream)]


def texts(responses) -> list[str]:
    return [r.content.parts[0].text for r in responses]


async def test_each_agent_gets_its_recorded_replies_in_order():
    backend = ReplayerBackend(made(CALLS))
    assert backend.model_for("writer").model == "some-model"  # named like the recorded model
    assert texts(await ask(backend, "critic", "Judge.", "Old pond.")) == ["Fine."]
    assert texts(await ask(backend, "writer", "Write.", "a haiku")) == ["Old pond."]
    assert texts(await ask(backend, "writer", "Write.", "again")) == ["Frog jumps."]
    assert backend.mismatches == [] and backend.unused() == []
    backend.assert_consumed()
    assert [len(v) for v in backend.requests.values()] == [1, 2]


async def test_error_names_the_agent_the_call_and_the_first_difference():
    backend = ReplayerBackend(made(CALLS))
    await ask(backend, "writer", "Write.", "a haiku")
    with pytest.raises(ReplayMismatchError) as caught:
        await ask(backend, "writer", "Write.", "once more")
    error = caught.value
    assert (error.agent, error.call) == ("writer", 2)
    assert str(error).startswith(
        "replay: agent 'writer', model call #2 does not match the recording: contents: "
        "message #1 (user) part #1 text changed:\n  - again\n  + once more"
    )
    assert "hint:" in str(error)


async def test_skip_answers_from_the_recording_and_notes_the_mismatch():
    backend = ReplayerBackend(made(CALLS), on_mismatch="skip")
    assert texts(await ask(backend, "critic", "Be harsh.", "Old pond.")) == ["Fine."]
    assert texts(await ask(backend, "critic", "Judge.", "More?")) == [""]  # beyond: empty
    assert [(m.agent, m.call, m.kind) for m in backend.mismatches] == [
        ("critic", 1, "model"),
        ("critic", 2, "model"),
    ]
    assert "instruction changed" in str(backend.mismatches[0])
    assert "a call beyond the recording" in backend.mismatches[1].difference
    with pytest.raises(ReplayMismatchError, match="never replayed"):
        backend.assert_consumed()  # the writer's calls
    backend.reset()
    assert backend.mismatches == [] and len(backend.unused()) == 3


async def test_live_asks_the_live_model_only_for_what_differs():
    live = ScriptedModel(["Live answer."])
    backend = ReplayerBackend(made(CALLS), on_mismatch="live", live_model=live)
    assert texts(await ask(backend, "writer", "Write.", "a haiku")) == ["Old pond."]
    assert texts(await ask(backend, "writer", "Write!", "again")) == ["Live answer."]
    assert len(live.calls) == 1 and backend.mismatches[0].call == 2


async def test_an_agent_the_recording_never_saw_is_named_with_the_recorded_ones():
    backend = ReplayerBackend(made(CALLS))
    with pytest.raises(ReplayMismatchError) as caught:
        await ask(backend, "editor", "Edit.", "x")
    assert "no model calls for agent 'editor' (recorded agents: writer, critic)" in str(
        caught.value
    )


async def test_streaming_gets_the_partial_chunks_and_the_whole_reply():
    recording = made([("writer", "Write.", "a haiku", "Old pond.")])
    chunks = (reply("Old ", partial=True), reply("pond.", partial=True), reply("Old pond."))
    call = recording.model_calls[0]
    from dataclasses import replace

    streamed = replace(recording, model_calls=(replace(call, responses=chunks),))
    streaming = await ask(ReplayerBackend(streamed), "writer", "Write.", "a haiku", stream=True)
    assert texts(streaming) == ["Old ", "pond.", "Old pond."]
    assert [bool(r.partial) for r in streaming] == [True, True, False]
    whole = await ask(ReplayerBackend(streamed), "writer", "Write.", "a haiku")
    assert texts(whole) == ["Old pond."]


async def test_a_call_that_failed_when_recorded_fails_again():
    from dataclasses import replace

    recording = made([("writer", "Write.", "a haiku", "Old pond.")])
    failed = replace(
        recording.model_calls[0],
        responses=(),
        error={"type": "builtins.TimeoutError", "message": "slow"},
    )
    backend = ReplayerBackend(replace(recording, model_calls=(failed,)))
    with pytest.raises(ReplayedError) as caught:
        await ask(backend, "writer", "Write.", "a haiku")
    assert caught.value.original_type == "builtins.TimeoutError"
    assert "failed when it was recorded: builtins.TimeoutError: slow" in str(caught.value)


def pipeline(writer: str = "Write.", *extra: str):
    agents = [Agent("writer").instruct(writer), Agent("critic").instruct("Judge.")]
    agents += [Agent(name).instruct("x") for name in extra]
    return (agents[0] >> FanOut(*agents[1:]).named("panel")).named("root")


def test_check_tree_refuses_recorded_agents_the_tree_lacks_with_a_did_you_mean():
    renamed = (Agent("writter").instruct("Write.") >> Agent("critic").instruct("Judge.")).named(
        "root"
    )
    with pytest.raises(RecordingError) as caught:
        renamed.build(backend=ReplayerBackend(made(CALLS)))
    assert caught.value.agent == "writer" and "did you mean 'writter'" in str(caught.value)
    # skip and live replay such a tree (the diff shows the difference)
    renamed.build(backend=ReplayerBackend(made(CALLS), on_mismatch="skip"))


def test_check_tree_refuses_a_recording_of_none_of_the_trees_agents():
    other = Agent("summariser").instruct("Sum up.")
    with pytest.raises(RecordingError, match="no model calls for any agent of this tree"):
        other.build(backend=ReplayerBackend(made(CALLS), on_mismatch="skip"))


def test_check_tree_notes_how_the_tree_changed_since_it_was_recorded():
    recording = Recorder(tree=pipeline()).recording()
    calls = made(CALLS, header=recording.header)
    backend = ReplayerBackend(calls, on_mismatch="skip")
    pipeline().build(backend=backend)
    assert backend.tree_changes == ()
    pipeline("Write more.", "editor").build(backend=backend)
    assert backend.tree_changes == (
        "root/writer: instruction changed",
        "agent root/panel/editor was added",
    )


def test_the_fingerprint_follows_names_instructions_models_tools_and_structure():
    def lookup(q: str) -> str:
        """Look up."""
        return q

    base = tree_fingerprint(pipeline())
    assert tree_fingerprint(pipeline()) == base and base.startswith("sha256:")
    assert tree_fingerprint(pipeline("Write more.")) != base
    critic = FanOut(Agent("critic").instruct("Judge.")).named("panel")
    with_tool = (Agent("writer").instruct("Write.").tool(lookup) >> critic).named("root")
    assert tree_fingerprint(with_tool) != base
    with_model = (Agent("writer").instruct("Write.").model("gemini-2.5-pro") >> critic).named(
        "root"
    )
    assert tree_fingerprint(with_model) != base
    summary = tree_summary(with_tool)
    assert summary["nodes"][1]["tools"] == ["lookup"]
    assert tree_changes(tree_summary(pipeline()), summary) == ["root/writer: tools changed"]
    assert tree_changes(None, summary) == []
