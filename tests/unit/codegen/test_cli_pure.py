"""The `adk-fluent-codegen` CLI in process: scan, diff and the readable errors for bad manifests
and a missing or too old ADK (the commands that run ruff are in tests/integration/codegen)."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from pathlib import Path

import pytest
from adk_fluent_codegen.cli import app
from adk_fluent_codegen.manifest import manifest_filename
from typer.testing import CliRunner

from tests.support.codegen import ADK_VERSION, FIXTURES, REPO_ROOT, assert_friendly

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_scan_writes_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    code, output = run("scan", "--no-behaviours", "--output", str(out))
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
    code, output = run("scan", "--no-behaviours", "--output", str(tmp_path / "m.json"))
    assert_friendly(code, output, "google-adk is not installed", "pip install")
    assert not (tmp_path / "m.json").exists()


def test_adk_too_old(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "templates" / "adk_fluent_generated").mkdir(parents=True)  # a checkout, to regen
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.24.1")
    code, output = run("regen", "--root", str(tmp_path))
    assert_friendly(code, output, "google-adk 1.24.1 is installed", "1.25.0")
    assert not (tmp_path / "generated").exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ((), ("Name the releases to scan", "scan-releases 2.14.0")),
        (("2.0.0rc1",), ("Not a supported google-adk release: 2.0.0rc1", "no pre-releases")),
        (("1.24.1", "2.13.0"), ("Not a supported google-adk release: 1.24.1", "from 1.25.0")),
        (("2.13.0", "--jobs", "0"), ("--jobs must be at least 1, not 0",)),
    ],
    ids=["nothing", "pre-release", "too-old", "no-jobs"],
)
def test_scan_releases_refuses_bad_requests_before_building_anything(
    args: tuple[str, ...], fragments: tuple[str, ...], tmp_path: Path
) -> None:
    code, output = run("scan-releases", *args, "--root", str(tmp_path))
    assert_friendly(code, output, *fragments)
    assert not any(tmp_path.iterdir())  # no environment, manifest or report was made
