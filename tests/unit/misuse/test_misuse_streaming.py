"""Misuse of streaming: the `streamed(...)` script step and the `streaming=` run option. Each
case fails when it is written (or when `stream()` is called), naming the field, with a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent
from adk_fluent.testing import streamed
from tests.support.misuse import case, check, ids


def _stream(**options):
    return lambda: Agent("writer").instruct("Write.").stream("hi", **options)


CASES = [
    case("streamed-no-chunks", lambda: streamed(), "streamed()", "at least one chunk", "chunks"),
    case("streamed-chunk-not-text", lambda: streamed("a", 3), "chunk #2", "3", "text"),
    case("streamed-empty-chunk", lambda: streamed("a", ""), "chunk #2", "non-empty"),
    case("streamed-list-of-chunks", lambda: streamed(["a", "b"]), "chunk #1", "list", "*chunks"),
    case("streamed-gap-negative", lambda: streamed("a", gap=-1), "gap", "-1", "at least 0"),
    case("streamed-gap-text", lambda: streamed("a", gap="fast"), "gap", "'fast'", "seconds"),
    case("streamed-gap-bool", lambda: streamed("a", gap=True), "gap", "True"),
    case("streamed-gap-nan", lambda: streamed("a", gap=float("nan")), "gap", "nan"),
    case("streamed-error-text", lambda: streamed("a", error="boom"), "error", "exception"),
    case(
        "streamed-error-class",
        lambda: streamed("a", error=RuntimeError),
        "error",
        "RuntimeError",
        "exception",
    ),
    case("stream-mode-upper-case", _stream(streaming="SSE"), "streaming", "'sse'"),
    case("stream-mode-bidi", _stream(streaming="bidi"), "streaming", "'none', 'sse'"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
