"""Constants and helpers for the code generator's tests (a unique module name, importable from
every test module in this directory)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "data" / "codegen" / "fixtures"
GOLDEN = REPO_ROOT / "tests" / "data" / "codegen" / "golden"
ADK_VERSION = importlib.metadata.version("google-adk")
ADK_MAJOR = int(ADK_VERSION.split(".")[0])


def load_fixture_module(name: str) -> ModuleType:
    """Import tests/data/codegen/fixtures/<name>.py under a unique module name (libcst reads its source)."""
    module_name = f"adk_fluent_codegen_fixture_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, FIXTURES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def copy_checkout(destination: Path) -> Path:
    """Copy what the generator reads and writes (templates, generated, diffs and the generated
    docs/compatibility.md) to `destination`.

    The hand-written builders are not copied: the shadowing check imports the installed ones.
    """
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("templates", "generated", "diffs"):
        source = REPO_ROOT / name
        if source.exists():
            shutil.copytree(source, destination / name, ignore=ignore)
    (destination / "docs").mkdir(exist_ok=True)
    shutil.copy(REPO_ROOT / "docs" / "compatibility.md", destination / "docs" / "compatibility.md")
    return destination


def assert_friendly(code: int, output: str, *fragments: str) -> None:
    """A CLI error as users should see it: exit code 2, "error:" and "hint:", no traceback."""
    assert code == 2, output
    assert "error:" in output and "hint:" in output
    assert "Traceback" not in output
    for fragment in fragments:
        assert fragment in output
