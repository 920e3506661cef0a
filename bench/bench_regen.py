"""Benchmark `adk-fluent-codegen regen`, part by part (goal: under 5 s, dominated by importing ADK).

    python bench/bench_regen.py [--runs 5]

Each run is a fresh Python process (so importing ADK is paid every time, as in `make regen`)
that times regen's parts in-process: importing ADK, the rest of the scan (model fields, libcst
docstrings, signatures), loading the manifests, rendering the templates, ruff format, the
shadowing check over the imported builders of adk_fluent.api, the diff reports and the atomic
write. It then times the
real `adk-fluent-codegen regen` end to end, interpreter start-up included. Everything renders
and writes into a temporary copy of the checkout; nothing in the repository is written.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
PHASES = (
    ("startup", "import the generator (typer CLI, jinja2, deepdiff not yet)"),
    ("import_adk", "scan: import the scanned ADK classes"),
    ("scan_rest", "scan: fields, libcst docstrings, plugin signatures"),
    ("load", "load and validate the manifests"),
    ("render", "render the Jinja templates"),
    ("ruff", "ruff format the generated Python"),
    ("shadowing", "import adk_fluent.api builders, check for shadowed setters"),
    ("diffs", "diff reports (deepdiff + Markdown/JSON)"),
    ("write", "atomic write (into the temporary copy)"),
)


def copy_checkout(destination: Path) -> Path:
    """Copy what regen reads and writes, so the benchmark never touches the repository."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("templates", "generated", "diffs", "src"):
        if (REPO_ROOT / name).exists():
            shutil.copytree(REPO_ROOT / name, destination / name, ignore=ignore)
    return destination


def one_run(root: Path) -> dict[str, float]:
    """Regen's parts, timed in this (fresh) process; mirrors cli.regen."""
    timings: dict[str, float] = dict.fromkeys((name for name, _ in PHASES), 0.0)

    @contextmanager
    def phase(name: str):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            yield
        finally:
            timings[name] += time.perf_counter() - start

    with phase("startup"):
        import adk_fluent_codegen.cli  # noqa: F401
        from adk_fluent_codegen import render
        from adk_fluent_codegen import scan as scan_module
        from adk_fluent_codegen.manifest import load_manifests, manifest_filename
        from adk_fluent_codegen.model import render_context
        from adk_fluent_codegen.targets import PLUGIN_BASE, SCAN_TARGETS
        from adk_fluent_codegen.writer import write_files_atomically

    import importlib
    import warnings

    with phase("import_adk"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for target in SCAN_TARGETS:
            scan_module._import_class(target)
        getattr(importlib.import_module(PLUGIN_BASE[0]), PLUGIN_BASE[1])
    with phase("scan_rest"):
        manifest = scan_module.scan()
        text = scan_module.dumps(manifest)
    layout = render.Layout(root)
    with phase("write"):
        write_files_atomically(
            {layout.manifests / manifest_filename(manifest["adk_version"]): text}
        )
    with phase("load"):
        manifests = load_manifests(layout.manifests)

    # render_package, taken apart: templates, ruff and the shadowing check timed separately.
    real_ruff, real_shadowing = render.ruff_format, render.check_shadowing

    def timed_ruff(source: str, filename: str) -> str:
        with phase("ruff"):
            return real_ruff(source, filename)

    def timed_shadowing(targets: list[Any], classes: Any = None) -> None:
        with phase("shadowing"):
            real_shadowing(targets, classes)

    render.ruff_format, render.check_shadowing = timed_ruff, timed_shadowing  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        render_context(manifests)  # warm nothing; just part of rendering
        outputs = render.render_package(layout, manifests)
        timings["render"] = time.perf_counter() - start - timings["ruff"] - timings["shadowing"]
    finally:
        render.ruff_format, render.check_shadowing = real_ruff, real_shadowing  # type: ignore[assignment]
    with phase("diffs"):
        outputs.update(render.render_diff_reports(layout, manifests))
    with phase("write"):
        write_files_atomically(outputs)
    return timings


def _row(name: str, values: list[float], meaning: str) -> str:
    return f"{name:<12} {min(values):7.3f} {statistics.median(values):7.3f} {max(values):7.3f}  {meaning}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    # Child mode: time one run in this fresh process against the given checkout copy.
    parser.add_argument("--one-run", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_run:
        print(json.dumps(one_run(args.one_run)))
        return

    import importlib.metadata

    runs: list[dict[str, float]] = []
    end_to_end: list[float] = []
    cpu: list[float] = []  # CPU seconds of the end-to-end runs: less sensitive to a busy machine
    cli = Path(sys.executable).with_name("adk-fluent-codegen")
    command = [str(cli)] if cli.exists() else [sys.executable, "-m", "adk_fluent_codegen.cli"]
    with tempfile.TemporaryDirectory(prefix="bench-regen-") as tmp:
        root = copy_checkout(Path(tmp) / "repo")
        for _ in range(args.runs):
            child = [sys.executable, __file__, "--one-run", str(root)]
            result = subprocess.run(child, capture_output=True, text=True, check=True)
            runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(
                [*command, "regen", "--root", str(root)], capture_output=True, check=True
            )
            end_to_end.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

    adk = importlib.metadata.version("google-adk")
    print(
        f"adk-fluent-codegen regen: google-adk {adk}, Python {sys.version.split()[0]}, {args.runs} runs, "
        f"a fresh process each; seconds ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})"
    )
    print(f"{'part':<12} {'min':>7} {'median':>7} {'max':>7}  what")
    for name, meaning in PHASES:
        print(_row(name, [r[name] for r in runs], meaning))
    print(_row("total", [sum(r.values()) for r in runs], "sum of the parts, in-process"))
    print(_row("end-to-end", end_to_end, "`adk-fluent-codegen regen`, wall clock incl. start-up"))
    print(_row("  cpu", cpu, "the same runs' CPU time (user + sys)"))
    median = statistics.median(end_to_end)
    verdict = "meets" if median < 5.0 else "misses"
    print(f"goal: regen under 5 s -> {verdict} it (median end-to-end {median:.2f} s)")
    report_rows(end_to_end, cpu, args.runs)


def report_rows(end_to_end: list[float], cpu: list[float], runs: int) -> None:
    """The goal as a row of bench.report too, for the summary of `python -m bench`."""
    if str(REPO_ROOT) not in sys.path:  # run as `python bench/bench_regen.py`
        sys.path.insert(0, str(REPO_ROOT))
    from bench import budget_row, info_row, report

    report(
        "bench_regen: adk-fluent-codegen regen",
        [
            budget_row("regen end to end, a fresh process", end_to_end, 5.0),
            info_row("  its CPU time (user + sys)", cpu, None),
        ],
        [f"medians of {runs} runs"],
    )


if __name__ == "__main__":
    main()
