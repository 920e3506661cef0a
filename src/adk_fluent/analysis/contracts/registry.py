"""The check registry: every family of checks is a function registered here.

    from adk_fluent import register_check

    @register_check("no-shouting", codes=("shouting",))
    def no_shouting(ctx):
        for node in ctx.llm_agents():
            if isinstance(node.instruction, str) and node.instruction.isupper():
                yield ctx.issue("warning", "shouting", node, None, f"{node.name} shouts",
                                "The instruction is all capitals.", "Write it in sentence case.")

A check receives the CheckContext (the IR, the data-flow analysis, the schema, options) and
yields Issues. `check_contracts(..., checks=[...])` runs a subset by name.

A name is never taken over by accident: registering under a name that is registered already,
or under a built-in check's name at any time (even after `unregister_check`), is refused unless
`replace=True` says it is meant. A built-in replaced by mistake would silently stop reporting
what the user relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from adk_fluent.arguments import checked_function
from adk_fluent.errors import BuildError, describe_value, did_you_mean

if TYPE_CHECKING:
    from adk_fluent.analysis.contracts.report import Issue

CheckFn = Callable[[Any], Iterable["Issue"]]


@dataclass(frozen=True)
class CheckSpec:
    """A registered check: its name, the codes it may report, what it looks for."""

    name: str
    fn: CheckFn
    codes: tuple[str, ...]
    description: str


_REGISTRY: dict[str, CheckSpec] = {}
# Names of the checks adk-fluent ships (registered by the modules of this package's `checks`).
_BUILTIN: set[str] = set()
_BUILTIN_MODULES = __name__.rsplit(".", 1)[0] + ".checks"


def register_check(
    name: str | None = None,
    *,
    codes: Iterable[str] = (),
    description: str = "",
    replace: bool = False,
) -> Callable[[CheckFn], CheckFn]:
    """Decorator: add a check (a function of the CheckContext yielding Issues) to every run.

    `name` defaults to the function's name. A name that is registered already is refused unless
    `replace=True` (or, for your own checks, `unregister_check(name)` first); a built-in check's
    name is refused unless `replace=True`, even after `unregister_check`.
    """
    if callable(name):  # `@register_check` without (): the function arrived as the name
        raise BuildError(
            f"register_check was given the function {getattr(name, '__name__', '?')!r} itself",
            field="register_check",
            hint="write @register_check() or @register_check('my-check') above it (with the "
            "parentheses).",
        )
    if name is not None and (not isinstance(name, str) or not name):
        raise BuildError(
            f"a check's name must be non-empty text, not {describe_value(name)}",
            field="register_check",
            hint="e.g. @register_check('no-shouting'), or @register_check() for the function's name.",
        )
    code_names = _code_names(codes)

    def decorate(fn: CheckFn) -> CheckFn:
        check_name = name or getattr(fn, "__name__", "")
        if not callable(fn) or not check_name:
            raise BuildError(
                f"check {check_name or name!r} must be a function of the CheckContext, "
                f"not {describe_value(fn)}",
                field="register_check",
                hint="decorate a function: def my_check(ctx): yield ctx.issue(...).",
            )
        checked_function(
            fn,
            None,
            "register_check",
            takes=1,
            what=f"check {check_name!r}",
            hint="define it as def my_check(ctx): ... (ctx: root, flow, schema, issue()).",
        )
        builtin = getattr(fn, "__module__", "") or ""
        if builtin == _BUILTIN_MODULES or builtin.startswith(_BUILTIN_MODULES + "."):
            _BUILTIN.add(check_name)
        elif check_name in _BUILTIN and not replace:
            raise BuildError(
                f"{check_name!r} is the name of a built-in contract check; registering "
                "another check under it would replace the built-in one",
                field="name",
                hint=f"pick another name, or pass register_check({check_name!r}, "
                "replace=True) to replace the built-in check on purpose (unregister_check "
                "does not free a built-in check's name).",
            )
        elif check_name in _REGISTRY and not replace:
            raise BuildError(
                f"a contract check named {check_name!r} is already registered",
                field="name",
                hint=f"pick another name, or replace it: register_check({check_name!r}, "
                f"replace=True), or unregister_check({check_name!r}) first.",
            )
        doc = (fn.__doc__ or "").strip().splitlines()
        _REGISTRY[check_name] = CheckSpec(
            check_name, fn, code_names, description or (doc[0] if doc else "")
        )
        return fn

    return decorate


def _code_names(codes: Any) -> tuple[str, ...]:
    """`codes` as a tuple of issue codes; a lone str is refused (it would split into letters)."""
    names = tuple(codes) if isinstance(codes, Iterable) and not isinstance(codes, str) else None
    if names is not None and all(isinstance(code, str) and code for code in names):
        return names
    example = f"({codes!r},)" if isinstance(codes, str) else "('shouting',)"
    raise BuildError(
        f"codes must be a list of issue codes, not {describe_value(codes)}",
        field="codes",
        hint=f"e.g. codes={example}: the codes the check's issues may carry.",
    )


def unregister_check(name: str) -> None:
    """Remove a registered check, so no run uses it (a name not registered is ignored).

    A built-in check's name stays reserved: registering a check under it again still needs
    `replace=True`."""
    _REGISTRY.pop(name, None)


def registered_checks() -> tuple[CheckSpec, ...]:
    """Every registered check, in registration order."""
    return tuple(_REGISTRY.values())


def select_checks(names: Iterable[str] | None) -> tuple[CheckSpec, ...]:
    """The named checks (all when `names` is None); an unknown name is a clear error."""
    if names is None:
        return registered_checks()
    if isinstance(names, str) or not isinstance(names, Iterable):  # a str would split into letters
        raise BuildError(
            f"checks must be a list of check names, not {describe_value(names)}",
            field="checks",
            hint=f"e.g. checks=[{names!r}]; registered: {', '.join(_REGISTRY)}.",
        )
    chosen = []
    for name in names:
        if not isinstance(name, str) or name not in _REGISTRY:
            close = did_you_mean(name, _REGISTRY) if isinstance(name, str) else None
            raise BuildError(
                f"no contract check named {name!r}"
                if isinstance(name, str)
                else f"a check name must be text, not {describe_value(name)}",
                field="checks",
                hint=close or f"registered: {', '.join(_REGISTRY)}.",
            )
        chosen.append(_REGISTRY[name])
    return tuple(chosen)
