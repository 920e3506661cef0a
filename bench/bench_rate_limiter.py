"""rate_limiter under load: N concurrent sessions of one agent through ADK's Runner (a plain
Runner over `to_app()`, InMemorySessionService, a scripted model that notes when each call
starts), with `rate_limiter(calls_per_second=X)` on the real clock. Measured: the calls per
second achieved against the limit, as a ratio.

  achieved  (calls - burst) / (last call's start - first call's start): the first `burst` calls
            may go at once, every later one waits for the bucket
  ratio     achieved / limit. Goal: 0.90 to 1.01, i.e. the limit is never exceeded (beyond the
            clock's granularity) and not undershot by more than 10% (the queue's overhead:
            asyncio wake-ups, the Runner's own work between calls)

A run without the limiter (same sessions and calls) shows what the machine does unlimited, so
the limited rows measure the limiter, not a slow machine. A benchmark, not a test: real time is
the point here. About 6 s in all.

    python -m bench.bench_rate_limiter
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from bench import SUMMARY_ENV, Row, adk_version

HIGH = 1.01  # achieved / limit: never above the limit (beyond the clock's granularity)


def lowest(burst: int) -> float:
    """The least achieved / limit expected: burst=1 loses each late wake-up (see above)."""
    return 0.85 if burst == 1 else 0.95


@dataclass(frozen=True)
class Scenario:
    name: str
    limit: float | None  # calls per second (None: no limiter)
    burst: int
    sessions: int
    turns: int  # per session, one after another

    @property
    def calls(self) -> int:
        return self.sessions * self.turns


# Limits well under what the machine does unlimited (the last row), so that the rows measure
# the limiter rather than the machine.
SCENARIOS = (
    Scenario("20/s, 40 sessions x 1 turn", 20.0, 1, 40, 1),
    Scenario("50/s, 10 sessions x 10 turns", 50.0, 1, 10, 10),
    Scenario("50/s burst 5, 10 sessions x 10 turns", 50.0, 5, 10, 10),
    Scenario("no limiter, 10 sessions x 10 turns", None, 1, 10, 10),
)


async def run_scenario(scenario: Scenario) -> tuple[list[float], list[float]]:
    """Run every session at once; when each model call started, and what each call waited
    (the events' `adk_fluent.rate_limiter` marks)."""
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent import Agent, ExecutionConfig
    from adk_fluent.middleware.limits import rate_limiter
    from adk_fluent.testing import ScriptedModel, repeat

    starts: list[float] = []

    def answer(request: Any) -> str:
        starts.append(time.perf_counter())
        return "ok"

    model = ScriptedModel({"solo": [repeat(answer)]})
    middleware = (
        ()
        if scenario.limit is None
        else (rate_limiter(calls_per_second=scenario.limit, burst=scenario.burst),)
    )
    app = (
        Agent("solo").model(model.for_agent("solo")).to_app(ExecutionConfig(middleware=middleware))
    )
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    waits: list[float] = []

    async def session(n: int) -> None:
        await service.create_session(app_name=app.name, user_id="u", session_id=f"s{n}")
        for turn in range(scenario.turns):
            message = types.Content(role="user", parts=[types.Part(text=f"turn {turn}")])
            async for event in runner.run_async(
                user_id="u", session_id=f"s{n}", new_message=message
            ):
                mark = (event.custom_metadata or {}).get("adk_fluent.rate_limiter")
                if mark is not None:
                    waits.append(mark["waited"])

    await asyncio.gather(*(session(n) for n in range(scenario.sessions)))
    assert len(starts) == scenario.calls, (len(starts), scenario.calls)
    return sorted(starts), waits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.parse_args(argv)

    asyncio.run(run_scenario(Scenario("warm-up", None, 1, 2, 2)))  # ADK's lazy imports
    header = ("scenario", "calls", "limit/s", "achieved/s", "ratio", "mean wait", "goal", "result")
    lines: list[tuple[str, ...]] = []
    rows: list[Row] = []
    for scenario in SCENARIOS:
        starts, waits = asyncio.run(run_scenario(scenario))
        span = starts[-1] - starts[0]
        achieved = (scenario.calls - scenario.burst) / span if span > 0 else float("inf")
        mean_wait = sum(waits) / scenario.calls
        if scenario.limit is None:
            lines.append(
                (scenario.name, str(scenario.calls), "-", f"{achieved:.1f}", "-", "-", "-", "info")
            )
            rows.append(Row(f"{scenario.name}: calls/s", achieved, None, "-", None))
            continue
        ratio = achieved / scenario.limit
        low = lowest(scenario.burst)
        passed = low <= ratio <= HIGH
        lines.append(
            (
                scenario.name,
                str(scenario.calls),
                f"{scenario.limit:g}",
                f"{achieved:.1f}",
                f"{ratio:.3f}x",
                f"{mean_wait * 1000:.0f} ms",
                f"{low:.2f}x-{HIGH:.2f}x",
                "PASS" if passed else "MISS",
            )
        )
        # fluent = achieved calls/s, raw = the limit: the summary's ratio is achieved / limit
        rows.append(
            Row(
                f"{scenario.name}: achieved/limit",
                achieved,
                scenario.limit,
                f"{low:.2f}x-{HIGH:.2f}x",
                passed,
            )
        )

    print(
        "\nbench_rate_limiter: concurrent sessions of one agent through ADK's Runner, "
        "rate_limiter(calls_per_second=X), scripted model, real clock"
    )
    print(
        f"google-adk {adk_version()} | Python {platform.python_version()} | "
        f"{platform.machine()} | {os.cpu_count()} CPUs"
    )
    print("achieved = (calls - burst) / (last start - first start); ratio = achieved / limit")
    widths = [max(len(line[i]) for line in (header, *lines)) for i in range(len(header))]
    for i, line in enumerate((header, *lines)):
        print(" | ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)))
        if i == 0:
            print("-+-".join("-" * w for w in widths))
    summary = os.environ.get(SUMMARY_ENV)
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            for row in rows:
                out.write(
                    json.dumps({"bench": "bench_rate_limiter", **asdict(row), "ratio": row.ratio})
                    + "\n"
                )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
