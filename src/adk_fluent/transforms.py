"""S: zero-cost state steps usable in `>>`, and plain functions `fn(state) -> dict` as steps.

    S.capture("question") >> Agent("a").instruct("{question}").outputs("answer") >> S.drop("question")

Every step emits its changes as one event's state_delta (None deletes), so they persist in any
session store. `pick` clears only session keys (never app:/user:/temp:); `drop` clears the
keys it names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .builder_core import BuilderBase, hooks, is_valid_name
from .errors import BuildError
from .ir import TransformNode


def _slug(*parts: str) -> str:
    text = "_".join(re.sub(r"\W+", "_", p).strip("_") for p in parts if p)
    text = text or "step"
    return text if text[0].isalpha() else f"s_{text}"


class StateStep(BuilderBase):
    """A zero-cost step: no model call; compiles to one small ADK agent emitting a state delta."""

    _KIND = "state_step"

    def __init__(
        self,
        name: str,
        op: str,
        args: tuple[Any, ...],
        reads: frozenset[str],
        writes: frozenset[str],
    ) -> None:
        super().__init__(name)
        self._op, self._args = op, args
        self._reads, self._writes = reads, writes

    def named(self, name: str) -> StateStep:
        """Rename the step (names show in events and diagrams)."""
        if not is_valid_name(name):
            raise BuildError(
                f"{name!r} is not a valid step name",
                agent=name,
                field="name",
                hint="use a Python identifier other than 'user'.",
            )
        return self._copy(_name=name)

    def _build_ir(self) -> TransformNode:
        return TransformNode(
            name=self._name,
            op=self._op,
            args=self._args,
            reads_keys=self._reads,
            writes_keys=self._writes,
        )


def _keys(keys: tuple[str, ...], what: str) -> tuple[str, ...]:
    for key in keys:
        if not isinstance(key, str) or not key:
            raise BuildError(f"{what} needs state key names (non-empty strings), got {key!r}")
    return keys


class S:
    """State transforms. Each returns a step for `>>`."""

    @staticmethod
    def set(**values: Any) -> StateStep:
        """Write constant values: `S.set(tier="gold")`."""
        if not values:
            raise BuildError("S.set() needs at least one key=value")
        return StateStep(
            _slug("set", *values),
            "set",
            (tuple(sorted(values.items())),),
            frozenset(),
            frozenset(values),
        )

    @staticmethod
    def default(**values: Any) -> StateStep:
        """Write values only where the key is missing (or None)."""
        if not values:
            raise BuildError("S.default() needs at least one key=value")
        return StateStep(
            _slug("default", *values),
            "default",
            (tuple(sorted(values.items())),),
            frozenset(values),
            frozenset(values),
        )

    @staticmethod
    def merge(*keys: str, into: str, fn: Callable[..., Any] | None = None) -> StateStep:
        """Combine several keys into one: `fn(*values)`, or by default a dict {key: value}."""
        _keys(keys, "S.merge()")
        if len(keys) < 2:
            raise BuildError(
                "S.merge() needs at least two keys to combine", hint="S.merge('a', 'b', into='ab')"
            )
        return StateStep(
            _slug("merge", *keys, "into", into),
            "merge",
            (keys, into, fn),
            frozenset(keys),
            frozenset({into}),
        )

    @staticmethod
    def pick(*keys: str) -> StateStep:
        """Keep only these session keys: every other unscoped key is set to None."""
        _keys(keys, "S.pick()")
        return StateStep(_slug("pick", *keys), "pick", keys, frozenset(), frozenset())

    @staticmethod
    def drop(*keys: str) -> StateStep:
        """Delete these keys (write None)."""
        _keys(keys, "S.drop()")
        if not keys:
            raise BuildError("S.drop() needs at least one key")
        return StateStep(_slug("drop", *keys), "drop", keys, frozenset(), frozenset())

    @staticmethod
    def rename(**mapping: str) -> StateStep:
        """Move values: `S.rename(old="new")` writes new=old's value and deletes old."""
        if not mapping:
            raise BuildError("S.rename() needs old='new' pairs")
        pairs = tuple(sorted(mapping.items()))
        return StateStep(
            _slug("rename", *mapping),
            "rename",
            pairs,
            frozenset(mapping),
            frozenset(mapping.values()),
        )

    @staticmethod
    def transform(key: str, fn: Callable[[Any], Any]) -> StateStep:
        """Replace state[key] with fn(state[key]) (the key must exist)."""
        _keys((key,), "S.transform()")
        if not callable(fn):
            raise BuildError(f"S.transform('{key}', fn) needs a callable fn")
        return StateStep(
            _slug("transform", key), "transform", (key, fn), frozenset({key}), frozenset({key})
        )

    @staticmethod
    def compute(**fns: Callable[[Any], Any]) -> StateStep:
        """Write computed values: `S.compute(total=lambda s: s["a"] + s["b"])`."""
        for key, fn in fns.items():
            if not callable(fn):
                raise BuildError(f"S.compute({key}=...) needs a callable taking the state")
        if not fns:
            raise BuildError("S.compute() needs at least one key=fn")
        return StateStep(
            _slug("compute", *fns),
            "compute",
            tuple(sorted(fns.items())),
            frozenset(),
            frozenset(fns),
        )

    @staticmethod
    def guard(predicate: Callable[[Any], bool], message: str = "guard failed") -> StateStep:
        """Stop the run with an error unless predicate(state) holds."""
        if not callable(predicate):
            raise BuildError("S.guard(predicate, message) needs a callable predicate")
        return StateStep("guard", "guard", (predicate, message), frozenset(), frozenset())

    @staticmethod
    def log(*keys: str, level: int = 20) -> StateStep:  # 20 is logging.INFO
        """Log these keys (or the whole state) to the 'adk_fluent.state' logger."""
        _keys(keys, "S.log()")
        return StateStep(_slug("log", *keys), "log", (keys, level), frozenset(keys), frozenset())

    @staticmethod
    def capture(key: str) -> StateStep:
        """Store the latest user message's text in state[key] (same step as C.capture)."""
        _keys((key,), "S.capture()")
        return StateStep(_slug("capture", key), "capture", (key,), frozenset(), frozenset({key}))


def function_step(fn: Callable[[Any], Any]) -> StateStep:
    """A plain `fn(state) -> dict | None` as a step; the dict is merged into state."""
    name = getattr(fn, "__name__", "fn")
    name = "fn_step" if name == "<lambda>" else _slug(name)
    return StateStep(name, "function", (fn,), frozenset(), frozenset())


def _adapt(value: Any) -> BuilderBase | None:
    if callable(value) and not isinstance(value, type):
        return function_step(value)
    return None


hooks.compose["adapt"] = _adapt
