"""repeat(): one rule answers a long conversation through the real Runner, without `[rule] * N`."""

from __future__ import annotations

import pytest

from adk_fluent import Agent
from adk_fluent.errors import ScriptError
from adk_fluent.testing import AgentHarness, call, mock_backend, repeat
from tests.conftest import request_texts


def track(order_id: str) -> dict:
    """Where an order is."""
    return {"order": order_id, "status": "in transit"}


async def test_a_repeated_tool_round_serves_every_turn_of_a_long_session():
    desk = Agent("desk").instruct("Track orders.").tool(track)
    backend = mock_backend({"desk": repeat(call("track", order_id="A7"), "It is in transit.")})
    harness = AgentHarness(desk, backend=backend)
    for turn in range(6):
        response = await harness.send(f"Where is my order? ({turn})")
        assert response.final_text == "It is in transit."
        assert not response.errors
    assert len(backend.requests["desk"]) == 12  # a tool call and an answer per turn
    backend.assert_consumed()


async def test_a_function_rule_in_a_repeat_answers_from_each_request():
    def echo(request) -> str:
        return "you said: " + request_texts(request)[-1]

    parrot = Agent("parrot").instruct("Repeat the user.")
    backend = mock_backend({"parrot": repeat(echo)})
    harness = AgentHarness(parrot, backend=backend)
    replies = [(await harness.send(text)).final_text for text in ("one", "two", "three")]
    assert replies == ["you said: one", "you said: two", "you said: three"]
    backend.assert_consumed()


async def test_a_counted_repeat_then_a_closing_answer():
    agent = Agent("counter").instruct("Count.")
    backend = mock_backend({"counter": [repeat("still counting", times=2), "done"]})
    harness = AgentHarness(agent, backend=backend)
    replies = [(await harness.send("next")).final_text for _ in range(3)]
    assert replies == ["still counting", "still counting", "done"]
    backend.assert_consumed()
    with pytest.raises(ScriptError, match="unexpected model call #4 by agent 'counter'"):
        await harness.send("next")


async def test_an_endless_repeat_is_consumed_once_used_and_reported_when_never_used():
    searcher = Agent("searcher").instruct("Search.")
    planner = Agent("planner").instruct("Plan.").tool(searcher)
    used = mock_backend(
        {"planner": [call("searcher", request="x"), "Planned."], "searcher": repeat("Found.")}
    )
    assert await planner.ask("plan", backend=used) == "Planned."
    used.assert_consumed()  # answered once: an endless repeat asks no more

    never = mock_backend({"planner": "Planned without searching.", "searcher": repeat("Found.")})
    assert await planner.ask("plan", backend=never) == "Planned without searching."
    with pytest.raises(ScriptError, match=r"agent 'searcher': 1 left, next repeat\('Found.'"):
        never.assert_consumed()
