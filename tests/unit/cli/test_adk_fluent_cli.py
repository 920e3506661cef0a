"""The `adk-fluent` command in process (main(argv), as the console script calls it): --version,
no arguments, the exit codes (0 ok, 1 findings, 2 usage, 3 internal error), --target-adk and
its deprecated alias, one-line usage errors, the crash report and --debug."""

from __future__ import annotations

import importlib
import importlib.metadata
import re

import pytest

from adk_fluent.cli import common
from adk_fluent.cli.main import main

# the module (adk_fluent.cli exports the function `main` under the same name)
cli_main = importlib.import_module("adk_fluent.cli.main")

PIPELINE = "examples.contracts_example:pipeline"
BROKEN = "examples.contracts_example:broken"
EVERY_COMMAND = ("check", "visualize", "eval", "report", "serve")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `adk-fluent ARGV` (argparse's SystemExit included)."""
    try:
        code = main(list(argv))
    except SystemExit as exited:
        code = exited.code if isinstance(exited.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_the_exit_codes_are_distinct_named_constants() -> None:
    codes = (
        common.EXIT_OK,
        common.EXIT_FINDINGS,
        common.EXIT_USAGE,
        common.EXIT_INTERNAL,
        common.EXIT_INTERRUPTED,
    )
    assert codes == (0, 1, 2, 3, 130)


def test_version_names_adk_fluent_and_the_installed_adk(capsys) -> None:
    code, out, err = run(capsys, "--version")
    assert code == 0 and err == ""
    fluent = importlib.metadata.version("adk-fluent")
    adk = importlib.metadata.version("google-adk")
    assert out == f"adk-fluent {fluent} (google-adk {adk})\n"


def test_version_falls_back_when_a_distribution_is_not_installed(monkeypatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    import adk_fluent

    line = common.version_line()
    assert line == f"adk-fluent {adk_fluent.__version__} (google-adk not installed)"


def test_no_arguments_prints_the_help_and_exits_0(capsys) -> None:
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert out.startswith("usage: adk-fluent ")
    for command in EVERY_COMMAND:
        assert f"\n    {command} " in out
    assert "exit codes:" in out


@pytest.mark.parametrize("command", ["", *EVERY_COMMAND])
def test_every_help_exits_0_and_documents_the_exit_codes(capsys, command) -> None:
    code, out, _ = run(capsys, *([command] if command else []), "--help")
    assert code == 0
    assert "exit codes:" in out
    documented = [line.split()[0] for line in out.splitlines() if re.match(r"  \d+ ", line)]
    assert {"0", "2", "3"} <= set(documented), out
    assert "<bool>" not in out and "TEXT" not in out


def test_check_without_errors_exits_0_and_with_errors_exits_1(capsys) -> None:
    assert run(capsys, "check", PIPELINE)[0] == common.EXIT_OK
    code, out, _ = run(capsys, "check", BROKEN)
    assert code == common.EXIT_FINDINGS and "✗ " in out


def test_info_findings_are_not_marked_as_warnings(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dead_state.py").write_text(
        "from adk_fluent import Agent\n"
        "pipeline = Agent('researcher').outputs('notes') >> Agent('writer').instruct('Write.')\n"
    )
    code, out, _ = run(capsys, "check", "dead_state:pipeline")
    assert code == 0  # advice fails nothing, not even with --strict
    assert 'ℹ researcher.outputs("notes") is never read: INFO' in out
    assert "⚠" not in out
    assert run(capsys, "check", "dead_state:pipeline", "--strict")[0] == 0


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("banana", "'banana' is not a google-adk release, e.g. --target-adk 1.25.0"),
        ("2", "'2' is not a google-adk release, e.g. --target-adk 2.0.0"),
        ("2.13", "'2.13' is not a google-adk release"),
        ("1.24.1", "google-adk 1.24.1 is older than 1.25.0"),
    ],
)
def test_a_bad_adk_release_is_a_one_line_usage_error(capsys, value, fragment) -> None:
    option = "--target-adk"
    code, out, err = run(capsys, "check", PIPELINE, option, value)
    assert code == common.EXIT_USAGE and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"adk-fluent check: error: argument {option}: ")
    assert fragment in lines[0] and "Traceback" not in err


def test_target_adk_is_passed_to_check_contracts(capsys, monkeypatch) -> None:
    seen = {}
    import adk_fluent.api.checks as checks

    real = checks.check_contracts

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(checks, "check_contracts", spy)
    code, _, err = run(capsys, "check", PIPELINE, "--target-adk", "1.25.0")
    assert code == 0 and err == "" and seen["target_adk"] == "1.25.0"


def test_the_pre_release_adk_version_option_is_gone(capsys) -> None:
    code, out, err = run(capsys, "check", PIPELINE, "--adk-version", "1.25.0")
    assert code == common.EXIT_USAGE and out == ""
    assert "unrecognized arguments: --adk-version" in err
    code, out, _ = run(capsys, "check", "--help")
    assert "--target-adk VERSION" in out and "--adk-version" not in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["nope"], "adk-fluent: error: argument COMMAND: invalid choice: 'nope'"),
        (["check"], "adk-fluent check: error: the following arguments are required: TARGET"),
        (["check", PIPELINE, "--stirct"], "adk-fluent: error: unrecognized arguments: --stirct"),
        (["serve", PIPELINE, "--port", "eighty"], "argument --port: invalid int value"),
        (["eval", "x:y", "--tolerance", "lots"], "argument --tolerance: invalid float value"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys, argv, fragment) -> None:
    code, out, err = run(capsys, *argv)
    assert code == common.EXIT_USAGE and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
    assert "--help'" in lines[0]  # where to look next


def test_a_target_that_cannot_be_loaded_is_exit_2(capsys) -> None:
    code, out, err = run(capsys, "check", "examples.contracts_example:pipelin")
    assert code == common.EXIT_USAGE and out == ""
    assert err.startswith("adk-fluent check: 'examples.contracts_example' has no attribute")


class _Exploding:
    """A stand-in pipeline whose drawing hits a bug."""

    def to_mermaid(self) -> str:
        raise ZeroDivisionError("division by zero in the drawing")


def _crash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_main, "load_target", lambda target: _Exploding())
    monkeypatch.delenv(common.DEBUG_ENV, raising=False)


def test_an_internal_error_is_one_line_asking_for_a_report_and_exit_3(capsys, monkeypatch):
    _crash(monkeypatch)
    code, out, err = run(capsys, "visualize", PIPELINE)
    assert code == common.EXIT_INTERNAL and out == ""
    assert "Traceback" not in err
    first, second = err.strip().splitlines()
    assert first == (
        "adk-fluent visualize: internal error: ZeroDivisionError: division by zero in the drawing"
    )
    assert "please report it" in second and "--debug" in second


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["--debug", "visualize", PIPELINE], None),
        (["visualize", PIPELINE, "--debug"], None),
        (["visualize", PIPELINE], "1"),
    ],
    ids=["debug-before", "debug-after", "env"],
)
def test_debug_prints_the_traceback(capsys, monkeypatch, argv, env) -> None:
    _crash(monkeypatch)
    if env:
        monkeypatch.setenv(common.DEBUG_ENV, env)
    code, _, err = run(capsys, *argv)
    assert code == common.EXIT_INTERNAL
    assert err.startswith("Traceback (most recent call last):")
    assert "in to_mermaid" in err and "the traceback is above" in err


def test_ctrl_c_is_exit_130_without_a_traceback(capsys, monkeypatch) -> None:
    def interrupted(target):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "load_target", interrupted)
    code, _, err = run(capsys, "visualize", PIPELINE)
    assert code == common.EXIT_INTERRUPTED and err == "adk-fluent visualize: interrupted\n"
