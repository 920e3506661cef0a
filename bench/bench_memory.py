"""Memory and long sessions: adk-fluent against raw ADK holding many sessions, and over one long one.

(a) 1,000 concurrent sessions of bench_run's pipeline (classifier -> booker with one tool call ->
summarizer, scripted models), one turn each, run 50 at a time (asyncio.gather), all of them alive
in one InMemorySessionService at the end: `p.to_runner(...)` against the hand-written LlmAgent x3
+ SequentialAgent + App + Runner of bench_run.hand_runner. Each side runs in a fresh subprocess
of its own, so neither inherits the other's heap.

  RSS growth   resident set size (/proc/self/statm: resident pages x page size; ru_maxrss where
               there is no /proc) after the 1,000 sessions and a full collection, minus the same
               after imports, building the Runner, a warm-up batch of 50 sessions and a full
               collection; per session. Budget: adk-fluent <= 1.10x raw ADK. RSS because it is
               what a server pays for keeping sessions in memory, the allocator's overheads
               included; it moves by pages and arenas, little beside the tens of MB at stake.
  live bytes   tracemalloc's traced size (Python allocations still alive after a full
               collection) over 200 sessions, in another pair of subprocesses: tracing slows every
               allocation and its own bookkeeping inflates RSS, so it never shares a process with
               the RSS figure. The exact bytes a session keeps; info. Its peak (the high-water
               mark while batches run) is in the notes.

  The scripted models record every request they receive (ScriptedModel.requests, for tests'
  assertions); both sides clear those records after each batch, else they would be most of the
  growth on both sides and hide the difference. The scripts answer from the request (the booker
  calls the tool unless the request ends with the tool's answer), so concurrent sessions can
  share one model.

(b) A long session: 500 turns in ONE session of a one-agent chat (the same ScriptedModel reply
each turn), interleaved: `p.to_runner(...)` made once, `await p.run(prompt, session_id=...)`
(which drives the Runner it caches, warm after the warm-up), and a hand-written LlmAgent + App +
Runner. The runners are warmed up in other sessions first. ADK's own turn grows with the history
(the in-memory store copies the session on every read, every model request carries the history):
per-turn time over the last 50 turns against the first 50. One agent, not three: ADK's own
per-turn work over a 500-turn history of the 3-agent pipeline takes seconds a turn (ten minutes a
side), and a chat is where sessions get long.

  The criterion: growth = median(last 50) / median(first 50), for each side; adk-fluent meets it
  when its growth <= raw ADK's growth x 1.10. Equivalently, the fluent / raw ratio over the last
  50 turns is at most 1.10x the ratio over the first 50. A constant per-turn overhead makes
  adk-fluent's growth a little smaller than ADK's (it weighs less as ADK's own cost grows); a
  cost of adk-fluent's that grows with the history (reading the session, scanning its events)
  makes it larger, and it fails once it adds a tenth to ADK's own growth. Medians of 50
  turns keep one slow turn of a busy machine from deciding it.

    python -m bench.bench_memory [--sessions N] [--traced-sessions N] [--turns N] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from statistics import median
from typing import Any

from bench import Row, info_row, interleave_async, ratio_row, report
from bench.bench_run import APP_NAME, USER, fluent_pipeline, hand_runner, runner_turn

ROOT = Path(__file__).resolve().parent.parent
BATCH = 50  # sessions run at once
SIDES = ("fluent", "raw")
REPLY = "Your trip to Paris is booked."
CHAT_REPLY = "Sure."
WINDOW = 50  # turns at each end of the long session


# -- (a) many sessions, in a child process per side -------------------------------------------------
def resident_bytes() -> int:
    """The process's resident set size now (its peak, ru_maxrss, where there is no /proc)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def concurrent_scripts() -> dict[str, list[Any]]:
    """Endless scripts that answer from the request, so concurrent sessions can share them."""
    from adk_fluent.testing import call, repeat

    def booker(request: Any) -> Any:
        last = request.contents[-1] if request.contents else None
        answered = last is not None and any(p.function_response for p in last.parts or [])
        return "Booked Paris." if answered else call("book", city="Paris")

    return {
        "classifier": [repeat("booking")],
        "booker": [repeat(booker)],
        "summarizer": [repeat(REPLY)],
    }


def side_runner(side: str) -> tuple[Any, list[Any]]:
    """(the Runner of one side, its scripted models)."""
    if side == "raw":
        runner = hand_runner(0, concurrent_scripts())
        return runner, [agent.model for agent in runner.agent.sub_agents]
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend

    backend = mock_backend(concurrent_scripts())
    return fluent_pipeline().to_runner(ExecutionConfig(app_name=APP_NAME), backend=backend), [
        backend.model
    ]


def forget_requests(models: list[Any]) -> None:
    """Drop the requests the scripted models recorded (both sides, the same way)."""
    for model in models:
        model.requests.clear()
        model.calls.clear()


async def sessions_child(side: str, sessions: int, traced: bool) -> dict[str, Any]:
    """Run `sessions` one-turn sessions on one side; the memory they keep."""
    import tracemalloc

    runner, models = side_runner(side)

    async def batch(size: int) -> None:
        turns = await asyncio.gather(*(runner_turn(runner) for _ in range(size)))
        assert all(events[-1].content.parts[0].text == REPLY for events in turns)
        forget_requests(models)

    await batch(BATCH)  # warm-up: lazy imports, caches, the first sessions
    gc.collect()
    if traced:
        tracemalloc.start()
    before = resident_bytes()
    done = 0
    while done < sessions:
        size = min(BATCH, sessions - done)
        await batch(size)
        done += size
    gc.collect()
    after = resident_bytes()
    figures: dict[str, Any] = {"side": side, "sessions": sessions, "rss_growth": after - before}
    if traced:
        figures["live"], figures["peak"] = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    # the same work on both sides: as many sessions, each with as many events
    stored = runner.session_service.sessions[APP_NAME][USER]
    figures["stored_sessions"] = len(stored)
    figures["events_per_session"] = sorted({len(s.events) for s in stored.values()})
    return figures


def run_child(side: str, sessions: int, traced: bool) -> dict[str, Any]:
    """One side's figures, measured in a fresh interpreter."""
    command = [sys.executable, "-m", "bench.bench_memory", "--child", side]
    command += ["--sessions", str(sessions)] + (["--traced"] if traced else [])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_memory child {side} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_sessions(sessions: int, traced_sessions: int, runs: int) -> dict[str, Any]:
    """Per side: RSS growth per session (one figure per run) and the traced figures."""
    rss: dict[str, list[float]] = {side: [] for side in SIDES}
    shape: dict[str, set[tuple[int, ...]]] = {side: set() for side in SIDES}
    for run in range(runs):
        for side in SIDES[run % 2 :] + SIDES[: run % 2]:  # the order alternates
            figures = run_child(side, sessions, traced=False)
            rss[side].append(figures["rss_growth"] / sessions)
            shape[side].add(tuple(figures["events_per_session"]))
    traced = {side: run_child(side, traced_sessions, traced=True) for side in SIDES}
    for side in SIDES:
        shape[side].add(tuple(traced[side]["events_per_session"]))
    assert shape["fluent"] == shape["raw"] and len(shape["raw"]) == 1, shape
    return {"rss": rss, "traced": traced, "events": shape["raw"].pop()}


# -- (b) one long session, in this process ----------------------------------------------------------
async def long_session(turns: int, warmup: int = 3) -> dict[str, list[float]]:
    """Per-turn seconds of `turns` turns in one session, per variant, in turn order."""
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent import Agent, ExecutionConfig
    from adk_fluent.testing import ScriptedModel, mock_backend, repeat

    instruction = "Chat with the user."
    chat = Agent("chat").instruct(instruction)
    config = ExecutionConfig(app_name=APP_NAME)
    runner_backend = mock_backend({"chat": [repeat(CHAT_REPLY)]})
    run_backend = mock_backend({"chat": [repeat(CHAT_REPLY)]})  # p.run caches its Runner by it
    fluent_runner = chat.to_runner(config, backend=runner_backend)
    raw_model = ScriptedModel([repeat(CHAT_REPLY)])
    raw_runner = Runner(
        app=App(
            name=APP_NAME,
            root_agent=LlmAgent(name="chat", model=raw_model, instruction=instruction),
        ),
        session_service=InMemorySessionService(),
    )
    message = types.Content(role="user", parts=[types.Part(text="Tell me more.")])

    async def runner_turn_in(runner: Any, session_id: str) -> Any:
        events = [
            e
            async for e in runner.run_async(
                user_id=USER, session_id=session_id, new_message=message
            )
        ]
        assert events[-1].content.parts[0].text == CHAT_REPLY
        return events

    async def fluent_run(session_id: str) -> Any:
        events = await chat.run(
            "Tell me more.", backend=run_backend, config=config, session_id=session_id
        )
        assert events[-1].content == CHAT_REPLY
        return events

    for runner in (fluent_runner, raw_runner):
        for n in range(warmup + 1):
            await runner.session_service.create_session(
                app_name=APP_NAME, user_id=USER, session_id=f"warm{n}"
            )
        await runner.session_service.create_session(
            app_name=APP_NAME, user_id=USER, session_id="long"
        )
    for n in range(warmup):
        await runner_turn_in(fluent_runner, f"warm{n}")
        await runner_turn_in(raw_runner, f"warm{n}")
        await fluent_run(f"warm{n}")
    models = [runner_backend.model, run_backend.model, raw_model]

    async def timed(turn: Callable[[], Awaitable[Any]]) -> None:
        await turn()
        forget_requests(models)

    variants: dict[str, Callable[[], Awaitable[object]]] = {
        "runner": lambda: timed(lambda: runner_turn_in(fluent_runner, "long")),
        "run": lambda: timed(lambda: fluent_run("long")),
        "raw": lambda: timed(lambda: runner_turn_in(raw_runner, "long")),
    }
    samples = await interleave_async(variants, repeat=turns, warmup=0)
    stored = {
        "runner": await fluent_runner.session_service.get_session(
            app_name=APP_NAME, user_id=USER, session_id="long"
        ),
        "raw": await raw_runner.session_service.get_session(
            app_name=APP_NAME, user_id=USER, session_id="long"
        ),
        "run": await chat.session("long", backend=run_backend, config=config),
    }
    counts = {name: len(session.events) for name, session in stored.items()}
    assert len(set(counts.values())) == 1, counts
    return samples


def growth(samples: list[float]) -> float:
    return median(samples[-WINDOW:]) / median(samples[:WINDOW])


def long_rows(samples: dict[str, list[float]], turns: int) -> list[Row]:
    raw = samples["raw"]
    rows = []
    for name, label in (("runner", "warm Runner"), ("run", "p.run()")):
        fluent = samples[name]
        rows += [
            ratio_row(
                f"{turns}-turn session, {label}: growth last/first {WINDOW} turns vs raw ADK's",
                [growth(fluent)],
                [growth(raw)],
                1.10,
                unit="x",
            ),
            info_row(f"  {label}: first {WINDOW} turns, per turn", fluent[:WINDOW], raw[:WINDOW]),
            info_row(f"  {label}: last {WINDOW} turns, per turn", fluent[-WINDOW:], raw[-WINDOW:]),
        ]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=1000, help="concurrent sessions")
    parser.add_argument(
        "--traced-sessions", type=int, default=200, help="sessions of the tracemalloc run"
    )
    parser.add_argument("--runs", type=int, default=1, help="RSS subprocesses per side")
    parser.add_argument("--turns", type=int, default=500, help="turns of the long session")
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(asyncio.run(sessions_child(args.child, args.sessions, args.traced))))
        return

    started = time.perf_counter()
    many = measure_sessions(args.sessions, args.traced_sessions, args.runs)
    rss, traced = many["rss"], many["traced"]
    rows: list[Row] = [
        ratio_row(
            f"{args.sessions} concurrent sessions: RSS growth per session",
            rss["fluent"],
            rss["raw"],
            1.10,
            unit="B",
        ),
        info_row(
            f"{args.traced_sessions} sessions: live Python bytes per session (tracemalloc)",
            [traced["fluent"]["live"] / args.traced_sessions],
            [traced["raw"]["live"] / args.traced_sessions],
            unit="B",
        ),
    ]
    sessions_took = time.perf_counter() - started
    samples = asyncio.run(long_session(args.turns))
    rows += long_rows(samples, args.turns)
    peak = {side: traced[side]["peak"] / 2**20 for side in SIDES}
    report(
        "bench_memory: many sessions (3-agent pipeline) and one long session (one agent), "
        "scripted models",
        rows,
        [
            f"(a) one turn per session, {BATCH} at a time, {many['events']} events each; each "
            f"side in a fresh subprocess ({args.runs} per side for RSS, one more traced); RSS = "
            "/proc/self/statm resident after a full collection, growth from after the warm-up",
            f"    tracemalloc peak while the traced batches ran: adk-fluent {peak['fluent']:.1f} "
            f"MiB, raw ADK {peak['raw']:.1f} MiB; (a) took {sessions_took:.0f} s",
            f"(b) {args.turns} turns in one session each, the three variants interleaved; "
            f"growth = median of the last {WINDOW} turns / median of the first {WINDOW}",
        ],
    )


if __name__ == "__main__":
    main()
