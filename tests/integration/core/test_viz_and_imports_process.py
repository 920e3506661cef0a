"""`import adk_fluent` loads no codegen tools and no google.adk, seen from a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys


def test_import_adk_fluent_imports_no_codegen_tools_and_no_adk():
    code = (
        "import sys, adk_fluent; "
        "bad = [m for m in ('jinja2','libcst','typer','ruff','deepdiff','google.adk.agents','google.adk.runners') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
