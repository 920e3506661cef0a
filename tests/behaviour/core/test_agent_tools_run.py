"""Agents as tools through the real Runner: `.tool(builder)`, `.agent_tool(builder, ...)`,
`AgentTool(...)` in `.tools(...)` and ADK's own `AgentTool(agent=native)`. The inner agents are
scripted (the run never reaches a real model), the caller's model gets the inner agent's answer as
the function response, the inner agent's state writes reach the caller's session and its store,
and the inner agent's own events stay in its sub-run (never in the caller's stored session)."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.artifacts import InMemoryArtifactService
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.agent_tool import AgentTool as AdkAgentTool
from google.genai import types

from adk_fluent import Agent, AgentTool, ExecutionConfig, Loop, S, exit_when, gate
from adk_fluent.errors import BuildError, DuplicateNameError
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service, system_instruction

APP = "adk_fluent_app"
NATIVE_MODEL = "gemini-2.5-flash"  # a real model name: reaching it offline would fail the test


def function_responses(request) -> list[tuple[str, dict]]:
    """(tool name, response) of every function response in a model request's contents."""
    return [
        (part.function_response.name, part.function_response.response)
        for content in request.contents or []
        for part in content.parts or []
        if part.function_response
    ]


def stamp_topic(callback_context):
    """An inner agent's callback that writes state (not through output_key)."""
    callback_context.state["researched_topic"] = callback_context.state.get("topic", "?")


def researcher() -> Agent:
    return (
        Agent("researcher")
        .instruct("Find facts about {topic}.")
        .outputs("findings")
        .after_agent(stamp_topic)
    )


def plain_researcher() -> Agent:
    return Agent("researcher").instruct("Research.").outputs("findings")


def native_researcher() -> LlmAgent:
    return LlmAgent(
        name="researcher",
        model=NATIVE_MODEL,
        instruction="Find facts about {topic}.",
        output_key="findings",
        after_agent_callback=stamp_topic,
    )


# every way to give an agent to an agent as a tool; each returns (caller, native or None)
WAYS = {
    "tool(builder)": lambda: (Agent("lead").tool(researcher()), None),
    "agent_tool(builder)": lambda: (Agent("lead").agent_tool(researcher()), None),
    "tools(AgentTool(builder))": lambda: (Agent("lead").tools(AgentTool(researcher())), None),
    "tools(builder)": lambda: (Agent("lead").tools(researcher()), None),
    "tool(native LlmAgent)": lambda: _with_native(lambda n: Agent("lead").tool(n)),
    "tool(ADK AgentTool(native))": lambda: _with_native(
        lambda n: Agent("lead").tool(AdkAgentTool(agent=n))
    ),
}


def _with_native(make):
    native = native_researcher()
    return make(native), native


@pytest.fixture(params=["memory", "sqlite"])
def store(request, db_dir):
    return None if request.param == "memory" else f"sqlite:///{db_dir / 'tools.db'}"


async def stored_session(expr, session_id, backend, store):
    """The caller's session as the store holds it (a fresh service on the file for SQLite)."""
    if store is None:
        return await expr.session(session_id, backend=backend)
    return await fresh_db_service(store).get_session(
        app_name=APP, user_id="user", session_id=session_id
    )


@pytest.mark.parametrize("way", list(WAYS))
async def test_an_agent_tool_runs_scripted_and_answers_the_caller(way, store):
    caller, native = WAYS[way]()
    tree = S.set(topic="Mars") >> caller.instruct("Answer with the researcher's help.")
    backend = mock_backend(
        {
            "lead": [call("researcher", request="moons of Mars"), "Mars has two moons."],
            "researcher": "Phobos and Deimos.",
        }
    )
    events = await tree.run("How many moons?", backend=backend, session_id="t", session_store=store)
    backend.assert_consumed()  # the inner agent answered from its script, never from Gemini

    # the caller's model got the inner agent's answer as the function's response
    second = backend.requests["lead"][1]
    assert function_responses(second) == [("researcher", {"result": "Phobos and Deimos."})]
    # the inner agent ran on a copy of the caller's state, and was asked what the caller asked
    inner_request = backend.requests["researcher"][0]
    assert "Find facts about Mars." in system_instruction(inner_request)
    assert [p.text for c in inner_request.contents for p in c.parts if p.text] == ["moons of Mars"]

    # its state writes (output_key and a callback's) come back in the caller's event
    delta = next(e.state_delta for e in events if e.tool_responses)
    assert delta == {"findings": "Phobos and Deimos.", "researched_topic": "Mars"}
    assert events[-1].author == "lead" and events[-1].content == "Mars has two moons."

    session = await stored_session(tree, "t", backend, store)
    assert session.state["findings"] == "Phobos and Deimos."
    assert session.state["researched_topic"] == "Mars"
    # its own events stay in its sub-run: the caller's store has none of them
    authors = [e.author for e in session.events]
    assert "researcher" not in authors
    assert [a for a in authors if a not in ("user",)] == [
        "set_topic",
        "lead",
        "lead",
        "lead",
    ]
    if native is not None:  # the user's native agent keeps its own model and has no parent
        assert native.model == NATIVE_MODEL and native.parent_agent is None


async def test_agent_tool_options_skip_summarization_ends_the_callers_turn():
    caller = Agent("lead").instruct("Delegate the research.")
    tree = caller.agent_tool(plain_researcher(), skip_summarization=True)
    backend = mock_backend(
        {"lead": call("researcher", request="Venus"), "researcher": "Venus is hot."}
    )
    events = await tree.run("Venus?", backend=backend, session_id="skip")
    backend.assert_consumed()  # the caller's model was called once: no summary of the answer
    assert len(backend.requests["lead"]) == 1
    last = events[-1]
    assert last.author == "lead" and last.is_final
    assert [(r.tool_name, r.result) for r in last.tool_responses] == [
        ("researcher", {"result": "Venus is hot."})
    ]
    assert last.state_delta["findings"] == "Venus is hot."


async def test_ask_with_skip_summarization_returns_the_inner_agents_answer_on_every_adk():
    """ADK 2.x puts the tool's text beside the skipped function response and 1.25 does not;
    ask() answers alike on both (run.events.final_text reads the response's result)."""
    tree = (
        Agent("lead").instruct("Delegate.").agent_tool(plain_researcher(), skip_summarization=True)
    )
    backend = mock_backend({"lead": call("researcher", request="Venus"), "researcher": "Hot."})
    text = await tree.ask("Venus?", backend=backend)
    assert text == "Hot."


async def test_agent_tools_nest_two_deep():
    fact_checker = Agent("fact_checker").instruct("Check: {topic}.").outputs("verdict")
    inner = Agent("researcher").instruct("Research {topic}.").outputs("findings").tool(fact_checker)
    tree = S.set(topic="Titan") >> Agent("lead").instruct("Answer.").tool(inner)
    backend = mock_backend(
        {
            "lead": [call("researcher", request="Titan's air"), "Titan's air is thick."],
            "researcher": [call("fact_checker", request="nitrogen?"), "Mostly nitrogen."],
            "fact_checker": "Confirmed.",
        }
    )
    events = await tree.run("Titan?", backend=backend, session_id="deep")
    backend.assert_consumed()
    assert function_responses(backend.requests["researcher"][1]) == [
        ("fact_checker", {"result": "Confirmed."})
    ]
    assert function_responses(backend.requests["lead"][1]) == [
        ("researcher", {"result": "Mostly nitrogen."})
    ]
    assert "Check: Titan." in system_instruction(backend.requests["fact_checker"][0])
    assert events[-1].content == "Titan's air is thick."
    session = await tree.session("deep", backend=backend)
    # the innermost agent's write travels up two sub-runs into the caller's store
    assert session.state["verdict"] == "Confirmed."
    assert session.state["findings"] == "Mostly nitrogen."
    assert {e.author for e in session.events} == {"user", "set_topic", "lead"}


class _ModelCalls(BasePlugin):
    """A user's plugin recording which agents call a model."""

    def __init__(self) -> None:
        super().__init__(name="model_calls")
        self.agents: list[str] = []

    async def before_model_callback(self, *, callback_context, llm_request):
        self.agents.append(callback_context.agent_name)


@pytest.mark.parametrize(
    "options, seen", [({}, ["lead", "researcher", "lead"]), ({"include_plugins": False}, None)]
)
async def test_plugins_reach_the_inner_agents_unless_include_plugins_is_false(options, seen):
    plugin = _ModelCalls()
    tree = Agent("lead").instruct("Answer.").agent_tool(plain_researcher(), **options)
    backend = mock_backend(
        {"lead": [call("researcher", request="q"), "done"], "researcher": "facts"}
    )
    config = ExecutionConfig(plugins=(plugin,))
    await tree.run("q", backend=backend, config=config)
    backend.assert_consumed()
    assert plugin.agents == (seen or ["lead", "lead"])


async def test_one_tool_tree_used_by_two_agents():
    shared = Agent("researcher").instruct("Research.")
    tree = Agent("planner").instruct("Plan.").tool(shared) >> Agent("writer").instruct(
        "Write."
    ).tool(shared)
    backend = mock_backend(
        {
            "planner": [call("researcher", request="plan facts"), "Plan ready."],
            "writer": [call("researcher", request="write facts"), "Text ready."],
            "researcher": ["facts for the plan", "facts for the text"],
        }
    )
    events = await tree.run("go", backend=backend)
    backend.assert_consumed()
    assert function_responses(backend.requests["planner"][1]) == [
        ("researcher", {"result": "facts for the plan"})
    ]
    assert function_responses(backend.requests["writer"][1]) == [
        ("researcher", {"result": "facts for the text"})
    ]
    # the researcher's own replies come too, as the tool's (parent_call_id), before each result
    turn = [e for e in events if e.parent_call_id is None]
    assert [e.content for e in turn if e.is_final] == ["Plan ready.", "Text ready."]


async def test_an_inner_name_that_clashes_with_an_outer_one_is_refused_before_any_model_call():
    tree = Agent("lead").instruct("x").tool(Agent("writer").instruct("inner")) >> Agent("writer")
    backend = mock_backend({"lead": "never", "writer": "never"})
    with pytest.raises(DuplicateNameError) as caught:
        await tree.run("go", backend=backend)
    message = str(caught.value)
    assert "pipeline__lead__writer > lead > writer" in message
    assert "pipeline__lead__writer > writer" in message
    assert backend.requests == {}


async def test_a_gate_inside_an_agent_tool_is_refused_before_any_model_call():
    inner = Agent("drafter").instruct("Draft.") >> gate(lambda s: True, "Send it?", name="send")
    tree = Agent("lead").instruct("x").tool(inner)
    backend = mock_backend({"lead": "never", "drafter": "never"})
    with pytest.raises(BuildError, match="gate 'send' sits inside an agent tool of agent 'lead'"):
        await tree.run("go", backend=backend)
    assert backend.requests == {}


# -- filtered visibility: a plain Runner built from to_app(), as adk web runs it --------------------


async def _plain_runner_turn(tree, backend):
    service = InMemorySessionService()
    runner = Runner(
        app=tree.to_app(backend=backend),
        session_service=service,
        artifact_service=InMemoryArtifactService(),
    )
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    client = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id="s",
            new_message=types.Content(role="user", parts=[types.Part(text="Summarise.")]),
        )
    ]
    session = await service.get_session(app_name=APP, user_id="u", session_id="s")
    return client, session


@pytest.mark.parametrize("way", ["fluent", "runner"])
@pytest.mark.parametrize(
    "inner_kind",
    ["agent", "pipeline", "loop"],
    ids=["one-agent", "pipeline-with-internal-step", "loop-whose-body-is-internal"],
)
async def test_filtered_mode_never_strips_the_inner_answer_inside_the_sub_run(way, inner_kind):
    if inner_kind == "agent":
        inner: Any = Agent("researcher").instruct("Research.").outputs("findings")
        scripts = {"researcher": "inner answer"}
        tool_name = "researcher"
    if inner_kind == "pipeline":  # the first step is internal in the sub-run; the second answers
        inner = (
            Agent("collector").instruct("Collect.").outputs("notes")
            >> Agent("researcher").instruct("Sum up {notes}.").outputs("findings")
        ).named("research")
        scripts = {"collector": "raw notes", "researcher": "inner answer"}
        tool_name = "research"
    if inner_kind == "loop":  # every iteration is internal; the last one's text is the answer
        inner = Loop(
            Agent("researcher").instruct("Refine.").outputs("findings"),
            exit_when(lambda s: s.get("findings") == "inner answer"),
            name="research",
        )
        scripts = {"researcher": ["first try", "inner answer"]}
        tool_name = "research"
    # the caller is internal too: a presenter speaks to the user after it
    tree = (
        Agent("lead").instruct("Use the tool.").tool(inner).outputs("draft")
        >> Agent("presenter").instruct("Present {draft}.")
    ).filtered()
    backend = mock_backend(
        {
            "lead": [call(tool_name, request="go"), "lead's draft"],
            "presenter": "Here it is.",
            **scripts,
        }
    )
    if way == "fluent":
        client = [e.raw for e in await tree.run("Summarise.", backend=backend, session_id="s")]
        session = await tree.session("s", backend=backend)
    else:
        client, session = await _plain_runner_turn(tree, backend)
    backend.assert_consumed()
    assert function_responses(backend.requests["lead"][1]) == [
        (tool_name, {"result": "inner answer"})
    ]
    texts = [p.text for e in client if e.content for p in e.content.parts or [] if p.text]
    assert texts == ["Here it is."]  # the user sees the presenter only
    assert session.state["findings"] == "inner answer"
    assert session.state["draft"] == "lead's draft"


async def test_include_plugins_false_keeps_a_loop_tools_answer_under_a_filtering_plain_runner():
    """No plugin in the sub-run: the tool still answers (and nothing filters inside it)."""
    inner = Loop(
        Agent("researcher").instruct("Refine.").outputs("findings"),
        exit_when(lambda s: s.get("findings") == "inner answer"),
        name="research",
    )
    tree = Agent("lead").instruct("Use the tool.").agent_tool(inner, include_plugins=False)
    backend = mock_backend(
        {
            "lead": [call("research", request="go"), "final"],
            "researcher": ["first try", "inner answer"],
        }
    )
    client, _ = await _plain_runner_turn(tree.filtered(), backend)
    backend.assert_consumed()
    assert function_responses(backend.requests["lead"][1]) == [
        ("research", {"result": "inner answer"})
    ]
    assert [p.text for e in client if e.content for p in e.content.parts if p.text] == ["final"]
