"""Refuse generated setter names that would shadow hand-written builder methods.

Checked on the built classes, not their source: the hand-written builders are imported and
their MROs read, which takes a fraction of the time parsing `src/` would. Generated mixins are
matched by name, so the check uses the setter names about to be generated, whatever the
installed (possibly older) generated package holds.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from collections.abc import Iterable
from typing import Any

from .errors import CodegenError, CodegenWarning

# Where the hand-written builders live (the classes that mix in the generated setters).
BUILDER_PACKAGE = "adk_fluent.api"


def builder_classes(package: str = BUILDER_PACKAGE) -> list[type]:
    """Every class defined in `package` and its submodules, imported."""
    root = importlib.import_module(package)
    modules = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), f"{package}."):
        modules.append(importlib.import_module(info.name))
    return [
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == module.__name__
    ]


def _installed_builders() -> list[type]:
    """The installed hand-written classes; none (with a warning) when they do not import.

    They import the committed generated package, so a stale or broken one (the very thing
    `generate` repairs) must not stop `generate`; `check` runs the check again afterwards.
    """
    try:
        return builder_classes(BUILDER_PACKAGE)
    except Exception as exc:  # any error while importing the hand-written core
        warnings.warn(
            f"the shadowing check was skipped: importing {BUILDER_PACKAGE} failed "
            f"({type(exc).__name__}: {exc}); run `adk-fluent-codegen check` once it imports.",
            CodegenWarning,
            stacklevel=3,
        )
        return []


def check_shadowing(targets: list[Any], classes: Iterable[type] | None = None) -> None:
    """Raise when a hand-written class mixing in a generated setter mixin defines a setter's name.

    `targets` are the render model's TargetSpecs (the setters about to be generated); `classes`
    are the classes to check, by default the installed hand-written builders (BUILDER_PACKAGE).
    Every class in a checked class's MRO counts, except the generated mixins themselves: a
    method before the mixin hides the setter, one after it is hidden by it.
    """
    setters_by_mixin = {
        spec.target.builder_base: {f.setter: f.name for f in spec.setter_fields} for spec in targets
    }
    problems: set[str] = set()
    for cls in _installed_builders() if classes is None else classes:
        chain = [k for k in cls.__mro__ if k is not object]
        for mixin in (k.__name__ for k in chain if k.__name__ in setters_by_mixin):
            setters = setters_by_mixin[mixin]
            for klass in chain:
                if klass.__name__ in setters_by_mixin:
                    continue
                inherited = "" if klass is cls else f" (a base of {cls.__name__})"
                for method in vars(klass).keys() & setters.keys():
                    problems.add(
                        f"{klass.__module__}.{klass.__name__}.{method}(){inherited} would be "
                        f"shadowed by (or shadow) the generated setter for ADK field "
                        f"`{setters[method]}` in {mixin}"
                    )
    if problems:
        raise CodegenError(
            "Generated setter names collide with hand-written methods:\n  "
            + "\n  ".join(sorted(problems)),
            hint="rename the hand-written method, or give the field another setter name in "
            "SETTER_RENAMES (codegen/adk_fluent_codegen/targets.py), then `make regen`.",
        )
