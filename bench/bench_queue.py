"""The queue execution boundary: throughput (turns per second) of a pipeline whose "heavy" step is
served by 1, 2 and 4 `adk-fluent worker` processes over a real Redis, against the same boundary
served over A2A by one service process, and the same pipeline in one process (no split).

  pipeline     tests/support/queue_pipeline.py (scripted models that answer from their
               instruction): S.capture("question") >> a >> (b >> S.set(heavy_done=True))
               .execution_boundary("heavy", url=...) >> c
  queue        `build("redis://127.0.0.1:PORT/N")` split with `to_apps`; the caller runs
               `split.root` under ADK's Runner here; the boundary is served by `python -m
               adk_fluent.cli worker tests.support.queue_pipeline:pipeline --boundary heavy
               --processes N --concurrency C` (one pool per worker count, each on a Redis
               database of its own of one redis-server, all started before the first round)
  A2A          `build("http://127.0.0.1:PORT")` split the same way; its "heavy" service served
               over A2A by one process (`python -m bench.bench_queue --serve-a2a PORT --store URL`,
               the split's `serve`, one uvicorn process)
  one process  `build(url).to_app()` under ADK's Runner here: the boundary runs in place
  traffic      per round, N new sessions (each its own user, created before the clock starts),
               one turn each, all N at once (asyncio.gather); a turn = one `runner.run_async`

Every session (the callers', the workers' job sessions, the A2A service's) lives in one PostgreSQL
database, started for the run with its default durability (fsync on) and prepared once
(`prepare_session_store`) before any process uses it. Rounds rotate which configuration goes
first; after one warm-up round each, the table shows the median of `--repeat` rounds (7; 2
with `--quick`), as turns per second and as a ratio against the one-process row, with the CPU
time the caller's process (this one) spent per turn: the callers of every configuration share
this process, and on a small machine it is what bounds the throughput. Not a test and not run by
the test suite: `python -m bench.bench_queue` (about 2.5 minutes here, 1.5 with `--quick`; it skips
when no Redis or PostgreSQL server can be started here).

    python -m bench.bench_queue [--processes 1 2 4] [--turns 50] [--repeat R] [--concurrency C]
                                [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import adk_version

REPO = Path(__file__).resolve().parents[1]
TURN_SECONDS = 300.0  # one turn's bound: a hang ends the run with a message, not a stuck bench
BOUNDARY_TIMEOUT = 240.0  # the queue boundary's own timeout (the caller waits this long)
STARTUP_SECONDS = 180.0  # ADK imports in up to ten processes at once on a shared 2-core machine
ONE_PROCESS = "one process (no split)"
A2A = "A2A, 1 service process"


def queue_label(processes: int) -> str:
    return f"queue, {processes} worker process{'es' if processes > 1 else ''}"


# -- the processes serving the boundary ------------------------------------------------------------
def worker_pool(queue: str, store: str, log: Path, processes: int, concurrency: int) -> Any:
    """`adk-fluent worker ... --processes N`: one parent that starts N worker processes, stopped
    by its PID (tests/support/queue_workers.py)."""
    from tests.support.queue_workers import WorkerProcess

    return WorkerProcess(queue, store, log, processes=processes, concurrency=concurrency)


def a2a_service(port: int, store: str, log: Path) -> Any:
    """The A2A split's "heavy" service in a process of its own (`main --serve-a2a`), ready once
    it serves its card."""
    from tests.support.queue_workers import checkout_path
    from tests.support.servers import ServerProcess
    from tests.support.split import CARD_PATH

    command = [
        sys.executable,
        "-m",
        "bench.bench_queue",
        "--serve-a2a",
        str(port),
        "--store",
        store,
    ]
    return ServerProcess(
        command,
        port=port,
        ready_path=CARD_PATH,
        log=log,
        cwd=REPO,
        env={"PYTHONPATH": checkout_path()},
    )


def serve_a2a(port: int, store: str) -> None:
    """The child: serve the "heavy" service of the pipeline split at an A2A boundary on
    127.0.0.1:`port`, its sessions in `store`."""
    warnings.simplefilter("ignore")  # ADK's experimental-feature warnings, at every call
    logging.getLogger("google_adk").setLevel(logging.ERROR)
    from adk_fluent.remote import to_apps
    from tests.support.queue_pipeline import SERVICE, build

    split = to_apps(build(f"http://127.0.0.1:{port}", timeout=BOUNDARY_TIMEOUT))
    split.serve(SERVICE, host="127.0.0.1", port=port, session_store=store)


def wait_started(pools: list[Any], servers: list[Any]) -> None:
    """Until every pool serves and every server answers; RuntimeError naming the late one."""
    deadline = time.monotonic() + STARTUP_SECONDS
    waiting_pools, waiting_servers = list(pools), list(servers)
    while waiting_pools or waiting_servers:
        waiting_pools = [pool for pool in waiting_pools if not pool.serving()]
        waiting_servers = [server for server in waiting_servers if not server.ready()]
        if time.monotonic() > deadline:
            late = [p.log.name for p in waiting_pools] + [s.log.name for s in waiting_servers]
            raise RuntimeError(f"not serving after {STARTUP_SECONDS:.0f} s: {', '.join(late)}")
        time.sleep(0.2)


# -- the callers -----------------------------------------------------------------------------------
@dataclass
class Side:
    """One configuration as its caller sees it: an ADK App under a Runner on the shared store."""

    label: str
    app: Any
    runner: Any = field(default=None)


async def one_round(
    side: Side, sessions: Any, turns: int, tag: str, step: float = 0.0
) -> tuple[float, float]:
    """Seconds for `turns` one-turn conversations, each in a new session, all at once, and the
    CPU seconds the caller's process spent meanwhile."""
    from google.genai import types

    users = [f"{tag}-{i}" for i in range(turns)]
    made = await asyncio.gather(
        *(sessions.create_session(app_name=side.app.name, user_id=user) for user in users)
    )

    # the heavy step waits `step` seconds, as a model call would (tests/support/queue_pipeline)
    prefix = f"slow {step:g} " if step else ""

    async def turn(i: int) -> str:
        text = f"{prefix}question {tag} {i}"
        message = types.Content(role="user", parts=[types.Part(text=text)])

        async def run() -> list[Any]:
            return [
                event
                async for event in side.runner.run_async(
                    user_id=users[i], session_id=made[i].id, new_message=message
                )
            ]

        events = await asyncio.wait_for(run(), TURN_SECONDS)
        said = [
            "".join(p.text or "" for p in e.content.parts)
            for e in events
            if e.author == "c" and e.content and e.content.parts and not e.partial
        ]
        return said[-1] if said else f"no reply of c; last event: {events[-1] if events else None}"

    start, cpu = time.perf_counter(), time.process_time()
    replies = await asyncio.gather(*(turn(i) for i in range(turns)))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    for i, reply in enumerate(replies):  # a wrong reply means the figure measured a failure
        expected = f"answer: worked on topic of {prefix}question {tag} {i}"
        if reply != expected:
            raise RuntimeError(f"{side.label}, turn {i}: {reply!r} != {expected!r}")
    return seconds, cpu


async def measure(
    queues: dict[int, str], a2a_url: str, store: str, turns: int, repeat: int, step: float
) -> dict[str, list[tuple[float, float]]]:
    """(seconds, the caller's CPU seconds) per round, by configuration; one warm-up round each
    first, then `repeat` rounds with the order rotating."""
    from google.adk.runners import Runner

    from adk_fluent.remote import to_apps
    from adk_fluent.run.stores import close_session_stores, ready, shared_session_service
    from tests.support.queue_pipeline import build

    sessions = shared_session_service(store)
    await ready(sessions)
    sides = [
        Side(queue_label(count), to_apps(build(url, timeout=BOUNDARY_TIMEOUT)).root)
        for count, url in queues.items()
    ]
    sides.append(Side(A2A, to_apps(build(a2a_url, timeout=BOUNDARY_TIMEOUT)).root))
    sides.append(Side(ONE_PROCESS, build(next(iter(queues.values()))).to_app()))
    for side in sides:
        side.runner = Runner(app=side.app, session_service=sessions)
    samples: dict[str, list[tuple[float, float]]] = {side.label: [] for side in sides}
    try:
        for number, side in enumerate(sides):  # warm-up: every worker process and the service
            await one_round(side, sessions, turns, f"warm{number}", step)
        for rep in range(repeat):
            shift = rep % len(sides)
            for number, side in enumerate(sides[shift:] + sides[:shift]):
                seconds, cpu = await one_round(side, sessions, turns, f"r{rep}s{number}", step)
                samples[side.label].append((seconds, cpu))
                print(
                    f"  round {rep + 1}/{repeat}: {side.label}: {turns / seconds:.1f} turns/s, "
                    f"caller CPU {cpu / seconds:.0%} of the round"
                )
    finally:
        await close_session_stores()
    return samples


# -- the report ------------------------------------------------------------------------------------
def table(samples: dict[str, list[tuple[float, float]]], turns: int) -> list[str]:
    """The markdown table: median turns/s per configuration, its spread, the ratio against the
    one-process row, and the caller process's CPU time per turn (median)."""
    rates = {label: [turns / s for s, _ in values] for label, values in samples.items()}
    base = statistics.median(rates[ONE_PROCESS])
    lines = [
        "| configuration | turns/s (median) | rounds (min to max) | vs one process "
        "| caller CPU per turn |",
        "|---|---|---|---|---|",
    ]
    for label, values in rates.items():
        median = statistics.median(values)
        cpu = statistics.median(c for _, c in samples[label]) / turns
        lines.append(
            f"| {label} | {median:.1f} | {min(values):.1f} to {max(values):.1f} | "
            f"{median / base:.2f}x | {cpu * 1000:.1f} ms |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--turns", type=int, default=50, help="new one-turn sessions per round")
    parser.add_argument("--repeat", type=int, default=None, help="rounds per configuration")
    parser.add_argument(
        "--concurrency", type=int, default=4, help="jobs at once per worker process"
    )
    parser.add_argument(
        "--step-seconds",
        type=float,
        nargs="+",
        default=[0.0, 0.5],
        help="how long the heavy step waits, as a model call would (one table each; 0: it "
        "only costs CPU)",
    )
    parser.add_argument("--quick", action="store_true", help="2 rounds (about 1.5 minutes)")
    parser.add_argument("--serve-a2a", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_a2a is not None:
        serve_a2a(args.serve_a2a, args.store)
        return
    repeat = args.repeat or (2 if args.quick else 7)
    counts = sorted(set(args.processes))
    warnings.filterwarnings("ignore", message=r".*EXPERIMENTAL.*", category=UserWarning)
    logging.getLogger("google_adk").setLevel(logging.ERROR)

    from adk_fluent.run.stores import prepare_session_store
    from tests.support import postgres, redis_broker
    from tests.support.servers import free_port

    try:
        broker = redis_broker.start_server()
    except redis_broker.Unavailable as why:
        print(f"bench_queue: skipped, no Redis server: {why}")
        return
    try:
        database = postgres.start_cluster(durable=True)
    except postgres.Unavailable as why:
        broker.stop()
        shutil.rmtree(broker.folder, ignore_errors=True)
        print(f"bench_queue: skipped, no PostgreSQL server: {why}")
        return
    root = Path(tempfile.mkdtemp(prefix="adk-fluent-bench-queue-"))
    pools: list[Any] = []
    servers: list[Any] = []
    try:
        store = database.create_database("bench")
        # as a deploy does, once, before processes race to create the tables: the callers' app
        # (adk_fluent_app, also the A2A service's name) and the workers' job sessions (heavy)
        asyncio.run(prepare_session_store(store, apps=["adk_fluent_app", "heavy"]))
        base = broker.url.rsplit("/", 1)[0]
        queues = {count: f"{base}/{db}" for db, count in enumerate(counts, start=1)}
        started = time.perf_counter()
        for count, url in queues.items():
            log = root / f"workers{count}.log"
            pools.append(worker_pool(url, store, log, count, args.concurrency))
        port = free_port()
        servers.append(a2a_service(port, store, root / "a2a.log"))
        wait_started(pools, servers)
        startup = time.perf_counter() - started
        print(
            f"bench_queue: {len(pools)} worker pools ({sum(counts)} worker processes) and the "
            f"A2A service serving after {startup:.1f} s"
        )
        samples = {
            step: asyncio.run(
                measure(queues, f"http://127.0.0.1:{port}", store, args.turns, repeat, step)
            )
            for step in args.step_seconds
        }
    except BaseException:
        for log in sorted(root.glob("*.log")):
            print(f"--- {log.name} (tail) ---\n{log.read_text(errors='replace')[-3000:]}")
        raise
    finally:
        for pool in pools:
            pool.stop()
        for server in servers:
            server.stop()
        broker.stop()
        database.stop()
        shutil.rmtree(broker.folder, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)

    print("\nbench_queue: the queue execution boundary, turns per second")
    print(
        f"google-adk {adk_version()} | Python {platform.python_version()} | "
        f"{platform.machine()} | {os.cpu_count()} CPUs"
    )
    print(
        f"{args.turns} new one-turn sessions per round, all at once; medians of {repeat} rounds "
        f"per configuration (rotating order, after a warm-up round each); queue workers take "
        f"{args.concurrency} jobs at once per process; one PostgreSQL (fsync on) for every "
        f"session; startup {startup:.1f} s\n"
    )
    for step, rows in samples.items():
        print(f"\nthe heavy step waits {step:g} s:" if step else "\nthe heavy step only costs CPU:")
        print("\n".join(table(rows, args.turns)))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
