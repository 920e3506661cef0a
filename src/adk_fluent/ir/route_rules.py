"""How Route compares a state value with its rules, and how messy model labels are normalised.

By default a string label is stripped of whitespace, surrounding quotes/backticks/asterisks and
trailing punctuation, and case-folded: "Booking.\n", "**booking**" and "BOOKING" all equal
"booking". `Route(key, normalize=False)` compares exactly; a callable normalises both sides.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_WRAPPERS = "\"'`*_ \t\r\n"
_TRAILING = ".!?,;:"


def normalise_label(value: Any, normalize: Any = True) -> Any:
    """The comparable form of a route value or rule value."""
    if normalize is False or not isinstance(value, str):
        return value
    if callable(normalize):
        return normalize(value)
    text = value.strip(_WRAPPERS)
    text = text.rstrip(_TRAILING).strip(_WRAPPERS)
    return text.casefold()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().rstrip(_TRAILING))
        except ValueError:
            return None
    return None


def matches(rule: Any, label: Any, raw: Any, normalize: Any, state: Mapping[str, Any]) -> bool:
    """Whether `rule` accepts the state value (`label` is its normalised form, `raw` the original)."""
    op, target = rule.op, rule.value
    if op == "when":
        return bool(target(state))
    if op in ("eq", "ne"):
        equal = label == normalise_label(target, normalize)
        return equal if op == "eq" else not equal
    if op == "contains":
        needle = normalise_label(target, normalize)
        try:
            return needle in label
        except TypeError:
            return False
    left, right = _number(raw), _number(target)
    if left is None or right is None:
        return False
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}[op]
