"""A gate's question always reaches the person who approves: `.hide()` on a composite that holds
a gate hides the agents around it, never the gate; hiding a gate itself is refused at build time."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, FanOut, gate
from adk_fluent.testing import mock_backend
from tests.conftest import system_instruction
from tests.support.gates import turn
from tests.support.visibility import WAYS, hidden_flow, run_turn


@pytest.mark.parametrize("way", WAYS)
async def test_in_filtered_mode_the_client_gets_the_question_and_not_the_hidden_text(
    way, sqlite_url
):
    outcome = await run_turn(
        hidden_flow().filtered(), {"drafter": "refund 20 EUR"}, way=way, store=sqlite_url
    )
    assert outcome.client_text_authors() == ["check"]  # the draft stays internal
    assert "Send it?" in outcome.client_texts()[0][1]
    assert ("drafter", "refund 20 EUR") in outcome.stored_texts()  # nothing lost
    assert outcome.state["draft"] == "refund 20 EUR"


def hidden_fanout_with_a_gate():
    return (
        FanOut(
            Agent("drafter").outputs("draft")
            >> gate(lambda s: True, "Send it?", name="check")
            >> Agent("sender").instruct("Send: {draft}").outputs("sent"),
            Agent("auditor").outputs("audit"),
        )
        .named("work")
        .hide()
    )


@pytest.mark.parametrize("way", WAYS)
async def test_a_gate_in_a_hidden_fanout_asks_the_user_and_resumes_there(way, sqlite_url):
    backend = mock_backend({"drafter": "refund 20 EUR", "auditor": "logged", "sender": "Sent."})
    flow = hidden_fanout_with_a_gate().filtered()
    asked = await turn(flow, backend, "hello", sqlite_url, way=way)
    assert [author for author, _ in asked.texts] == ["check"]  # only the question is shown
    assert "Reply 'approve' or 'yes'" in asked.last_text
    assert asked.state["audit"] == "logged" and asked.state["draft"] == "refund 20 EUR"

    approved = await turn(flow, backend, "approve", sqlite_url, way=way)
    assert approved.texts == []  # the sender is hidden too
    assert approved.state["sent"] == "Sent."
    assert len(backend.requests["auditor"]) == 1  # the finished sibling was not re-run
    assert "Send: refund 20 EUR" in system_instruction(backend.requests["sender"][0])
    backend.assert_consumed()
