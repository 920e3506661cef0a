"""Native ADK agents in the IR and in the compiled tree (pure: no Runner). ADK's own LlmAgent /
SequentialAgent / ParallelAgent / LoopAgent instances are read field by field (their
instruction and output_key are the IR's reads_keys / writes_keys) and compile to equal agents;
a custom BaseAgent becomes a NativeAgentNode naming the agents inside it and compiles to a copy;
`Native(agent).reads() / .writes()` and composites' `.reads() / .writes()` reach the IR."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest
from adk_fluent_generated.ir_nodes import LoopAgentNode, ParallelAgentNode, SequentialAgentNode
from google.adk.agents import BaseAgent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from google.adk.events import Event

from adk_fluent import Agent, FanOut, Loop, Native, Pipeline, StateSchema, check_contracts
from adk_fluent.adk.compat import quiet_workflow_deprecation
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import LlmAgentNode, NativeAgentNode

MODEL = "gemini-2.5-flash"


class Checker(BaseAgent):
    """A custom agent (its own code: adk-fluent cannot read what it does)."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        if False:  # pragma: no cover - never run in the unit tier
            yield


class Planner(BaseAgent):
    drafter: LlmAgent

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        if False:  # pragma: no cover
            yield


def summariser() -> LlmAgent:
    return LlmAgent(
        name="summariser",
        model=MODEL,
        description="Summarises notes.",
        instruction="Summarise {notes} for {user:name?}.",
        output_key="summary",
        include_contents="none",
    )


def _fields(agent) -> dict:
    """An agent's fields without its place in a tree (parent and children compared apart)."""
    return agent.model_dump(exclude={"parent_agent", "sub_agents"})


def _same(native, compiled) -> None:
    assert type(compiled) is type(native)
    assert _fields(compiled) == _fields(native)
    assert [a.name for a in compiled.sub_agents] == [a.name for a in native.sub_agents]
    for mine, theirs in zip(native.sub_agents, compiled.sub_agents, strict=True):
        _same(mine, theirs)


def test_an_adk_llm_agent_is_read_field_by_field():
    node = Agent("noter").outputs("notes") >> summariser()
    ir = node.to_ir().children[1]
    assert type(ir) is LlmAgentNode
    assert (ir.name, ir.model, ir.description) == ("summariser", MODEL, "Summarises notes.")
    assert ir.reads_keys == {"notes", "user:name"}
    assert ir.writes_keys == {"summary"}
    assert ir.include_contents == "none"


def test_adk_agents_in_a_fluent_tree_compile_to_equal_agents():
    with quiet_workflow_deprecation():
        seq = SequentialAgent(
            name="seq",
            description="two steps",
            sub_agents=[summariser(), LlmAgent(name="titler", model=MODEL, instruction="T")],
        )
        par = ParallelAgent(name="par", sub_agents=[LlmAgent(name="p1", model=MODEL)])
        loop = LoopAgent(
            name="loop", max_iterations=2, sub_agents=[LlmAgent(name="l1", model=MODEL)]
        )
    tree = Agent("first").instruct("x") >> seq >> par >> loop
    ir = tree.to_ir()
    assert [type(c) for c in ir.children[1:]] == [
        SequentialAgentNode,
        ParallelAgentNode,
        LoopAgentNode,
    ]
    compiled = tree.build().sub_agents
    for native, built in zip((seq, par, loop), compiled[1:], strict=True):
        _same(native, built)
        assert built is not native
    assert seq.parent_agent is None and seq.sub_agents[0].parent_agent is seq  # untouched


def test_an_agent_with_a_native_parent_can_still_be_used():
    inner = summariser()
    with quiet_workflow_deprecation():
        SequentialAgent(name="elsewhere", sub_agents=[inner])  # inner now has a parent
    built = (Agent("noter") >> inner).build()
    _same(inner, built.sub_agents[1])
    assert built.sub_agents[1].parent_agent is built


def test_a_native_delegate_and_a_native_step_are_the_same_ir_as_native():
    agent = summariser()
    assert (Agent("router").delegate(agent).to_ir().children[0]) == Native(agent).to_ir()
    assert (Agent("a") >> agent).to_ir().children[1] == Native(agent).to_ir()


def test_a_custom_agent_is_a_native_agent_node_naming_the_agents_inside():
    planner = Planner(name="planner", drafter=LlmAgent(name="drafter", model=MODEL))
    ir = (Agent("a") >> planner).to_ir().children[1]
    assert type(ir) is NativeAgentNode
    assert ir.agent is planner
    assert ir.agent_class.endswith(".Planner")
    assert (ir.agent_names, ir.llm_agents) == (("planner", "drafter"), ("drafter",))
    assert (ir.reads_keys, ir.writes_keys) == (frozenset(), frozenset())


def test_a_custom_agent_compiles_to_a_copy_and_each_build_to_a_new_one():
    checker = Checker(name="checker", description="checks")
    tree = Agent("writer") >> checker
    first, second = tree.build().sub_agents[1], tree.build().sub_agents[1]
    assert type(first) is Checker and first is not checker and first is not second
    assert _fields(first) == _fields(checker)
    assert checker.parent_agent is None


def test_native_reads_and_writes_reach_the_ir_and_the_checker():
    node = Native(Checker(name="checker")).reads("draft").writes("verdict")
    ir = node.to_ir()
    assert (ir.reads_keys, ir.writes_keys) == ({"draft"}, {"verdict"})
    report = check_contracts(
        Agent("writer").outputs("draft") >> node >> Agent("closer").instruct("{verdict}")
    )
    assert not [i for i in report.issues if i.severity == "error"]
    # the declared read is checked like any read: nothing writes 'draft' here
    alone = check_contracts(node >> Agent("closer").instruct("{verdict}"))
    assert [i.code for i in alone.issues if i.severity == "error"] == ["read-before-write"]


class Review(StateSchema):
    verdict: str
    notes: str


def test_native_reads_and_writes_take_state_schema_fields():
    ir = Native(Checker(name="checker")).reads(Review.notes).writes(Review.verdict).to_ir()
    assert (ir.reads_keys, ir.writes_keys) == ({"notes"}, {"verdict"})


def test_reads_and_writes_on_adks_own_composites_are_refused():
    with quiet_workflow_deprecation():
        seq = SequentialAgent(name="seq", sub_agents=[LlmAgent(name="x", model=MODEL)])
    with pytest.raises(BuildError, match="ADK's own class"):
        Native(seq).writes("k").to_ir()


def test_native_of_native_is_the_same_step():
    checker = Checker(name="checker")
    assert Native(Native(checker)).to_ir() == Native(checker).to_ir()


@pytest.mark.parametrize(
    "make",
    [
        lambda: Pipeline(Agent("a"), name="c"),
        lambda: FanOut(Agent("a"), name="c"),
        lambda: Loop(Agent("a"), name="c", max_iterations=2),
    ],
    ids=["pipeline", "fanout", "loop"],
)
def test_composite_reads_and_writes_reach_the_ir(make):
    ir = make().reads("ticket").writes("summary", "status").to_ir()
    assert ir.reads_keys == {"ticket"}
    assert ir.writes_keys == {"summary", "status"}
    assert make().to_ir().writes_keys == frozenset()  # a value: the plain builder is unchanged


def test_a_composite_declared_write_is_credited_to_what_follows():
    """DeclaresState.writes: on a composite the keys count as written when it starts."""
    tree = Pipeline(Agent("a").instruct("x"), name="prep").writes("k") >> Agent("b").instruct("{k}")
    errors = [i for i in check_contracts(tree).issues if i.severity == "error"]
    assert errors == []
    inside = Pipeline(Agent("a").instruct("{k}"), name="prep").writes("k")
    assert [i for i in check_contracts(inside).issues if i.severity == "error"] == []
    undeclared = Pipeline(Agent("a").instruct("x"), name="prep") >> Agent("b").instruct("{k}")
    assert [i.code for i in check_contracts(undeclared).issues] == ["read-before-write"]
