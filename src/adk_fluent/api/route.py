"""Route: send the run down one branch according to a state value (no model call).

    Agent("classifier").outputs("intent") >> Route("intent").eq("booking", booker).otherwise(helper)

Labels written by models are messy; see ir/route_rules for the default normalisation
(`normalize=False` compares exactly, a callable normalises both sides).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Self

from adk_fluent.api.builder import check_name
from adk_fluent.api.expression import Expression, as_step
from adk_fluent.arguments import checked_function
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.names import slug
from adk_fluent.ir.nodes import RouteNode, RouteRule
from adk_fluent.ir.state_keys import check_key


class Route(Expression):
    """Choose a branch by state[key]: rules are tried in order; `.otherwise()` catches the rest."""

    def __init__(
        self, key: str, *, normalize: bool | Callable[[str], Any] = True, name: str | None = None
    ) -> None:
        check_key(  # the same key rules as S steps and C.from_state
            key,
            "Route(key)",
            field="key",
            hint="e.g. Route('intent') after an agent with .outputs('intent').",
        )
        if name is not None:
            check_name(name, "route")
        where = name or slug("route", key)
        if not isinstance(normalize, bool):
            checked_function(
                normalize,
                where,
                "normalize",
                takes=1,
                what="normalize (when not True or False)",
                hint="normalize=False compares labels exactly; normalize=str.lower (a function "
                "of one label) normalises both sides.",
                classes=False,
            )
        super().__init__(where)
        self._key = key
        self._normalize = normalize
        self._rules: tuple[tuple[RouteRule, Expression], ...] = ()
        self._otherwise: Expression | None = None

    def _add(self, op: str, value: Any, branch: Any) -> Self:
        step = as_step(branch, f"Route('{self._key}').{op}")
        if isinstance(value, Expression):  # no state value ever equals a builder
            raise BuildError(
                f"Route('{self._key}').{op}(value, branch) got {describe_value(value)} as the "
                "value: no state value equals a builder, so the branch could never run",
                agent=self._name,
                field=op,
                hint=f"the value comes first, then the branch: .{op}('booking', agent).",
            )
        return self._copy(_rules=(*self._rules, (RouteRule(op, value), step)))

    def _compare(self, op: str, value: Any, branch: Any) -> Self:
        """gt / gte / lt / lte: the rule's value is a number, known at build."""
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and math.isnan(value))
        ):
            raise BuildError(
                f"Route('{self._key}').{op}() compares numbers, got {describe_value(value)}",
                agent=self._name,
                field=op,
                hint=f"pass a number: Route('{self._key}').{op}(0.8, agent)"
                + (
                    f"; to match a label use .eq({value!r}, agent) or .contains(...)."
                    if isinstance(value, str)
                    else "."
                ),
            )
        return self._add(op, value, branch)

    def eq(self, value: Any, branch: Any) -> Self:
        """Branch when the (normalised) value equals `value`."""
        return self._add("eq", value, branch)

    def ne(self, value: Any, branch: Any) -> Self:
        """Branch when the (normalised) value differs from `value`."""
        return self._add("ne", value, branch)

    def gt(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is greater than `value`."""
        return self._compare("gt", value, branch)

    def gte(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is at least `value`."""
        return self._compare("gte", value, branch)

    def lt(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is less than `value`."""
        return self._compare("lt", value, branch)

    def lte(self, value: float, branch: Any) -> Self:
        """Branch when the value, as a number, is at most `value`."""
        return self._compare("lte", value, branch)

    def contains(self, value: Any, branch: Any) -> Self:
        """Branch when the (normalised) value contains `value`."""
        return self._add("contains", value, branch)

    def when(self, predicate: Callable[[Any], bool], branch: Any) -> Self:
        """Branch when `predicate(state)` is true. The predicate is asked whether or not the
        route's key is set (it reads the whole state); value rules never match a missing key."""
        checked_function(
            predicate,
            self._name,
            "when",
            takes=1,
            what="Route.when(predicate, branch)",
            hint="the predicate takes the state: .when(lambda state: state.get('vip'), agent).",
            classes=False,
        )
        return self._add("when", predicate, branch)

    def otherwise(self, branch: Any) -> Self:
        """The branch for every value no rule matched, and for a missing key that no
        `.when()` predicate took."""
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
