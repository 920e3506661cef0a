"""Loading what a command names as `module:attr` (a pipeline, a StateSchema, a suite, a test
backend) from the user's project, with one-line errors for the terminal.

`module:attr` is imported with the current directory first on sys.path (as `python -m` does),
so a module in your project (or a file in a folder without __init__.py) is found.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from adk_fluent.errors import AdkFluentError, did_you_mean, with_article


class TargetError(Exception):
    """A `module:attr` that cannot be loaded; the message is one line for the terminal."""


def parse_target(target: str) -> tuple[str, str]:
    """(module, attr) of `module:attr`; TargetError with a one-line reason (and a did-you-mean
    for a file path) when it is not one."""
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


def import_project_module(module: str) -> ModuleType:
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


def resolve_target(
    target: str, option: str = "", wanted: type | None = None, kind: str = ""
) -> Any:
    """The value `module:attr` names; TargetError (prefixed with `option`, e.g. "--backend: ")
    when it cannot be loaded, listing the module's `wanted` objects (`kind`, e.g. "pipelines")
    when the name is not there."""
    try:
        module_name, attr = parse_target(target)
        value: Any = import_project_module(module_name)
    except TargetError as error:
        raise TargetError(f"{option}{error}") from None
    for part in attr.split("."):
        if not hasattr(value, part):
            names = [n for n in dir(value) if not n.startswith("_")]
            hint = did_you_mean(part, names)
            if hint is None and wanted is not None:
                found = [n for n in names if isinstance(getattr(value, n, None), wanted)]
                what = kind or f"{wanted.__name__} objects"
                hint = f"{what} there: {', '.join(found)}" if found else None
            raise TargetError(
                f"{option}'{module_name}' has no attribute '{part}'"
                + (f" ({hint})" if hint else "")
            )
        value = getattr(value, part)
    return value


def load_target(target: str) -> Any:
    """The builder (or IR) that `module:attr` names; TargetError with a one-line reason."""
    from adk_fluent.api.builder import BuilderBase
    from adk_fluent.api.state_schema import StateSchema

    value = resolve_target(target, wanted=BuilderBase, kind="pipelines")
    if isinstance(value, BuilderBase):
        return value
    schema = isinstance(value, type) and issubclass(value, StateSchema)
    extra = f"; a schema goes in --schema {target}" if schema else ""
    raise not_a(target, value, "an adk-fluent pipeline (Agent, Pipeline, Route, ...)", extra)


def not_a(target: str, value: Any, wanted: str, extra: str = "", option: str = "") -> TargetError:
    """The TargetError for a `target` whose value is not `wanted` ("a FluentEvalSuite"); `extra`
    adds the command's own hint, and a function there is to be called in the module."""
    if not extra and callable(value) and not isinstance(value, type):
        extra = "; call it in the module and name the result"
    kind = with_article(type(value).__name__)
    return TargetError(f"{option}'{target}' is {kind}, not {wanted}{extra}")


def load_schema(target: str) -> Any:
    """The StateSchema class that `module:Attr` names."""
    from adk_fluent.api.state_schema import StateSchema

    value = resolve_target(target)
    if not (isinstance(value, type) and issubclass(value, StateSchema)):
        raise TargetError(f"'{target}' is not a StateSchema subclass")
    return value
