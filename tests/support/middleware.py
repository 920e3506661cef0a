"""Helpers the middleware tests share: a user message, an event's text, a sleep that waits for
nothing (retry and rate-limiter tests hand it in so no test waits on the clock)."""

from __future__ import annotations

from typing import Any

from google.genai import types


def user(text: str) -> types.Content:
    """A user message with one text part."""
    return types.Content(role="user", parts=[types.Part(text=text)])


def text_of(event: Any) -> str | None:
    """An ADK event's text parts joined, or None when it has none."""
    parts = event.content.parts if event.content else None
    texts = [p.text for p in parts or [] if p.text]
    return "".join(texts) if texts else None


async def no_wait(seconds: float) -> None:
    """A `sleep=` that returns at once."""
    return None
