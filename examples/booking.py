"""The example pipeline: a classifier names the intent, a booker acts on it with a tool.

`pipeline` is an ordinary adk-fluent expression: run it (examples/demo.py), or import it as
`examples.booking:pipeline` and compile it with `pipeline.to_app()` for ADK's own tools.
"""

import os

from adk_fluent import Agent

MODEL = os.environ.get("ADK_FLUENT_DEMO_MODEL", "gemini-2.5-flash")


def book(city: str) -> dict:
    """Book a trip to `city`; returns the booking reference."""
    return {"status": "booked", "city": city, "reference": f"BK-{city[:3].upper()}-001"}


classifier = (
    Agent("classifier", MODEL)
    .instruct("Classify the user's request. Answer with one word: booking or info.")
    .outputs("intent")
)
booker = (
    Agent("booker", MODEL)
    .instruct(
        "The request's intent is {intent}. For a booking, book the trip with the `book` tool"
        " and confirm it in one sentence that gives the reference; otherwise answer briefly."
    )
    .tool(book)
    .outputs("confirmation")
)
# filtered: the client gets the booker's answer, not the classifier's label (which stays in the
# session's history and in state["intent"]).
pipeline = (classifier >> booker).filtered()
