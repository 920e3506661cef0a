"""What a state value may be, and private copies of it.

Every session store must give back what was written: the in-memory store keeps the object,
SQLite and PostgreSQL keep its JSON. So a value adk-fluent writes to state must be JSON as it is
(None, bool, int, float, str, lists, dicts with str keys), the same in every store:

* refused: datetime / date / time (hint `.isoformat()`), set (hint `sorted(...)`), bytes (hint
  base64), Decimal, Enum members that are not str/int, any other object (ADK 2.x would store its
  repr, 1.25 ends the run mid-way), NaN and infinities (PostgreSQL's JSONB and HTTP clients'
  JSON parsers refuse them), dict keys that are not str (JSON turns them into strings);
* normalised: a tuple becomes a list and a str / int / float subclass (a str Enum) its plain
  value: what every store hands back after a reload anyway.

`storable_copy` returns a fresh copy built from plain lists and dicts, so no two sessions, and
no session and the builder, ever share a mutable object. `frozen` gives the read-only views that
taps and predicates receive.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from typing import Any, NoReturn

from adk_fluent.errors import StateWriteError, with_article

_HINTS: tuple[tuple[type | tuple[type, ...], str, str], ...] = (
    ((datetime, date, time), "a {kind}", "store its text: value.isoformat()"),
    ((set, frozenset), "a {kind}", "store a list: sorted(value) or list(value)"),
    ((bytes, bytearray, memoryview), "{kind}", "store text: base64.b64encode(value).decode()"),
    (Decimal, "a Decimal", "store str(value) (exact) or float(value)"),
    (Enum, "an Enum member", "store value.value (or make the Enum a str / int Enum)"),
)


@dataclass(frozen=True)
class Unstorable:
    """Why a value cannot be stored: where inside it (`path`), what it is, and the fix."""

    path: str  # '' for the value itself, else e.g. "[2]['when']"
    what: str  # "a datetime", "NaN", "a dict key 1 (int)"
    hint: str

    def describe(self, key: str) -> str:
        """e.g. "state['cart'][2] is a datetime, which a session store cannot hold"."""
        return f"state['{key}']{self.path} is {self.what}, which a session store cannot hold"


class _Refused(Exception):
    def __init__(self, problem: Unstorable) -> None:
        self.problem = problem


def _refuse(path: str, what: str, hint: str) -> NoReturn:
    raise _Refused(Unstorable(path, what, hint))


def _copy(value: Any, path: str, active: set[int]) -> Any:
    if value is None or value is True or value is False:
        return value
    kind = type(value)
    if kind is str or kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            _refuse(path, repr(value), "store None or a string for a missing or unbounded number")
        return value
    if isinstance(value, Mapping | list | tuple):
        if id(value) in active:
            _refuse(path, "a container that holds itself", "store a tree, not a cycle")
        active.add(id(value))
        try:
            if isinstance(value, Mapping):
                result: dict[str, Any] = {}
                for key, item in value.items():
                    if type(key) is not str:
                        if not isinstance(key, str) or isinstance(key, Enum):
                            _refuse(
                                path,
                                f"a dict with the key {key!r:.40} ({type(key).__name__})",
                                "use str keys: JSON turns other keys into strings on reload",
                            )
                        key = str.__str__(key)
                    result[key] = _copy(item, f"{path}[{key!r:.40}]", active)
                return result
            return [_copy(item, f"{path}[{index}]", active) for index, item in enumerate(value)]
        finally:
            active.discard(id(value))
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):  # a str Enum or str subclass: its plain text
        return str.__str__(value)
    if isinstance(value, int):  # an IntEnum or int subclass: its plain number
        return int(value)
    if isinstance(value, float):
        return _copy(float(value), path, active)
    for types, what, hint in _HINTS:
        if isinstance(value, types):
            _refuse(path, what.format(kind=type(value).__name__), hint)
    _refuse(
        path,
        f"{with_article(type(value).__name__)} object",
        "store plain data: a dict of its fields (for a pydantic model, "
        "value.model_dump(mode='json')), a str or a number",
    )


def storable_copy(value: Any) -> tuple[Any, Unstorable | None]:
    """A private copy of `value` as every session store will hold it, or why it cannot be one."""
    try:
        return _copy(value, "", set()), None
    except _Refused as refused:
        return None, refused.problem
    except RecursionError:
        return None, Unstorable("", "nested too deeply", "flatten the value")


def fresh(value: Any) -> Any:
    """A new, plain, mutable copy of a value: its lists, dicts and tuples rebuilt at every depth
    (a frozen view becomes plain lists and dicts again); other values are immutable here."""
    if isinstance(value, dict):
        return {k: fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [fresh(v) for v in value]
    if isinstance(value, tuple):
        return tuple(fresh(v) for v in value)
    return value


# -- read-only views -------------------------------------------------------------------------


def _write_refused(owner: str) -> StateWriteError:
    return StateWriteError(
        f"{owner} tried to change a value inside state; what it receives is read-only. "
        "Copy it first (e.g. list(value), dict(value)) or write state with S.set(...), "
        "S.compute(...) or a function step returning a dict."
    )


class _Frozen:
    """What FrozenList and FrozenDict share: writes raise naming `_owner`; a copy (shallow,
    deep or pickled) is the plain container (`_PLAIN`) again."""

    _owner = "a step"
    _PLAIN: type

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise _write_refused(self._owner)

    def __copy__(self) -> Any:
        return self._PLAIN(self)

    def __deepcopy__(self, memo: Any) -> Any:
        return fresh(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (self._PLAIN, (fresh(self),))


class FrozenList(_Frozen, list[Any]):
    """A list inside a read-only state view: reads work as on a list, writes raise."""

    _PLAIN = list
    append = extend = insert = remove = pop = clear = sort = reverse = _Frozen._refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _Frozen._refuse


class FrozenDict(_Frozen, dict[str, Any]):
    """A dict inside a read-only state view: reads work as on a dict, writes raise."""

    _PLAIN = dict
    update = pop = popitem = setdefault = clear = _Frozen._refuse
    __setitem__ = __delitem__ = __ior__ = _Frozen._refuse


def frozen(value: Any, owner: str) -> Any:
    """A read-only view of a state value: lists and dicts (at any depth) refuse writes with a
    StateWriteError naming `owner`; other values are immutable or returned as they are."""
    if isinstance(value, dict):
        view = FrozenDict({k: frozen(v, owner) for k, v in value.items()})
        view._owner = owner
        return view
    if isinstance(value, list):
        items = FrozenList(frozen(v, owner) for v in value)
        items._owner = owner
        return items
    if isinstance(value, tuple):
        return tuple(frozen(v, owner) for v in value)
    return value
