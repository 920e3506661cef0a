"""The misuse corpus: each case is one wrong use of the public API and the fragments its error
message must contain. A case fails on silent acceptance, on a raw traceback (an exception that
is not adk-fluent's), on a message without its fragments or hint, and on a message long enough
to be a dumped repr.

Each area keeps its cases in its own `test_misuse_<area>.py` as a module-level `CASES` list and
parametrizes `check` over it; `test_corpus_size.py` counts them all.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from adk_fluent.errors import AdkFluentError

MAX_MESSAGE = 900  # characters: a clear paragraph, never an object's whole repr


@dataclass(frozen=True)
class Misuse:
    """One misuse: `attempt()` must raise `error` whose message holds every fragment."""

    id: str
    attempt: Callable[[], Any]
    fragments: tuple[str, ...]
    error: type[BaseException] = AdkFluentError
    needs_hint: bool = True

    def __repr__(self) -> str:
        return self.id


def case(
    id: str,
    attempt: Callable[[], Any],
    *fragments: str,
    error: type[BaseException] = AdkFluentError,
    needs_hint: bool = True,
) -> Misuse:
    """`case("gate-message-none", lambda: gate(message=None), "message", "gate")`."""
    return Misuse(id, attempt, fragments, error, needs_hint)


def check(misuse: Misuse) -> None:
    """Run one case and assert it fails clearly."""
    with pytest.raises(BaseException) as caught:
        result = misuse.attempt()
        if inspect.isawaitable(result):
            asyncio.run(_await(result))
        elif inspect.isasyncgen(result):
            asyncio.run(_drain(result))
    error = caught.value
    assert isinstance(error, misuse.error), (
        f"{misuse.id}: raw {type(error).__name__} instead of {misuse.error.__name__}: {error}"
    )
    text = str(error)
    lowered = text.casefold()
    missing = [f for f in misuse.fragments if f.casefold() not in lowered]
    assert not missing, f"{misuse.id}: message lacks {missing}: {text}"
    if misuse.needs_hint:
        assert "hint" in lowered, f"{misuse.id}: message has no hint: {text}"
    assert len(text) <= MAX_MESSAGE, f"{misuse.id}: message is {len(text)} characters long"


async def _await(awaitable: Any) -> Any:
    return await awaitable


async def _drain(stream: Any) -> None:
    async for _ in stream:
        pass


def ids(cases: list[Misuse]) -> list[str]:
    return [c.id for c in cases]
