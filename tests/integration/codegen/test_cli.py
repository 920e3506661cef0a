"""The `adk-fluent-codegen` CLI on throwaway copies of the checkout: check, generate and regen,
which format through ruff, and the console entry point in its own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from adk_fluent_codegen import shadowing
from adk_fluent_codegen.cli import app
from adk_fluent_codegen.manifest import manifest_filename
from typer.testing import CliRunner

from tests.support.codegen import ADK_VERSION, REPO_ROOT, assert_friendly

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_check_passes_on_the_committed_checkout(checkout: Path) -> None:
    code, output = run("check", "--root", str(checkout))
    assert code == 0, output
    assert "up to date" in output


def test_check_fails_with_a_diff_after_a_template_edit(checkout: Path) -> None:
    template = checkout / "templates" / "adk_fluent_generated" / "sentinel.py.j2"
    template.write_text(template.read_text() + "\nDRIFT_MARKER = 1\n")
    code, output = run("check", "--root", str(checkout))
    assert code == 1
    assert "--- generated/adk_fluent_generated/sentinel.py (committed)" in output
    assert "+++ generated/adk_fluent_generated/sentinel.py (from templates)" in output
    assert "+DRIFT_MARKER = 1" in output
    assert "make regen" in output


def test_check_reports_a_stale_generated_file(checkout: Path) -> None:
    (checkout / "generated" / "adk_fluent_generated" / "leftover.py").write_text("X = 1\n")
    code, output = run("check", "--root", str(checkout))
    assert code == 1
    assert "stale generated file" in output and "leftover.py" in output


def test_check_fails_when_a_diff_report_drifted(checkout: Path) -> None:
    acks = checkout / "diffs" / "acknowledged.toml"
    acks.write_text("")  # reports now mark every breaking change unacknowledged
    code, output = run("check", "--root", str(checkout))
    assert code == 1 and "**yes, unacknowledged**" in output


def test_generate_is_byte_identical_on_rerun(checkout: Path) -> None:
    before = snapshot(checkout)
    code, output = run("generate", "--root", str(checkout))
    assert code == 0, output
    assert "(0 changed, 0 removed)" in output
    assert snapshot(checkout) == before


def test_generate_repairs_drift(checkout: Path) -> None:
    target = checkout / "generated" / "adk_fluent_generated" / "ir_nodes.py"
    original = target.read_text()
    target.write_text("# edited by hand\n")
    code, output = run("generate", "--root", str(checkout))
    assert code == 0 and "(1 changed," in output
    assert target.read_text() == original


def test_regen_on_an_unchanged_adk_changes_nothing(checkout: Path) -> None:
    if not (REPO_ROOT / "generated" / "manifests" / manifest_filename(ADK_VERSION)).exists():
        pytest.skip(f"no committed manifest for google-adk {ADK_VERSION}")
    before = snapshot(checkout)
    code, output = run("regen", "--root", str(checkout))
    assert code == 0, output
    assert f"google-adk {ADK_VERSION}:" in output and "classes" in output and "fields" in output
    assert "(0 changed, 0 removed)" in output
    assert snapshot(checkout) == before


def test_template_error_through_the_cli(checkout: Path) -> None:
    (checkout / "templates" / "adk_fluent_generated" / "oops.py.j2").write_text(
        "{{ missing_thing }}\n"
    )
    code, output = run("generate", "--root", str(checkout))
    assert_friendly(code, output, "undefined variable", "missing_thing")
    assert not (checkout / "generated" / "adk_fluent_generated" / "oops.py").exists()


def test_shadowing_through_the_cli(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from adk_fluent_generated.builder_bases import LlmAgentSetters

    class Shadow(LlmAgentSetters):
        def model(self) -> None:
            return None

    installed = shadowing.builder_classes
    monkeypatch.setattr(shadowing, "builder_classes", lambda package: [*installed(package), Shadow])
    code, output = run("check", "--root", str(checkout))
    assert_friendly(code, output, "Shadow.model()", "SETTER_RENAMES")


def test_a_skipped_shadowing_check_is_one_warning_line(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shadowing, "BUILDER_PACKAGE", "adk_fluent_codegen_no_such_package")
    code, output = run("check", "--root", str(checkout))
    assert code == 0, output
    assert "up to date" in output
    assert (
        "warning: the shadowing check was skipped: importing adk_fluent_codegen_no_such_package"
        in output
    )
    assert "Traceback" not in output and "CodegenWarning" not in output


def test_console_entry_point_exit_codes_and_output(checkout: Path) -> None:
    """main() ends with os._exit (skipping slow interpreter teardown): output must still arrive."""
    command = [sys.executable, "-m", "adk_fluent_codegen.cli", "check", "--root", str(checkout)]
    ok = subprocess.run(command, capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and ok.stdout.startswith("generated code is up to date (")
    (checkout / "generated" / "manifests" / manifest_filename("1.25.0")).write_text("[]")
    bad = subprocess.run(command, capture_output=True, text=True, check=False)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: Manifest") and "hint:" in bad.stderr
