"""The `adk-fluent` console script, run as a user would: from a project directory, on files in
folders with or without __init__.py, with one-line errors for bad targets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = Path(sys.executable).parent / "adk-fluent"


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """The installed console script when there is one, else `python -m adk_fluent.cli`."""
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "adk_fluent.cli"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def test_check_the_example_from_the_repository_root():
    result = run("check", "examples.contracts_example:pipeline")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("0 errors, 0 warnings, 0 info") or (
        "no contract issues" in result.stdout
    )


def test_check_with_the_example_schema_and_verbose():
    result = run(
        "check",
        "examples.contracts_example:pipeline",
        "--schema",
        "examples.contracts_example:SupportState",
        "--verbose",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert '✓ classifier.outputs("intent") → Route("intent") reads "intent": OK' in result.stdout


def test_errors_exit_1_and_name_every_mistake():
    result = run("check", "examples.contracts_example:broken")
    assert result.returncode == 1
    out = result.stdout
    assert '✗ Route("intnet") reads "intnet": ERROR' in out and "Did you mean 'intent'?" in out
    assert '✗ map_over("articles") reads "articles": ERROR' in out
    assert "✗ answerer reads {ticket_id} in instruction: ERROR" in out


def test_json_output():
    result = run("check", "examples.contracts_example:broken", "--json")
    data = json.loads(result.stdout)
    assert data["summary"]["error"] == 3
    assert {i["code"] for i in data["issues"]} == {"read-before-write"}


def test_strict_fails_on_warnings(tmp_path):
    (tmp_path / "flows.py").write_text(
        "from adk_fluent import Agent, C, Route\n"
        "pipeline = (Agent('c').outputs('intent')\n"
        "    >> Route('intent').eq('x', Agent('a').outputs('k')).otherwise(Agent('b'))\n"
        "    >> Agent('p').instruct('{k}').context(C.user_only()))\n"
    )
    assert run("check", "flows:pipeline", cwd=tmp_path).returncode == 0
    strict = run("check", "flows:pipeline", "--strict", cwd=tmp_path)
    assert strict.returncode == 1 and "maybe-unset" in strict.stdout


def test_imports_from_the_current_directory_and_folders_without_init(tmp_path):
    folder = tmp_path / "flows"
    folder.mkdir()  # no __init__.py: a namespace package, as examples/ is
    (folder / "support.py").write_text(
        "from adk_fluent import Agent\npipeline = Agent('a').instruct('{topic}')\n"
    )
    result = run("check", "flows.support:pipeline", "--initial-key", "topic", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "no contract issues" in result.stdout


def test_visualize_prints_mermaid():
    result = run("visualize", "examples.contracts_example:pipeline")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("flowchart TD\n") and '{"route intent"}' in result.stdout


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("examples.contracts_example", "is not a target; expected module:attr"),
        (
            "examples/contracts_example.py:pipeline",
            "did you mean 'examples.contracts_example:pipeline'",
        ),
        ("examples.nothere:pipeline", "no module named 'examples.nothere'"),
        (
            "examples.contracts_example:pipelin",
            "has no attribute 'pipelin' (did you mean 'pipeline'?)",
        ),
        ("examples.contracts_example:open_ticket", "is a function, not an adk-fluent pipeline"),
        ("examples.contracts_example:SupportState", "a schema goes in --schema"),
    ],
)
def test_bad_targets_are_one_line_errors(target, message):
    result = run("check", target)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_a_module_that_fails_to_import_is_one_line(tmp_path):
    (tmp_path / "needs.py").write_text("import not_installed_anywhere\n")
    (tmp_path / "raises.py").write_text("from adk_fluent import Agent\nAgent('bad name')\n")
    needs = run("check", "needs:pipeline", cwd=tmp_path)
    assert needs.returncode == 2
    assert "needs 'not_installed_anywhere', which is not installed" in needs.stderr
    raises = run("check", "raises:pipeline", cwd=tmp_path)
    assert raises.returncode == 2 and len(raises.stderr.strip().splitlines()) == 1
    assert "BuildError: agent 'bad name'" in raises.stderr


def test_the_cli_does_not_import_codegen_tools():
    code = (
        "import sys; from adk_fluent import cli; "
        "print([m for m in ('typer', 'jinja2', 'libcst', 'ruff', 'deepdiff') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
