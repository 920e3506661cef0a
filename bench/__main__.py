"""`python -m bench`: run every bench_*.py in this folder, each in its own process, then a summary.

    python -m bench                     # all of them (`make bench`)
    python -m bench build run           # only bench_build.py and bench_run.py
    python -m bench --strict            # exit 1 when a goal is missed (default: only on a crash)

Benchmarks are not tests: a MISS is a figure to look at, not a failure, unless --strict.
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

from bench import SUMMARY_ENV, adk_version

HERE = Path(__file__).resolve().parent


def discover() -> list[str]:
    """Module names of the benchmarks in this folder, e.g. ['bench_build', 'bench_import', ...]."""
    return sorted(p.stem for p in HERE.glob("bench_*.py"))


def run_one(module: str, summary_file: str) -> tuple[int, float, list[str]]:
    """Run `python -m bench.<module>` from the repository root, echoing its output live."""
    env = {**os.environ, SUMMARY_ENV: summary_file, "PYTHONUNBUFFERED": "1"}
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("only", nargs="*", help="benchmark names (build, run, import, regen, ...)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when any goal is missed")
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

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for module in modules:
            print(f"\n=== {module} " + "=" * max(0, 70 - len(module)), flush=True)
            summary_file = os.path.join(tmp, f"{module}.jsonl")
            code, seconds, lines = run_one(module, summary_file)
            rows = []
            if os.path.exists(summary_file):
                with open(summary_file, encoding="utf-8") as f:
                    rows = [json.loads(line) for line in f if line.strip()]
            results.append((module, code, seconds, rows, lines))

    print(
        f"\n=== summary (google-adk {adk_version()}, Python {sys.version.split()[0]}) " + "=" * 20
    )
    missed = crashed = 0
    for module, code, seconds, rows, lines in results:
        if code != 0:
            crashed += 1
            print(f"{module:<14} CRASHED (exit {code}) after {seconds:.1f} s")
            continue
        if rows:
            goals = [r for r in rows if r["passed"] is not None]
            misses = [r for r in goals if not r["passed"]]
            missed += len(misses)
            print(
                f"{module:<14} {len(goals) - len(misses)}/{len(goals)} goals met  ({seconds:.1f} s)"
            )
            for r in misses:
                ratio = (
                    f"{r['ratio']:.3f}x"
                    if r["ratio"] is not None
                    else f"{r['fluent'] * 1000:.1f} ms"
                )
                print(f"{'':<14}   MISS {r['measurement']}: {ratio} (goal {r['goal']})")
        else:
            # a benchmark that does not use bench.report: show its verdict line(s)
            verdicts = [line for line in lines if re.search(r"\bgoal\b|PASS|MISS", line)]
            missed += sum(1 for line in verdicts if re.search(r"MISS", line))
            print(f"{module:<14} ({seconds:.1f} s) " + (" / ".join(verdicts[-2:]) or "done"))
    if crashed:
        return 1
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
