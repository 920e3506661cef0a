"""Benchmarks: adk-fluent against raw google-adk doing the same work, measured in the same run.

These are not tests. Each script interleaves the adk-fluent and the hand-written ADK variant,
warms both up, takes the median of many repetitions (time.perf_counter) and prints a table of
measurement, adk-fluent, raw ADK, ratio, budget/goal and PASS/MISS, with the google-adk version.

    python -m bench                  # every bench_*.py in this folder, then a summary
    python -m bench.bench_build      # one of them

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
from dataclasses import asdict, dataclass

SUMMARY_ENV = (
    "ADK_FLUENT_BENCH_SUMMARY"  # set by `python -m bench`: a file each script appends rows to
)


def adk_version() -> str:
    """The installed google-adk version."""
    return importlib.metadata.version("google-adk")


def median(samples: list[float]) -> float:
    return statistics.median(samples)


@dataclass(frozen=True)
class Row:
    """One line of a benchmark table. Times are medians in seconds; `passed` None = informational."""

    measurement: str
    fluent: float | None
    raw: float | None
    goal: str
    passed: bool | None

    @property
    def ratio(self) -> float | None:
        if self.fluent is None or self.raw is None or self.raw == 0:
            return None
        return self.fluent / self.raw


def ratio_row(measurement: str, fluent: list[float], raw: list[float], max_ratio: float) -> Row:
    """PASS when median(fluent) / median(raw) <= max_ratio."""
    f, r = median(fluent), median(raw)
    return Row(measurement, f, r, f"ratio <= {max_ratio:g}x", f / r <= max_ratio)


def budget_row(
    measurement: str, fluent: list[float], budget_s: float, raw: list[float] | None = None
) -> Row:
    """PASS when median(fluent) is under an absolute budget (raw shown for reference only)."""
    f = median(fluent)
    return Row(
        measurement, f, median(raw) if raw else None, f"< {budget_s * 1000:g} ms", f < budget_s
    )


def info_row(measurement: str, fluent: list[float] | None, raw: list[float] | None) -> Row:
    """A figure without a goal."""
    return Row(
        measurement, median(fluent) if fluent else None, median(raw) if raw else None, "-", None
    )


COLLECT_EVERY = 10  # repetitions between full collections (a full collection costs ~0.1 s here)


def _timed(fn: Callable[[], object]) -> float:
    # like timeit: no garbage collection inside the timed region
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
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
    names = list(variants)
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
                start = time.perf_counter()
                figure = await variants[name]()
                took = time.perf_counter() - start
                samples[name].append(float(figure) if own_figure else took)  # type: ignore[arg-type]
            finally:
                gc.enable()
    return samples


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1000
    return f"{ms:.3f} ms" if ms < 1 else f"{ms:.2f} ms" if ms < 100 else f"{ms:.0f} ms"


def report(title: str, rows: list[Row], notes: list[str] | tuple[str, ...] = ()) -> None:
    """Print the table (and append the rows to the summary file when `python -m bench` runs us)."""
    header = ("measurement", "adk-fluent", "raw ADK", "ratio", "budget/goal", "result")
    lines = [
        (
            row.measurement,
            _ms(row.fluent),
            _ms(row.raw),
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
