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
default: the field).
"""

from __future__ import annotations

import inspect
import math
from typing import Any

from adk_fluent.errors import BuildError, describe_value


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


def checked_seconds(
    value: Any,
    agent: str | None,
    field: str,
    *,
    positive: bool,
    hint: str,
    where: str | None = None,
) -> float:
    """A number of seconds (>= 0, or > 0 when `positive`), bools refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _refuse(
            f"{field} must be a number of seconds, got {describe_value(value)}",
            agent,
            field,
            hint,
            where=where,
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
    return float(value)


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
