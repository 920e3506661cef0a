"""Misuse of live sessions (`pipeline.live(...)`): what cannot run live, and options a live
run would not honour, are refused when `live()` is called, before any connection, naming the
step or the option, with a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, ExecutionConfig, gate
from adk_fluent.testing import audio, live_turn, transcript
from tests.support.misuse import case, check, ids


def _agent(name: str = "voice"):
    return Agent(name).instruct("Talk.")


def _live(tree, **options):
    return lambda: tree.live(**options)


def _recorder_config():
    from adk_fluent.replay import Recorder

    return ExecutionConfig(middleware=[Recorder()])


CASES = [
    case("live-fanout", _live(_agent("a") | _agent("b")), "ParallelAgent", "cannot run live"),
    case("live-loop", _live(_agent("a") * 3), "LoopAgent", "cannot run live"),
    case(
        "live-state-step",
        _live(_agent("a").outputs("x") >> (lambda s: {"y": s["x"]}) >> _agent("b")),
        "state step",
        "live",
    ),
    case(
        "live-gate",
        _live(_agent("a") >> gate(lambda s: True, "Go on?") >> _agent("b")),
        "cannot run live",
    ),
    case("live-modalities-video", _live(_agent(), modalities=("VIDEO",)), "modalities", "AUDIO"),
    case("live-modalities-empty", _live(_agent(), modalities=()), "modalities"),
    case(
        "live-workflow-target",
        _live(_agent(), config=ExecutionConfig(target="workflow")),
        "classic target",
        "target",
    ),
    case(
        "live-turn-timeout",
        _live(_agent(), config=ExecutionConfig(timeout_seconds=5)),
        "timeout_seconds",
        "until it is closed",
    ),
    case(
        "live-middleware-recorder",
        lambda: _agent().live(config=_recorder_config()),
        "middleware",
        "Recorder",
    ),
    case("live-session-id-blank", _live(_agent(), session_id=" "), "session_id"),
    case("live-misspelt-option", _live(_agent(), sesion_id="s1"), "sesion_id", "session_id"),
    case("live-run-config-dict", _live(_agent(), run_config={"x": 1}), "run_config", "RunConfig"),
    case("live-transcript-of-whom", lambda: transcript("Hi", of="model"), "of", "'output'"),
    case("live-turn-empty", lambda: live_turn(), "live_turn", "at least one"),
    case("live-turn-nested", lambda: live_turn(live_turn("a")), "live_turn", "another"),
    case("live-modalities-lower-case", _live(_agent(), modalities=("audio",)), "modalities"),
    case("live-audio-not-bytes", lambda: audio("pcm"), "data", "bytes"),
    case(
        "run-with-a-bidi-config-stream",
        lambda: _agent().stream("hi", config=ExecutionConfig(streaming_mode="bidi")),
        "live",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
