"""adk_fluent.testing: scripted models fail loudly, mock backends reach every agent."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, BuildError
from adk_fluent.errors import ScriptError
from adk_fluent.testing import AgentHarness, ScriptedModel, mock_backend
from tests.conftest import request_texts


async def test_unexpected_extra_call_names_the_agent_and_the_count():
    model = ScriptedModel({"a": ["only one"]})
    agent = Agent("a", model.for_agent("a"))
    await agent.run("first", session_id="x")
    with pytest.raises(
        ScriptError, match=r"unexpected model call #2 by agent 'a': its script has 1 step"
    ):
        await agent.run("second", session_id="x")


async def test_unconsumed_steps_are_reported():
    backend = mock_backend({"a": ["one", "two"]})
    await Agent("a").run("hi", backend=backend)
    with pytest.raises(ScriptError, match=r"agent 'a': 1 left, next 'two'"):
        backend.assert_consumed()


async def test_agent_without_a_script_fails_clearly():
    backend = mock_backend({"a": "x"})
    with pytest.raises(
        ScriptError, match="agent 'b' called the model, but there is no script for it"
    ):
        await (Agent("a") >> Agent("b")).run("hi", backend=backend)


def test_script_for_an_agent_not_in_the_tree_is_refused():
    with pytest.raises(BuildError, match="(?s)agent 'clasifier'.*did you mean 'classifier'"):
        (Agent("classifier") >> Agent("b")).to_runner(backend=mock_backend({"clasifier": "x"}))


async def test_mock_backend_reaches_nested_pipelines_and_branches():
    tree = (
        Agent("a")
        >> ((Agent("b") >> Agent("c")) | Agent("d"))
        >> (Agent("e") // Agent("f"))
        >> Agent("g") * 2
    )
    backend = mock_backend({"a": "A", "b": "B", "c": "C", "d": "D", "e": "E", "g": ["G1", "G2"]})
    events = await tree.run("go", backend=backend)
    assert {e.author for e in events if e.content} == {"a", "b", "c", "d", "e", "g"}
    backend.assert_consumed()


async def test_function_steps_see_the_request():
    backend = mock_backend({"echo": lambda request: "echo: " + request_texts(request)[-1]})
    assert await Agent("echo").ask("ping", backend=backend) == "echo: ping"


async def test_json_steps_for_structured_output():
    from pydantic import BaseModel

    class Intent(BaseModel):
        category: str

    backend = mock_backend({"classifier": {"category": "billing"}})
    agent = Agent("classifier").output_schema(Intent).outputs("intent")
    harness = AgentHarness(agent, backend=backend)
    response = await harness.send("my bill")
    assert response.state["intent"] == {"category": "billing"}


async def test_harness_keeps_one_session():
    backend = mock_backend({"bot": ["first", "second"]})
    harness = AgentHarness(Agent("bot"), backend=backend)
    assert (await harness.send("1")).final_text == "first"
    reply = await harness.send("2")
    assert reply.final_text == "second" and not reply.errors
    texts = request_texts(backend.requests["bot"][1])
    assert "1" in texts and "first" in texts


async def test_pytest_fixture_checks_consumption(mock_adk):
    backend = mock_adk({"bot": "hi"})
    assert await Agent("bot").ask("x", backend=backend) == "hi"
