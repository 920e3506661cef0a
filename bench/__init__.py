"""Benchmarks: adk-fluent against raw google-adk doing the same work, measured in the same run.

These are not tests. Each script interleaves the adk-fluent and the hand-written ADK variant,
warms both up, takes the median of many repetitions (time.perf_counter; the process's CPU time
under --quick, see `clock`) and prints a table of measurement, adk-fluent, raw ADK, ratio,
budget/goal and PASS/MISS, with the google-adk version.

    python -m bench                  # every bench_*.py in this folder, then a summary
    python -m bench.bench_build      # one of them
    python -m bench --quick          # the CI guard: the per-turn and build rows, fewer
                                     # repetitions, each judged against 1.5x its budget

The helpers below are shared by the scripts; they use the standard library only.
"""

from __future__ import annotations

import gc
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, fields

SUMMARY_ENV = (
    "ADK_FLUENT_BENCH_SUMMARY"  # set by `python -m bench`: a file each script appends rows to
)
QUICK_ENV = "ADK_FLUENT_BENCH_QUICK"  # set by `python -m bench --quick`: fewer repetitions
CI_SLACK = 1.5  # quick mode's limit per row: 1.5 x its budget (a doubled cost fails, noise not)


def adk_version() -> str:
    """The installed google-adk version."""
    return importlib.metadata.version("google-adk")


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def quick() -> bool:
    """Whether `python -m bench --quick` (the CI guard) runs us: fewer repetitions, fewer rows."""
    return os.environ.get(QUICK_ENV) == "1"


def repetitions(full: int, quick_run: int) -> int:
    """A script's default repetitions: `full` normally, `quick_run` under `--quick`."""
    return quick_run if quick() else full


def clock() -> Callable[[], float]:
    """The timer of the samples: wall time (time.perf_counter) normally; under `--quick` the
    process's CPU time (time.process_time), which a busy shared machine does not inflate: there a
    sample is often cut by the scheduler, and the longer of two samples more often, which skews
    a ratio. The quick benchmarks time only work in the process (scripted models answering at
    once, in-memory stores, no sleeps), where the two clocks agree on an idle machine."""
    return time.process_time if quick() else time.perf_counter


@dataclass(frozen=True)
class Row:
    """One line of a benchmark table. Times are medians in seconds; `passed` None = informational.

    A row with a goal says it once, as a number: `budget` is the largest ratio fluent / raw
    (`kind="ratio"`) or the figure fluent must stay under (`kind="under"`, in `unit`). The
    verdict (`passed`) and quick mode's CI limit (`within(CI_SLACK)`) both come from it."""

    measurement: str
    fluent: float | None
    raw: float | None
    goal: str
    passed: bool | None
    budget: float | None = None
    kind: str = ""  # "ratio", "under", or "" (no numeric goal: info, or a goal of its own)
    unit: str = "s"  # of fluent and raw: "s" seconds, "B" bytes, "x" a factor

    @property
    def ratio(self) -> float | None:
        if self.fluent is None or self.raw is None or self.raw == 0:
            return None
        return self.fluent / self.raw

    @property
    def figure(self) -> float | None:
        """What the budget is compared with: the ratio (ratio rows) or the adk-fluent figure."""
        return self.ratio if self.kind == "ratio" else self.fluent

    def within(self, slack: float = 1.0) -> bool | None:
        """Whether the figure is within `slack` x the budget (1.0: the goal itself; CI_SLACK:
        quick mode's limit); None for a row without a numeric budget."""
        figure = self.figure
        if self.budget is None or figure is None or self.kind not in ("ratio", "under"):
            return None
        limit = self.budget * slack
        return figure <= limit if self.kind == "ratio" else figure < limit

    def show(self, value: float | None) -> str:
        """A figure of this row (fluent, raw, budget) in its unit."""
        return _format(value, self.unit)

    @classmethod
    def from_json(cls, line: dict[str, object]) -> Row:
        """A row back from the summary file (its extra keys, `bench` and `ratio`, dropped)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in line.items() if k in names})  # type: ignore[arg-type]


def ratio_row(
    measurement: str, fluent: list[float], raw: list[float], max_ratio: float, unit: str = "s"
) -> Row:
    """PASS when median(fluent) / median(raw) <= max_ratio."""
    f, r = median(fluent), median(raw)
    return Row(
        measurement, f, r, f"ratio <= {max_ratio:g}x", f / r <= max_ratio, max_ratio, "ratio", unit
    )


def budget_row(
    measurement: str,
    fluent: list[float],
    budget: float,
    raw: list[float] | None = None,
    unit: str = "s",
) -> Row:
    """PASS when median(fluent) is under an absolute budget (in `unit`; raw shown for reference)."""
    f = median(fluent)
    return Row(
        measurement,
        f,
        median(raw) if raw else None,
        f"< {_format(budget, unit)}",
        f < budget,
        budget,
        "under",
        unit,
    )


def info_row(
    measurement: str, fluent: list[float] | None, raw: list[float] | None, unit: str = "s"
) -> Row:
    """A figure without a goal."""
    return Row(
        measurement,
        median(fluent) if fluent else None,
        median(raw) if raw else None,
        "-",
        None,
        unit=unit,
    )


COLLECT_EVERY = 10  # repetitions between full collections (a full collection costs ~0.1 s here)


def _timed(fn: Callable[[], object]) -> float:
    # like timeit: no garbage collection inside the timed region
    now = clock()
    gc.disable()
    try:
        start = now()
        fn()
        return now() - start
    finally:
        gc.enable()


def interleave(
    variants: dict[str, Callable[[], object]], repeat: int, warmup: int = 3
) -> dict[str, list[float]]:
    """Run every variant once per repetition, rotating the order; return each one's timings."""
    names = list(variants)
    for _ in range(warmup):
        for name in names:
            variants[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(repeat):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(_timed(variants[name]))
        if rep % COLLECT_EVERY == 0:
            gc.collect()
    return samples


async def interleave_async(
    variants: dict[str, Callable[[], Awaitable[object]]],
    repeat: int,
    warmup: int = 5,
    *,
    own_figure: bool = False,
) -> dict[str, list[float]]:
    """`interleave` for coroutine functions, all in the running event loop. With
    `own_figure=True` each variant measures itself and returns its figure (e.g. the time to a
    first token inside a longer turn), which is recorded instead of the call's duration."""
    names, now = list(variants), clock()
    for _ in range(warmup):
        for name in names:
            await variants[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(repeat):
        shift = rep % len(names)
        if rep % COLLECT_EVERY == 0:
            gc.collect()
        for name in names[shift:] + names[:shift]:
            gc.disable()
            try:
                start = now()
                figure = await variants[name]()
                took = now() - start
                samples[name].append(float(figure) if own_figure else took)  # type: ignore[arg-type]
            finally:
                gc.enable()
    return samples


def _format(value: float | None, unit: str = "s") -> str:
    if value is None:
        return "-"
    if unit == "B":
        return f"{value / 1024:.1f} KiB" if abs(value) < 1024**2 else f"{value / 1024**2:.1f} MiB"
    if unit == "x":
        return f"{value:.3f}x"
    if unit != "s":
        return f"{value:g} {unit}"
    ms = value * 1000
    if ms == int(ms) and ms:
        return f"{value:g} s" if ms >= 1000 else f"{ms:g} ms"
    if ms >= 1000:
        return f"{value:.2f} s"
    return f"{ms:.3f} ms" if ms < 1 else f"{ms:.2f} ms" if ms < 100 else f"{ms:.0f} ms"


def report(title: str, rows: list[Row], notes: list[str] | tuple[str, ...] = ()) -> None:
    """Print the table (and append the rows to the summary file when `python -m bench` runs us)."""
    header = ("measurement", "adk-fluent", "raw ADK", "ratio", "budget/goal", "result")
    lines = [
        (
            row.measurement,
            row.show(row.fluent),
            row.show(row.raw),
            "-" if row.ratio is None else f"{row.ratio:.3f}x",
            row.goal,
            "info" if row.passed is None else "PASS" if row.passed else "MISS",
        )
        for row in rows
    ]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *lines, strict=True)]
    print(f"\n{title}")
    print(
        f"google-adk {adk_version()} | Python {platform.python_version()} | "
        f"{platform.machine()} | {os.cpu_count()} CPUs"
    )
    for note in notes:
        print(note)
    rule = "-+-".join("-" * w for w in widths)
    for i, line in enumerate([header, *lines]):
        print(" | ".join(str(cell).ljust(w) for cell, w in zip(line, widths, strict=True)))
        if i == 0:
            print(rule)
    summary = os.environ.get(SUMMARY_ENV)
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps({"bench": title, **asdict(row), "ratio": row.ratio}) + "\n")
    sys.stdout.flush()
