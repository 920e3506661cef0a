"""S: zero-cost state steps usable in `>>`, and plain functions `fn(state) -> dict` as steps.

    S.capture("question") >> Agent("a").instruct("{question}").outputs("answer") >> S.drop("question")

Every step emits its changes as one event's state_delta (None deletes), so they persist in any
session store. `pick` clears only session keys (never app:/user:/temp:); `drop` clears the
keys it names. Each factory validates its arguments and returns a StateStep holding one typed
record from `adk_fluent.ir.steps`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Never

from adk_fluent.api.expression import StateStep, function_step
from adk_fluent.arguments import (
    checked_count,
    checked_function,
    checked_instance,
    checked_some,
    checked_text,
)
from adk_fluent.errors import BuildError
from adk_fluent.ir import steps
from adk_fluent.ir.names import slug
from adk_fluent.ir.state_keys import check_key
from adk_fluent.ir.values import storable_copy

__all__ = ["S", "StateStep", "function_step"]


def _keys(
    keys: tuple[object, ...], what: str, example: str, *, step: str | None = None
) -> tuple[str, ...]:
    for key in keys:
        check_key(key, what, field="keys", hint=f"e.g. {example}", agent=step)
    return keys  # type: ignore[return-value]


def _constants(kind: str, values: dict[str, Any], example: str) -> tuple[tuple[str, Any], ...]:
    """Checked, private copies of S.set / S.default constants: keys usable, values storable."""
    what = f"S.{kind}()"
    checked_some(values, None, "values", shown=what, items="key=value", hint=example)
    step = slug(kind, *sorted(values))  # the name the step will have (Step.default_name)
    _keys(tuple(values), what, example, step=step)
    pairs = []
    for key, value in sorted(values.items()):
        copy, problem = storable_copy(value)
        if problem is not None:
            raise BuildError(
                f"{what}: {problem.describe(key)}",
                agent=step,
                field=key,
                hint=f"{problem.hint}. Every session store must give back what was written "
                "(SQLite and PostgreSQL keep JSON).",
            )
        pairs.append((key, copy))
    return tuple(pairs)


class S:
    """State transforms. Each returns a step for `>>`."""

    @staticmethod
    def set(**values: Any) -> StateStep:
        """Write constant values: `S.set(tier="gold")`. Each run writes a fresh copy; values
        must be JSON (str, numbers, bools, None, lists, dicts with str keys): a tuple is stored
        as a list, a datetime, set, bytes or other object is refused here."""
        return StateStep(steps.SetValues(_constants("set", values, "S.set(tier='gold')")))

    @staticmethod
    def default(**values: Any) -> StateStep:
        """Write values only where the key is missing (or None); values as for `S.set`."""
        return StateStep(steps.SetDefaults(_constants("default", values, "S.default(n=0)")))

    @staticmethod
    def merge(
        *keys: str, into: str | None = None, fn: Callable[..., Any] | None = None
    ) -> StateStep:
        """Combine several keys into one: `fn(*values)`, or by default a dict {key: value}."""
        example = "S.merge('a', 'b', into='ab')"
        _keys(keys, "S.merge()", example)
        checked_some(keys, None, "keys", shown="S.merge()", items="key", least=2, hint=example)
        if len(set(keys)) != len(keys):
            raise BuildError(
                f"S.merge() names a key twice: {sorted(k for k in keys if keys.count(k) > 1)}",
                field="keys",
                hint=example,
            )
        step = slug("merge", *keys, "into", str(into))
        if into is None:
            raise BuildError(
                "S.merge() needs into= (the key that receives the result)",
                agent=step,
                field="into",
                hint=example,
            )
        _keys((into,), "S.merge(into=...)", example, step=step)
        if fn is not None:
            checked_function(
                fn,
                step,
                "fn",
                takes=len(keys),
                what=f"S.merge(fn=...) over {len(keys)} keys",
                hint=f"fn receives the {len(keys)} values in order, e.g. "
                "S.merge('a', 'b', into='total', fn=lambda a, b: a + b)",
            )
        return StateStep(steps.Merge(keys, into, fn))

    @staticmethod
    def pick(*keys: str) -> StateStep:
        """Keep only these session keys: every other unscoped key is set to None."""
        hint = "with none it would clear every session key: S.pick('intent'); S.drop('a') clears."
        checked_some(keys, None, "keys", shown="S.pick()", items="key to keep", hint=hint)
        return StateStep(steps.Pick(_keys(keys, "S.pick()", "S.pick('intent')")))

    @staticmethod
    def drop(*keys: str) -> StateStep:
        """Delete these keys (write None)."""
        _keys(keys, "S.drop()", "S.drop('scratch')")
        checked_some(keys, None, "keys", shown="S.drop()", items="key", hint="S.drop('scratch')")
        return StateStep(steps.Drop(keys))

    @staticmethod
    def rename(**mapping: str) -> StateStep:
        """Move values: `S.rename(old="new")` writes new=old's value and deletes old."""
        example = "S.rename(draft='final')"
        checked_some(
            mapping, None, "keys", shown="S.rename()", items="old='new' pair", hint=example
        )
        step = slug("rename", *sorted(mapping))
        for old, new in mapping.items():
            hint = f"{example}; to write a value use S.set({old}=...)."
            checked_instance(new, step, old, str, what="the new key name (a str)", hint=hint)
        _keys((*mapping, *mapping.values()), "S.rename()", example, step=step)
        news = list(mapping.values())
        for old, new in mapping.items():
            if new == old:
                raise BuildError(
                    f"S.rename({old}='{new}') renames a key to itself",
                    agent=step,
                    field=old,
                    hint=f"remove it, or give a new name: {example}",
                )
            if news.count(new) > 1:
                raise BuildError(
                    f"S.rename() moves two keys to '{new}': one value would be lost",
                    agent=step,
                    field=old,
                    hint="give each its own new name.",
                )
        return StateStep(steps.Rename(tuple(sorted(mapping.items()))))

    @staticmethod
    def transform(key: str, fn: Callable[[Any], Any]) -> StateStep:
        """Replace state[key] with fn(state[key]) (the key must exist)."""
        _keys((key,), "S.transform()", "S.transform('n', int)")
        step = slug("transform", key)
        checked_function(
            fn,
            step,
            "fn",
            takes=1,
            what=f"S.transform('{key}', fn)",
            hint="fn receives the current value, e.g. S.transform('score', float)",
        )
        return StateStep(steps.Transform(key, fn))

    @staticmethod
    def compute(**fns: Callable[[Any], Any]) -> StateStep:
        """Write computed values: `S.compute(total=lambda s: s["a"] + s["b"])`."""
        example = "S.compute(total=lambda s: s['a'] + s['b'])"
        checked_some(fns, None, "keys", shown="S.compute()", items="key=fn", hint=example)
        step = slug("compute", *sorted(fns))
        _keys(tuple(fns), "S.compute()", example, step=step)
        for key, fn in fns.items():
            checked_function(
                fn,
                step,
                key,
                takes=1,
                what=f"S.compute({key}=fn)",
                hint=f"fn receives the (read-only) state, e.g. {example}",
            )
        return StateStep(steps.Compute(tuple(sorted(fns.items()))))

    @staticmethod
    def guard(
        predicate: Callable[[Any], bool], message: str = "guard failed", **unknown: Never
    ) -> StateStep:
        """Stop the run with an error event unless predicate(state) holds."""
        hint = "e.g. S.guard(lambda s: s['amount'] < 1000, 'amount over limit')"
        if unknown:  # adk-fluent 0.x's msg=, or a misspelling
            raise BuildError(
                f"S.guard() takes no keyword {', '.join(map(repr, unknown))}",
                agent="guard",
                field=next(iter(unknown)),
                hint=f"the message is the second argument: {hint}.",
            )
        checked_function(
            predicate, "guard", "predicate", takes=1, what="S.guard(predicate)", hint=hint
        )
        checked_text(
            message,
            "guard",
            "message",
            what="a str saying what failed",
            hint=hint,
            shown="S.guard's message",
        )
        return StateStep(steps.Guard(predicate, message))

    @staticmethod
    def log(*keys: str, level: int = 20) -> StateStep:  # 20 is logging.INFO
        """Log these keys (or the whole state) to the 'adk_fluent.state' logger."""
        checked_count(
            level, None, "level", least=0, hint="e.g. S.log('intent', level=logging.DEBUG)"
        )
        return StateStep(steps.Log(_keys(keys, "S.log()", "S.log('intent')"), level))

    @staticmethod
    def capture(key: str) -> StateStep:
        """Store the latest user message's text in state[key] (same step as C.capture)."""
        _keys((key,), "S.capture()", "S.capture('question')")
        return StateStep(steps.Capture(key))
