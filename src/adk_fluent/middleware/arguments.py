"""Argument checks the built-in middleware share: each returns the value or raises a BuildError
naming the middleware, the parameter and a hint (at the factory's call, where the mistake is)."""

from __future__ import annotations

from typing import Any

from adk_fluent.errors import BuildError, describe_value


def checked_count(value: Any, name: str, field: str, *, least: int, hint: str) -> int:
    """A whole number >= `least` (bools refused), or a BuildError naming the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BuildError(
            f"{field} must be a whole number, got {describe_value(value)}",
            agent=name,
            field=field,
            hint=hint,
        )
    if value < least:
        raise BuildError(
            f"{field}={value} is too small (the least is {least})",
            agent=name,
            field=field,
            hint=hint,
        )
    return value


def checked_seconds(value: Any, name: str, field: str, *, positive: bool, hint: str) -> float:
    """A number of seconds (>= 0, or > 0 when `positive`), bools refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BuildError(
            f"{field} must be a number of seconds, got {describe_value(value)}",
            agent=name,
            field=field,
            hint=hint,
        )
    if value != value or value in (float("inf"), float("-inf")):  # NaN or infinite
        raise BuildError(f"{field} must be finite, got {value}", agent=name, field=field, hint=hint)
    if value < 0 or (positive and value == 0):
        raise BuildError(
            f"{field}={value} must be {'more than' if positive else 'at least'} 0",
            agent=name,
            field=field,
            hint=hint,
        )
    return float(value)


def checked_exceptions(on: Any, name: str) -> tuple[type[Exception], ...]:
    """`on`: an exception class or a non-empty tuple/list of them (Exception subclasses: only
    those reach ADK's error callbacks)."""
    hint = (
        "on=TimeoutError, or on=(TimeoutError, ConnectionError); the default on=(Exception,) "
        "handles every error."
    )
    classes = (on,) if isinstance(on, type) else on
    if isinstance(classes, tuple | list) and not classes:
        raise BuildError(
            "on is empty, so no error would ever be handled",
            agent=name,
            field="on",
            hint=hint,
        )
    if not isinstance(classes, tuple | list):
        raise BuildError(
            f"on must be an exception class or a tuple of them, got {describe_value(on)}",
            agent=name,
            field="on",
            hint=hint,
        )
    for item in classes:
        if not (isinstance(item, type) and issubclass(item, Exception)):
            what = (
                f"{item.__name__} is not an Exception subclass (ADK never hands it to an error "
                "callback)"
                if isinstance(item, type) and issubclass(item, BaseException)
                else f"{describe_value(item)} is not an exception class"
            )
            raise BuildError(f"on: {what}", agent=name, field="on", hint=hint)
    return tuple(classes)


def checked_callable(value: Any, name: str, field: str, hint: str) -> Any:
    """A function (or any callable that is not a class), or a BuildError naming the field."""
    if not callable(value) or isinstance(value, type):
        raise BuildError(
            f"{field} must be a function, got {describe_value(value)}",
            agent=name,
            field=field,
            hint=hint,
        )
    return value
