"""The recording format: `.json` and `.jsonl` by suffix, both read back to an equal Recording;
the same recording always gives the same bytes (fields sorted, no reprs); the header names the
format, its version and the releases; a file of another format or version is refused with what
this library reads and a hint; a recording holding a value JSON cannot hold is refused, never
written with that value lost."""

from __future__ import annotations

import json

import pytest

from adk_fluent import Agent
from adk_fluent.errors import RecordingError
from adk_fluent.replay import FORMAT, VERSION, Header, Recording, ToolCall
from tests.unit.replay.recordings import HEADER, made

CALLS = [
    ("writer", "Write.", "a haiku", "Old pond."),
    ("critic", "Judge.", "Old pond.", "Fine."),
    ("writer", "Write.", "again", "Frog jumps."),
]


def tool_call(**changes):
    values = {
        "seq": 9,
        "session_id": "s1",
        "invocation_id": "i1",
        "agent": "writer",
        "tool": "lookup",
        "args": {"q": "pond", "raw": {"$type": "bytes", "base64": "AAE="}},
        "result": {"found": True},
        "actions": {"state_delta": {"looked": "pond"}},
    }
    values.update(changes)
    return ToolCall(**values)


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_saving_and_loading_gives_an_equal_recording(tmp_path, suffix):
    recording = made(CALLS, tools=(tool_call(), tool_call(seq=10, result=None)))
    path = recording.save(tmp_path / "sub" / f"run{suffix}")
    assert path.suffix == suffix and path.parent.name == "sub"
    loaded = Recording.load(path)
    assert loaded == recording
    assert loaded.tool_calls[1].result is None and loaded.tool_calls[1].has_result


def test_a_failed_tool_call_keeps_having_no_result(tmp_path):
    failed = tool_call(result=None, has_result=False, error={"type": "ValueError", "message": "x"})
    loaded = Recording.load(made(CALLS, tools=(failed,)).save(tmp_path / "r.jsonl"))
    assert (
        not loaded.tool_calls[0].has_result and loaded.tool_calls[0].error["type"] == "ValueError"
    )


def test_the_output_is_deterministic_and_sorted(tmp_path):
    recording = made(CALLS, tools=(tool_call(),))
    first = recording.save(tmp_path / "a.json").read_bytes()
    assert made(CALLS, tools=(tool_call(),)).save(tmp_path / "b.json").read_bytes() == first
    data = json.loads(first)
    assert list(data) == sorted(data)
    assert all(list(record) == sorted(record) for record in data["model_calls"])
    assert b" object at 0x" not in first  # no reprs


def test_jsonl_has_the_header_first_then_one_record_a_line_in_order(tmp_path):
    recording = made(CALLS, tools=(tool_call(),))
    lines = recording.save(tmp_path / "r.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert (header["format"], header["version"]) == (FORMAT, VERSION)
    records = [json.loads(line) for line in lines[1:]]
    assert [r["seq"] for r in records] == sorted(r["seq"] for r in records)
    assert {r["record"] for r in records} == {"event", "model_call", "tool_call"}
    assert len(records) == len(recording.records())


def test_a_new_header_names_the_releases_and_the_time():
    header = Header.new({"root": "r", "nodes": [], "fingerprint": "sha256:x"}, state=True)
    data = header.to_dict()
    assert data["format"] == FORMAT and data["version"] == VERSION
    assert data["adk_version"].count(".") >= 2 and data["adk_fluent_version"]
    assert data["created"].endswith("+00:00") and data["state"] is True
    assert header.fingerprint == "sha256:x"


def file_with(tmp_path, data, name="r.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_an_unsupported_version_is_refused_saying_what_this_library_reads(tmp_path):
    data = made(CALLS).to_dict() | {"version": 99}
    with pytest.raises(RecordingError) as caught:
        Recording.load(file_with(tmp_path, data))
    text = str(caught.value)
    assert "format version 99" in text and "reads version 1" in text
    assert "upgrade adk-fluent" in text and caught.value.field == "version"
    older = made(CALLS).to_dict() | {"version": 0}
    with pytest.raises(RecordingError, match="record the run again"):
        Recording.load(file_with(tmp_path, older))


def test_another_format_is_refused(tmp_path):
    with pytest.raises(RecordingError, match="not an adk-fluent recording") as caught:
        Recording.load(file_with(tmp_path, {"format": "har", "log": {}}))
    assert "'har'" in str(caught.value) and caught.value.field == "format"
    with pytest.raises(RecordingError, match="is not JSON"):
        Recording.load(file_with(tmp_path, "<html></html>"))
    with pytest.raises(RecordingError, match="is empty"):
        Recording.load(file_with(tmp_path, "", "r.jsonl"))
    with pytest.raises(RecordingError, match="not a record"):
        Recording.load(
            file_with(tmp_path, made(CALLS).to_jsonl() + '{"record": "span"}\n', "r.jsonl")
        )


def test_a_missing_file_and_a_wrong_suffix_are_refused(tmp_path):
    with pytest.raises(RecordingError, match="no recording at") as caught:
        Recording.load(tmp_path / "nowhere.json")
    assert caught.value.field == "path" and "hint" in str(caught.value)
    with pytest.raises(RecordingError, match="did you mean '.json'"):
        made(CALLS).save(tmp_path / "run.jsn")


def test_a_recording_with_a_value_json_cannot_hold_is_not_saved(tmp_path):
    recording = Recording(HEADER, problems=("tool 'x' result['when']: a builtins.object, ...",))
    with pytest.raises(RecordingError, match=r"result\['when'\]"):
        recording.save(tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


def test_calls_of_refuses_an_agent_without_calls_with_a_did_you_mean():
    recording = made(CALLS)
    assert [c.call for c in recording.calls_of("writer")] == [1, 2]
    assert recording.agents == ("writer", "critic") and recording.sessions == ("s1",)
    with pytest.raises(RecordingError, match="did you mean 'writer'") as caught:
        recording.calls_of("writr")
    assert caught.value.agent == "writr"


def test_records_read_like_what_happened():
    recording = made(CALLS)
    first = recording.model_calls[0]
    assert (first.instruction, first.text) == ("Write.", "Old pond.")
    event = recording.events[1]
    assert (event.text, event.function_calls, event.function_responses) == ("Old pond.", [], [])
    with pytest.raises(RecordingError, match="no state snapshots"):
        recording.state_after(0)


def test_a_recorder_can_be_told_its_tree():
    from adk_fluent.replay import Recorder

    pipeline = Agent("writer").instruct("Write.") >> Agent("critic").instruct("Judge.")
    recording = Recorder(tree=pipeline).recording()
    assert recording.header.tree is not None
    assert [n["path"] for n in recording.header.tree["nodes"]][1:] == [
        f"{pipeline.to_ir().name}/writer",
        f"{pipeline.to_ir().name}/critic",
    ]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_state_snapshots_come_back_even_when_empty(tmp_path, suffix):
    from dataclasses import replace

    recording = made(CALLS)
    events = tuple(
        replace(event, state={} if n == 0 else {"k": {"$type": "tuple", "items": [1, 2]}})
        for n, event in enumerate(recording.events)
    )
    snapshots = replace(recording, header=replace(recording.header, state=True), events=events)
    loaded = Recording.load(snapshots.save(tmp_path / f"r{suffix}"))
    assert loaded == snapshots
    assert loaded.state_after(0) == {} and loaded.state_after(1) == {"k": (1, 2)}
