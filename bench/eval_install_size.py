"""How much disk each way of installing ADK's evaluation stack takes, per google-adk release.

Not a benchmark of speed and not run by `python -m bench` (its name has no `bench_` prefix): it
creates throwaway virtual environments with uv and reports their size (`du`), the number of
distributions in each, and whether ADK's eval service and metric registry import there.

    python bench/eval_install_size.py                    # google-adk 1.25.0 and 2.13.0
    python bench/eval_install_size.py --adk 2.13.0       # one release
    python bench/eval_install_size.py --keep /tmp/sizes  # keep the environments to look inside

Per release X, five environments:
  adk               google-adk==X alone
  adk + light       google-adk==X + adk-fluent's `eval` extra without google-cloud-aiplatform
  adk + eval extra  google-adk==X + every package of adk-fluent's `eval` extra (pyproject.toml)
  adk-fluent[eval]  this repository with its `eval` extra, google-adk pinned to X
  google-adk[eval]  google-adk's own `eval` extra

It downloads packages (uv's cache makes a second run quick) and takes a few minutes per release.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = "google-cloud-aiplatform"  # what ADK 2.x's metric registry imports
# What an eval run needs to import: ADK's eval service and its metric registry.
PROBE = (
    "import google.adk.evaluation.local_eval_service, "
    "google.adk.evaluation.metric_evaluator_registry"
)


@dataclass(frozen=True)
class Measured:
    """One environment: its label, what was installed, its size and its import probe."""

    label: str
    requirements: tuple[str, ...]
    mib: float
    distributions: int
    probe: str


def eval_extra() -> list[str]:
    """The requirements of adk-fluent's `eval` extra, read from pyproject.toml."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(data["project"]["optional-dependencies"]["eval"])


def _name(requirement: str) -> str:
    for mark in "<>=!~[; ":
        requirement = requirement.split(mark, 1)[0]
    return requirement.strip().lower()


def _uv() -> str:
    local = Path(sys.executable).with_name("uv")
    found = str(local) if local.exists() else shutil.which("uv")
    if found is None:
        sys.exit("uv is needed: pip install uv (the dev extra brings it)")
    return found


def _size_mib(path: Path) -> float:
    # du counts each hard link (uv links files from its cache) once per call: the real footprint
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def measure(uv: str, where: Path, label: str, requirements: list[str]) -> Measured:
    """Create a venv at `where`, install `requirements`, and measure it."""
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(python), *requirements],
        check=True,
        cwd=ROOT,
    )
    listed = subprocess.run(
        [uv, "pip", "list", "--python", str(python), "--format", "freeze"],
        capture_output=True,
        text=True,
        check=True,
    )
    probe = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True)
    if probe.returncode == 0:
        verdict = "imports"
    else:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        verdict = f"fails: {last[:90]}"
    return Measured(
        label,
        tuple(requirements),
        _size_mib(where),
        len([line for line in listed.stdout.splitlines() if line.strip()]),
        verdict,
    )


def release(uv: str, version: str, base: Path, keep: bool) -> list[Measured]:
    """The five environments for one google-adk release."""
    adk = f"google-adk=={version}"
    extra = eval_extra()
    light = [req for req in extra if _name(req) != HEAVY]
    plans = [
        ("adk", [adk]),
        ("adk + light", [adk, *light]),
        ("adk + eval extra", [adk, *extra]),
        ("adk-fluent[eval]", [adk, f"{ROOT}[eval]"]),
        ("google-adk[eval]", [f"google-adk[eval]=={version}"]),
    ]
    out = []
    for index, (label, requirements) in enumerate(plans):
        where = base / f"adk-{version}-{index}"
        print(f"  {label:<18} installing ...", flush=True)
        out.append(measure(uv, where, label, requirements))
        if not keep:
            shutil.rmtree(where, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--adk", nargs="+", default=["1.25.0", "2.13.0"], help="google-adk releases"
    )
    parser.add_argument("--keep", type=Path, help="create the environments here and keep them")
    args = parser.parse_args(argv)
    uv = _uv()
    light = ", ".join(_name(req) for req in eval_extra() if _name(req) != HEAVY)
    print(f"Python {sys.version.split()[0]}; adk-fluent's eval extra: {', '.join(eval_extra())}")
    print(f"'light' = {light}")
    results: dict[str, list[Measured]] = {}
    with tempfile.TemporaryDirectory(prefix="adk-eval-size-") as tmp:
        base = args.keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        for version in args.adk:
            print(f"google-adk {version}:", flush=True)
            results[version] = release(uv, version, base, args.keep is not None)
    print()
    header = ("google-adk", "environment", "size (MiB, du)", "distributions", "ADK eval imports")
    rows = [
        (version, m.label, f"{m.mib:.0f}", str(m.distributions), m.probe)
        for version, measured in results.items()
        for m in measured
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for index, row in enumerate([header, *rows]):
        print(" | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
        if index == 0:
            print("-+-".join("-" * width for width in widths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
