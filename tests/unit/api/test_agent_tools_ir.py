"""Agents as tools in the IR and in the compiled tree (pure: no Runner). Every way to give an
agent to an agent as a tool gives the same AgentToolSpec (the inner tree as IR, ADK's options as
given), compiles to ADK's AgentTool around a native agent equal to the inner tree built alone,
and leaves the builders and the user's native agents as they were."""

from __future__ import annotations

import pytest
from google.adk.agents import LlmAgent
from google.adk.tools.agent_tool import AgentTool as AdkAgentTool

from adk_fluent import Agent, AgentTool, Pipeline, gate
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import AgentToolSpec, iter_paths


def search(query: str) -> str:
    """Search the web."""
    return query


def researcher() -> Agent:
    return Agent("researcher").instruct("Research {topic}.").outputs("findings")


def native_researcher() -> LlmAgent:
    return LlmAgent(
        name="researcher",
        model="gemini-2.5-flash",
        instruction="Research {topic}.",
        output_key="findings",
    )


def _dump(agent) -> dict:
    return agent.model_dump(exclude={"parent_agent", "sub_agents", "model"})


SAME_SPEC = {
    "tool(builder)": lambda: Agent("lead").tool(researcher()),
    "agent_tool(builder)": lambda: Agent("lead").agent_tool(researcher()),
    "tools(AgentTool(builder))": lambda: Agent("lead").tools(AgentTool(researcher())),
    "agent_tool(AgentTool(builder))": lambda: Agent("lead").agent_tool(AgentTool(researcher())),
    "tools(builder)": lambda: Agent("lead").tools(researcher()),
}


@pytest.mark.parametrize("way", list(SAME_SPEC))
def test_every_way_gives_one_agent_tool_spec_holding_the_inner_tree(way):
    node = SAME_SPEC[way]().to_ir()
    assert node.tools == (AgentToolSpec(researcher().to_ir(), ()),)
    assert node.tools[0].name == "researcher"
    assert node.attached == (researcher().to_ir(),)
    # the caller's own keys are its own: the inner agent's reads and writes stay inside the tool
    assert (node.reads_keys, node.writes_keys) == (frozenset(), frozenset())


@pytest.mark.parametrize("way", list(SAME_SPEC))
def test_every_way_compiles_to_adks_agent_tool_around_the_inner_agent(way):
    lead = SAME_SPEC[way]().build()
    (tool,) = lead.tools
    assert type(tool) is AdkAgentTool
    assert tool.name == "researcher" and tool.skip_summarization is False
    assert _dump(tool.agent) == _dump(researcher().build())
    assert tool.agent.parent_agent is None  # the inner agent is a root of its own sub-run


def test_options_are_kept_as_given_and_reach_adks_agent_tool():
    caller = Agent("lead").agent_tool(researcher(), skip_summarization=True, include_plugins=False)
    spec = caller.to_ir().tools[0]
    assert spec.options == (("include_plugins", False), ("skip_summarization", True))
    tool = caller.build().tools[0]
    assert (tool.skip_summarization, tool.include_plugins) == (True, False)
    assert AgentTool(researcher(), skip_summarization=True).options == {"skip_summarization": True}
    assert repr(AgentTool(researcher(), skip_summarization=True)) == (
        "AgentTool('researcher', skip_summarization=True)"
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda n: Agent("lead").tool(n),
        lambda n: Agent("lead").tool(AdkAgentTool(agent=n)),
        lambda n: Agent("lead").tools(AdkAgentTool(agent=n)),
    ],
    ids=["tool(native)", "tool(ADK AgentTool)", "tools(ADK AgentTool)"],
)
def test_a_native_agent_or_adks_agent_tool_becomes_the_same_spec(make):
    native = native_researcher()
    node = make(native).to_ir()
    (spec,) = node.tools
    assert isinstance(spec, AgentToolSpec) and spec.options == ()
    inner = spec.agent
    assert (inner.name, inner.instruction, inner.output_key) == (
        "researcher",
        "Research {topic}.",
        "findings",
    )
    assert (inner.reads_keys, inner.writes_keys) == ({"topic"}, {"findings"})
    built = make(native).build().tools[0]
    assert _dump(built.agent) == _dump(native) and built.agent.model == "gemini-2.5-flash"
    assert built.agent is not native and native.parent_agent is None


def test_adks_agent_tool_options_that_differ_from_the_defaults_are_read():
    tool = AdkAgentTool(agent=native_researcher(), skip_summarization=True)
    spec = Agent("lead").tool(tool).to_ir().tools[0]
    assert spec.options == (("skip_summarization", True),)
    assert Agent("lead").tool(tool).build().tools[0].skip_summarization is True


def test_function_tools_and_agent_tools_mix_in_order():
    node = Agent("lead").tool(search).tool(researcher()).to_ir()
    assert node.tools[0] is search and isinstance(node.tools[1], AgentToolSpec)
    built = Agent("lead").tool(search).tool(researcher()).build()
    assert [getattr(t, "name", getattr(t, "__name__", None)) for t in built.tools] == [
        "search",
        "researcher",
    ]


def test_tool_leaves_the_caller_and_the_inner_builder_as_they_were():
    caller, inner = Agent("lead").instruct("x"), researcher()
    with_tool = caller.tool(inner)
    assert caller.to_ir() == Agent("lead").instruct("x").to_ir()
    assert inner.to_ir() == researcher().to_ir()
    assert with_tool.to_ir() != caller.to_ir()


def test_each_build_places_new_inner_agents():
    caller = Agent("lead").tool(researcher())
    first, second = caller.build().tools[0].agent, caller.build().tools[0].agent
    assert first is not second and _dump(first) == _dump(second)


def test_the_inner_tree_is_walked_after_the_callers_children():
    inner = Pipeline(researcher(), Agent("checker"), name="research")
    tree = Agent("lead").tool(inner).delegate(Agent("helper")) >> Agent("presenter")
    root = tree.to_ir()
    assert [n.name for n in root.walk()] == [
        "pipeline__lead__presenter",
        "lead",
        "helper",
        "research",
        "researcher",
        "checker",
        "presenter",
    ]
    paths = {node.name: " > ".join(path) for path, node in iter_paths(root)}
    assert paths["checker"] == "pipeline__lead__presenter > lead > research > checker"


def test_a_composite_inner_tree_is_named_by_its_name_and_compiles_whole():
    inner = Pipeline(researcher(), Agent("checker"), name="research")
    tool = Agent("lead").tool(inner).build().tools[0]
    assert tool.name == "research"
    assert [a.name for a in tool.agent.sub_agents] == ["researcher", "checker"]


def test_a_gate_inside_an_agent_tool_is_refused_at_build():
    inner = researcher() >> gate(lambda s: True, "Publish?", name="publish")
    with pytest.raises(BuildError) as caught:
        Agent("lead").tool(inner).build()
    message = str(caught.value)
    assert "gate 'publish' sits inside an agent tool of agent 'lead'" in message
    assert "sub-run" in message and "move the gate out of the agent" in message


def test_a_gate_two_tools_deep_is_refused_naming_the_agent_that_calls_it():
    deepest = Agent("drafter") >> gate(lambda s: True, "Send?", name="send")
    tree = Agent("lead").tool(Agent("middle").tool(deepest))
    with pytest.raises(BuildError, match="gate 'send' sits inside an agent tool of agent 'middle'"):
        tree.build()


def refund(order: str) -> dict:
    """Refund an order."""
    return {"refunded": order}


def test_a_confirmed_function_tool_inside_an_agent_tool_is_refused_at_build():
    inner = Agent("refunder").instruct("Refund.").tool(refund, require_confirmation=True)
    with pytest.raises(BuildError, match="agent tool"):
        Agent("lead").tool(inner).build()
