"""The `adk-fluent-codegen` command in process (its Typer app): --version, no arguments, help
without type placeholders, the exit codes (0 ok, 1 findings, 2 usage, 3 internal error), the
refusal to write outside a checkout, and `diff --ack` with a file that is not there."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest
from adk_fluent_codegen import cli, errors
from adk_fluent_codegen.cli import app
from typer.testing import CliRunner

from tests.support.codegen import FIXTURES, REPO_ROOT

COMMANDS = ("scan", "diff", "generate", "check", "regen", "scan-releases")
MANIFEST = FIXTURES / "manifests" / "google-adk-1.0.0.json"


def run(*args: str) -> tuple[int, str]:
    """Exit code and output (stdout and stderr) of `adk-fluent-codegen ARGS`."""
    result = CliRunner().invoke(app, list(args), prog_name="adk-fluent-codegen")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_the_exit_codes_are_distinct_named_constants() -> None:
    assert (
        errors.EXIT_OK,
        errors.EXIT_FINDINGS,
        errors.EXIT_USAGE,
        errors.EXIT_INTERNAL,
        errors.EXIT_INTERRUPTED,
    ) == (0, 1, 2, 3, 130)


def test_no_arguments_prints_the_help_and_exits_0() -> None:
    code, output = run()
    assert code == 0, output
    assert output.startswith("Usage: adk-fluent-codegen [OPTIONS] COMMAND [ARGS]...")
    for command in COMMANDS:
        assert re.search(rf"^  {command} +\S", output, re.MULTILINE), command
    assert "exit codes:" in output


def test_version_names_adk_fluent_and_the_installed_adk() -> None:
    code, output = run("--version")
    fluent = importlib.metadata.version("adk-fluent")
    adk = importlib.metadata.version("google-adk")
    assert code == 0 and output == f"adk-fluent {fluent} (google-adk {adk})\n"


def test_version_falls_back_to_the_checkout_and_says_when_adk_is_missing(monkeypatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    import tomllib

    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cli._version_line() == f"adk-fluent {version} (google-adk not installed)"


@pytest.mark.parametrize("command", ["", *COMMANDS])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_help_is_free_of_type_placeholders(command, flag) -> None:
    code, output = run(*([command] if command else []), flag)
    assert code == 0, output
    usage = output.splitlines()[0]
    assert usage.startswith("Usage: adk-fluent-codegen"), output
    # Typer's own rendering shows `--help <bool>`, `OLD <path>`, `{old}`, `<list[str]>`
    assert not re.search(r"<\w[\w\[\]]*>|\{\w+\}", output), output
    assert "TEXT" not in output and "╭" not in output
    assert "exit codes:" in output


def test_the_help_names_values_by_what_they_are() -> None:
    assert run("diff", "--help")[1].splitlines()[0].endswith("diff [OPTIONS] OLD NEW")
    assert "--ack FILE" in run("diff", "--help")[1]
    assert "--root PATH" in run("check", "--help")[1]
    releases = run("scan-releases", "--help")[1]
    assert "[VERSION...]" in releases.splitlines()[0] and "--jobs N" in releases
    scan = run("scan", "--help")[1]
    assert "--behaviours / --no-behaviours" in scan and "[default: --behaviours]" in scan


@pytest.mark.parametrize(
    "argv",
    [
        ["generate"],
        ["check"],
        ["regen", "--no-behaviours"],
        ["scan", "--no-behaviours"],
        ["scan-releases", "2.13.0"],
    ],
    ids=lambda argv: argv[0],
)
def test_outside_a_checkout_the_tree_commands_refuse_and_write_nothing(
    argv, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default --root is the current folder
    code, output = run(*argv)
    assert code == errors.EXIT_USAGE, output
    assert f"error: {tmp_path} is not an adk-fluent checkout" in output
    assert "templates/adk_fluent_generated/" in output and "hint:" in output
    assert "--root PATH" in output
    assert files_under(tmp_path) == []


def test_an_explicit_root_that_is_not_a_checkout_is_refused_too(tmp_path) -> None:
    (tmp_path / "elsewhere").mkdir()
    code, output = run("regen", "--no-behaviours", "--root", str(tmp_path / "elsewhere"))
    assert code == errors.EXIT_USAGE and "is not an adk-fluent checkout" in output
    assert files_under(tmp_path) == ["elsewhere"]


def test_scan_with_an_output_file_needs_no_checkout(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = run("scan", "--no-behaviours", "--output", "m.json")
    assert code == 0, output
    assert files_under(tmp_path) == ["m.json"]


@pytest.mark.parametrize("option", ["--ack", None])
def test_diff_refuses_a_file_that_is_not_there(tmp_path, option) -> None:
    missing = tmp_path / "acknowledged.toml"
    argv = (
        ["diff", str(MANIFEST), str(MANIFEST), "--ack", str(missing)]
        if option
        else ["diff", str(missing), str(MANIFEST)]
    )
    code, output = run(*argv)
    assert code == errors.EXIT_USAGE, output
    assert str(missing) in output and "does not exist" in output
    assert "0 breaking" not in output  # it did not run without the acknowledgements


def test_diff_without_ack_reads_the_roots_file_when_there_is_one(tmp_path) -> None:
    code, output = run("diff", str(MANIFEST), str(MANIFEST), "--root", str(tmp_path))
    assert code == 0 and "0 breaking" in output


def test_a_usage_error_is_exit_2_without_a_traceback() -> None:
    for argv in (["bogus"], ["check", "--jobs", "2"], ["scan-releases", "--jobs", "many"]):
        code, output = run(*argv)
        assert code == errors.EXIT_USAGE, (argv, output)
        assert "Error:" in output and "Traceback" not in output


def test_scan_releases_refuses_a_version_that_is_not_a_release(tmp_path) -> None:
    code, output = run("scan-releases", "banana", "--root", str(tmp_path))
    assert code == errors.EXIT_USAGE
    assert "error: Not a supported google-adk release: banana." in output
    assert "e.g. 2.13.0" in output and files_under(tmp_path) == []


def _crash(monkeypatch: pytest.MonkeyPatch) -> None:
    import adk_fluent_codegen.manifest as manifest

    def broken(path: Path) -> dict:
        raise KeyError("classes")

    monkeypatch.setattr(manifest, "load_manifest", broken)
    monkeypatch.delenv(errors.DEBUG_ENV, raising=False)


def test_an_internal_error_is_one_line_asking_for_a_report_and_exit_3(monkeypatch) -> None:
    _crash(monkeypatch)
    code, output = run("diff", str(MANIFEST), str(MANIFEST))
    assert code == errors.EXIT_INTERNAL, output
    assert "Traceback" not in output
    first, second = output.strip().splitlines()
    assert first == "internal error: KeyError: 'classes'"
    assert "please report it" in second and "--debug" in second


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_prints_the_traceback(monkeypatch, capsys, how) -> None:
    _crash(monkeypatch)
    argv = ["diff", str(MANIFEST), str(MANIFEST)]
    if how == "flag":
        argv.insert(0, "--debug")
    else:
        monkeypatch.setenv(errors.DEBUG_ENV, "1")
    code, output = run(*argv)
    traceback = capsys.readouterr().err  # traceback.print_exception writes to the real stderr
    assert code == errors.EXIT_INTERNAL
    assert "Traceback (most recent call last)" in traceback + output
    assert "the traceback is above" in output


def test_without_the_codegen_extra_it_says_what_to_install_and_exits_2(monkeypatch, capsys) -> None:
    """The check that runs before the CLI imports typer (the subprocess tests in
    tests/integration/cli run it where the extra truly cannot be imported)."""
    import importlib.util

    real = importlib.util.find_spec

    def without(name, *args):
        return None if name in ("typer", "deepdiff") else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without)
    assert cli._missing_tools() == ["typer", "deepdiff"]
    with pytest.raises(SystemExit) as exited:
        cli._exit_without_the_extra()
    assert exited.value.code == errors.EXIT_USAGE
    error, hint = capsys.readouterr().err.splitlines()
    assert error.startswith("error: adk-fluent-codegen needs the codegen extra")
    assert error.endswith("(missing: typer, deepdiff)")
    assert hint.endswith(f"pip install -e '{REPO_ROOT}[codegen]'")


def test_with_the_codegen_extra_nothing_is_said() -> None:
    assert cli._missing_tools() == []
    cli._exit_without_the_extra()  # returns: the CLI goes on
