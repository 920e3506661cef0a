"""The `adk-fluent` command: check or draw a pipeline defined in your code, or report what a
stored session's runs cost.

    adk-fluent check examples.contracts_example:pipeline [--strict] [--json] [--verbose]
    adk-fluent visualize examples.contracts_example:pipeline
    adk-fluent report --store sqlite:///sessions.db --app shop [--session s1] [--all] [--json]

`module:attr` is imported with the current directory first on sys.path (as `python -m` does),
so a module in your project (or a file in a folder without __init__.py) is found. Exit codes:
0 clean, 1 contract errors (or warnings with --strict), 2 a target that cannot be loaded.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from adk_fluent.cli.report import ReportError
from adk_fluent.errors import AdkFluentError, did_you_mean

EXIT_OK, EXIT_ISSUES, EXIT_TARGET = 0, 1, 2


class TargetError(Exception):
    """A `module:attr` that cannot be loaded; the message is one line for the terminal."""


def _parse_target(target: str) -> tuple[str, str]:
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr or ":" in attr:
        raise TargetError(
            f"'{target}' is not a target; expected module:attr, e.g. "
            "examples.contracts_example:pipeline"
        )
    if not all(part.isidentifier() for part in module.split(".")):
        hint = ""
        if module.endswith(".py") or "/" in module or os.sep in module:
            dotted = module.removesuffix(".py").replace(os.sep, ".").replace("/", ".")
            hint = f" (did you mean '{dotted}:{attr}'?)"
        raise TargetError(f"'{module}' is not a module name{hint}")
    if not all(part.isidentifier() for part in attr.split(".")):
        raise TargetError(f"'{attr}' is not an attribute name")
    return module, attr


def _local_file(module: str, root: Path) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _load_file(module: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot load {path}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded


def _import(module: str) -> ModuleType:
    """Import `module` with the current directory first on sys.path; a file under the current
    directory wins over a same-named installed package (as `python -m` from here would)."""
    root = Path.cwd()
    if str(root) not in sys.path and "" not in sys.path:
        sys.path.insert(0, str(root))
    local = _local_file(module, root)
    try:
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as error:
            missing = error.name or ""
            if local is not None and (module == missing or module.startswith(missing + ".")):
                return _load_file(module, local)  # shadowed package: load the file itself
            if module == missing or module.startswith(missing + "."):
                raise TargetError(
                    f"no module named '{module}' (looked in {root} and on sys.path)"
                ) from None
            raise TargetError(
                f"importing '{module}' failed: it needs '{missing}', which is not installed"
            ) from None
        if local is not None and Path(getattr(loaded, "__file__", "") or "").resolve() != local:
            return _load_file(module, local)
        return loaded
    except TargetError:
        raise
    except AdkFluentError as error:
        first = str(error).splitlines()[0]
        raise TargetError(f"importing '{module}' failed: {type(error).__name__}: {first}") from None
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        raise TargetError(
            f"importing '{module}' failed: {type(error).__name__}: {error} "
            f"({Path(where.filename).name}:{where.lineno})"
        ) from None


def load_target(target: str) -> Any:
    """The builder (or IR) that `module:attr` names; TargetError with a one-line reason."""
    from adk_fluent.api.builder import BuilderBase

    module_name, attr = _parse_target(target)
    value: Any = _import(module_name)
    for part in attr.split("."):
        if not hasattr(value, part):
            names = [n for n in dir(value) if not n.startswith("_")]
            builders = [n for n in names if isinstance(getattr(value, n, None), BuilderBase)]
            hint = did_you_mean(part, names)
            if hint is None and builders:
                hint = f"pipelines there: {', '.join(builders)}"
            raise TargetError(
                f"'{module_name}' has no attribute '{part}'" + (f" ({hint})" if hint else "")
            )
        value = getattr(value, part)
    if isinstance(value, BuilderBase):
        return value
    kind = type(value).__name__
    from adk_fluent.api.state_schema import StateSchema

    if isinstance(value, type) and issubclass(value, StateSchema):
        extra = f"; a schema goes in --schema {target}"
    elif callable(value) and not isinstance(value, type):
        extra = "; call it in the module and name the result"
    else:
        extra = ""
    raise TargetError(
        f"'{target}' is a {kind}, not an adk-fluent pipeline (Agent, Pipeline, Route, ...){extra}"
    )


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


def load_schema(target: str) -> Any:
    """The StateSchema class that `module:Attr` names."""
    from adk_fluent.api.state_schema import StateSchema

    module_name, attr = _parse_target(target)
    value: Any = _import(module_name)
    for part in attr.split("."):
        if not hasattr(value, part):
            hint = did_you_mean(part, [n for n in dir(value) if not n.startswith("_")])
            raise TargetError(
                f"'{module_name}' has no attribute '{part}'" + (f" ({hint})" if hint else "")
            )
        value = getattr(value, part)
    if not (isinstance(value, type) and issubclass(value, StateSchema)):
        raise TargetError(f"'{target}' is not a StateSchema subclass")
    return value


def _visualize(args: argparse.Namespace) -> int:
    pipeline = load_target(args.target)
    print(pipeline.to_mermaid(), end="")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="adk-fluent",
        description="Check or draw an adk-fluent pipeline, or report what its runs cost.",
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
    from adk_fluent.cli.report import add_parser, run_report

    add_parser(commands)
    commands.choices["report"].set_defaults(run=run_report)
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
