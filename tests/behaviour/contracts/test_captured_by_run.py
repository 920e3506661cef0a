"""CapturedBy through the real Runner: a tree the checker finds in agreement with its schema's
producers stores each field from the producer named (the capture step holds the user's words,
the classifier's reply the intent), and the marker changes nothing a run does, a typed write
from a tool included."""

from __future__ import annotations

from typing import Annotated

import pytest

from adk_fluent import Agent, C, CapturedBy, StateSchema, check_contracts
from adk_fluent.testing import call, mock_backend
from tests.support.gates import WAYS, turn


class Desk(StateSchema):
    user_message: Annotated[str, CapturedBy(C.capture)]
    intent: Annotated[str, CapturedBy("classifier")]
    ticket_id: Annotated[str, CapturedBy("reply")] = ""


def open_ticket(tool_context) -> str:
    """Open a ticket for the request."""
    Desk.bind(tool_context).ticket_id = "T-7"
    return "T-7"


def desk():
    return (
        C.capture("user_message")
        >> Agent("classifier").instruct("Classify the request.").outputs("intent")
        >> Agent("reply").instruct("Help with {user_message} ({intent}).").tool(open_ticket)
    )


@pytest.mark.parametrize("way", WAYS)
async def test_the_declared_producers_are_what_the_store_holds(way, sqlite_url):
    report = check_contracts(desk(), schema=Desk)
    assert not {"captured-by-other", "captured-by-missing"} & set(report.codes())
    backend = mock_backend(
        {"classifier": "billing", "reply": [call("open_ticket"), "Ticket T-7 is open."]}
    )
    result = await turn(desk(), backend, "I was charged twice", sqlite_url, way=way)
    assert result.state["user_message"] == "I was charged twice"
    assert result.state["intent"] == "billing"
    assert result.state["ticket_id"] == "T-7"
    assert result.said_by("reply") == ["Ticket T-7 is open."]
