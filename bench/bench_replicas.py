"""Replicas over one PostgreSQL: throughput (turns per second) of 1, 2 and 3 `adk api_server`
processes sharing one session database, adk-fluent against raw ADK doing the same work.

  adk-fluent   the replica test's pipeline (tests/support/replicas.py, folder `shop`):
               S.capture >> S.compute (session and user: counters) >> drafter >> gate >> sender,
               scripted models that answer from their instruction
  raw ADK      the same work as a plain ADK tree (folder `shop_raw`): a custom BaseAgent that
               writes the same state, runs the same two LlmAgents and keeps its own gate status
  traffic      per round, N new sessions (each its own user), three turns each (a plain turn, a
               refund the gate stops, the approval), every turn on the next replica, at most
               `--in-flight` sessions at a time over HTTP (httpx); a turn = one POST /run

Both apps are served by the same replica processes (started once, each serving both folders)
and write to the same database, on a PostgreSQL started for the run with its default durability
(fsync on). Rounds alternate adk-fluent and raw ADK and rotate which goes first; the table shows
medians. Not a test and not run by the test suite: `python -m bench.bench_replicas`
(`make bench` runs it with the others; it skips when no PostgreSQL server can be started here).

    python -m bench.bench_replicas [--replicas 1 2 3] [--sessions N] [--repeat R] [--in-flight K]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench import info_row, report


async def one_round(client, replicas, app: str, sessions: int, in_flight: int, tag: str) -> float:
    """Seconds for `sessions` new three-turn conversations spread over `replicas`."""
    from tests.support import replicas as r

    plans = [r.plan(i, len(replicas), prefix=f"{tag}-") for i in range(sessions)]
    start = time.perf_counter()
    await r.converse_all(client, replicas, app, plans, in_flight=in_flight)
    seconds = time.perf_counter() - start
    for plan in plans:  # a wrong reply means the figure measured a failure
        got = [r.final_text(events) for events in plan.received]
        if got != plan.finals:
            raise AssertionError(f"{app} {plan.session}: {got} != {plan.finals}")
    return seconds


async def measure(
    replicas, counts: list[int], sessions: int, repeat: int, in_flight: int
) -> dict[int, dict[str, list[float]]]:
    """Seconds per round, by replica count and side; the first round of each side warms up."""
    from tests.support import replicas as r

    apps = {"fluent": r.FLUENT_APP, "raw": r.RAW_APP}
    samples: dict[int, dict[str, list[float]]] = {k: {"fluent": [], "raw": []} for k in counts}
    async with r.http_client(in_flight * 2) as client:
        for side, app in apps.items():  # warm-up: every replica loads both apps
            await one_round(client, replicas, app, 2 * len(replicas), in_flight, f"warm-{side}")
        round_number = 0
        for rep in range(repeat):
            for count in counts:
                order = list(apps) if (rep + count) % 2 == 0 else list(reversed(apps))
                for side in order:
                    round_number += 1
                    seconds = await one_round(
                        client,
                        replicas[:count],
                        apps[side],
                        sessions,
                        in_flight,
                        f"r{round_number}-{side}",
                    )
                    samples[count][side].append(seconds)
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--sessions", type=int, default=24, help="new sessions per round")
    parser.add_argument("--repeat", type=int, default=2, help="rounds per side and count")
    parser.add_argument("--in-flight", type=int, default=24, help="sessions at a time")
    args = parser.parse_args(argv)
    logging.getLogger("google_adk").setLevel(logging.ERROR)

    from adk_fluent.run.stores import prepare_session_store
    from tests.support import replicas as r
    from tests.support.postgres import Unavailable, start_cluster

    if not r.ADK_CLI.exists():
        print(f"bench_replicas: skipped, no `adk` CLI at {r.ADK_CLI}")
        return
    try:
        server = start_cluster(durable=True)
    except Unavailable as why:
        print(f"bench_replicas: skipped, no PostgreSQL server: {why}")
        return
    root = Path(tempfile.mkdtemp(prefix="adk-fluent-bench-replicas-"))
    replicas: list[r.Replica] = []
    try:
        url = server.create_database("bench")
        asyncio.run(prepare_session_store(url, apps=[r.FLUENT_APP, r.RAW_APP]))
        agents = r.write_agents(root, raw=True)
        started = time.perf_counter()
        replicas = r.start_replicas(max(args.replicas), agents, url, root / "logs")
        startup = time.perf_counter() - started
        samples = asyncio.run(
            measure(replicas, sorted(args.replicas), args.sessions, args.repeat, args.in_flight)
        )
    finally:
        r.stop_all(replicas)
        server.stop()
        shutil.rmtree(root, ignore_errors=True)

    turns = 3 * args.sessions
    rows = []
    throughput: list[str] = []
    base = None
    for count in sorted(samples):
        per_turn = {side: [s / turns for s in values] for side, values in samples[count].items()}
        rows.append(
            info_row(f"{count} replica(s): wall time per turn", per_turn["fluent"], per_turn["raw"])
        )
        fluent = turns / statistics.median(samples[count]["fluent"])
        raw = turns / statistics.median(samples[count]["raw"])
        base = base or (fluent, raw)
        throughput.append(
            f"  {count} replica(s): adk-fluent {fluent:6.1f} turns/s ({fluent / base[0]:.2f}x), "
            f"raw ADK {raw:6.1f} turns/s ({raw / base[1]:.2f}x)"
        )
    report(
        "bench_replicas: adk api_server replicas over one PostgreSQL, turns per second",
        rows,
        [
            f"{args.sessions} new sessions x 3 turns per round, {args.in_flight} sessions in "
            f"flight, medians of {args.repeat} rounds per side and replica count (interleaved, "
            f"after a warm-up round); {max(args.replicas)} replicas started in {startup:.1f} s",
            "throughput (turns/s; scaling relative to the first replica count):",
            *throughput,
        ],
    )


if __name__ == "__main__":
    main()
