"""Import cost: `import adk_fluent` vs `import google.adk`, each in a fresh Python process.

Every sample is the wall time of `python -c "<code>"` in a new subprocess (interpreter start-up
included, the same on both sides; `python -c pass` is shown for reference). The commands are
interleaved, one warm-up round first (it also fills the bytecode caches), medians reported.

  import adk_fluent    vs  import google.adk                        (goal: at most +10%)
  import adk_fluent    vs  import google.adk.agents, google.adk.runners
  Agent('a').build()   vs  LlmAgent(name='a')   (import included: the first agent object)

Note: google-adk 2.x imports lazily, so `import google.adk` alone loads almost nothing; the
agents + runners import is what any program that builds or runs an agent pays.

    python -m bench.bench_import [--repeat N] [--budget SECONDS]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from bench import info_row, ratio_row, report

COMMANDS = {
    "pass": "pass",
    "fluent_import": "import adk_fluent",
    "adk_import": "import google.adk",
    "adk_agents_runners": "import google.adk.agents, google.adk.runners",
    "fluent_agent": "import adk_fluent; from adk_fluent import Agent; Agent('a').build()",
    "adk_agent": "from google.adk.agents import LlmAgent; LlmAgent(name='a')",
}


def run_once(code: str, cwd: str) -> float:
    """Wall time of one fresh `python -c code`."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"`python -c {code!r}` failed:\n{done.stderr.decode()}")
    return elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=None, help="rounds (default: fit --budget)")
    parser.add_argument(
        "--budget", type=float, default=40.0, help="seconds to spend when --repeat is not given"
    )
    args = parser.parse_args(argv)

    names = list(COMMANDS)
    with tempfile.TemporaryDirectory() as cwd:  # nothing local can shadow an installed package
        round_start = time.perf_counter()
        for name in names:  # warm-up round
            run_once(COMMANDS[name], cwd)
        round_time = time.perf_counter() - round_start
        repeat = args.repeat or max(3, min(30, int(args.budget / max(round_time, 1e-3))))
        samples: dict[str, list[float]] = {name: [] for name in names}
        for rep in range(repeat):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(run_once(COMMANDS[name], cwd))

    rows = [
        ratio_row(
            "import adk_fluent vs import google.adk",
            samples["fluent_import"],
            samples["adk_import"],
            1.10,
        ),
        ratio_row(
            "import adk_fluent vs import google.adk.agents, .runners",
            samples["fluent_import"],
            samples["adk_agents_runners"],
            1.10,
        ),
        ratio_row(
            "first agent: Agent('a').build() vs LlmAgent(name='a')",
            samples["fluent_agent"],
            samples["adk_agent"],
            1.10,
        ),
        info_row("python -c pass (start-up, in every figure)", samples["pass"], None),
    ]
    report(
        "bench_import: fresh-process import time, adk-fluent vs google-adk",
        rows,
        [
            f"medians of {repeat} interleaved rounds of fresh `python -c ...` processes, after a warm-up round; "
            f"{os.path.basename(sys.executable)} = {sys.executable}"
        ],
    )


if __name__ == "__main__":
    main()
