"""Composite builders (Pipeline, FanOut, Loop, Fallback) and the operators that make them.

Operator precedence is Python's: `*` and `//` bind tighter than `>>`, which binds tighter than
`|`. So `a >> b | c >> d` is `(a >> b) | (c >> d)` and `a // b >> c` is `(a // b) >> c`.
`>>` and `|` are associative and flatten: `a >> b >> c` is one Pipeline of three steps.
Only unnamed composites flatten; a composite given `name=` stays a unit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from adk_fluent_generated.builder_bases import (
    LoopAgentSetters,
    ParallelAgentSetters,
    SequentialAgentSetters,
)
from adk_fluent_generated.ir_nodes import LoopAgentNode, ParallelAgentNode, SequentialAgentNode

from .builder_core import BuilderBase, composer, hooks, is_valid_name
from .errors import BuildError, EmptyCompositeError
from .ir import FallbackNode, UntilNode


def _auto_name(prefix: str, steps: tuple[BuilderBase, ...]) -> str:
    """A deterministic, readable name from the children's names (hashed when long)."""
    names = [s.name for s in steps]
    name = f"{prefix}__" + "__".join(names)
    if len(name) <= 48:
        return name
    digest = hashlib.sha1("|".join(names).encode()).hexdigest()[:8]
    return f"{prefix}__{names[0]}__{names[-1]}__{digest}"


def _as_step(value: Any, operator: str) -> BuilderBase:
    if isinstance(value, BuilderBase):
        return value
    adapted = composer("adapt")(value)
    if adapted is not None:
        return adapted
    raise BuildError(
        f"cannot use {type(value).__name__} {value!r} with `{operator}`",
        hint="compose Agent, Pipeline, FanOut, Loop or other adk-fluent builders.",
    )


class _Composite(BuilderBase):
    """Shared by composites: ordered children and an optional explicit name."""

    _PREFIX = "composite"

    def __init__(self, *steps: Any, name: str | None = None) -> None:
        children = tuple(_as_step(s, type(self).__name__) for s in steps)
        if not children:
            raise EmptyCompositeError(
                f"{type(self).__name__} needs at least one step",
                agent=name,
                hint=f"pass agents: {type(self).__name__}(Agent('a'), Agent('b')).",
            )
        if name is not None:
            super().__init__(name)
        else:  # the auto name is computed on first use: `a >> b >> ...` chains stay linear
            self._fields = {}
            self._meta = {}
        self._steps = children
        self._named = name is not None

    def __getattr__(self, attr: str) -> Any:
        if attr == "_name":
            name = _auto_name(self._PREFIX, self._steps)
            self.__dict__["_name"] = name
            return name
        return super().__getattr__(attr)

    @property
    def steps(self) -> tuple[BuilderBase, ...]:
        """The children, in order."""
        return self._steps

    def named(self, name: str) -> Self:
        """Give the composite an explicit name (it then stays a unit under `>>` / `|`)."""
        if not is_valid_name(name):
            raise BuildError(
                f"{name!r} is not a valid agent name",
                agent=name,
                field="name",
                hint="use a Python identifier other than 'user'.",
            )
        return self._copy(_name=name, _named=True)

    def _child_irs(self) -> tuple[Any, ...]:
        return tuple(step.to_ir() for step in self._steps)


class Pipeline(_Composite, SequentialAgentSetters):
    """Run steps one after another (ADK's SequentialAgent). `a >> b` builds one."""

    _ADK_CLASS = "SequentialAgent"
    _KIND = "pipeline"
    _PREFIX = "pipeline"

    def _build_ir(self) -> SequentialAgentNode:
        return SequentialAgentNode(
            name=self._name,
            **self._fields,
            children=self._child_irs(),
            visibility=self._meta.get("visibility"),
        )


class FanOut(_Composite, ParallelAgentSetters):
    """Run branches concurrently (ADK's ParallelAgent). `a | b` builds one."""

    _ADK_CLASS = "ParallelAgent"
    _KIND = "fanout"
    _PREFIX = "fanout"

    def _build_ir(self) -> ParallelAgentNode:
        return ParallelAgentNode(
            name=self._name,
            **self._fields,
            children=self._child_irs(),
            visibility=self._meta.get("visibility"),
        )


@dataclass(frozen=True)
class Until:
    """A loop condition: `body * until(pred, max=5)` repeats until `pred(state)` is true."""

    predicate: Callable[[Any], bool]
    max: int = 10


def until(predicate: Callable[[Any], bool], *, max: int = 10) -> Until:  # noqa: A002 - spec's name
    """Loop condition for `body * until(pred, max=...)`: checked after every iteration."""
    if not callable(predicate):
        raise BuildError(
            "until() needs a callable predicate taking the state",
            hint="e.g. until(lambda state: state.get('done') == 'yes').",
        )
    if not isinstance(max, int) or max < 1:
        raise BuildError(f"until(max=...) must be a positive int, got {max!r}")
    return Until(predicate, max)


class Loop(_Composite, LoopAgentSetters):
    """Repeat a body (ADK's LoopAgent) up to `max_iterations`, or until a condition holds."""

    _ADK_CLASS = "LoopAgent"
    _KIND = "loop"
    _PREFIX = "loop"

    def __init__(
        self,
        *body: Any,
        max_iterations: int | None = None,
        until: Until | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(*body, name=name)
        self._until = until
        if until is not None and max_iterations is None:
            max_iterations = until.max
        if max_iterations is not None:
            if not isinstance(max_iterations, int) or max_iterations < 1:
                raise BuildError(
                    f"max_iterations must be a positive int, got {max_iterations!r}",
                    agent=self._name,
                    field="max_iterations",
                )
            self._fields = {"max_iterations": max_iterations}

    def _build_ir(self) -> LoopAgentNode:
        children = self._child_irs()
        if self._until is not None:
            check = UntilNode(name=f"{self._name}__until", predicate=self._until.predicate)
            children = (*children, check)
        return LoopAgentNode(
            name=self._name,
            **self._fields,
            children=children,
            visibility=self._meta.get("visibility"),
        )


class Fallback(_Composite):
    """Try children in order; the next runs only when the previous raised (`a // b`).

    A failed child's events already streamed stay in the session (ADK persists events as they
    are yielded), and so do the state changes those events carried. If every child fails,
    the last child's error is raised.
    """

    _KIND = "fallback"
    _PREFIX = "fallback"

    def _build_ir(self) -> FallbackNode:
        return FallbackNode(
            name=self._name, children=self._child_irs(), visibility=self._meta.get("visibility")
        )


# -- operators ---------------------------------------------------------------------------------
def _flatten(kind: type[_Composite], value: BuilderBase) -> tuple[BuilderBase, ...]:
    if type(value) is kind and not value._named and not value._fields:  # type: ignore[attr-defined]
        return value.steps  # type: ignore[attr-defined, no-any-return]
    return (value,)


def _sequence(left: Any, right: Any) -> Pipeline:
    a, b = _as_step(left, ">>"), _as_step(right, ">>")
    return Pipeline(*_flatten(Pipeline, a), *_flatten(Pipeline, b))


def _parallel(left: Any, right: Any) -> FanOut:
    a, b = _as_step(left, "|"), _as_step(right, "|")
    return FanOut(*_flatten(FanOut, a), *_flatten(FanOut, b))


def _loop(body: BuilderBase, times: Any) -> Loop:
    if isinstance(times, Until):
        return Loop(body, until=times)
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise BuildError(
            f"`{body.name} * {times!r}`: a loop count must be a positive int or until(...)",
            agent=body.name,
            field="max_iterations",
        )
    return Loop(body, max_iterations=times)


def _fallback(left: Any, right: Any) -> Fallback:
    a, b = _as_step(left, "//"), _as_step(right, "//")
    return Fallback(*_flatten(Fallback, a), *_flatten(Fallback, b))


hooks.compose.update(sequence=_sequence, parallel=_parallel, loop=_loop, fallback=_fallback)
