"""The contract corpus: broken pipelines with the diagnostics they must produce, and correct
ones that must produce no error and no warning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """One corpus pipeline: how to build it, what the checker must say, with which options."""

    build: Callable[[], Any]
    expect: tuple[str, ...] = ()  # issue codes that must appear (broken cases)
    where: str = ""  # the node kinds / features the mistake sits in
    options: dict[str, Any] = field(default_factory=dict)


def collector(into: dict[str, Case]) -> Callable[..., Callable[[Callable[[], Any]], Any]]:
    """A decorator registering `fn` (a pipeline factory) under its name."""

    def register(
        *expect: str, where: str = "", **options: Any
    ) -> Callable[[Callable[[], Any]], Any]:
        def decorate(fn: Callable[[], Any]) -> Callable[[], Any]:
            into[fn.__name__] = Case(fn, tuple(expect), where, options)
            return fn

        return decorate

    return register
