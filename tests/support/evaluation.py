"""A booking pipeline for the evaluation tests, and a scripted backend that answers by what the
user asked (so cases can run in any order, concurrently): "Paris" / "Rome" / "Oslo" in the
conversation books that city (the `book` tool), "refund" calls `refund`, anything else asks
which city. The classifier says "booking" or "refund" by the same rule."""

from __future__ import annotations

from typing import Any

from adk_fluent import Agent
from adk_fluent.testing import call, mock_backend, repeat

CITIES = ("Paris", "Rome", "Oslo")


def book(city: str, date: str = "soon") -> str:
    """Book a trip; the reference says which city."""
    return f"BK-{city[:3].upper()}-001"


def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def _conversation(request: Any) -> str:
    return " ".join(part.text or "" for content in request.contents for part in content.parts or [])


def classify(request: Any) -> str:
    return "refund" if "refund" in _conversation(request).casefold() else "booking"


def answer(request: Any) -> Any:
    """The booker's reply to one model call, from what the conversation holds."""
    last = request.contents[-1]
    if any(part.function_response for part in last.parts or []):
        response = next(p.function_response for p in last.parts if p.function_response)
        result = response.response.get("result", "")
        return f"Done: {result}. Your trip is booked."
    text = _conversation(request)
    if "refund" in text.casefold():
        return call("refund", order="A-17")
    for city in CITIES:
        if city in text:
            return call("book", city=city, date="2026-12-01")
    return "Which city would you like?"


def booking_pipeline() -> Any:
    """classifier (writes `intent`) >> booker (tools book / refund, writes `reply`)."""
    return Agent("classifier").instruct("Classify the request.").outputs("intent") >> Agent(
        "booker"
    ).instruct("Help with the {intent}.").tool(book).tool(refund).outputs("reply")


def booking_backend() -> Any:
    """A fresh scripted backend (its request log is per backend: one per test)."""
    return mock_backend({"classifier": repeat(classify), "booker": repeat(answer)})
