"""Record a run and replay it: Recorder, Recording, ReplayerBackend,
diff_events. See docs/replay.md.

    recorder = Recorder(tree=pipeline)
    await pipeline.run("hi", config=ExecutionConfig(middleware=[recorder]))
    recorder.recording().save("recordings/hi.json")

    backend = ReplayerBackend(Recording.load("recordings/hi.json"))
    await pipeline.run("hi", backend=backend)   # no model, no tool runs
"""

from adk_fluent.replay.diff import Difference, EventDiff, diff_events
from adk_fluent.replay.fingerprint import tree_fingerprint, tree_summary
from adk_fluent.replay.recorder import Recorder
from adk_fluent.replay.recording import (
    FORMAT,
    VERSION,
    Header,
    ModelCall,
    RecordedEvent,
    Recording,
    ToolCall,
)
from adk_fluent.replay.replayer import Mismatch, ReplayerBackend, ReplayModel

__all__ = [
    "FORMAT",
    "VERSION",
    "Difference",
    "EventDiff",
    "Header",
    "Mismatch",
    "ModelCall",
    "RecordedEvent",
    "Recorder",
    "Recording",
    "ReplayModel",
    "ReplayerBackend",
    "ToolCall",
    "diff_events",
    "tree_fingerprint",
    "tree_summary",
]
