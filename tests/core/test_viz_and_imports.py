"""Mermaid output and the import-cost rule."""

from __future__ import annotations

import subprocess
import sys

from adk_fluent import Agent


def test_mermaid_draws_control_and_data_flow():
    pipeline = (
        Agent("classifier").outputs("intent")
        >> (Agent("a").instruct("{intent}") | Agent("b"))
        >> Agent("writer").instruct("{intent}") * 2
    )
    text = pipeline.to_mermaid()
    assert text.startswith("flowchart TD")
    assert "classifier<br/>writes: intent" in text
    assert text.count("-. intent .->") == 2  # classifier -> a, classifier -> writer
    assert "((parallel))" in text and "repeat" in text


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
