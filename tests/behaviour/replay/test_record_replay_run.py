"""Record and replay through the real Runner: a pipeline with a tool call that
writes state, a FanOut and a second turn is recorded with scripted models standing in for the
real one, saved and reloaded; the unmodified pipeline replayed from the file gives the same
client events and the same stored session, the side-effecting tool never runs again, and the
diff of the two recordings is empty. A changed instruction is refused by name (on_mismatch=
'error') or pinpointed by the diff (on_mismatch='skip'); a changed tree shows at its first
divergent event."""

from __future__ import annotations

import pytest

from adk_fluent import ExecutionConfig
from adk_fluent.errors import RecordingError, ReplayMismatchError
from adk_fluent.replay import Recorder, Recording, ReplayerBackend, diff_events
from adk_fluent.testing import ScriptedModel, mock_backend, repeat
from tests.behaviour.replay.trip import (
    SESSION,
    TURNS,
    WRITER,
    Ledger,
    client_view,
    record,
    scripts,
    stored,
    the_error,
    trip,
)
from tests.conftest import system_instruction


@pytest.fixture
def second_url(db_dir):
    """A second SQLite store for the replayed run."""
    return f"sqlite:///{db_dir / 'replayed.db'}"


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
async def test_replaying_the_saved_recording_gives_the_same_events_store_and_recording(
    suffix, tmp_path, sqlite_url, second_url
):
    ledger = Ledger()
    recording, recorded_turns = await record(trip(ledger), store=sqlite_url)
    assert ledger.bookings == 2  # the tool really ran at record time
    path = recording.save(tmp_path / f"trip{suffix}")

    backend = ReplayerBackend(Recording.load(path))
    replayed, replayed_turns = await record(trip(ledger), store=second_url, backend=backend)

    assert ledger.bookings == 2  # ... and not once during the replay
    for before, after in zip(recorded_turns, replayed_turns, strict=True):
        assert [client_view(e) for e in after] == [client_view(e) for e in before]
    assert any(e.tool_responses for e in replayed_turns[0])  # the tool's answer is there
    events, state = await stored(second_url)
    assert (events, state) == await stored(sqlite_url)
    assert state["booked_city"] == "Rome" and state["summary"] == "Rome is booked too."
    diff = diff_events(recording, replayed)
    assert diff.empty and not diff and diff.summary == "no differences"
    assert backend.mismatches == []
    backend.assert_consumed()  # every recorded call was replayed


async def test_the_recording_holds_every_call_and_event_of_both_turns():
    ledger = Ledger()
    recording, turns = await record(trip(ledger), capture_state=True)
    assert [(c.agent, c.call) for c in recording.model_calls if c.agent == "booker"] == [
        ("booker", 1),
        ("booker", 2),
        ("booker", 3),
        ("booker", 4),
    ]
    assert {c.agent for c in recording.model_calls} == {"classifier", "booker", "writer", "critic"}
    first = recording.calls_of("classifier")[0]
    assert first.instruction.startswith("Label the request")
    assert first.request["contents"][0]["parts"] == [{"text": TURNS[0]}]
    assert first.path == "trip/classifier" and first.session_id == SESSION
    assert recording.calls_of("booker")[0].request["tools"] == ["book"]
    assert first.responses[0]["usage_metadata"]["total_token_count"] == 12
    tools = recording.tool_calls
    assert [(t.tool, t.args, t.result["city"]) for t in tools] == [
        ("book", {"city": "Paris"}, "Paris"),
        ("book", {"city": "Rome"}, "Rome"),
    ]
    assert tools[0].actions == {"state_delta": {"booked_city": "Paris"}}
    users = [e for e in recording.events if e.author == "user"]
    assert [e.text for e in users] == list(TURNS)
    # every event the client got is recorded (and the user's messages besides)
    assert len(recording.events) == sum(len(t) for t in turns) + len(TURNS)
    assert len({e.invocation_id for e in recording.events}) == 2
    # capture_state: the state after the last event is the session's final state
    final = recording.state_after(len(recording.events) - 1)
    assert final["booked_city"] == "Rome" and final["critique"] == "Still fine."
    header = recording.header
    assert header.fingerprint is not None and header.state is True


async def test_a_changed_instruction_is_refused_naming_the_agent_and_the_call():
    ledger = Ledger()
    recording, _ = await record(trip(ledger))
    changed = trip(ledger, writer="Write a limerick about {confirmation}.")
    backend = ReplayerBackend(recording)
    with pytest.raises((ReplayMismatchError, BaseExceptionGroup)) as caught:
        await changed.run(TURNS[0], backend=backend, session_id=SESSION)
    error = the_error(caught.value, ReplayMismatchError)  # the writer runs in a FanOut
    assert (error.agent, error.call, error.kind) == ("writer", 1, "model")
    text = str(error)
    assert "agent 'writer', model call #1" in text and "instruction changed" in text
    assert "- Write a one-line summary of Booked Paris." in text
    assert "+ Write a limerick about Booked Paris." in text
    assert "hint:" in text
    assert ledger.bookings == 2  # the booker's tool call was still answered from the recording
    assert backend.tree_changes == ("trip/report/writer: instruction changed",)


async def test_skip_replays_a_changed_instruction_and_the_diff_points_at_that_request():
    ledger = Ledger()
    recording, recorded_turns = await record(trip(ledger))
    changed = trip(ledger, writer="Write a limerick about {confirmation}.")
    backend = ReplayerBackend(recording, on_mismatch="skip")
    replayed, replayed_turns = await record(changed, backend=backend)

    # the recorded answers were given anyway: the client saw the same events
    assert [[client_view(e) for e in t] for t in replayed_turns] == [
        [client_view(e) for e in t] for t in recorded_turns
    ]
    assert [(m.agent, m.call) for m in backend.mismatches] == [("writer", 1), ("writer", 2)]
    diff = diff_events(recording, replayed)
    first = diff.first_divergence
    assert first is not None
    assert (first.kind, first.what, first.agent, first.call) == (
        "model_request",
        "instruction",
        "writer",
        1,
    )
    assert str(first).startswith("model request #1 of 'writer': instruction changed:")
    assert "- Write a one-line summary of Booked Paris." in str(first)
    assert diff.summary.startswith("3 differences; first: model request #1 of 'writer'")
    assert not [d for d in diff.differences if d.kind == "event"]
    assert [d.where for d in diff.differences if d.kind == "tree"] == ["tree"]


async def test_an_agent_removed_from_the_tree_shows_as_the_first_divergent_event():
    ledger = Ledger()
    recording, _ = await record(trip(ledger))
    smaller = trip(ledger, branches=("writer",))
    with pytest.raises(RecordingError) as refused:  # on_mismatch='error' refuses at build
        await smaller.run(TURNS[0], backend=ReplayerBackend(recording))
    assert "agent 'critic'" in str(refused.value) and "does not have" in str(refused.value)

    replayed, _ = await record(smaller, backend=ReplayerBackend(recording, on_mismatch="skip"))
    diff = diff_events(recording, replayed)
    first = diff.first_divergence
    assert first is not None and (first.kind, first.what, first.agent) == (
        "event",
        "missing",
        "critic",
    )
    critic_events = [i for i, e in enumerate(recording.events) if e.author == "critic"]
    assert first.index == critic_events[0] and first.right_index is None
    assert "only in the first: 'Fine.'" in str(first)


async def test_an_agent_added_to_the_tree_shows_as_an_extra_event():
    ledger = Ledger()
    recording, _ = await record(trip(ledger))
    bigger = trip(ledger, branches=("writer", "critic", "editor"))
    backend = ReplayerBackend(recording, on_mismatch="skip")
    replayed, turns = await record(bigger, backend=backend)
    editor = [e for e in turns[0] if e.author == "editor"]
    assert [e.content for e in editor] == [None]  # beyond the recording: an empty reply
    assert backend.mismatches[0].agent == "editor"
    assert "no model calls for agent 'editor'" in backend.mismatches[0].difference
    diff = diff_events(recording, replayed)
    first = diff.first_divergence
    assert first is not None and (first.kind, first.what, first.agent) == (
        "event",
        "extra",
        "editor",
    )
    assert first.index is None
    assert replayed.events[first.right_index].author == "editor"


async def test_live_asks_the_live_model_for_the_calls_that_changed():
    ledger = Ledger()
    recording, _ = await record(trip(ledger))
    changed = trip(ledger, writer="Write a limerick about {confirmation}.")

    def live_answer(request):
        said = system_instruction(request)
        return "A limerick." if "limerick" in said else "A live critique."

    live = ScriptedModel([repeat(live_answer)])
    backend = ReplayerBackend(recording, on_mismatch="live", live_model=live)
    events = await changed.run(TURNS[0], backend=backend, session_id=SESSION)
    said = {e.author: e.content for e in events if e.content}
    assert said["writer"] == "A limerick."  # the changed call went live
    assert said["critic"] == "Fine."  # the unchanged ones came from the recording
    assert said["booker"] == "Booked Paris." and ledger.bookings == 2
    assert len(live.calls) == 1
    assert [(m.agent, m.call) for m in backend.mismatches] == [("writer", 1)]
    # the next turn's history holds the live answer, so every request of it differs: live too
    events = await changed.run(TURNS[1], backend=backend, session_id=SESSION)
    assert [m.agent for m in backend.mismatches][1] == "classifier"
    assert {e.author: e.content for e in events if e.content}["classifier"] == "A live critique."


async def test_streamed_runs_replay_their_partial_chunks():
    ledger = Ledger()
    recording, recorded_turns = await record(trip(ledger), streaming="sse")
    assert any(e.is_partial for e in recorded_turns[0])
    assert not any(e.partial for e in recording.events)  # partial events are left out ...
    assert any(r.get("partial") for c in recording.model_calls for r in c.responses)
    backend = ReplayerBackend(recording)
    replayed, turns = await record(trip(ledger), backend=backend, streaming="sse")
    assert [[client_view(e) for e in t] for t in turns] == [
        [client_view(e) for e in t] for t in recorded_turns
    ]
    # ... unless asked for
    with_partials, _ = await record(trip(ledger), streaming="sse", partials=True)
    assert any(e.partial for e in with_partials.events) and with_partials.header.partials
    assert diff_events(recording, replayed).empty


async def test_tools_run_when_replay_tools_is_false_and_changed_arguments_are_refused():
    ledger = Ledger()
    recording, _ = await record(trip(ledger))
    await record(trip(ledger), backend=ReplayerBackend(recording, replay_tools=False))
    assert ledger.bookings == 4  # the tool ran again

    # the booker now asks for another city: its request still matches, the tool call does not
    data = recording.to_dict()
    booker = next(c for c in data["model_calls"] if c["agent"] == "booker")
    booker["responses"][0]["content"]["parts"][0]["function_call"]["args"] = {"city": "Lyon"}
    altered = Recording.from_dict(data)
    with pytest.raises(ReplayMismatchError) as caught:
        await trip(ledger).run(TURNS[0], backend=ReplayerBackend(altered), session_id=SESSION)
    assert (caught.value.agent, caught.value.kind) == ("booker", "tool")
    assert "tool call #1 (book)" in str(caught.value)
    assert 'recorded {"city":"Paris"}, now {"city":"Lyon"}' in str(caught.value)
    assert ledger.bookings == 4


async def test_a_recorder_is_reusable_and_a_recording_is_a_snapshot():
    ledger = Ledger()
    pipeline = trip(ledger)
    recorder = Recorder(tree=pipeline)
    config = ExecutionConfig(middleware=[recorder])
    backend = mock_backend(scripts())
    await pipeline.run(TURNS[0], backend=backend, config=config, session_id=SESSION)
    first = recorder.recording()
    await pipeline.run(TURNS[1], backend=backend, config=config, session_id=SESSION)
    assert len(recorder.recording().model_calls) == 2 * len(first.model_calls)
    assert len(first.model_calls) == 5  # unchanged by the second turn
    recorder.clear()
    assert recorder.recording().model_calls == () and recorder.recording().events == ()
    await pipeline.run(TURNS[0], backend=mock_backend(scripts()), config=config, session_id="other")
    again = recorder.recording()
    assert [c.call for c in again.calls_of("booker")] == [1, 2]
    assert again.sessions == ("other",)
    assert WRITER.split()[0] in again.calls_of("writer")[0].instruction
