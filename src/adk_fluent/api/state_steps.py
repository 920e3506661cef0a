"""S: zero-cost state steps usable in `>>`, and plain functions `fn(state) -> dict` as steps.

    S.capture("question") >> Agent("a").instruct("{question}").outputs("answer") >> S.drop("question")

Every step emits its changes as one event's state_delta (None deletes), so they persist in any
session store. `pick` clears only session keys (never app:/user:/temp:); `drop` clears the
keys it names. Each factory validates its arguments and returns a StateStep holding one typed
record from `adk_fluent.ir.steps`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adk_fluent.api.expression import StateStep, function_step
from adk_fluent.errors import BuildError
from adk_fluent.ir import steps

__all__ = ["S", "StateStep", "function_step"]


def _keys(keys: tuple[str, ...], what: str, example: str) -> tuple[str, ...]:
    for key in keys:
        if not isinstance(key, str) or not key:
            raise BuildError(
                f"{what} needs state key names (non-empty strings), got {key!r}",
                field="keys",
                hint=f"e.g. {example}",
            )
    return keys


class S:
    """State transforms. Each returns a step for `>>`."""

    @staticmethod
    def set(**values: Any) -> StateStep:
        """Write constant values: `S.set(tier="gold")`."""
        if not values:
            raise BuildError("S.set() needs at least one key=value", hint="S.set(tier='gold')")
        return StateStep(steps.SetValues(tuple(sorted(values.items()))))

    @staticmethod
    def default(**values: Any) -> StateStep:
        """Write values only where the key is missing (or None)."""
        if not values:
            raise BuildError("S.default() needs at least one key=value", hint="S.default(n=0)")
        return StateStep(steps.SetDefaults(tuple(sorted(values.items()))))

    @staticmethod
    def merge(*keys: str, into: str, fn: Callable[..., Any] | None = None) -> StateStep:
        """Combine several keys into one: `fn(*values)`, or by default a dict {key: value}."""
        _keys(keys, "S.merge()", "S.merge('a', 'b', into='ab')")
        if len(keys) < 2:
            raise BuildError(
                "S.merge() needs at least two keys to combine", hint="S.merge('a', 'b', into='ab')"
            )
        _keys((into,), "S.merge(into=...)", "S.merge('a', 'b', into='ab')")
        if fn is not None and not callable(fn):
            raise BuildError("S.merge(..., fn=...) needs a callable", field="fn")
        return StateStep(steps.Merge(keys, into, fn))

    @staticmethod
    def pick(*keys: str) -> StateStep:
        """Keep only these session keys: every other unscoped key is set to None."""
        return StateStep(steps.Pick(_keys(keys, "S.pick()", "S.pick('intent')")))

    @staticmethod
    def drop(*keys: str) -> StateStep:
        """Delete these keys (write None)."""
        _keys(keys, "S.drop()", "S.drop('scratch')")
        if not keys:
            raise BuildError("S.drop() needs at least one key", hint="S.drop('scratch')")
        return StateStep(steps.Drop(keys))

    @staticmethod
    def rename(**mapping: str) -> StateStep:
        """Move values: `S.rename(old="new")` writes new=old's value and deletes old."""
        if not mapping:
            raise BuildError("S.rename() needs old='new' pairs", hint="S.rename(draft='final')")
        _keys(tuple(mapping.values()), "S.rename()", "S.rename(draft='final')")
        return StateStep(steps.Rename(tuple(sorted(mapping.items()))))

    @staticmethod
    def transform(key: str, fn: Callable[[Any], Any]) -> StateStep:
        """Replace state[key] with fn(state[key]) (the key must exist)."""
        _keys((key,), "S.transform()", "S.transform('n', int)")
        if not callable(fn):
            raise BuildError(f"S.transform('{key}', fn) needs a callable fn", field="fn")
        return StateStep(steps.Transform(key, fn))

    @staticmethod
    def compute(**fns: Callable[[Any], Any]) -> StateStep:
        """Write computed values: `S.compute(total=lambda s: s["a"] + s["b"])`."""
        for key, fn in fns.items():
            if not callable(fn):
                raise BuildError(f"S.compute({key}=...) needs a callable taking the state")
        if not fns:
            raise BuildError("S.compute() needs at least one key=fn")
        return StateStep(steps.Compute(tuple(sorted(fns.items()))))

    @staticmethod
    def guard(predicate: Callable[[Any], bool], message: str = "guard failed") -> StateStep:
        """Stop the run with an error unless predicate(state) holds."""
        if not callable(predicate):
            raise BuildError("S.guard(predicate, message) needs a callable predicate")
        return StateStep(steps.Guard(predicate, message))

    @staticmethod
    def log(*keys: str, level: int = 20) -> StateStep:  # 20 is logging.INFO
        """Log these keys (or the whole state) to the 'adk_fluent.state' logger."""
        return StateStep(steps.Log(_keys(keys, "S.log()", "S.log('intent')"), level))

    @staticmethod
    def capture(key: str) -> StateStep:
        """Store the latest user message's text in state[key] (same step as C.capture)."""
        _keys((key,), "S.capture()", "S.capture('question')")
        return StateStep(steps.Capture(key))
