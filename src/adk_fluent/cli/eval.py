"""`adk-fluent eval`: run an evaluation suite through ADK's LocalEvalService and print its report,
with an exit code a CI job can rely on (ADK's own `adk eval` exits 0 on a failed case on 1.x).

    adk-fluent eval evals.booking:suite [--backend evals.booking:backend] [--case ID] [--tag TAG]
                    [--config app.settings:config] [--baseline base.json] [--save run.json]
                    [--json] [--verbose]
    adk-fluent eval evals/booking.yaml --pipeline app.flows:pipeline
    adk-fluent eval evals/booking.evalset.json --pipeline app.flows:pipeline

TARGET is `module:attr` naming a FluentEvalSuite, or a suite file (adk-fluent's YAML, or ADK's
`.evalset.json` with its test_config.json beside it) run on the `--pipeline` builder.
`--config module:attr` names the ExecutionConfig the App is built with (its middleware, plugins,
limits), so the run evaluates what is deployed; the report names it.
Exit codes (adk_fluent.cli.common): what each means for `eval` is in EPILOG below.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from adk_fluent.cli.common import EXIT_FINDINGS, EXIT_OK
from adk_fluent.cli.targets import TargetError, load_target, not_a, resolve_target
from adk_fluent.errors import AdkFluentError, install_extra, with_article

SUITE_FILES = (".yaml", ".yml", ".json")


EPILOG = """\
TARGET is module:attr naming a FluentEvalSuite, or a suite file (.yaml / .yml, or ADK's
.evalset.json / .test.json with test_config.json beside it) together with --pipeline
module:attr. --config module:attr names the ExecutionConfig the App is built with (as
pipeline.to_app(config) builds what you deploy); the report says which one ran.

exit codes:
  0  every selected case passed (and nothing regressed against --baseline)
  1  a case failed, errored or was not evaluated (unless --allow-not-evaluated),
     or a case regressed / a score dropped against --baseline
  2  a usage or target error: a module or file that cannot be loaded, a name that is not
     a suite / pipeline / backend, a bad baseline file, an unknown --case or --tag
  3  internal error, a bug in adk-fluent: please report it (--debug, or ADK_FLUENT_DEBUG=1,
     prints the traceback)
"""


def add_parser(commands: Any) -> None:
    """Register `eval` on the CLI's subcommands."""
    command = commands.add_parser(
        "eval",
        help="run an evaluation suite and print its report; exit 1 when a case does not pass",
        description="Run a FluentEvalSuite (or a suite file on a pipeline) through ADK's\n"
        "LocalEvalService and print the report.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument(
        "target",
        metavar="TARGET",
        help="module:attr naming a FluentEvalSuite, or a .yaml / .evalset.json file",
    )
    command.add_argument(
        "--pipeline",
        metavar="MODULE:ATTR",
        help="the pipeline a suite file runs on (required with a file)",
    )
    command.add_argument(
        "--backend",
        metavar="MODULE:ATTR",
        help="a test backend such as mock_backend(...), or a function that makes one "
        "(default: the agents' own models)",
    )
    command.add_argument(
        "--config",
        metavar="MODULE:ATTR",
        help="the ExecutionConfig to build the App with, as deployed (middleware, plugins, "
        "limits; default: none)",
    )
    command.add_argument(
        "--case", action="append", metavar="ID", help="run only this case (repeatable)"
    )
    command.add_argument(
        "--tag", action="append", metavar="TAG", help="run only cases with this tag (repeatable)"
    )
    command.add_argument("--baseline", metavar="FILE", help="compare with a report saved by --save")
    command.add_argument("--save", metavar="FILE", help="save the report as JSON (a baseline)")
    command.add_argument("--json", action="store_true", help="print the report as JSON")
    command.add_argument(
        "--verbose", "-v", action="store_true", help="details of every case, not only failures"
    )
    command.add_argument(
        "--tolerance",
        type=float,
        default=0.05,
        metavar="FLOAT",
        help="how far a metric score may drop below the baseline's (default 0.05)",
    )
    command.add_argument(
        "--allow-not-evaluated",
        action="store_true",
        help="a case no metric could evaluate does not fail the run",
    )
    command.set_defaults(run=run_eval)


def _one_line(error: AdkFluentError) -> str:
    """An adk-fluent error (message, then an indented hint line) as one terminal line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {'; '.join(lines)}"


def _is_suite_file(target: str) -> bool:
    # A file path may hold a ':' (C:\...), so the suffix decides before module:attr parsing.
    return Path(target).suffix.lower() in SUITE_FILES or (
        ":" not in target and Path(target).is_file()
    )


def load_suite(args: argparse.Namespace) -> Any:
    """The FluentEvalSuite that TARGET names, or that a suite file holds for --pipeline."""
    from adk_fluent.api.builder import BuilderBase
    from adk_fluent.evaluation.suite import FluentEvalSuite

    target = args.target
    if _is_suite_file(target):
        return _load_suite_file(Path(target), args.pipeline)
    if ":" not in target:
        raise TargetError(
            f"'{target}' is neither module:attr naming a FluentEvalSuite nor a suite file "
            "(.yaml, .yml, .evalset.json)"
        )
    if args.pipeline:
        raise TargetError(
            f"--pipeline goes with a suite file; '{target}' names a suite, which has its pipeline"
        )
    value = resolve_target(target, wanted=FluentEvalSuite)
    if isinstance(value, FluentEvalSuite):
        return value
    builder = isinstance(value, BuilderBase)
    extra = f"; name the suite, or run a suite file on it: --pipeline {target}" if builder else ""
    raise not_a(target, value, "a FluentEvalSuite", extra)


def _load_suite_file(path: Path, pipeline_target: str | None) -> Any:
    from adk_fluent.evaluation.suite import FluentEvalSuite

    if not path.is_file():
        raise TargetError(f"no suite file {path}")
    if path.suffix.lower() not in SUITE_FILES:
        raise TargetError(f"{path} is not a suite file (.yaml, .yml or .evalset.json)")
    if not pipeline_target:
        raise TargetError(
            f"a suite file needs the pipeline to run on: add --pipeline module:attr after {path}"
        )
    try:
        pipeline = load_target(pipeline_target)
    except TargetError as error:
        raise TargetError(f"--pipeline: {error}") from None
    try:
        if path.suffix.lower() == ".json":
            return FluentEvalSuite.from_eval_set(path, pipeline)
        return FluentEvalSuite.from_yaml(path, pipeline)
    except AdkFluentError as error:
        raise TargetError(f"{path}: {_one_line(error)}") from None


def load_backend(target: str) -> Any:
    """The test backend `module:attr` names (a function named there is called to make one)."""
    value = resolve_target(target, "--backend: ")
    if not callable(getattr(value, "model_for", None)) and callable(value):
        try:
            value = value()
        except Exception as error:
            raise TargetError(
                f"--backend: calling '{target}' failed: {type(error).__name__}: {error}"
            ) from None
    if not callable(getattr(value, "model_for", None)):
        raise TargetError(
            f"--backend: '{target}' gives {with_article(type(value).__name__)}, not a test backend "
            "(mock_backend({...}), or a function that returns one)"
        )
    return value


def load_config(target: str) -> Any:
    """The ExecutionConfig `module:attr` names."""
    from adk_fluent.ir.options import ExecutionConfig

    value = resolve_target(target, "--config: ", wanted=ExecutionConfig)
    if not isinstance(value, ExecutionConfig):
        raise not_a(target, value, "an ExecutionConfig", option="--config: ")
    return value


def _load_baseline(path: str) -> Any:
    from adk_fluent.evaluation.report import FluentEvalReport

    try:
        return FluentEvalReport.load(path)
    except AdkFluentError as error:
        raise TargetError(f"--baseline: {_one_line(error)}") from None
    except OSError as error:  # a folder, an unreadable file
        raise TargetError(f"--baseline: cannot read {path}: {error.strerror or error}") from None
    except (KeyError, TypeError, ValueError) as error:  # the format tag is right, a case is not
        raise TargetError(
            f"--baseline: {path} is not a saved report: a case is malformed "
            f"({type(error).__name__}: {error})"
        ) from None


def run_eval(args: argparse.Namespace) -> int:
    """The `eval` command: print the report; the exit code says whether every case passed."""
    if args.tolerance < 0:
        raise TargetError(f"--tolerance must be 0 or more, not {args.tolerance}")
    suite = load_suite(args)
    backend = load_backend(args.backend) if args.backend else None
    config = load_config(args.config) if args.config else None
    baseline = _load_baseline(args.baseline) if args.baseline else None  # before a long run
    try:
        report = suite.run_sync(backend=backend, config=config, cases=args.case, tags=args.tag)
    except AdkFluentError as error:  # an unknown case / tag / metric, a script for no agent
        raise TargetError(_one_line(error)) from None
    except ImportError as error:  # ADK's eval modules need the extra's packages
        raise TargetError(
            f"running a suite needs ADK's evaluation dependencies: {error} "
            f"({install_extra('eval')})"
        ) from None
    if config is not None:  # where the config came from, beside what it holds
        report.config = f"{args.config} = {report.config}"
    if args.save:
        try:
            report.save(args.save)
        except OSError as error:
            raise TargetError(
                f"--save: cannot write {args.save}: {error.strerror or error}"
            ) from None
    regression = None if baseline is None else report.compare(baseline, tolerance=args.tolerance)
    allowed = {"passed", "not_evaluated"} if args.allow_not_evaluated else {"passed"}
    failing = [case for case in report.cases if case.status not in allowed]
    regressed = regression is not None and regression.has_regressions
    if args.json:
        body = report.to_dict()
        if regression is not None:
            body["baseline"] = {
                "path": args.baseline,
                "has_regressions": regression.has_regressions,
                **regression.to_dict(),
            }
        print(json.dumps(body, indent=2, default=str))
    else:
        print(report.to_text(verbose=args.verbose), end="")
        if regression is not None:
            print()
            print(regression.to_text(), end="")
        unevaluated = [c.id for c in report.cases if c.status == "not_evaluated"]
        if unevaluated and args.allow_not_evaluated:
            print(f"\nNot evaluated, allowed by --allow-not-evaluated: {', '.join(unevaluated)}")
        if args.save:
            print(f"\nSaved the report to {args.save}")
    return EXIT_FINDINGS if failing or regressed else EXIT_OK
