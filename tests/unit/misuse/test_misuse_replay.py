"""Misuse of record and replay: Recorder, Recording (save / load), ReplayerBackend and
diff_events. Each case fails before any run, naming the field (and the agent, file or side)
with a hint."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from adk_fluent import Agent
from adk_fluent.replay import Header, Recorder, Recording, ReplayerBackend, diff_events
from tests.support.misuse import case, check, ids
from tests.unit.replay.recordings import made

CALLS = [("writer", "Write.", "a haiku", "Old pond."), ("critic", "Judge.", "Old pond.", "Fine.")]


def _load(text: str, name: str = "run.json"):
    def attempt():
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            return Recording.load(path)

    return attempt


def _save(recording: Recording, name: str):
    def attempt():
        with tempfile.TemporaryDirectory() as folder:
            return recording.save(Path(folder) / name)

    return attempt


def _build(pipeline, backend):
    return lambda: pipeline.build(backend=backend())


def _with_state(state: dict) -> dict:
    data = made(CALLS).to_dict() | {"state": True}
    data["events"][0]["state"] = state
    return data


RECORDED = json.dumps(made(CALLS).to_dict())
TREE = (Agent("writter").instruct("Write.") >> Agent("critic").instruct("Judge.")).named("root")

CASES = [
    # ReplayerBackend's options
    case(
        "replay-on-mismatch-typo",
        lambda: ReplayerBackend(made(CALLS), on_mismatch="skp"),
        "on_mismatch",
        "did you mean 'skip'",
    ),
    case(
        "replay-on-mismatch-not-text",
        lambda: ReplayerBackend(made(CALLS), on_mismatch=True),
        "on_mismatch",
        "'error', 'skip', 'live'",
    ),
    case(
        "replay-live-without-live-model",
        lambda: ReplayerBackend(made(CALLS), on_mismatch="live"),
        "live_model",
        "on_mismatch='live' needs a live_model",
    ),
    case(
        "replay-live-model-without-live",
        lambda: ReplayerBackend(made(CALLS), live_model="gemini-2.5-flash"),
        "live_model",
        "only asked with on_mismatch='live'",
    ),
    case(
        "replay-live-model-wrong-type",
        lambda: ReplayerBackend(made(CALLS), on_mismatch="live", live_model=42),
        "live_model",
        "BaseLlm",
    ),
    case(
        "replay-tools-not-bool",
        lambda: ReplayerBackend(made(CALLS), replay_tools="yes"),
        "replay_tools",
        "True or False",
    ),
    case(
        "replay-recording-wrong-type",
        lambda: ReplayerBackend({"model_calls": []}),
        "recording",
        "a Recording or the path",
    ),
    case(
        "replay-recording-without-calls",
        lambda: ReplayerBackend(Recording(made([]).header)),
        "recording",
        "no model calls",
        "Recorder",
    ),
    # a recording and the tree replayed with it
    case(
        "replay-recording-has-calls-for-an-agent-the-tree-lacks",
        _build(TREE, lambda: ReplayerBackend(made(CALLS))),
        "agent 'writer'",
        "recording",
        "did you mean 'writter'",
    ),
    case(
        "replay-recording-of-other-agents",
        _build(Agent("summariser").instruct("Sum."), lambda: ReplayerBackend(made(CALLS))),
        "no model calls for any agent of this tree",
        "recorded: writer, critic",
    ),
    case(
        "replay-calls-of-an-agent-without-calls",
        lambda: made(CALLS).calls_of("critc"),
        "agent 'critc'",
        "no model calls",
        "did you mean 'critic'",
    ),
    # loading
    case(
        "replay-load-missing-file",
        lambda: Recording.load("recordings/nowhere.json"),
        "path",
        "no recording at recordings/nowhere.json",
    ),
    case(
        "replay-load-wrong-suffix",
        lambda: Recording.load("recordings/run.yaml"),
        "path",
        ".json or .jsonl",
    ),
    case(
        "replay-load-another-format",
        _load(json.dumps({"format": "har", "version": 1})),
        "format",
        "not an adk-fluent recording",
        "'har'",
    ),
    case(
        "replay-load-not-json",
        _load("model_calls: []"),
        "path",
        "is not JSON",
    ),
    case(
        "replay-load-unsupported-version",
        _load(RECORDED.replace('"version": 1', '"version": 7')),
        "version",
        "format version 7",
        "reads version 1",
        "upgrade adk-fluent",
    ),
    case(
        "replay-load-jsonl-without-header",
        _load('{"record": "event", "seq": 1}\n', "run.jsonl"),
        "format",
        "not an adk-fluent recording",
    ),
    case(
        "replay-load-unknown-value-tag",
        lambda: Recording.from_dict(_with_state({"x": {"$type": "spaceship"}})).state_after(0),
        "unknown value type 'spaceship'",
        "event #1 state",
    ),
    case(
        "replay-state-without-snapshots",
        lambda: made(CALLS).state_after(0),
        "state",
        "no state snapshots",
        "capture_state=True",
    ),
    # saving
    case(
        "replay-save-wrong-suffix",
        _save(made(CALLS), "run.txt"),
        "path",
        ".json or .jsonl",
    ),
    case(
        "replay-save-unstorable-value",
        _save(
            Recording(
                made([]).header,
                problems=("tool 'x' of agent 'a' result['when']: a builtins.object",),
            ),
            "run.json",
        ),
        "recording",
        "JSON cannot hold",
        "result['when']",
    ),
    case("replay-save-path-not-text", lambda: made(CALLS).save(42), "path", "file name"),
    # Recorder
    case(
        "recorder-capture-state-not-bool",
        lambda: Recorder(capture_state="yes"),
        "Recorder",
        "capture_state",
        "True or False",
    ),
    case("recorder-tree-not-a-tree", lambda: Recorder(tree="writer"), "tree", "pipeline"),
    case(
        "recorder-scoped-below-the-root",
        lambda: (
            Agent("a").instruct("x") >> Agent("b").instruct("y").middleware(Recorder())
        ).to_app(),
        "recorder",
        "must see the whole run",
    ),
    # diff_events
    case("diff-events-text", lambda: diff_events("run a", "run b"), "field 'a'", "two Recordings"),
    case(
        "diff-events-recording-and-list",
        lambda: diff_events(made(CALLS), []),
        "field 'b'",
        "Recording",
        "recording.events",
    ),
    case(
        "diff-events-list-of-dicts",
        lambda: diff_events([], [{"author": "a"}]),
        "field 'b'",
        "b[0] is a dict, not an event",
    ),
    case(
        "diff-events-header-alone",
        lambda: diff_events(Header("1", "1", "now"), Header("1", "1", "now")),
        "field 'a'",
        "Header",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
