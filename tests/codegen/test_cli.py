"""The `adk-fluent-codegen` CLI on throwaway copies of the checkout."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from adk_fluent_codegen import shadowing
from adk_fluent_codegen.cli import app
from adk_fluent_codegen.manifest import manifest_filename
from codegen_helpers import ADK_VERSION, FIXTURES, REPO_ROOT
from typer.testing import CliRunner

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
    assert "(0 changed)" in output
    assert snapshot(checkout) == before


def test_generate_repairs_drift(checkout: Path) -> None:
    target = checkout / "generated" / "adk_fluent_generated" / "ir_nodes.py"
    original = target.read_text()
    target.write_text("# edited by hand\n")
    code, output = run("generate", "--root", str(checkout))
    assert code == 0 and "(1 changed)" in output
    assert target.read_text() == original


def test_regen_on_an_unchanged_adk_changes_nothing(checkout: Path) -> None:
    if not (REPO_ROOT / "generated" / "manifests" / manifest_filename(ADK_VERSION)).exists():
        pytest.skip(f"no committed manifest for google-adk {ADK_VERSION}")
    before = snapshot(checkout)
    code, output = run("regen", "--root", str(checkout))
    assert code == 0, output
    assert f"google-adk {ADK_VERSION}:" in output and "classes" in output and "fields" in output
    assert "(0 changed)" in output
    assert snapshot(checkout) == before


def test_scan_writes_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    code, output = run("scan", "--output", str(out))
    assert code == 0, output
    assert f"scanned google-adk {ADK_VERSION}" in output
    assert json.loads(out.read_text())["adk_version"] == ADK_VERSION


def test_diff_command_writes_reports_and_exits_1_on_unacknowledged(tmp_path: Path) -> None:
    old = FIXTURES / "manifests" / "google-adk-1.0.0.json"
    new = FIXTURES / "manifests" / "google-adk-2.0.0.json"
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    code, output = run(
        "diff",
        str(old),
        str(new),
        "--ack",
        str(FIXTURES / "acknowledged.toml"),
        "--markdown",
        str(md),
        "--json",
        str(js),
        "--root",
        str(REPO_ROOT),
    )
    assert code == 1
    assert "google-adk 1.0.0 -> 2.0.0:" in output
    assert "7 breaking change(s) not acknowledged" in output
    assert "LlmAgent.output_key" not in output  # acknowledged
    assert md.read_text().startswith("# google-adk 1.0.0 → 2.0.0")
    assert json.loads(js.read_text())["summary"]["breaking"] == 8


def test_diff_command_exits_0_when_nothing_breaks(tmp_path: Path) -> None:
    old = FIXTURES / "manifests" / "google-adk-1.0.0.json"
    code, output = run("diff", str(old), str(old), "--root", str(tmp_path))
    assert code == 0
    assert "0 breaking" in output


def test_diff_report_without_templates_is_a_readable_error(tmp_path: Path) -> None:
    old = FIXTURES / "manifests" / "google-adk-1.0.0.json"
    code, output = run(
        "diff", str(old), str(old), "--markdown", str(tmp_path / "r.md"), "--root", str(tmp_path)
    )
    assert_friendly(code, output, "diff_report.md.j2 was not found", "--root")


# One-paragraph errors: "error:" and "hint:", exit code 2, no traceback.


def assert_friendly(code: int, output: str, *fragments: str) -> None:
    assert code == 2, output
    assert "error:" in output and "hint:" in output
    assert "Traceback" not in output
    for fragment in fragments:
        assert fragment in output


def test_malformed_manifest_json(checkout: Path) -> None:
    path = checkout / "generated" / "manifests" / manifest_filename("2.13.0")
    path.write_text('{"schema_version": 1,')
    code, output = run("generate", "--root", str(checkout))
    assert_friendly(code, output, "is not valid JSON", "google-adk-2.13.0.json")


def test_unknown_manifest_schema_version(checkout: Path) -> None:
    path = checkout / "generated" / "manifests" / manifest_filename("1.25.0")
    data = json.loads(path.read_text())
    data["schema_version"] = 99
    path.write_text(json.dumps(data))
    code, output = run("check", "--root", str(checkout))
    assert_friendly(code, output, "schema version 99")


def test_manifest_missing_keys(tmp_path: Path) -> None:
    bad = tmp_path / "google-adk-1.0.0.json"
    bad.write_text('{"schema_version": 1}')
    code, output = run("diff", str(bad), str(FIXTURES / "manifests" / "google-adk-2.0.0.json"))
    assert_friendly(code, output, "is malformed: missing adk_version, classes, plugin_callbacks")


def test_manifest_field_missing_keys(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "manifests" / "google-adk-1.0.0.json").read_text())
    del data["classes"]["LlmAgent"]["fields"]["model"]["annotation"]
    bad = tmp_path / "google-adk-1.0.0.json"
    bad.write_text(json.dumps(data))
    code, output = run("diff", str(bad), str(bad))
    assert_friendly(code, output, "LlmAgent.model is missing annotation")


def test_no_manifests(tmp_path: Path) -> None:
    shutil.copytree(REPO_ROOT / "templates", tmp_path / "templates")
    code, output = run("generate", "--root", str(tmp_path))
    assert_friendly(code, output, "No manifests found")


def test_adk_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    code, output = run("scan", "--output", str(tmp_path / "m.json"))
    assert_friendly(code, output, "google-adk is not installed", "pip install")
    assert not (tmp_path / "m.json").exists()


def test_adk_too_old(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.24.1")
    code, output = run("regen", "--root", str(tmp_path))
    assert_friendly(code, output, "google-adk 1.24.1 is installed", "1.25.0")


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
