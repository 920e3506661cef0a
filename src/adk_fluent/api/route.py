"""Route: send the run down one branch according to a state value (no model call).

    Agent("classifier").outputs("intent") >> Route("intent").eq("booking", booker).otherwise(helper)

Labels written by models are messy; see ir/route_rules for the default normalisation
(`normalize=False` compares exactly, a callable normalises both sides).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from adk_fluent.api.expression import Expression, as_step
from adk_fluent.errors import BuildError
from adk_fluent.ir.names import slug
from adk_fluent.ir.nodes import RouteNode, RouteRule


class Route(Expression):
    """Choose a branch by state[key]: rules are tried in order; `.otherwise()` catches the rest."""

    def __init__(
        self, key: str, *, normalize: bool | Callable[[str], Any] = True, name: str | None = None
    ) -> None:
        if not isinstance(key, str) or not key:
            raise BuildError(
                "Route(key) needs the state key to route on",
                field="key",
                hint="e.g. Route('intent') after an agent with .outputs('intent').",
            )
        super().__init__(name or slug("route", key))
        self._key = key
        self._normalize = normalize
        self._rules: tuple[tuple[RouteRule, Expression], ...] = ()
        self._otherwise: Expression | None = None

    def _add(self, op: str, value: Any, branch: Any) -> Self:
        step = as_step(branch, f"Route('{self._key}').{op}")
        return self._copy(_rules=(*self._rules, (RouteRule(op, value), step)))

    def eq(self, value: Any, branch: Any) -> Self:
        """Branch when the (normalised) value equals `value`."""
        return self._add("eq", value, branch)

    def ne(self, value: Any, branch: Any) -> Self:
        """Branch when the (normalised) value differs from `value`."""
        return self._add("ne", value, branch)

    def gt(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is greater than `value`."""
        return self._add("gt", value, branch)

    def gte(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is at least `value`."""
        return self._add("gte", value, branch)

    def lt(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is less than `value`."""
        return self._add("lt", value, branch)

    def lte(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is at most `value`."""
        return self._add("lte", value, branch)

    def contains(self, value: Any, branch: Any) -> Self:
        """Branch when the (normalised) value contains `value`."""
        return self._add("contains", value, branch)

    def when(self, predicate: Callable[[Any], bool], branch: Any) -> Self:
        """Branch when `predicate(state)` is true."""
        if not callable(predicate):
            raise BuildError(
                "Route.when(predicate, branch) needs a callable predicate", agent=self._name
            )
        return self._add("when", predicate, branch)

    def otherwise(self, branch: Any) -> Self:
        """The branch for every value no rule matched, and for a missing key."""
        return self._copy(_otherwise=as_step(branch, f"Route('{self._key}').otherwise"))

    def _build_ir(self) -> RouteNode:
        if not self._rules and self._otherwise is None:
            from adk_fluent.errors import EmptyCompositeError

            raise EmptyCompositeError(
                "Route has no branches",
                agent=self._name,
                hint=f"add one: Route('{self._key}').eq('value', agent).",
            )
        children = tuple(step.to_ir() for _, step in self._rules)
        if self._otherwise is not None:
            children = (*children, self._otherwise.to_ir())
        return RouteNode(
            name=self._name,
            key=self._key,
            rules=tuple(rule for rule, _ in self._rules),
            children=children,
            has_otherwise=self._otherwise is not None,
            normalize=self._normalize,
            reads_keys=frozenset({self._key}),
            visibility=self._visibility,
        )
