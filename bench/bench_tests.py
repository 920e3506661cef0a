"""The unit tier's budget: 1000+ tests in under 10 seconds (`make test-unit`), as whole processes.

Each sample is the wall time of `python -m pytest tests/unit -q -p no:cacheprovider` in a new
process from the repository root (interpreter start-up, imports, collection and every test
included), the way a contributor runs it. One warm-up run first: it fills the caches of pytest's
rewritten modules, which a contributor's second run has. Bytecode caching is on for the runs
even when the environment turns it off, as `make test-unit` does. For reference, the same
process collecting only (`--collect-only`) shows what start-up and collection cost.

There is no raw-ADK side: the figure is an absolute budget (the unit tier must stay fast enough to run on every save).

    python -m bench.bench_tests [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from bench import Row, budget_row, info_row, report

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 10.0
MIN_TESTS = 1000
COMMAND = [sys.executable, "-m", "pytest", "tests/unit", "-q", "-p", "no:cacheprovider"]


def run_once(extra: list[str]) -> tuple[float, str]:
    """Wall time and output of one pytest process over the unit tier."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    start = time.perf_counter()
    done = subprocess.run(
        [*COMMAND, *extra], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the unit tier failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return elapsed, done.stdout


def counted(output: str) -> int:
    """Tests run (passed + skipped + xfailed ...) from pytest's closing line."""
    closing = output.strip().splitlines()[-1]
    return sum(int(n) for n in re.findall(r"(\d+) (?:passed|skipped|xfailed|xpassed)", closing))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    args = parser.parse_args(argv)

    run_once([])  # warm-up: fills the rewrite caches
    runs, collects, tests = [], [], 0
    for _ in range(args.repeat):
        seconds, output = run_once([])
        runs.append(seconds)
        tests = counted(output)
        collects.append(run_once(["--collect-only"])[0])
    rows: list[Row] = [
        budget_row(f"make test-unit: {tests} tests, whole process", runs, BUDGET_S),
        info_row("start-up and collection only (--collect-only)", collects, None),
        Row(f"unit tests run (goal {MIN_TESTS}+)", None, None, f">= {MIN_TESTS}", tests >= 1000),
    ]
    report(
        "unit tier",
        rows,
        notes=[f"{args.repeat} runs after one warm-up; medians of whole-process wall times"],
    )


if __name__ == "__main__":
    main()
