"""Both console scripts as a user runs them, in their own processes: --version, no arguments,
`--adk-version banana`, a crash, and `adk-fluent-codegen regen` in a folder that is not a
checkout (it must refuse and write nothing there)."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
VERSION = (
    f"adk-fluent {importlib.metadata.version('adk-fluent')} "
    f"(google-adk {importlib.metadata.version('google-adk')})\n"
)


def script(name: str, *args: str, cwd: Path = REPO, **env: str) -> subprocess.CompletedProcess:
    """The installed console script `name` (skipped when this environment has none)."""
    path = BIN / name
    if not path.exists():
        pytest.skip(f"no {name} console script next to {sys.executable}")
    environment = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ADK_FLUENT_DEBUG")
    }
    environment.update(env)
    return subprocess.run(
        [str(path), *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=300
    )


@pytest.mark.parametrize("name", ["adk-fluent", "adk-fluent-codegen"])
def test_version(name) -> None:
    done = script(name, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == VERSION and done.stderr == ""


@pytest.mark.parametrize("name", ["adk-fluent", "adk-fluent-codegen"])
def test_no_arguments_is_the_help_and_exit_0(name, tmp_path) -> None:
    done = script(name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.match(rf"usage: {name} ", done.stdout, re.IGNORECASE), done.stdout
    assert "exit codes:" in done.stdout and done.stderr == ""
    assert "<bool>" not in done.stdout


def test_a_bad_adk_version_is_a_usage_error_not_a_traceback() -> None:
    done = script(
        "adk-fluent", "check", "examples.contracts_example:pipeline", "--target-adk", "banana"
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(
        "adk-fluent check: error: argument --target-adk: 'banana' is not a google-adk release, "
        "e.g. --target-adk 1.25.0"
    )
    assert len(done.stderr.strip().splitlines()) == 1


def test_check_with_target_adk_from_the_shell() -> None:
    done = script(
        "adk-fluent", "check", "examples.contracts_example:pipeline", "--target-adk", "1.25.0"
    )
    assert done.returncode == 0, done.stderr
    assert "no contract issues" in done.stdout


def test_a_crash_is_exit_3_and_debug_shows_the_traceback(tmp_path) -> None:
    # a "pipeline" whose drawing raises: the CLI must not hide it as a usage error
    (tmp_path / "odd.py").write_text(
        "from adk_fluent import Agent\n"
        "class Odd(type(Agent('a'))):\n"
        "    def to_mermaid(self):\n"
        "        raise RuntimeError('drawing failed')\n"
        "pipeline = Odd('a')\n"
    )
    done = script("adk-fluent", "visualize", "odd:pipeline", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[0] == (
        "adk-fluent visualize: internal error: RuntimeError: drawing failed"
    )
    debug = script("adk-fluent", "visualize", "odd:pipeline", cwd=tmp_path, ADK_FLUENT_DEBUG="1")
    assert debug.returncode == 3 and "Traceback (most recent call last)" in debug.stderr


@pytest.mark.parametrize("command", ["regen", "generate", "scan"])
def test_codegen_outside_a_checkout_writes_nothing(command, tmp_path) -> None:
    done = script("adk-fluent-codegen", command, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"error: {tmp_path} is not an adk-fluent checkout")
    assert "hint:" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_codegen_diff_with_a_missing_ack_file(tmp_path) -> None:
    manifest = (
        REPO / "tests" / "data" / "codegen" / "fixtures" / "manifests" / "google-adk-1.0.0.json"
    )
    done = script(
        "adk-fluent-codegen",
        "diff",
        str(manifest),
        str(manifest),
        "--ack",
        "nothere.toml",
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "'nothere.toml' does not exist" in done.stderr


@pytest.mark.parametrize(
    "command", ["", "scan", "diff", "generate", "check", "regen", "scan-releases"]
)
def test_every_codegen_help_from_the_shell(command) -> None:
    done = script("adk-fluent-codegen", *([command] if command else []), "--help")
    assert done.returncode == 0, done.stderr
    assert "<bool>" not in done.stdout and "<path>" not in done.stdout
    assert "exit codes:" in done.stdout


# -- without the codegen extra (issue 36) --------------------------------------------------------
# A sitecustomize that makes the codegen extra's modules unimportable, as in an environment
# installed without `[codegen]` (the rest of the environment stays as it is).
_NO_CODEGEN_EXTRA = """\
import importlib.abc
import sys

BLOCKED = {"typer", "jinja2", "libcst", "ruff", "deepdiff"}


class _Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Blocked())
"""


def _says_which_extra_to_install(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 2, done.stdout + done.stderr  # a usage problem, not "findings"
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("error: adk-fluent-codegen needs the codegen extra")
    assert "missing: typer, jinja2" in lines[0]
    assert lines[1].startswith("hint: install it into this environment")
    assert lines[1].endswith(f"pip install -e '{REPO}[codegen]'")  # this checkout's own path
    assert len(lines) == 2


@pytest.mark.parametrize("args", [["--help"], ["--version"], [], ["check"]])
def test_codegen_without_its_extra_says_what_to_install(args, tmp_path) -> None:
    (tmp_path / "sitecustomize.py").write_text(_NO_CODEGEN_EXTRA)
    done = script("adk-fluent-codegen", *args, cwd=tmp_path, PYTHONPATH=str(tmp_path))
    _says_which_extra_to_install(done)


def test_codegen_as_a_module_in_a_bare_python(tmp_path) -> None:
    """`python -S` (no site-packages at all: no typer, no jinja2, no google-adk) running
    `-m adk_fluent_codegen.cli`, as releases.py runs it."""
    environment = {k: v for k, v in os.environ.items() if k != "ADK_FLUENT_DEBUG"}
    environment["PYTHONPATH"] = str(REPO / "codegen")
    done = subprocess.run(
        [sys.executable, "-S", "-m", "adk_fluent_codegen.cli", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    _says_which_extra_to_install(done)
