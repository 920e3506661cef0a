"""Whether a declared type (or a literal value) fits another declared type, without running.

Only answers "incompatible" when sure: unknown forms (strings from unresolved annotations,
exotic generics, protocols) count as compatible, so type checks never invent a mismatch.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from adk_fluent.ir.state_keys import UNKNOWN

_UNION_ORIGINS = (Union, types.UnionType)


def _strip(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def is_known(tp: Any) -> bool:
    """A type we can reason about: declared, resolved, and not Any."""
    return tp is not UNKNOWN and tp is not Any and not isinstance(tp, str)


def _members(tp: Any) -> tuple[Any, ...]:
    tp = _strip(tp)
    if get_origin(tp) in _UNION_ORIGINS:
        return tuple(_strip(m) for m in get_args(tp))
    return (tp,)


def _as_class(tp: Any) -> type | None:
    if tp is None:
        return type(None)
    origin = get_origin(tp)
    if origin is not None:
        return origin if isinstance(origin, type) else None
    return tp if isinstance(tp, type) else None


def compatible(provided: Any, expected: Any) -> bool:
    """False only when a value of type `provided` can certainly not satisfy `expected`."""
    if not is_known(provided) or not is_known(expected):
        return True
    return all(any(_member_fits(p, e) for e in _members(expected)) for p in _members(provided))


def _member_fits(provided: Any, expected: Any) -> bool:
    if provided is Any or expected is Any or isinstance(provided, str) or isinstance(expected, str):
        return True
    if get_origin(provided) is Literal:
        return all(value_fits(value, expected) for value in get_args(provided))
    if get_origin(expected) is Literal:
        p_cls = _as_class(provided)
        return p_cls is None or any(isinstance(v, p_cls) for v in get_args(expected))
    p_cls, e_cls = _as_class(provided), _as_class(expected)
    if p_cls is None or e_cls is None:
        return True
    if e_cls is float and p_cls is int:  # pydantic accepts an int where a float is declared
        return True
    try:
        if not issubclass(p_cls, e_cls):
            return False
    except TypeError:
        return True
    p_args, e_args = get_args(_strip(provided)), get_args(_strip(expected))
    if not p_args or not e_args or len(p_args) != len(e_args) or Ellipsis in (*p_args, *e_args):
        return True
    return all(compatible(p, e) for p, e in zip(p_args, e_args, strict=True))


def value_fits(value: Any, expected: Any) -> bool:
    """False only when the literal `value` certainly does not satisfy `expected`."""
    if not is_known(expected):
        return True
    for member in _members(expected):
        if member is Any or isinstance(member, str):
            return True
        if get_origin(member) is Literal:
            if value in get_args(member):
                return True
            continue
        cls = _as_class(member)
        if cls is None:
            return True
        if cls is float and isinstance(value, int) and not isinstance(value, bool):
            return True
        if isinstance(value, cls):
            return True
    return False
