"""Record and replay (docs/replay.md): what the Recorder costs a run, what a replayed run costs,
and how long a Recording takes to save and load.

The pipeline: booker (one tool call, `book`, which writes state through its tool_context) ->
writer (instruction with {confirmation}); a conversation is two turns in one new session
("Paris please", then "And Rome after that"): 6 model calls and 2 tool calls, scripted
(adk_fluent.testing.ScriptedModel) everywhere but in the replay. Each sample is one
conversation; the table shows it per turn (half of it).

Measured, interleaved in one run, each through a warm Runner made once:
  raw ADK      the same two LlmAgents in a SequentialAgent, App, Runner by hand, the same
               scripted model
  plain        `p.to_runner(ExecutionConfig(...), backend=mock_backend(...))`
  recorder     the same with `ExecutionConfig(middleware=[Recorder(tree=p)])` (cleared at the
               start of each conversation, so it never holds more than one)
  capture      the same with `Recorder(tree=p, capture_state=True)` (the state after every event)
  replay       `p.to_runner(backend=ReplayerBackend(recording))`, the backend built once from a
               recording of one conversation and `reset()` at the start of each conversation; the
               tool is answered from the recording and does not run
Recording I/O: `Recording.save` and `Recording.load` of that recording (.jsonl and .json), and of
one of 50 conversations (100 turns, .jsonl), with the file sizes.

Goal: the Recorder <= 1.25x of the plain run per turn. With a scripted model a turn is a few
milliseconds of ADK's own work, and the Recorder turns every request (instruction, every message
of the history, the tools), every response, tool call and event into JSON values, so its cost is
compared here with almost nothing; against a real model's hundreds of milliseconds per call the
same absolute cost is a fraction of 1%. The replay rows and the I/O rows are info.

    python -m bench.bench_replay [--repeat N] [--io-repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import tempfile
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench import info_row, interleave, interleave_async, ratio_row, report

APP_NAME = "bench_app"
USER = "user"
PROMPTS = ("Paris please", "And Rome after that")
ANSWERS = ["Paris it is!", "Rome next!"]
BIG = 50  # conversations in the larger recording

_session_ids = (f"r{n}" for n in itertools.count())
bookings: list[str] = []  # every city `book` booked (a replay books nothing)


def book(city: str, tool_context: Any) -> dict[str, str]:
    """Book a trip to a city."""
    bookings.append(city)
    tool_context.state["booked_city"] = city
    return {"status": "booked", "city": city}


def conversation_scripts() -> dict[str, Any]:
    """Each agent's answers, a conversation after another, for ever."""
    from adk_fluent.testing import call, repeat

    return {
        "booker": repeat(
            call("book", city="Paris"), "Booked Paris.", call("book", city="Rome"), "Booked Rome."
        ),
        "writer": repeat(*ANSWERS),
    }


# -- hand-written ADK -----------------------------------------------------------------------------
def hand_runner() -> Any:
    """booker and writer LlmAgents, SequentialAgent, App, Runner, InMemorySessionService."""
    from google.adk.agents import LlmAgent, SequentialAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent.testing import ScriptedModel

    scripts = conversation_scripts()
    booker = LlmAgent(
        name="booker",
        model=ScriptedModel([scripts["booker"]]),
        instruction="Book what the user asks for.",
        tools=[book],
        output_key="confirmation",
    )
    writer = LlmAgent(
        name="writer",
        model=ScriptedModel([scripts["writer"]]),
        instruction="Confirm {confirmation} in one line.",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        root = SequentialAgent(name="trip", sub_agents=[booker, writer])
    return Runner(app=App(name=APP_NAME, root_agent=root), session_service=InMemorySessionService())


# -- adk-fluent -----------------------------------------------------------------------------------
def fluent_pipeline() -> Any:
    from adk_fluent import Agent

    return (
        Agent("booker").instruct("Book what the user asks for.").tool(book).outputs("confirmation")
        >> Agent("writer").instruct("Confirm {confirmation} in one line.")
    ).named("trip")


# -- one conversation -----------------------------------------------------------------------------
async def conversation(runner: Any, session_id: str | None = None) -> list[str]:
    """A new session and the two turns in it; the final reply of each turn."""
    from google.genai import types

    session_id = session_id or next(_session_ids)
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    replies = []
    for prompt in PROMPTS:
        message = types.Content(role="user", parts=[types.Part(text=prompt)])
        events = [
            event
            async for event in runner.run_async(
                user_id=USER, session_id=session_id, new_message=message
            )
        ]
        replies.append("".join(part.text or "" for part in events[-1].content.parts))
    return replies


async def measure_turns(repeat: int, warmup: int) -> tuple[dict[str, list[float]], Any, Any]:
    """The conversations, interleaved; also the recording of one and of BIG conversations."""
    from google.adk.sessions import InMemorySessionService

    from adk_fluent import ExecutionConfig
    from adk_fluent.replay import Recorder, ReplayerBackend
    from adk_fluent.testing import mock_backend

    pipeline = fluent_pipeline()

    def runner(backend: Any, *middleware: Any) -> Any:
        return pipeline.to_runner(
            ExecutionConfig(app_name=APP_NAME, middleware=middleware),
            backend=backend,
            session_service=InMemorySessionService(),
        )

    # the recordings: one conversation, and BIG of them
    maker = Recorder(tree=pipeline)
    recording_runner = runner(mock_backend(conversation_scripts()), maker)
    assert await conversation(recording_runner, "recorded") == ANSWERS
    recording = maker.recording()
    for _ in range(BIG - 1):
        await conversation(recording_runner)
    big = maker.recording()
    assert len(big.model_calls) == BIG * len(recording.model_calls) == BIG * 6

    recorder = Recorder(tree=pipeline)
    capture = Recorder(tree=pipeline, capture_state=True)
    replayer = ReplayerBackend(recording)
    runners = {
        "raw": hand_runner(),
        "plain": runner(mock_backend(conversation_scripts())),
        "recorder": runner(mock_backend(conversation_scripts()), recorder),
        "capture": runner(mock_backend(conversation_scripts()), capture),
        "replay": runner(replayer),
    }

    # the same work everywhere: the same answers; the replay books nothing and replays it all
    for name, each in runners.items():
        if name == "replay":
            replayer.reset()
        booked = len(bookings)
        assert await conversation(each) == ANSWERS, name
        assert bookings[booked:] == ([] if name == "replay" else ["Paris", "Rome"]), name
    replayer.assert_consumed()
    assert not replayer.mismatches
    assert len(recorder.recording().model_calls) == 6

    async def recorded(each: Any, which: Any) -> list[str]:
        which.clear()
        return await conversation(each)

    async def replayed(each: Any) -> list[str]:
        replayer.reset()
        return await conversation(each)

    variants: dict[str, Callable[[], Awaitable[object]]] = {
        "raw": lambda: conversation(runners["raw"]),
        "plain": lambda: conversation(runners["plain"]),
        "recorder": lambda: recorded(runners["recorder"], recorder),
        "capture": lambda: recorded(runners["capture"], capture),
        "replay": lambda: replayed(runners["replay"]),
    }
    samples = await interleave_async(variants, repeat=repeat, warmup=warmup)
    per_turn = {name: [s / len(PROMPTS) for s in times] for name, times in samples.items()}
    return per_turn, recording, big


def measure_io(recording: Any, big: Any, repeat: int) -> tuple[dict[str, list[float]], dict]:
    """Save and load, interleaved; and the size of each file."""
    from adk_fluent.replay import Recording

    with tempfile.TemporaryDirectory() as folder:
        paths = {
            "jsonl": (recording, Path(folder) / "one.jsonl"),
            "json": (recording, Path(folder) / "one.json"),
            "big": (big, Path(folder) / "big.jsonl"),
        }
        for which, path in paths.values():
            which.save(path)
            assert Recording.load(path) == which
        sizes = {name: path.stat().st_size for name, (_, path) in paths.items()}
        variants: dict[str, Callable[[], object]] = {}
        for name, (which, path) in paths.items():
            variants[f"save_{name}"] = lambda which=which, path=path: which.save(path)
            variants[f"load_{name}"] = lambda path=path: Recording.load(path)
        return interleave(variants, repeat=repeat), sizes


def _kb(size: int) -> str:
    return f"{size / 1024:.1f} KB"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=100, help="conversations per variant")
    parser.add_argument("--io-repeat", type=int, default=30, help="saves and loads of each file")
    args = parser.parse_args(argv)
    warmup = 5
    turns, recording, big = asyncio.run(measure_turns(args.repeat, warmup))
    io, sizes = measure_io(recording, big, args.io_repeat)
    rows = [
        info_row("plain scripted run: per turn", turns["plain"], turns["raw"]),
        ratio_row("Recorder: per turn (raw: plain run)", turns["recorder"], turns["plain"], 1.25),
        info_row(
            "Recorder(capture_state=True): per turn (raw: plain)", turns["capture"], turns["plain"]
        ),
        info_row("Recorder: per turn", turns["recorder"], turns["raw"]),
        info_row("ReplayerBackend: per turn (raw: plain run)", turns["replay"], turns["plain"]),
        info_row("ReplayerBackend: per turn", turns["replay"], turns["raw"]),
        info_row(f"save .jsonl, 2 turns ({_kb(sizes['jsonl'])})", io["save_jsonl"], None),
        info_row(f"load .jsonl, 2 turns ({_kb(sizes['jsonl'])})", io["load_jsonl"], None),
        info_row(f"save .json, 2 turns ({_kb(sizes['json'])})", io["save_json"], None),
        info_row(f"load .json, 2 turns ({_kb(sizes['json'])})", io["load_json"], None),
        info_row(f"save .jsonl, {2 * BIG} turns ({_kb(sizes['big'])})", io["save_big"], None),
        info_row(f"load .jsonl, {2 * BIG} turns ({_kb(sizes['big'])})", io["load_big"], None),
    ]
    report(
        "bench_replay: Recorder, ReplayerBackend and Recording I/O, booker (tool) -> writer, "
        "2 turns",
        rows,
        [
            f"medians of {args.repeat} interleaved two-turn conversations after {warmup} warm-up "
            "ones, a new session each, shown per turn; 3 model calls and 1 tool call per turn",
            "rows marked '(raw: ...)' put that adk-fluent variant in the raw ADK column; "
            f"save/load: medians of {args.io_repeat}",
        ],
    )


if __name__ == "__main__":
    main()
