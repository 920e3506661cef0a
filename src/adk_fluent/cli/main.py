"""The `adk-fluent` command: check or draw a pipeline defined in your code, evaluate it with a
suite of cases, or report what a stored session's runs cost.

    adk-fluent check examples.contracts_example:pipeline [--strict] [--json] [--verbose]
    adk-fluent visualize examples.contracts_example:pipeline
    adk-fluent eval evals.booking:suite [--backend M:A] [--case ID] [--tag TAG] [--baseline F]
                    [--save F] [--json] [--verbose] [--tolerance 0.05] [--allow-not-evaluated]
    adk-fluent eval evals/booking.yaml --pipeline app.flows:pipeline   (or an .evalset.json)
    adk-fluent report --store sqlite:///sessions.db --app shop [--session s1] [--all] [--json]
    adk-fluent serve app.flows:payments [--host 127.0.0.1] [--port 8000] [--session-store URL]

`module:attr` is imported with the current directory first on sys.path (as `python -m` does),
so a module in your project (or a file in a folder without __init__.py) is found. Exit codes:
0 clean (for eval: every selected case passed, nothing regressed against the baseline),
1 contract errors (or warnings with --strict); for eval a case that failed, errored or was not
evaluated (unless --allow-not-evaluated), or a regression against the baseline,
2 a target that cannot be loaded, or a usage error (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from adk_fluent.cli.report import ReportError
from adk_fluent.cli.targets import TargetError, load_schema, load_target
from adk_fluent.errors import AdkFluentError

EXIT_OK, EXIT_ISSUES, EXIT_TARGET = 0, 1, 2


def _check(args: argparse.Namespace) -> int:
    from adk_fluent.api.checks import check_contracts

    pipeline = load_target(args.target)
    schema = load_schema(args.schema) if args.schema else None
    report = check_contracts(
        pipeline,
        schema,
        initial_keys=tuple(args.initial_key or ()),
        target_adk=args.adk_version,
    )
    if args.json:
        print(report.to_json())
    else:
        print(report.to_text(verbose=args.verbose), end="")
    return EXIT_ISSUES if report.failing(strict=args.strict) else EXIT_OK


def _visualize(args: argparse.Namespace) -> int:
    pipeline = load_target(args.target)
    print(pipeline.to_mermaid(), end="")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="adk-fluent",
        description="Check, draw, evaluate or serve an adk-fluent pipeline, or report what its runs cost.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check", help="print the contract report; exit 1 on errors (and warnings with --strict)"
    )
    check.add_argument("target", help="module:attr naming the pipeline")
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
        "--adk-version",
        metavar="VERSION",
        help="judge version-specific behaviour as this google-adk (default: the installed one)",
    )
    check.set_defaults(run=_check)
    draw = commands.add_parser("visualize", help="print the pipeline as a mermaid flowchart")
    draw.add_argument("target", help="module:attr naming the pipeline")
    draw.set_defaults(run=_visualize)
    from adk_fluent.cli.eval import add_parser as add_eval_parser
    from adk_fluent.cli.eval import run_eval
    from adk_fluent.cli.report import add_parser, run_report

    add_eval_parser(commands)
    commands.choices["eval"].set_defaults(run=run_eval)
    add_parser(commands)
    commands.choices["report"].set_defaults(run=run_report)
    from adk_fluent.cli.serve import add_parser as add_serve_parser
    from adk_fluent.cli.serve import run_serve

    add_serve_parser(commands)
    commands.choices["serve"].set_defaults(run=run_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `adk-fluent` console script."""
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            # Some ADK releases (1.31.0, for one) announce default-on experimental features
            # when their modules are imported; the user's target did not ask for that banner,
            # and it would bury the report or the one-line error.
            warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)
            code: int = args.run(args)
    except (TargetError, ReportError) as error:
        print(f"adk-fluent {args.command}: {error}", file=sys.stderr)
        return EXIT_TARGET
    except AdkFluentError as error:
        first = str(error).splitlines()
        print(f"adk-fluent {args.command}: {type(error).__name__}: {first[0]}", file=sys.stderr)
        for line in first[1:]:
            print(line, file=sys.stderr)
        return EXIT_TARGET
    return code


if __name__ == "__main__":
    sys.exit(main())
