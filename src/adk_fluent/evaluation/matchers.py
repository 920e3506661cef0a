"""Value matchers for evaluation cases: a tool argument or a state value that is checked by a
rule instead of by equality (`ANY`, `Regex`), and how they are written into ADK's eval-set files.

In an `.evalset.json` a matcher is a small JSON object in place of the value,
`{"$match": "any"}` or `{"$match": "regex", "pattern": "^BK-"}`; a `$` key cannot be a Python
parameter name, so no real argument is mistaken for one. Plain values compare with `==`
(1 == 1.0 as JSON does; True is not 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from adk_fluent.arguments import checked_instance, refused_as
from adk_fluent.errors import EvalError

MATCH_KEY = "$match"


class _Any:
    """Matches any value, and an argument or key that is absent."""

    _instance: _Any | None = None

    def __new__(cls) -> _Any:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ANY"

    def __reduce__(self) -> str:
        return "ANY"


ANY = _Any()


@dataclass(frozen=True)
class Regex:
    """Matches a string that `re.search` finds the pattern in (anchor it with ^...$ for all)."""

    pattern: str

    def __post_init__(self) -> None:
        with refused_as(EvalError):
            hint = r"e.g. Regex(r'^BK-\d+$')."
            checked_instance(
                self.pattern, None, "pattern", str, what="a str", hint=hint, where="Regex"
            )
        try:
            re.compile(self.pattern)
        except re.error as error:
            raise EvalError(
                f"Regex({self.pattern!r}) is not a valid regular expression: {error}",
                field="pattern",
                hint="escape special characters with a backslash, or use re.escape(text).",
            ) from None

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def is_matcher(value: Any) -> bool:
    return value is ANY or isinstance(value, Regex)


def check_value(expected: Any, actual: Any, *, present: bool = True) -> str | None:
    """None when `actual` satisfies `expected`, else a short reason. `present=False`: the key or
    argument is missing (only ANY accepts that)."""
    if expected is ANY:
        return None
    if not present:
        return "missing"
    if isinstance(expected, Regex):
        if not isinstance(actual, str):
            return f"{actual!r} is not a string (expected to match /{expected.pattern}/)"
        if re.search(expected.pattern, actual) is None:
            return f"{actual!r} does not match /{expected.pattern}/"
        return None
    if callable(expected):
        try:
            ok = expected(actual)
        except Exception as error:  # a predicate that raises is a failed check, with its reason
            return f"the check raised {type(error).__name__}: {error}"
        return None if ok else f"{actual!r} fails {_callable_name(expected)}"
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key, value in expected.items():
            reason = check_value(value, actual.get(key), present=key in actual)
            if reason is not None:
                return f"[{key!r}]: {reason}"
        extra = sorted(set(actual) - set(expected), key=str)
        return f"unexpected key {extra[0]!r}" if extra else None
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        if len(expected) != len(actual):
            return f"{len(actual)} items, expected {len(expected)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            reason = check_value(want, got)
            if reason is not None:
                return f"[{index}]: {reason}"
        return None
    if _same(expected, actual):
        return None
    return f"{actual!r} != {expected!r}"


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return bool(expected == actual)


def _callable_name(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", type(fn).__name__)
    return "the check" if name == "<lambda>" else f"{name}()"


def encode(value: Any, predicates: dict[str, Any] | None = None) -> Any:
    """A value for an eval-set file: matchers become `{"$match": ...}` objects. In a run (not a
    file), `predicates` collects predicate functions, each written as `{"$match": "predicate",
    "id": ...}` for `decode` with the same table to put back."""
    if value is ANY:
        return {MATCH_KEY: "any"}
    if isinstance(value, Regex):
        return {MATCH_KEY: "regex", "pattern": value.pattern}
    if isinstance(value, Mapping):
        return {key: encode(item, predicates) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [encode(item, predicates) for item in value]
    if predicates is not None and callable(value) and not isinstance(value, type):
        key = f"p{len(predicates)}"
        predicates[key] = value
        return {MATCH_KEY: "predicate", "id": key}
    return value


def decode(value: Any, *, where: str = "value", predicates: Mapping[str, Any] | None = None) -> Any:
    """The inverse of `encode`: `{"$match": ...}` objects become matchers again."""
    if isinstance(value, Mapping):
        if MATCH_KEY in value:
            kind = value[MATCH_KEY]
            if kind == "any" and len(value) == 1:
                return ANY
            if kind == "regex" and set(value) == {MATCH_KEY, "pattern"}:
                return Regex(value["pattern"])
            if kind == "predicate" and predicates is not None and value.get("id") in predicates:
                return predicates[value["id"]]
            raise EvalError(
                f"{where} holds an unknown matcher {dict(value)!r}",
                field=MATCH_KEY,
                hint='use {"$match": "any"} or {"$match": "regex", "pattern": "..."}.',
            )
        return {
            key: decode(item, where=f"{where}[{key!r}]", predicates=predicates)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [decode(item, where=where, predicates=predicates) for item in value]
    return value


def serializable(value: Any) -> bool:
    """True when the expectation can be written to a file (no predicate functions inside)."""
    if is_matcher(value):
        return True
    if isinstance(value, Mapping):
        return all(serializable(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(serializable(item) for item in value)
    return not callable(value)


def encoded_for_file(
    value: Any, what: str, *, case: str, field: str, medium: str = "a file"
) -> Any:
    """`encode(value)` for a file (`medium`: "a file", "YAML"), or an EvalError naming `what`
    when a function checks something in it: a file holds no code."""
    if not serializable(value):
        raise EvalError(
            f"{what} is checked by a function, which {medium} cannot hold",
            case=case,
            field=field,
            hint="use a value, ANY or Regex(...) in cases you export or save.",
        )
    return encode(value)


def show(value: Any) -> str:
    """A value as the report prints it (matchers by name, predicates by function name)."""
    if is_matcher(value):
        return repr(value)
    if callable(value) and not isinstance(value, type):
        return _callable_name(value)
    return repr(value)
