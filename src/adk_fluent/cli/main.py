"""The `adk-fluent` command: check or draw a pipeline defined in your code, evaluate it with a
suite of cases, serve it over A2A, or report what a stored session's runs cost.

    adk-fluent check examples.contracts_example:pipeline [--strict] [--json] [--verbose]
                     [--schema M:CLASS] [--initial-key KEY] [--target-adk 1.25.0]
    adk-fluent visualize examples.contracts_example:pipeline
    adk-fluent eval evals.booking:suite [--backend M:A] [--case ID] [--tag TAG] [--baseline F]
                    [--save F] [--json] [--verbose] [--tolerance 0.05] [--allow-not-evaluated]
    adk-fluent eval evals/booking.yaml --pipeline app.flows:pipeline   (or an .evalset.json)
    adk-fluent report --store sqlite:///sessions.db --app shop [--session s1] [--all] [--json]
    adk-fluent serve app.flows:payments [--host 127.0.0.1] [--port 8000] [--session-store URL]
    adk-fluent worker app.flows:pipeline --boundary heavy [--processes 4] [--session-store URL]
    adk-fluent --version          adk-fluent 0.1.0 (google-adk 2.13.0)
    adk-fluent                    the help, exit 0

`module:attr` is imported with the current directory first on sys.path (as `python -m` does),
so a module in your project (or a file in a folder without __init__.py) is found.

Exit codes: adk_fluent.cli.common has the table (and docs/cli.md); EPILOG below says them
in --help.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from adk_fluent.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    debug_requested,
    exit_codes_epilog,
    report_crash,
    version_line,
)
from adk_fluent.cli.report import ReportError
from adk_fluent.cli.targets import TargetError, load_schema, load_target
from adk_fluent.errors import AdkFluentError

EPILOG = """\
commands take --help, e.g. adk-fluent check --help. --debug (before or after the command)
or ADK_FLUENT_DEBUG=1 prints the traceback of an internal error.

exit codes:
  0    ok
  1    findings: contract errors (check), a failing or regressed case (eval), a failed
       server (serve)
  2    usage error: bad arguments or option values, an unknown command, a target or file
       that cannot be loaded (one line on stderr)
  3    internal error, a bug in adk-fluent: please report it (--debug prints the traceback)
  130  interrupted (Ctrl-C)
"""

CHECK_EPILOG = """\
TARGET is module:attr, imported with the current directory first on sys.path
(e.g. examples.contracts_example:pipeline).

""" + exit_codes_epilog("findings: contract errors, or warnings with --strict")


def adk_release(text: str) -> str:
    """argparse type of --target-adk: an 'X.Y.Z' google-adk release, the oldest supported one
    or newer; anything else is a usage error naming a valid example."""
    from adk_fluent_generated.field_versions import SCANNED_ADK_VERSIONS, release_key

    oldest, newest = SCANNED_ADK_VERSIONS[0], SCANNED_ADK_VERSIONS[-1]
    if not re.fullmatch(r"\d+\.\d+\.\d+", text):
        example = f"{text}.0.0" if text.isdigit() else oldest
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a google-adk release, e.g. --target-adk {example} "
            f"(supported: {oldest} to {newest})"
        )
    if release_key(text) < release_key(oldest):
        raise argparse.ArgumentTypeError(
            f"google-adk {text} is older than {oldest}, the oldest supported release, e.g. "
            f"--target-adk {oldest} (supported: {oldest} to {newest})"
        )
    return text


def _check(args: argparse.Namespace) -> int:
    from adk_fluent.api.checks import check_contracts

    pipeline = load_target(args.target)
    schema = load_schema(args.schema) if args.schema else None
    report = check_contracts(
        pipeline,
        schema,
        initial_keys=tuple(args.initial_key or ()),
        target_adk=args.target_adk,
    )
    if args.json:
        print(report.to_json())
    else:
        print(report.to_text(verbose=args.verbose), end="")
    return EXIT_FINDINGS if report.failing(strict=args.strict) else EXIT_OK


def _visualize(args: argparse.Namespace) -> int:
    pipeline = load_target(args.target)
    print(pipeline.to_mermaid(), end="")
    return EXIT_OK


def _add_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="print the contract report; exit 1 on errors (and warnings with --strict)",
        description="Check a pipeline's state contracts before any model call and print the\n"
        "report: ✗ errors, ⚠ warnings, ℹ info (advice).",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("target", metavar="TARGET", help="module:attr naming the pipeline")
    check.add_argument("--strict", action="store_true", help="warnings fail too")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--verbose", "-v", action="store_true", help="also list contracts that hold")
    check.add_argument("--schema", metavar="MODULE:CLASS", help="a StateSchema to check against")
    check.add_argument(
        "--initial-key",
        action="append",
        metavar="KEY",
        help="a state key the app sets before each run (repeatable)",
    )
    check.add_argument(
        "--target-adk",
        metavar="VERSION",
        type=adk_release,
        help="judge version-specific behaviour as this google-adk release, e.g. 1.25.0 "
        "(default: the installed one)",
    )
    check.set_defaults(run=_check)


class _TopFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse measures the command list without its indent, so `visualize` would get its
    help on a line of its own; this counts the indent."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        for choice in getattr(action, "choices", None) or ():
            self._action_max_length = max(self._action_max_length, len(choice) + 6)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="adk-fluent",
        description="Check, draw, evaluate or serve an adk-fluent pipeline, or report what its "
        "runs cost.",
        epilog=EPILOG,
        formatter_class=_TopFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=version_line(),
        help="print adk-fluent's version and the installed google-adk's, then exit",
    )
    parser.add_argument(
        "--debug", action="store_true", help="print the traceback of an internal error"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_check(commands)
    draw = commands.add_parser(
        "visualize",
        help="print the pipeline as a mermaid flowchart",
        description="Print the pipeline as a mermaid flowchart (paste it into any mermaid "
        "renderer).",
        epilog=exit_codes_epilog(None),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    draw.add_argument("target", metavar="TARGET", help="module:attr naming the pipeline")
    draw.set_defaults(run=_visualize)
    from adk_fluent.cli import eval as eval_command
    from adk_fluent.cli import report, serve, worker

    for command_module in (eval_command, report, serve, worker):
        command_module.add_parser(commands)
    for command in commands.choices.values():
        # also after the command (`adk-fluent check x --debug`); SUPPRESS keeps a --debug
        # given before the command from being reset by the subcommand's default
        command.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="print the traceback of an internal error",
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `adk-fluent` console script; returns the exit code (argparse exits
    by itself, with 0 for --help / --version and 2 for a usage error)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # no command: the help, as `adk-fluent --help` prints it
        parser.print_help()
        return EXIT_OK
    prog = f"adk-fluent {args.command}"
    try:
        with warnings.catch_warnings():
            # Some ADK releases (1.31.0, for one) announce default-on experimental features
            # when their modules are imported; the user's target did not ask for that banner,
            # and it would bury the report or the one-line error.
            warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)
            code: int = args.run(args)
    except (TargetError, ReportError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except AdkFluentError as error:
        first = str(error).splitlines()
        print(f"{prog}: {type(error).__name__}: {first[0]}", file=sys.stderr)
        for line in first[1:]:
            print(line, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # a bug: one line, not a traceback (unless --debug)
        return report_crash(prog, error, debug_requested(args.debug))
    return code


if __name__ == "__main__":
    sys.exit(main())
