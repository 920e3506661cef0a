"""The committed generated package in other processes: it imports without ADK or the codegen tools,
and it type-checks with mypy."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from typing import Any

import pytest
from adk_fluent_codegen.manifest import load_manifests

from tests.support.codegen import REPO_ROOT

MODULES = (
    "sentinel",
    "node",
    "ir_nodes",
    "visitor",
    "builder_bases",
    "compile_cases",
    "field_versions",
)


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    return load_manifests(REPO_ROOT / "generated" / "manifests")


def test_package_imports_without_adk_or_codegen_tools() -> None:
    """Importing the generated package must not import ADK or the generator's tools."""
    probe = (
        "import sys\n"
        + "".join(f"import adk_fluent_generated.{m}\n" for m in MODULES)
        + "heavy = [m for m in ('google.adk', 'jinja2', 'libcst', 'typer', 'deepdiff') if m in sys.modules]\n"
        + "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_generated_package_type_checks(tmp_path: Any) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--config-file",
            str(REPO_ROOT / "pyproject.toml"),
            "generated/adk_fluent_generated",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
