"""Native ADK agents in a fluent tree, through the real Runner: a custom BaseAgent in a loop (its
escalation ends the loop), between fluent agents in a pipeline, in a FanOut, as a transfer
target and as an agent tool; one builder built twice; LLM agents a custom agent holds in its
fields or sub-agents get scripted models without the user's instances changing; ADK's own
LlmAgent / SequentialAgent instances run as the fluent agents they are read into."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent, LlmAgent, SequentialAgent
from google.adk.events import Event, EventActions
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, Loop, Native
from adk_fluent.adk.compat import quiet_workflow_deprecation
from adk_fluent.testing import call, mock_backend
from tests.conftest import system_instruction

NATIVE_MODEL = "gemini-2.5-flash"  # a real model name: reaching it offline would fail the test


def _event(agent: BaseAgent, ctx, text: str, **actions) -> Event:
    return Event(
        author=agent.name,
        invocation_id=ctx.invocation_id,
        branch=ctx.branch,
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(**actions),
    )


class VerdictChecker(BaseAgent):
    """Ends the loop around it (escalates) once state['verdict'] is 'approve'."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        approved = ctx.session.state.get("verdict") == "approve"
        yield _event(self, ctx, "approved" if approved else "not yet", escalate=approved)


class Stamper(BaseAgent):
    """Writes state['stamp'] and says so."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        yield _event(self, ctx, "stamped", state_delta={"stamp": "checked-by-stamper"})


class Planner(BaseAgent):
    """Holds an LLM agent in a field of its own (not in sub_agents) and runs it."""

    drafter: LlmAgent

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        async for event in self.drafter.run_async(ctx):
            yield event


class FirstChild(BaseAgent):
    """Runs its first sub-agent (an LLM agent it holds as a sub-agent)."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        async for event in self.sub_agents[0].run_async(ctx):
            yield event


async def test_a_custom_checker_that_escalates_ends_a_loop_without_max():
    loop = Loop(
        Agent("reviewer").instruct("Reply approve or revise.").outputs("verdict"),
        VerdictChecker(name="checker"),
    )
    assert loop.build(target="classic").max_iterations is None
    backend = mock_backend({"reviewer": ["revise", "revise", "approve"]})
    events = await loop.run("Review my essay.", backend=backend)
    backend.assert_consumed()  # three iterations, not one more
    assert [(e.author, e.content, e.escalate) for e in events] == [
        ("reviewer", "revise", False),
        ("checker", "not yet", False),
        ("reviewer", "revise", False),
        ("checker", "not yet", False),
        ("reviewer", "approve", False),
        ("checker", "approved", True),  # the escalation reaches the caller
    ]


async def test_a_custom_agent_between_fluent_agents_in_a_pipeline():
    tree = (
        Agent("intake").instruct("Restate the request.").outputs("request")
        >> Stamper(name="stamper")
        >> Agent("reporter").instruct("Report {request}, stamp {stamp}.")
    )
    backend = mock_backend({"intake": "refund order 7", "reporter": "Done."})
    events = await tree.run("Refund order 7", backend=backend, session_id="p")
    backend.assert_consumed()
    assert [(e.author, e.content) for e in events] == [
        ("intake", "refund order 7"),
        ("stamper", "stamped"),
        ("reporter", "Done."),
    ]
    # the custom agent's state write reached the next agent's instruction and the store
    assert "Report refund order 7, stamp checked-by-stamper." in system_instruction(
        backend.requests["reporter"][0]
    )
    session = await tree.session("p", backend=backend)
    assert session.state["stamp"] == "checked-by-stamper"


async def test_a_custom_agent_as_a_fanout_branch():
    tree = Agent("summary").instruct("Summarise.").outputs("summary") | Stamper(name="stamper")
    backend = mock_backend({"summary": "short"})
    events = await tree.run("text", backend=backend, session_id="f")
    backend.assert_consumed()
    assert sorted((e.author, e.content) for e in events) == [
        ("stamper", "stamped"),
        ("summary", "short"),
    ]
    state = (await tree.session("f", backend=backend)).state
    assert (state["summary"], state["stamp"]) == ("short", "checked-by-stamper")


async def test_a_custom_agent_as_a_transfer_target():
    tree = Agent("router").instruct("Hand over to the stamper.").delegate(Stamper(name="stamper"))
    backend = mock_backend({"router": call("transfer_to_agent", agent_name="stamper")})
    events = await tree.run("stamp it", backend=backend)
    backend.assert_consumed()
    assert [(e.author, e.transfer_to, e.content) for e in events] == [
        ("router", None, None),
        ("router", "stamper", None),
        ("stamper", None, "stamped"),
    ]


async def test_a_custom_agent_as_an_agent_tool():
    tree = Agent("lead").instruct("Stamp, then answer.").tool(Stamper(name="stamper"))
    backend = mock_backend({"lead": [call("stamper", request="please"), "It is stamped."]})
    events = await tree.run("go", backend=backend, session_id="t")
    backend.assert_consumed()
    responses = [
        (p.function_response.name, p.function_response.response)
        for c in backend.requests["lead"][1].contents
        for p in c.parts
        if p.function_response
    ]
    assert responses == [("stamper", {"result": "stamped"})]
    assert events[-1].content == "It is stamped."
    session = await tree.session("t", backend=backend)
    assert session.state["stamp"] == "checked-by-stamper"
    assert "stamper" not in {e.author for e in session.events}


async def _plain_turn(app) -> list[Event]:
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    await service.create_session(app_name=app.name, user_id="u", session_id="s")
    return [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id="s",
            new_message=types.Content(role="user", parts=[types.Part(text="go")]),
        )
    ]


async def test_one_builder_with_a_custom_agent_built_twice_runs_twice():
    """ADK gives an agent one parent for life: each build places a copy, never the instance."""
    stamper = Stamper(name="stamper")
    tree = stamper >> Agent("reporter").instruct("Stamp: {stamp}.")
    first, second = mock_backend({"reporter": "one"}), mock_backend({"reporter": "two"})
    app_1 = tree.to_app(backend=first, target="classic")
    app_2 = tree.to_app(backend=second, target="classic")
    texts_1 = [e.content.parts[0].text for e in await _plain_turn(app_1) if e.content]
    texts_2 = [e.content.parts[0].text for e in await _plain_turn(app_2) if e.content]
    assert texts_1 == ["stamped", "one"] and texts_2 == ["stamped", "two"]
    assert stamper.parent_agent is None
    assert app_1.root_agent.sub_agents[0] is not app_2.root_agent.sub_agents[0]


@pytest.mark.parametrize("holds", ["field", "sub_agents"])
async def test_llm_agents_inside_a_custom_agent_get_scripted_models_the_users_stay(holds):
    drafter = LlmAgent(
        name="drafter", model=NATIVE_MODEL, instruction="Draft a reply.", output_key="draft"
    )
    if holds == "field":
        custom: BaseAgent = Planner(name="planner", drafter=drafter)
    else:
        custom = FirstChild(name="planner", sub_agents=[drafter])
    tree = custom >> Agent("editor").instruct("Polish: {draft}")
    backend = mock_backend({"drafter": "a rough draft", "editor": "A polished draft."})
    events = await tree.run("Reply to the customer.", backend=backend)
    backend.assert_consumed()  # the drafter answered from its script, never from Gemini
    assert [(e.author, e.content) for e in events] == [
        ("drafter", "a rough draft"),
        ("editor", "A polished draft."),
    ]
    assert "Polish: a rough draft" in system_instruction(backend.requests["editor"][0])
    # the user's instances are untouched: same model, same parent, same children
    assert drafter.model == NATIVE_MODEL
    assert custom.parent_agent is None
    if holds == "field":
        assert custom.drafter is drafter
    else:
        assert custom.sub_agents == [drafter] and drafter.parent_agent is custom


def _native_pair() -> tuple[LlmAgent, SequentialAgent]:
    summariser = LlmAgent(
        name="summariser",
        model=NATIVE_MODEL,
        description="Summarises notes.",
        instruction="Summarise {notes}.",
        output_key="summary",
    )
    with quiet_workflow_deprecation():  # ADK 2.x deprecates SequentialAgent
        follow_up = SequentialAgent(
            name="follow_up",
            sub_agents=[
                LlmAgent(name="titler", model=NATIVE_MODEL, instruction="Title {summary}.")
            ],
        )
    return summariser, follow_up


async def test_adk_agents_in_a_fluent_tree_run_scripted_and_keep_their_models():
    summariser, follow_up = _native_pair()
    tree = Agent("noter").instruct("Take notes.").outputs("notes") >> summariser >> follow_up
    backend = mock_backend({"noter": "n1, n2", "summariser": "two notes", "titler": "Two Notes"})
    events = await tree.run("Meeting", backend=backend, session_id="n")
    backend.assert_consumed()
    assert [(e.author, e.content) for e in events] == [
        ("noter", "n1, n2"),
        ("summariser", "two notes"),
        ("titler", "Two Notes"),
    ]
    assert "Summarise n1, n2." in system_instruction(backend.requests["summariser"][0])
    assert "Title two notes." in system_instruction(backend.requests["titler"][0])
    assert (await tree.session("n", backend=backend)).state["summary"] == "two notes"
    assert summariser.model == NATIVE_MODEL and summariser.parent_agent is None
    assert follow_up.sub_agents[0].model == NATIVE_MODEL


async def test_native_with_declarations_runs_like_the_bare_agent():
    tree = Native(Stamper(name="stamper")).writes("stamp") >> Agent("reporter").instruct(
        "Stamp: {stamp}."
    )
    backend = mock_backend({"reporter": "ok"})
    events = await tree.run("go", backend=backend)
    backend.assert_consumed()
    assert [(e.author, e.content) for e in events] == [("stamper", "stamped"), ("reporter", "ok")]
