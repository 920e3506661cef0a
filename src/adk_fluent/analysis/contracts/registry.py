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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from adk_fluent.errors import BuildError, did_you_mean

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


def register_check(
    name: str | None = None, *, codes: Iterable[str] = (), description: str = ""
) -> Callable[[CheckFn], CheckFn]:
    """Decorator: add a check (a function of the CheckContext yielding Issues) to every run."""

    def decorate(fn: CheckFn) -> CheckFn:
        check_name = name or fn.__name__
        doc = (fn.__doc__ or "").strip().splitlines()
        _REGISTRY[check_name] = CheckSpec(
            check_name, fn, tuple(codes), description or (doc[0] if doc else "")
        )
        return fn

    return decorate


def unregister_check(name: str) -> None:
    """Remove a registered check (for tests and for replacing a built-in one)."""
    _REGISTRY.pop(name, None)


def registered_checks() -> tuple[CheckSpec, ...]:
    """Every registered check, in registration order."""
    return tuple(_REGISTRY.values())


def select_checks(names: Iterable[str] | None) -> tuple[CheckSpec, ...]:
    """The named checks (all when `names` is None); an unknown name is a clear error."""
    if names is None:
        return registered_checks()
    chosen = []
    for name in names:
        if name not in _REGISTRY:
            raise BuildError(
                f"no contract check named {name!r}",
                field="checks",
                hint=did_you_mean(name, _REGISTRY) or f"registered: {', '.join(_REGISTRY)}.",
            )
        chosen.append(_REGISTRY[name])
    return tuple(chosen)
