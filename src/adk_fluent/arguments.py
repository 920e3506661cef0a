"""The argument rules many entry points share (a whole number, seconds, a non-empty str, a
function of n arguments, ...), written once: each check returns the value (normalised) or raises a
BuildError naming the agent (or step, or object), the field and a hint, at the call where the
mistake is. An entry point states these rules with the checks; a rule of its own alone it
raises as a BuildError itself.

Shape of every check: `checked_x(value, agent, field, ..., hint=...)`. `agent` is what the
argument belongs to (an agent's or a step's name, or a class such as "InMemoryCacheStore"; None
when there is none), `field` the parameter as the user wrote it, `hint` an example of a right
value. `where=` places it when it is no agent ("ExecutionConfig(middleware=...) item 2");
`shown=` names the argument in the message as the user wrote the call ("C.last_n_turns(n)";
default: the field). A room whose errors are a BuildError subclass (EvalError, RecordingError)
runs its checks inside `with refused_as(EvalError, case=...)`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from adk_fluent.errors import BuildError, describe_value, did_you_mean


def _refuse(
    message: str,
    agent: str | None,
    field: str | None,
    hint: str | None,
    *,
    where: str | None = None,
) -> BuildError:
    """The BuildError every check below raises (a rule no check states raises BuildError itself)."""
    return BuildError(message, agent=agent, field=field, hint=hint, where=where)


@contextmanager
def refused_as(kind: type[BuildError], **place: Any) -> Iterator[None]:
    """The checks in this block raise `kind` (a BuildError subclass such as EvalError) instead
    of BuildError, placed by `place` too (`case="paris"`)."""
    try:
        yield
    except BuildError as error:
        if type(error) is not BuildError:
            raise
        where = {"agent": error.agent, "field": error.field, "where": error.where, **place}
        raise kind(error.message, hint=error.hint, **where) from None


def checked_count(
    value: Any,
    agent: str | None,
    field: str,
    *,
    least: int,
    most: int | None = None,
    hint: str,
    where: str | None = None,
    shown: str | None = None,
) -> int:
    """A whole number in [least, most] (bools refused)."""
    name = shown or field
    what = "a positive whole number" if least == 1 else f"a whole number >= {least}"
    if most is not None:
        what = f"a whole number from {least} to {most}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(
            f"{name} must be {what}, got {describe_value(value)}", agent, field, hint, where=where
        )
    if value < least or (most is not None and value > most):
        raise _refuse(f"{name} must be {what}, got {value}", agent, field, hint, where=where)
    return value


def checked_number(
    value: Any,
    agent: str | None,
    field: str,
    *,
    positive: bool,
    hint: str,
    what: str = "a number",
    where: str | None = None,
    most: float | None = None,
) -> float:
    """A finite real number, >= 0 (or > 0 when `positive`) and <= `most` if given, bools
    refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _refuse(
            f"{field} must be {what}, got {describe_value(value)}", agent, field, hint, where=where
        )
    if not math.isfinite(value):
        raise _refuse(f"{field} must be finite, got {value}", agent, field, hint, where=where)
    if value < 0 or (positive and value == 0):
        raise _refuse(
            f"{field}={value} must be {'more than' if positive else 'at least'} 0",
            agent,
            field,
            hint,
            where=where,
        )
    if most is not None and value > most:
        raise _refuse(
            f"{field} must be {what}, at most {most:g}, not {value}",
            agent,
            field,
            hint,
            where=where,
        )
    return float(value)


def checked_seconds(
    value: Any,
    agent: str | None,
    field: str,
    *,
    positive: bool,
    hint: str,
    where: str | None = None,
) -> float:
    """`checked_number`, said in seconds."""
    return checked_number(
        value, agent, field, positive=positive, hint=hint, what="a number of seconds", where=where
    )


def checked_text(
    value: Any,
    agent: str | None,
    field: str,
    *,
    hint: str,
    what: str = "a non-empty str",
    where: str | None = None,
    shown: str | None = None,
) -> str:
    """A str with something in it besides whitespace."""
    if not isinstance(value, str) or not value.strip():
        got = "an empty str" if isinstance(value, str) else describe_value(value)
        raise _refuse(
            f"{shown or field} must be {what}, got {got}", agent, field, hint, where=where
        )
    return value


def checked_texts(
    value: Any,
    agent: str | None,
    field: str,
    *,
    hint: str,
    empty: bool = False,
    where: str | None = None,
) -> tuple[str, ...]:
    """A list or tuple of non-empty strs (a bare str is refused: it is one item, not a list)."""
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise _refuse(
            f"{field} must be a list of str, got {describe_value(value)}",
            agent,
            field,
            hint,
            where=where,
        )
    if not value and not empty:
        raise _refuse(f"{field} is empty", agent, field, hint, where=where)
    for index, item in enumerate(value):
        checked_text(item, agent, f"{field}[{index}]", hint=hint, where=where)
    return tuple(value)


def checked_choice(
    value: Any,
    agent: str | None,
    field: str,
    choices: Iterable[str],
    *,
    hint: str | None = None,
    where: str | None = None,
) -> str:
    """One of `choices` (strs); the hint lists them and suggests the nearest."""
    options = tuple(choices)
    if isinstance(value, str) and value in options:
        return value
    listed = ", ".join(repr(option) for option in options)
    near = did_you_mean(value, options) if isinstance(value, str) else None
    advice = " ".join(part for part in (near, hint) if part) or None
    raise _refuse(
        f"{field} must be one of {listed}, got {describe_value(value)}",
        agent,
        field,
        advice,
        where=where,
    )


def checked_instance(
    value: Any,
    agent: str | None,
    field: str,
    types: type | tuple[type, ...],
    *,
    what: str,
    hint: str,
    where: str | None = None,
) -> Any:
    """An instance of `types` (`what` says it in words: "an ExecutionConfig")."""
    if not isinstance(value, types):
        raise _refuse(
            f"{field} must be {what}, got {describe_value(value)}", agent, field, hint, where=where
        )
    return value


def checked_callable(
    value: Any, agent: str | None, field: str, hint: str, *, where: str | None = None
) -> Any:
    """A function (or any callable that is not a class)."""
    if not callable(value) or isinstance(value, type):
        raise _refuse(
            f"{field} must be a function, got {describe_value(value)}",
            agent,
            field,
            hint,
            where=where,
        )
    return value


def checked_exceptions(on: Any, agent: str | None) -> tuple[type[Exception], ...]:
    """`on`: an exception class or a non-empty tuple/list of them (Exception subclasses: only
    those reach ADK's error callbacks)."""
    hint = (
        "on=TimeoutError, or on=(TimeoutError, ConnectionError); the default on=(Exception,) "
        "handles every error."
    )
    classes = (on,) if isinstance(on, type) else on
    if isinstance(classes, tuple | list) and not classes:
        raise _refuse("on is empty, so no error would ever be handled", agent, "on", hint)
    if not isinstance(classes, tuple | list):
        raise _refuse(
            f"on must be an exception class or a tuple of them, got {describe_value(on)}",
            agent,
            "on",
            hint,
        )
    for item in classes:
        if not (isinstance(item, type) and issubclass(item, Exception)):
            what = (
                f"{item.__name__} is not an Exception subclass (ADK never hands it to an error "
                "callback)"
                if isinstance(item, type) and issubclass(item, BaseException)
                else f"{describe_value(item)} is not an exception class"
            )
            raise _refuse(f"on: {what}", agent, "on", hint)
    return tuple(classes)


def checked_function(
    value: Any,
    agent: str | None,
    field: str,
    *,
    takes: int,
    what: str,
    hint: str,
    classes: bool = True,
) -> Any:
    """A callable that can be called with `takes` positional arguments (defaults and *args are
    fine; one whose signature Python cannot read is accepted); `classes=False` refuses a class
    (a predicate). `what` names it in the message: "S.guard(predicate)", "tap(fn)"."""
    if not callable(value) or (isinstance(value, type) and not classes):
        raise _refuse(f"{what} needs a function, got {describe_value(value)}", agent, field, hint)
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return value
    try:
        signature.bind(*range(takes))
    except TypeError:
        params = ", ".join(signature.parameters) or "nothing"
        name = getattr(value, "__name__", type(value).__name__)
        raise _refuse(
            f"{what} is called with {takes} argument(s), but {name}({params}) cannot take that",
            agent,
            field,
            hint,
        ) from None
    return value


def checked_some(
    values: Any,
    agent: str | None,
    field: str | None,
    *,
    shown: str,
    items: str,
    hint: str,
    least: int = 1,
) -> Any:
    """A collection of at least `least` items: "S.pick() needs at least one key" (`shown` is
    the call as the user wrote it, `items` what it takes, singular)."""
    if len(values) < least:
        count = {1: "one", 2: "two"}.get(least, str(least)) + f" {items}"
        raise _refuse(f"{shown} needs at least {count}{'s' * (least > 1)}", agent, field, hint)
    return values
