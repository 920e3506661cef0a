"""`python -m bench`: run every bench_*.py in this folder, each in its own process, then a summary.

    python -m bench                     # all of them (`make bench`)
    python -m bench build run           # only bench_build.py and bench_run.py
    python -m bench --strict            # exit 1 when a goal is missed (default: only on a crash)
    python -m bench --quick             # the CI guard (`make bench-quick`), below

Benchmarks are not tests: a MISS is a figure to look at, not a failure, unless --strict.

--quick is the regression guard CI runs: the benchmarks of QUICK only (the per-turn rows of
run, visibility, middleware and telemetry, and build's chain row), with fewer repetitions (each
script reads ADK_FLUENT_BENCH_QUICK through `bench.repetitions`), every row with a budget judged
against CI_SLACK (1.5) x that budget: a ratio budget of 1.05x becomes a limit of 1.575x, a
budget of 1 ms a limit of 1.5 ms. Noise on a shared machine stays well inside that; a change
that doubles a cost does not. It exits 1 on a breach (or a crash), naming the row and by how
much it is over.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import CI_SLACK, QUICK_ENV, SUMMARY_ENV, Row, adk_version

HERE = Path(__file__).resolve().parent
# The quick guard's benchmarks: the per-turn costs and the build chain, about 40 s in all here.
QUICK = ("bench_build", "bench_middleware", "bench_run", "bench_telemetry", "bench_visibility")


def discover() -> list[str]:
    """Module names of the benchmarks in this folder, e.g. ['bench_build', 'bench_import', ...]."""
    return sorted(p.stem for p in HERE.glob("bench_*.py"))


def run_one(module: str, summary_file: str, quick: bool = False) -> tuple[int, float, list[str]]:
    """Run `python -m bench.<module>` from the repository root, echoing its output live."""
    env = {**os.environ, SUMMARY_ENV: summary_file, "PYTHONUNBUFFERED": "1"}
    env[QUICK_ENV] = "1" if quick else ""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", f"bench.{module}"],
        cwd=HERE.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        print(line, end="", flush=True)
        lines.append(line.rstrip("\n"))
    return process.wait(), time.perf_counter() - start, lines


def figure(row: Row) -> str:
    """The row's figure as its goal reads it: a ratio, or the adk-fluent figure in its unit."""
    if row.kind == "ratio" or (row.kind == "" and row.ratio is not None):
        return f"{row.ratio:.3f}x" if row.ratio is not None else "-"
    return row.show(row.fluent)


def verdict_lines(rows: list[Row]) -> tuple[list[str], int]:
    """One line per row with a goal (PASS/MISS, the figure, the goal); the number missed."""
    lines, missed = [], 0
    for row in rows:
        if row.passed is None:
            continue
        missed += not row.passed
        verdict = "PASS" if row.passed else "MISS"
        lines.append(f"    {verdict}  {row.measurement}: {figure(row)} (goal {row.goal})")
    return lines, missed


def limit_text(row: Row) -> str:
    assert row.budget is not None
    if row.kind == "ratio":
        return f"{row.budget * CI_SLACK:.3f}x = {CI_SLACK:g} x {row.budget:g}x"
    return f"{row.show(row.budget * CI_SLACK)} = {CI_SLACK:g} x {row.show(row.budget)}"


def guard_lines(rows: list[Row]) -> tuple[list[str], list[str]]:
    """Quick mode: each row with a numeric budget against its CI limit; (lines, breaches)."""
    lines, breaches = [], []
    for row in rows:
        within = row.within(CI_SLACK)
        if within is None:
            continue
        assert row.budget is not None and row.figure is not None
        over = row.figure / (row.budget * CI_SLACK) - 1
        budget = "budget met" if row.within() else "budget missed"
        text = f"{row.measurement}: {figure(row)} (CI limit {limit_text(row)}; {budget})"
        if within:
            lines.append(f"    ok      {text}")
        else:
            lines.append(f"    BREACH  {text}: {over:.0%} over the limit")
            breaches.append(f"{text}: {over:.0%} over the limit")
    return lines, breaches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("only", nargs="*", help="benchmark names (build, run, import, regen, ...)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when any goal is missed")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"the CI guard: {', '.join(m.removeprefix('bench_') for m in QUICK)} with fewer "
        f"repetitions; exit 1 when a row is over {CI_SLACK:g}x its budget",
    )
    args = parser.parse_args(argv)

    modules = discover()
    if args.only:
        wanted = {name if name.startswith("bench_") else f"bench_{name}" for name in args.only}
        unknown = wanted - set(modules)
        if unknown:
            parser.error(
                f"no such benchmark: {', '.join(sorted(unknown))} (have: {', '.join(modules)})"
            )
        modules = [m for m in modules if m in wanted]
    elif args.quick:
        modules = [m for m in modules if m in QUICK]

    started = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for module in modules:
            print(f"\n=== {module} " + "=" * max(0, 70 - len(module)), flush=True)
            summary_file = os.path.join(tmp, f"{module}.jsonl")
            code, seconds, lines = run_one(module, summary_file, args.quick)
            rows = []
            if os.path.exists(summary_file):
                with open(summary_file, encoding="utf-8") as f:
                    rows = [Row.from_json(json.loads(line)) for line in f if line.strip()]
            results.append((module, code, seconds, rows, lines))
    took = time.perf_counter() - started

    mode = f"quick: CI limit {CI_SLACK:g} x each budget, " if args.quick else ""
    print(
        f"\n=== summary ({mode}google-adk {adk_version()}, Python {sys.version.split()[0]}, "
        f"{took:.0f} s) " + "=" * 10
    )
    missed = crashed = 0
    breaches: list[str] = []
    for module, code, seconds, rows, lines in results:
        if code != 0:
            crashed += 1
            print(f"{module:<18} CRASHED (exit {code}) after {seconds:.1f} s")
            continue
        if rows:
            shown, misses = verdict_lines(rows)
            missed += misses
            goals = len(shown)
            print(f"{module:<18} {goals - misses}/{goals} goals met  ({seconds:.1f} s)")
            if args.quick:
                shown, over = guard_lines(rows)
                breaches += [f"{module}: {line}" for line in over]
            print("\n".join(shown))
        else:
            # a benchmark that does not use bench.report: show its verdict line(s)
            verdicts = [line for line in lines if re.search(r"\bgoal\b|PASS|MISS", line)]
            missed += sum(1 for line in verdicts if re.search(r"MISS", line))
            print(f"{module:<18} ({seconds:.1f} s) " + (" / ".join(verdicts[-2:]) or "done"))
    if args.quick:
        if breaches or crashed:
            print(f"\nbench --quick FAILED ({took:.0f} s):")
            for breach in breaches:
                print(f"  {breach}")
            if crashed:
                print(f"  {crashed} benchmark(s) crashed")
            return 1
        print(f"\nbench --quick passed: every row within {CI_SLACK:g}x its budget ({took:.0f} s)")
        return 0
    if crashed:
        return 1
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
