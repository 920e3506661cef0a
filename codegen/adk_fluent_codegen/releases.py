"""Which google-adk releases exist, which of them the reports and the test matrix use, and how a
release is scanned in its own throwaway environment.

`adk-fluent-codegen scan-releases` (and `make regen RELEASES=...`) calls `scan_in_throwaway_env`
once per release: a fresh virtual environment under a temporary directory, google-adk pinned to
that release with this checkout installed beside it, then `adk-fluent-codegen scan` inside it
(fields and ADK's behaviour probes) writing straight into generated/manifests/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from .errors import CodegenError
from .manifest import manifest_filename, version_key

PYPI_JSON = "https://pypi.org/pypi/google-adk/json"
OLDEST_SUPPORTED = "1.25.0"


def is_final_release(version: str) -> bool:
    """'1.39.1' yes; '2.0.0a1', '2.0.0rc1', '1.2.dev0' no (pre-releases are not supported)."""
    parts = version.split(".")
    return len(parts) == 3 and all(p.isdigit() for p in parts)


def supported(versions: Iterable[str], oldest: str = OLDEST_SUPPORTED) -> list[str]:
    """Final releases from `oldest` on, oldest first, without duplicates."""
    floor = version_key(oldest)
    chosen = {v for v in versions if is_final_release(v) and version_key(v) >= floor}
    return sorted(chosen, key=version_key)


def published_releases(oldest: str = OLDEST_SUPPORTED, url: str = PYPI_JSON) -> list[str]:
    """google-adk's final, not yanked releases on PyPI from `oldest` on (needs the network)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (fixed https URL)
            data = json.load(response)
    except OSError as exc:
        raise CodegenError(
            f"Could not list google-adk's releases from {url}: {exc}.",
            hint="name the releases instead: `adk-fluent-codegen scan-releases 2.14.0 2.15.0`.",
        ) from None
    releases = data.get("releases", {})
    live = [v for v, files in releases.items() if files and not all(f.get("yanked") for f in files)]
    return supported(live, oldest)


def minor_line(version: str) -> tuple[int, int]:
    major, minor, *_ = version_key(version)
    return (major, minor)


def minor_steps(versions: list[str]) -> list[str]:
    """The releases the per-minor diff reports walk through: the oldest, then the newest patch
    of every minor line (1.25.0, 1.25.1, 1.26.0, 1.27.5, ...). A change that arrives in a patch
    release is reported in the step of its minor line."""
    ordered = sorted(versions, key=version_key)
    if not ordered:
        return []
    newest_of_line: dict[tuple[int, int], str] = {}
    for version in ordered:
        newest_of_line[minor_line(version)] = version
    chain = [ordered[0], *newest_of_line.values()]
    return sorted(dict.fromkeys(chain), key=version_key)


def _uv() -> list[str]:
    """uv (as a program, or as the module of the running Python), or a CodegenError."""
    found = shutil.which("uv")
    if found:
        return [found]
    sibling = Path(sys.executable).with_name("uv")
    if sibling.exists():
        return [str(sibling)]
    raise CodegenError(
        "Scanning other releases needs uv (it builds each release's environment in seconds).",
        hint="install the dev tools (`make setup` puts uv in .venv), or `pip install uv`.",
    )


def _run(command: list[str], what: str, cwd: Path) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
        raise CodegenError(f"{what} failed (exit {result.returncode}):\n{tail}")
    return result.stdout


def scan_in_throwaway_env(version: str, root: Path, manifests: Path) -> str:
    """Scan google-adk `version` in a fresh environment; returns the scan's one-line summary.

    The environment is deleted afterwards; only the manifest (written atomically into
    `manifests`) remains."""
    uv = _uv()
    with tempfile.TemporaryDirectory(prefix=f"adk-fluent-scan-{version}-") as tmp:
        env = Path(tmp) / "venv"
        python = env / "bin" / "python"
        _run([*uv, "venv", "--quiet", "--python", sys.executable, str(env)], "uv venv", root)
        _run(
            [
                *uv,
                "pip",
                "install",
                "--quiet",
                "--python",
                str(python),
                "-e",
                f"{root}[codegen]",
                f"google-adk=={version}",
            ],
            f"installing google-adk {version}",
            root,
        )
        output = manifests / manifest_filename(version)
        summary = _run(
            [
                str(python),
                "-m",
                "adk_fluent_codegen.cli",
                "scan",
                "--root",
                str(root),
                "--output",
                str(output),
            ],
            f"scanning google-adk {version}",
            root,
        )
    return summary.strip()
