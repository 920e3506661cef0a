"""Builders: immutability, operators, precedence, flattening, sugar, IR."""

from __future__ import annotations

from pydantic import BaseModel

from adk_fluent import Agent, Fallback, FanOut, Loop, Pipeline, until
from adk_fluent.ir.nodes import (
    FallbackNode,
    LlmAgentNode,
    LoopAgentNode,
    ParallelAgentNode,
    SequentialAgentNode,
    UntilNode,
)


def test_sequence_flattens_and_changes_neither_operand():
    a, b, c = Agent("a"), Agent("b"), Agent("c")
    ab = a >> b
    abc = ab >> c
    assert [s.name for s in abc.steps] == ["a", "b", "c"]
    assert [s.name for s in ab.steps] == ["a", "b"]  # ab unchanged
    assert (a >> (b >> c)).to_ir() == abc.to_ir()  # associative


def test_parallel_flattens():
    fan = Agent("a") | Agent("b") | Agent("c")
    assert isinstance(fan, FanOut)
    assert [s.name for s in fan.steps] == ["a", "b", "c"]


def test_named_composites_stay_units():
    inner = Pipeline(Agent("a"), Agent("b"), name="inner")
    outer = inner >> Agent("c")
    assert [s.name for s in outer.steps] == ["inner", "c"]


def test_precedence_mul_and_floordiv_bind_tighter_than_rshift_than_or():
    a, b, c, d = Agent("a"), Agent("b"), Agent("c"), Agent("d")
    expr = a >> b | c >> d
    assert isinstance(expr, FanOut)
    assert all(isinstance(s, Pipeline) for s in expr.steps)
    expr2 = a // b >> c
    assert isinstance(expr2, Pipeline)
    assert isinstance(expr2.steps[0], Fallback)
    expr3 = a * 3 >> b
    assert isinstance(expr3.steps[0], Loop)


def test_loop_ir():
    node = (Agent("a") * 3).to_ir()
    assert isinstance(node, LoopAgentNode) and node.max_iterations == 3
    node = (Agent("a") * until(lambda s: s.get("done"), max=5)).to_ir()
    assert node.max_iterations == 5
    assert isinstance(node.children[-1], UntilNode)


def test_fallback_ir():
    node = (Agent("a") // Agent("b") // Agent("c")).to_ir()
    assert isinstance(node, FallbackNode)
    assert [c.name for c in node.children] == ["a", "b", "c"]


def test_setters_return_new_builders():
    base = Agent("a")
    changed = base.instruct("hi").outputs("k").description("d")
    assert base.to_ir().instruction is not changed.to_ir().instruction
    assert base.to_ir() == Agent("a").to_ir()
    assert changed.to_ir().output_key == "k"
    assert changed.to_ir().description == "d"


def test_lists_append_and_callbacks_accumulate():
    def t1() -> str:
        """one"""
        return "1"

    def t2() -> str:
        """two"""
        return "2"

    def cb1(ctx, req):
        return None

    def cb2(ctx, req):
        return None

    agent = Agent("a").tool(t1).tools(t2).before_model(cb1).before_model_callback(cb2)
    node = agent.to_ir()
    assert node.tools == (t1, t2)
    assert node.before_model_callback == (cb1, cb2)


def test_reads_and_writes_keys():
    class Out(BaseModel):
        title: str
        score: int

    class In(BaseModel):
        topic: str

    node = (
        Agent("a")
        .instruct("Use {topic} and {user:lang?} but not {{literal}} or {artifact.file}")
        .outputs("summary")
        .consumes(In)
        .produces(Out)
        .to_ir()
    )
    assert node.reads_keys == {"topic", "user:lang"}
    assert node.writes_keys == {"summary", "title", "score"}
    assert node.produces_type is Out and node.consumes_type is In


def test_equal_expressions_give_equal_ir():
    def make():
        return (
            Agent("a").instruct("x {k}").outputs("k2")
            >> (Agent("b") | Agent("c"))
            >> Agent("d") * 2
        )

    assert make().to_ir() == make().to_ir()
    assert make().to_ir() != (Agent("a") >> Agent("b")).to_ir()


def test_ir_is_frozen():
    import dataclasses

    node = Agent("a").to_ir()
    try:
        node.name = "b"  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:  # pragma: no cover
        raise AssertionError("IR nodes must be frozen")


def test_clone_and_delegate():
    base = Agent("a").instruct("hello")
    twin = base.clone("a2")
    assert twin.name == "a2" and twin.to_ir().instruction == "hello"
    assert base.name == "a"
    coordinator = Agent("coord").delegate(Agent("x"), Agent("y"))
    node = coordinator.to_ir()
    assert isinstance(node, LlmAgentNode)
    assert [c.name for c in node.children] == ["x", "y"]


def test_ir_node_types():
    assert isinstance((Agent("a") >> Agent("b")).to_ir(), SequentialAgentNode)
    assert isinstance((Agent("a") | Agent("b")).to_ir(), ParallelAgentNode)


# -- deep nesting (issue 11): where a hand-written ADK tree of that depth builds, ours does -------
