"""The operator algebra as a table: for every kind of node a user can put in an expression, what
`>>`, `|`, `//` and `*` make of it on either side (builder type, IR node, children in order, which
unnamed composites flatten), how Python's precedence groups mixed expressions (README
"Precedence"), the auto names composites get, and the native ADK class `.build()` returns for
each result with its sub_agents. Refusals are covered briefly (tests/unit/misuse owns them).
"""

from __future__ import annotations

import re

import pytest
from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent

from adk_fluent import (
    Agent,
    BuildError,
    Fallback,
    FanOut,
    Loop,
    Pipeline,
    Route,
    S,
    gate,
    loop_until,
    map_over,
    race,
    tap,
    until,
)
from adk_fluent.adk.custom_agents.concurrency import RaceAgent, TimeoutAgent
from adk_fluent.adk.custom_agents.flow import MapOverAgent, RouteAgent
from adk_fluent.adk.custom_agents.gates import (
    GateAgent,
    GatedLoopAgent,
    GatedParallelAgent,
    GatedSequenceAgent,
)
from adk_fluent.adk.custom_agents.steps import (
    FallbackAgent,
    StateStepAgent,
    TapAgent,
    UntilCheckAgent,
)
from adk_fluent.api.expression import Timeout, function_step
from adk_fluent.errors import DuplicateNameError
from adk_fluent.ir.nodes import (
    UNSET,
    FallbackNode,
    GateNode,
    LlmAgentNode,
    LoopAgentNode,
    MapOverNode,
    ParallelAgentNode,
    RaceNode,
    RouteNode,
    SequentialAgentNode,
    TapNode,
    TimeoutNode,
    TransformNode,
)


def bump(state):
    """A plain function step, used as an operand as users write it."""
    return {"n": 1}


def watch(state):
    """A tap's observer."""
    return None


def done(state):
    """An until-loop predicate."""
    return bool(state.get("done"))


# Every kind of operand, each with names of its own so a result's children say where they came
# from. The partner in the operator tables is always Agent("z").
KINDS = {
    "agent": lambda: Agent("x"),
    "pipeline": lambda: Agent("p1") >> Agent("p2"),
    "named_pipeline": lambda: Pipeline(Agent("n1"), Agent("n2"), name="np"),
    "fanout": lambda: Agent("f1") | Agent("f2"),
    "named_fanout": lambda: FanOut(Agent("g1"), Agent("g2"), name="nf"),
    "loop": lambda: Agent("l1") * 2,
    "until_loop": lambda: Agent("u1") * until(done, max=3),
    "fallback": lambda: Agent("b1") // Agent("b2"),
    "named_fallback": lambda: Fallback(Agent("h1"), Agent("h2"), name="nfb"),
    "route": lambda: Route("intent").eq("x", Agent("r1")).otherwise(Agent("r2")),
    "state_step": lambda: S.set(k=1),
    "function": lambda: bump,  # a plain function, not a builder
    "map_over": lambda: map_over("docs", Agent("m1")),
    "gate": lambda: gate(True, "ok?"),
    "tap": lambda: tap(watch),
    "timeout": lambda: Agent("t1").timeout(5),
    "race": lambda: race(Agent("c1"), Agent("c2")),
}

Z = Agent("z")


def names(nodes):
    return tuple(node.name for node in nodes)


def shape(node):
    """An IR tree as nested tuples: a leaf is its name, a composite (kind, *children)."""
    if not node.children:
        return node.name
    kind = {
        SequentialAgentNode: "seq",
        ParallelAgentNode: "par",
        LoopAgentNode: "loop",
        FallbackNode: "fallback",
        TimeoutNode: "timeout",
        RaceNode: "race",
        RouteNode: "route",
        MapOverNode: "map",
    }[type(node)]
    return (kind, *(shape(child) for child in node.children))


def native_shape(agent):
    """A native ADK tree as nested tuples: a leaf is its name, else (class name, *sub_agents)."""
    if not agent.sub_agents:
        return agent.name
    return (type(agent).__name__, *(native_shape(sub) for sub in agent.sub_agents))


# -- each kind on its own: IR node, name, children and the native class it builds --------------
ALONE = [
    # kind, builder, IR node, name, IR children, native class, native sub_agents
    ("agent", lambda: Agent("x"), LlmAgentNode, "x", (), LlmAgent, ()),
    (
        "pipeline",
        KINDS["pipeline"],
        SequentialAgentNode,
        "pipeline__p1__p2",
        ("p1", "p2"),
        SequentialAgent,
        ("p1", "p2"),
    ),
    (
        "named_pipeline",
        KINDS["named_pipeline"],
        SequentialAgentNode,
        "np",
        ("n1", "n2"),
        SequentialAgent,
        ("n1", "n2"),
    ),
    (
        "fanout",
        KINDS["fanout"],
        ParallelAgentNode,
        "fanout__f1__f2",
        ("f1", "f2"),
        ParallelAgent,
        ("f1", "f2"),
    ),
    (
        "named_fanout",
        KINDS["named_fanout"],
        ParallelAgentNode,
        "nf",
        ("g1", "g2"),
        ParallelAgent,
        ("g1", "g2"),
    ),
    ("loop", KINDS["loop"], LoopAgentNode, "loop__l1", ("l1",), LoopAgent, ("l1",)),
    (
        "until_loop",
        KINDS["until_loop"],
        LoopAgentNode,
        "loop__u1",
        ("u1", "loop__u1__until"),
        LoopAgent,
        ("u1", "loop__u1__until"),
    ),
    (
        "fallback",
        KINDS["fallback"],
        FallbackNode,
        "fallback__b1__b2",
        ("b1", "b2"),
        FallbackAgent,
        ("b1", "b2"),
    ),
    (
        "named_fallback",
        KINDS["named_fallback"],
        FallbackNode,
        "nfb",
        ("h1", "h2"),
        FallbackAgent,
        ("h1", "h2"),
    ),
    ("route", KINDS["route"], RouteNode, "route_intent", ("r1", "r2"), RouteAgent, ("r1", "r2")),
    ("state_step", KINDS["state_step"], TransformNode, "set_k", (), StateStepAgent, ()),
    ("function_step", lambda: function_step(bump), TransformNode, "bump", (), StateStepAgent, ()),
    ("map_over", KINDS["map_over"], MapOverNode, "map_docs", ("m1",), MapOverAgent, ("m1",)),
    ("gate", KINDS["gate"], GateNode, "approval_gate", (), GateAgent, ()),
    ("tap", KINDS["tap"], TapNode, "tap_watch", (), TapAgent, ()),
    ("timeout", KINDS["timeout"], TimeoutNode, "timeout_t1", ("t1",), TimeoutAgent, ("t1",)),
    ("race", KINDS["race"], RaceNode, "race_c1_c2", ("c1", "c2"), RaceAgent, ("c1", "c2")),
]


@pytest.mark.parametrize(
    "make, node_type, name, children, native_type, native_children",
    [row[1:] for row in ALONE],
    ids=[row[0] for row in ALONE],
)
def test_each_kind_alone_has_its_ir_node_and_native_class(
    make, node_type, name, children, native_type, native_children
):
    expr = make()
    node = expr.to_ir()
    assert type(node) is node_type
    assert node.name == name == expr.name
    assert names(node.children) == children
    native = expr.build()
    assert type(native) is native_type
    assert native.name == name
    assert names(native.sub_agents) == native_children


# -- `>>`: a Pipeline; only an unnamed Pipeline operand contributes its steps -------------------
RSHIFT = [
    # kind, children of `kind >> z`, children of `z >> kind`, native root
    ("agent", ("x", "z"), ("z", "x"), SequentialAgent),
    ("pipeline", ("p1", "p2", "z"), ("z", "p1", "p2"), SequentialAgent),
    ("named_pipeline", ("np", "z"), ("z", "np"), SequentialAgent),
    ("fanout", ("fanout__f1__f2", "z"), ("z", "fanout__f1__f2"), SequentialAgent),
    ("named_fanout", ("nf", "z"), ("z", "nf"), SequentialAgent),
    ("loop", ("loop__l1", "z"), ("z", "loop__l1"), SequentialAgent),
    ("until_loop", ("loop__u1", "z"), ("z", "loop__u1"), SequentialAgent),
    ("fallback", ("fallback__b1__b2", "z"), ("z", "fallback__b1__b2"), SequentialAgent),
    ("named_fallback", ("nfb", "z"), ("z", "nfb"), SequentialAgent),
    ("route", ("route_intent", "z"), ("z", "route_intent"), SequentialAgent),
    ("state_step", ("set_k", "z"), ("z", "set_k"), SequentialAgent),
    ("function", ("bump", "z"), ("z", "bump"), SequentialAgent),
    ("map_over", ("map_docs", "z"), ("z", "map_docs"), SequentialAgent),
    # a gate inside makes the sequence gate-aware (it can stop at the gate and resume there)
    ("gate", ("approval_gate", "z"), ("z", "approval_gate"), GatedSequenceAgent),
    ("tap", ("tap_watch", "z"), ("z", "tap_watch"), SequentialAgent),
    ("timeout", ("timeout_t1", "z"), ("z", "timeout_t1"), SequentialAgent),
    ("race", ("race_c1_c2", "z"), ("z", "race_c1_c2"), SequentialAgent),
]


def _sides(rows):
    """Each row gives two cases: the kind on the left and on the right of the operator."""
    params, ids = [], []
    for kind, left, right, native in rows:
        params += [(kind, "left", left, native), (kind, "right", right, native)]
        ids += [f"{kind}-left", f"{kind}-right"]
    return params, ids


def _combine(op, kind, side):
    operand = KINDS[kind]()
    left, right = (operand, Z) if side == "left" else (Z, operand)
    if op == ">>":
        return left >> right
    if op == "|":
        return left | right
    return left // right


@pytest.mark.parametrize(
    "kind, side, children, native_type", _sides(RSHIFT)[0], ids=_sides(RSHIFT)[1]
)
def test_rshift_makes_a_pipeline_of_the_operands(kind, side, children, native_type):
    expr = _combine(">>", kind, side)
    assert type(expr) is Pipeline
    node = expr.to_ir()
    assert type(node) is SequentialAgentNode
    assert names(node.children) == children
    native = expr.build()
    assert type(native) is native_type
    assert names(native.sub_agents) == children


# -- `|`: a FanOut; only an unnamed FanOut operand contributes its branches --------------------
OR = [
    # kind, children of `kind | z`, children of `z | kind`, native root
    ("agent", ("x", "z"), ("z", "x"), ParallelAgent),
    ("pipeline", ("pipeline__p1__p2", "z"), ("z", "pipeline__p1__p2"), ParallelAgent),
    ("named_pipeline", ("np", "z"), ("z", "np"), ParallelAgent),
    ("fanout", ("f1", "f2", "z"), ("z", "f1", "f2"), ParallelAgent),
    ("named_fanout", ("nf", "z"), ("z", "nf"), ParallelAgent),
    ("loop", ("loop__l1", "z"), ("z", "loop__l1"), ParallelAgent),
    ("until_loop", ("loop__u1", "z"), ("z", "loop__u1"), ParallelAgent),
    ("fallback", ("fallback__b1__b2", "z"), ("z", "fallback__b1__b2"), ParallelAgent),
    ("named_fallback", ("nfb", "z"), ("z", "nfb"), ParallelAgent),
    ("route", ("route_intent", "z"), ("z", "route_intent"), ParallelAgent),
    ("state_step", ("set_k", "z"), ("z", "set_k"), ParallelAgent),
    ("function", ("bump", "z"), ("z", "bump"), ParallelAgent),
    ("map_over", ("map_docs", "z"), ("z", "map_docs"), ParallelAgent),
    ("gate", ("approval_gate", "z"), ("z", "approval_gate"), GatedParallelAgent),
    ("tap", ("tap_watch", "z"), ("z", "tap_watch"), ParallelAgent),
    ("timeout", ("timeout_t1", "z"), ("z", "timeout_t1"), ParallelAgent),
    ("race", ("race_c1_c2", "z"), ("z", "race_c1_c2"), ParallelAgent),
]


@pytest.mark.parametrize("kind, side, children, native_type", _sides(OR)[0], ids=_sides(OR)[1])
def test_or_makes_a_fanout_of_the_operands(kind, side, children, native_type):
    expr = _combine("|", kind, side)
    assert type(expr) is FanOut
    node = expr.to_ir()
    assert type(node) is ParallelAgentNode
    assert names(node.children) == children
    native = expr.build()
    assert type(native) is native_type
    assert names(native.sub_agents) == children


# -- `//`: a Fallback; only an unnamed Fallback operand contributes its alternatives ------------
FLOORDIV = [
    # kind, children of `kind // z`, children of `z // kind`, native root (None: refused at build)
    ("agent", ("x", "z"), ("z", "x"), FallbackAgent),
    ("pipeline", ("pipeline__p1__p2", "z"), ("z", "pipeline__p1__p2"), FallbackAgent),
    ("named_pipeline", ("np", "z"), ("z", "np"), FallbackAgent),
    ("fanout", ("fanout__f1__f2", "z"), ("z", "fanout__f1__f2"), FallbackAgent),
    ("named_fanout", ("nf", "z"), ("z", "nf"), FallbackAgent),
    ("loop", ("loop__l1", "z"), ("z", "loop__l1"), FallbackAgent),
    ("until_loop", ("loop__u1", "z"), ("z", "loop__u1"), FallbackAgent),
    ("fallback", ("b1", "b2", "z"), ("z", "b1", "b2"), FallbackAgent),
    ("named_fallback", ("nfb", "z"), ("z", "nfb"), FallbackAgent),
    ("route", ("route_intent", "z"), ("z", "route_intent"), FallbackAgent),
    ("state_step", ("set_k", "z"), ("z", "set_k"), FallbackAgent),
    ("map_over", ("map_docs", "z"), ("z", "map_docs"), FallbackAgent),
    # a fallback re-runs the next alternative from scratch: a gate cannot sit in one
    ("gate", ("approval_gate", "z"), ("z", "approval_gate"), None),
    ("tap", ("tap_watch", "z"), ("z", "tap_watch"), FallbackAgent),
    ("timeout", ("timeout_t1", "z"), ("z", "timeout_t1"), FallbackAgent),
    ("race", ("race_c1_c2", "z"), ("z", "race_c1_c2"), FallbackAgent),
]
FLOORDIV_FUNCTION_RIGHT = ("function", "right", ("z", "bump"), FallbackAgent)


@pytest.mark.parametrize(
    "kind, side, children, native_type",
    [*_sides(FLOORDIV)[0], FLOORDIV_FUNCTION_RIGHT],
    ids=[*_sides(FLOORDIV)[1], "function-right"],
)
def test_floordiv_makes_a_fallback_of_the_operands(kind, side, children, native_type):
    expr = _combine("//", kind, side)
    assert type(expr) is Fallback
    node = expr.to_ir()
    assert type(node) is FallbackNode
    assert names(node.children) == children
    if native_type is None:
        with pytest.raises(BuildError, match="gate 'approval_gate' sits inside fallback"):
            expr.build()
        return
    native = expr.build()
    assert type(native) is native_type
    assert names(native.sub_agents) == children


def test_a_function_step_on_the_left_of_floordiv_is_a_fallback_like_on_the_right():
    expr = bump // Agent("z")
    assert type(expr) is Fallback
    assert names(expr.to_ir().children) == ("bump", "z")


# -- `*`: a Loop whose body is the operand, as one unit (nothing flattens into a loop) ----------
MUL = [
    # kind, the loop's one child, native root
    ("agent", "x", LoopAgent),
    ("pipeline", "p1__p2", LoopAgent),  # flat: the pipeline's steps are the loop's own
    ("named_pipeline", "np", LoopAgent),
    ("fanout", "fanout__f1__f2", LoopAgent),
    ("named_fanout", "nf", LoopAgent),
    ("loop", "loop__l1", LoopAgent),
    ("until_loop", "loop__u1", LoopAgent),
    ("fallback", "fallback__b1__b2", LoopAgent),
    ("named_fallback", "nfb", LoopAgent),
    ("route", "route_intent", LoopAgent),
    ("state_step", "set_k", LoopAgent),
    ("map_over", "map_docs", LoopAgent),
    ("gate", "approval_gate", GatedLoopAgent),
    ("tap", "tap_watch", LoopAgent),
    ("timeout", "timeout_t1", LoopAgent),
    ("race", "race_c1_c2", LoopAgent),
]


@pytest.mark.parametrize("kind, child, native_type", MUL, ids=[row[0] for row in MUL])
def test_mul_makes_a_loop_around_the_operand(kind, child, native_type):
    expr = KINDS[kind]() * 3
    assert type(expr) is Loop
    node = expr.to_ir()
    assert type(node) is LoopAgentNode
    assert node.max_iterations == 3
    steps = tuple(child.split("__")) if kind == "pipeline" else (child,)
    assert names(node.children) == steps
    assert node.name == f"loop__{child}"
    native = expr.build()
    assert type(native) is native_type
    assert native.max_iterations == 3
    assert names(native.sub_agents) == steps


# -- flattening between composites --------------------------------------------------------------
def _a(name):
    return Agent(name)


FLATTEN = [
    # id, expression, builder type, children
    (
        "pipeline>>pipeline",
        lambda: (_a("p1") >> _a("p2")) >> (_a("q1") >> _a("q2")),
        Pipeline,
        ("p1", "p2", "q1", "q2"),
    ),
    (
        "named>>unnamed",
        lambda: Pipeline(_a("n1"), _a("n2"), name="np") >> (_a("q1") >> _a("q2")),
        Pipeline,
        ("np", "q1", "q2"),
    ),
    (
        "unnamed>>named",
        lambda: (_a("p1") >> _a("p2")) >> Pipeline(_a("n1"), _a("n2"), name="np"),
        Pipeline,
        ("p1", "p2", "np"),
    ),
    (
        "named>>named",
        lambda: Pipeline(_a("n1"), name="np") >> Pipeline(_a("n2"), name="nq"),
        Pipeline,
        ("np", "nq"),
    ),
    (
        "fanout|fanout",
        lambda: (_a("f1") | _a("f2")) | (_a("f3") | _a("f4")),
        FanOut,
        ("f1", "f2", "f3", "f4"),
    ),
    (
        "named_fanout|fanout",
        lambda: FanOut(_a("g1"), _a("g2"), name="nf") | (_a("f3") | _a("f4")),
        FanOut,
        ("nf", "f3", "f4"),
    ),
    (
        "fallback//fallback",
        lambda: (_a("b1") // _a("b2")) // (_a("b3") // _a("b4")),
        Fallback,
        ("b1", "b2", "b3", "b4"),
    ),
    (
        "fallback//named_fallback",
        lambda: (_a("b1") // _a("b2")) // Fallback(_a("h1"), _a("h2"), name="nfb"),
        Fallback,
        ("b1", "b2", "nfb"),
    ),
    (
        "fanout>>fanout",
        lambda: (_a("f1") | _a("f2")) >> (_a("f3") | _a("f4")),
        Pipeline,
        ("fanout__f1__f2", "fanout__f3__f4"),
    ),
    (
        "pipeline|pipeline",
        lambda: (_a("p1") >> _a("p2")) | (_a("q1") >> _a("q2")),
        FanOut,
        ("pipeline__p1__p2", "pipeline__q1__q2"),
    ),
    (
        "pipeline//pipeline",
        lambda: (_a("p1") >> _a("p2")) // (_a("q1") >> _a("q2")),
        Fallback,
        ("pipeline__p1__p2", "pipeline__q1__q2"),
    ),
    (
        "fallback>>fallback",
        lambda: (_a("b1") // _a("b2")) >> (_a("b3") // _a("b4")),
        Pipeline,
        ("fallback__b1__b2", "fallback__b3__b4"),
    ),
    (
        "loop>>loop",
        lambda: _a("l1") * 2 >> _a("l2") * 2,
        Pipeline,
        ("loop__l1", "loop__l2"),
    ),
    # a composite carrying an ADK field or a visibility override is kept whole, as named ones are
    (
        "pipeline_with_description>>z",
        lambda: (_a("p1") >> _a("p2")).description("intake") >> _a("z"),
        Pipeline,
        ("pipeline__p1__p2", "z"),
    ),
    (
        "hidden_pipeline>>z",
        lambda: (_a("p1") >> _a("p2")).hide() >> _a("z"),
        Pipeline,
        ("pipeline__p1__p2", "z"),
    ),
    (
        "z>>shown_pipeline",
        lambda: _a("z") >> (_a("p1") >> _a("p2")).show(),
        Pipeline,
        ("z", "pipeline__p1__p2"),
    ),
    (
        "fanout_with_description|z",
        lambda: (_a("f1") | _a("f2")).description("both") | _a("z"),
        FanOut,
        ("fanout__f1__f2", "z"),
    ),
    (
        "transparent_fanout|z",
        lambda: (_a("f1") | _a("f2")).transparent() | _a("z"),
        FanOut,
        ("fanout__f1__f2", "z"),
    ),
    (
        "hidden_fallback//z",
        lambda: (_a("b1") // _a("b2")).hide() // _a("z"),
        Fallback,
        ("fallback__b1__b2", "z"),
    ),
    (
        "renamed_pipeline>>z",
        lambda: (_a("p1") >> _a("p2")).named("intake") >> _a("z"),
        Pipeline,
        ("intake", "z"),
    ),
    # an unnamed composite from the constructor flattens under the operator like one from `>>`
    (
        "constructor_pipeline>>z",
        lambda: Pipeline(_a("p1"), _a("p2")) >> _a("z"),
        Pipeline,
        ("p1", "p2", "z"),
    ),
    (
        "constructor_fanout|z",
        lambda: FanOut(_a("f1"), _a("f2")) | _a("z"),
        FanOut,
        ("f1", "f2", "z"),
    ),
    # ... but the constructors themselves keep the nesting they are given
    (
        "constructor_keeps_nested_pipeline",
        lambda: Pipeline(_a("p1"), _a("p2") >> _a("p3")),
        Pipeline,
        ("p1", "pipeline__p2__p3"),
    ),
    (
        "constructor_keeps_nested_fanout",
        lambda: FanOut(_a("f1"), _a("f2") | _a("f3")),
        FanOut,
        ("f1", "fanout__f2__f3"),
    ),
    (
        "constructor_keeps_nested_fallback",
        lambda: Fallback(_a("b1"), _a("b2") // _a("b3")),
        Fallback,
        ("b1", "fallback__b2__b3"),
    ),
    (
        "long_chain_is_one_pipeline",
        lambda: _a("s1") >> _a("s2") >> _a("s3") >> _a("s4") >> _a("s5"),
        Pipeline,
        ("s1", "s2", "s3", "s4", "s5"),
    ),
    (
        "pipeline>>fanout>>pipeline",
        lambda: (_a("p1") >> _a("p2")) >> (_a("f1") | _a("f2")) >> (_a("q1") >> _a("q2")),
        Pipeline,
        ("p1", "p2", "fanout__f1__f2", "q1", "q2"),
    ),
    (
        "steps_and_functions_chain",
        lambda: S.set(k=1) >> bump >> tap(watch) >> _a("z"),
        Pipeline,
        ("set_k", "bump", "tap_watch", "z"),
    ),
]


@pytest.mark.parametrize(
    "make, builder_type, children", [row[1:] for row in FLATTEN], ids=[row[0] for row in FLATTEN]
)
def test_flattening_between_composites(make, builder_type, children):
    expr = make()
    assert type(expr) is builder_type
    assert names(expr.steps) == children
    assert names(expr.to_ir().children) == children


# -- precedence: `*` and `//` bind tighter than `>>`, which binds tighter than `|` --------------
a, b, c, d = Agent("a"), Agent("b"), Agent("c"), Agent("d")

PRECEDENCE = [
    # id, expression, its IR shape
    ("rshift_over_or", lambda: a >> b | c >> d, ("par", ("seq", "a", "b"), ("seq", "c", "d"))),
    ("or_then_rshift", lambda: a | b >> c, ("par", "a", ("seq", "b", "c"))),
    ("rshift_then_or", lambda: a >> b | c, ("par", ("seq", "a", "b"), "c")),
    ("chain_then_or", lambda: a >> b >> c | d, ("par", ("seq", "a", "b", "c"), "d")),
    ("or_chain_then_rshift", lambda: a | b | c >> d, ("par", "a", "b", ("seq", "c", "d"))),
    ("floordiv_over_rshift", lambda: a // b >> c, ("seq", ("fallback", "a", "b"), "c")),
    ("rshift_then_floordiv", lambda: a >> b // c, ("seq", "a", ("fallback", "b", "c"))),
    (
        "floordiv_over_or",
        lambda: a // b | c // d,
        ("par", ("fallback", "a", "b"), ("fallback", "c", "d")),
    ),
    ("mul_over_rshift", lambda: a * 2 >> b, ("seq", ("loop", "a"), "b")),
    ("rshift_then_mul", lambda: a >> b * 2, ("seq", "a", ("loop", "b"))),
    ("mul_over_or", lambda: a * 2 | b, ("par", ("loop", "a"), "b")),
    # `*` and `//` share a level: left to right
    ("floordiv_then_mul", lambda: a // b * 2, ("loop", ("fallback", "a", "b"))),
    ("mul_then_floordiv", lambda: a * 2 // b, ("fallback", ("loop", "a"), "b")),
    ("parenthesised_or_first", lambda: (a | b) >> c, ("seq", ("par", "a", "b"), "c")),
    ("parenthesised_or_inside", lambda: a >> (b | c) >> d, ("seq", "a", ("par", "b", "c"), "d")),
    ("parenthesised_rshift_loop", lambda: (a >> b) * 2, ("loop", "a", "b")),
    ("function_step_then_or", lambda: bump >> a | b, ("par", ("seq", "bump", "a"), "b")),
    # a method call binds tightest of all
    ("timeout_method_left", lambda: a.timeout(5) >> b, ("seq", ("timeout", "a"), "b")),
    ("timeout_method_right", lambda: a >> b.timeout(5), ("seq", "a", ("timeout", "b"))),
    ("timeout_of_group", lambda: (a >> b).timeout(5), ("timeout", ("seq", "a", "b"))),
    (
        "until_loop_in_chain",
        lambda: a >> b * until(done) >> c,
        ("seq", "a", ("loop", "b", "loop__b__until"), "c"),
    ),
]


@pytest.mark.parametrize(
    "make, expected", [row[1:] for row in PRECEDENCE], ids=[row[0] for row in PRECEDENCE]
)
def test_precedence_groups_as_python_does(make, expected):
    assert shape(make().to_ir()) == expected


# -- what a nested expression compiles to, class by class --------------------------------------
NATIVE = [
    (
        "pipeline_of_fanout",
        lambda: a >> (b | c) >> d,
        ("SequentialAgent", "a", ("ParallelAgent", "b", "c"), "d"),
    ),
    (
        "fanout_of_pipelines",
        lambda: a >> b | c >> d,
        ("ParallelAgent", ("SequentialAgent", "a", "b"), ("SequentialAgent", "c", "d")),
    ),
    (
        "loop_of_fallback",
        lambda: (a // b) * 2,
        ("LoopAgent", ("FallbackAgent", "a", "b")),
    ),
    (
        "until_loop_of_pipeline",
        lambda: (a >> b) * until(done),
        ("LoopAgent", "a", "b", "loop__a__b__until"),
    ),
    (
        "route_in_pipeline",
        lambda: a >> Route("k").eq("x", b).otherwise(c >> d),
        ("SequentialAgent", "a", ("RouteAgent", "b", ("SequentialAgent", "c", "d"))),
    ),
    (
        "timeout_of_race",
        lambda: race(a, b).timeout(3),
        ("TimeoutAgent", ("RaceAgent", "a", "b")),
    ),
    (
        "map_over_of_pipeline",
        lambda: map_over("docs", S.set(k=1) >> a),
        ("MapOverAgent", ("SequentialAgent", "set_k", "a")),
    ),
    (
        "delegates_under_pipeline",
        lambda: Agent("coord").delegate(a, b) >> c,
        ("SequentialAgent", ("LlmAgent", "a", "b"), "c"),
    ),
    (
        "gate_deep_in_pipeline_makes_only_its_ancestors_gate_aware",
        lambda: a >> (b >> gate(True, "ok?")).named("review") >> (c | d),
        (
            "GatedSequenceAgent",
            "a",
            ("GatedSequenceAgent", "b", "approval_gate"),
            ("ParallelAgent", "c", "d"),
        ),
    ),
]


@pytest.mark.parametrize("make, expected", [row[1:] for row in NATIVE], ids=[r[0] for r in NATIVE])
def test_nested_expression_builds_the_matching_native_tree(make, expected):
    assert native_shape(make().build()) == expected


def test_native_composites_are_the_adk_classes_users_expect():
    # the README's table: what `>>`, `|` and `*` give ADK, class for class
    native = (a >> (b | c) >> d * 4).build()
    assert type(native) is SequentialAgent
    assert type(native.sub_agents[1]) is ParallelAgent
    loop = native.sub_agents[2]
    assert type(loop) is LoopAgent and loop.max_iterations == 4
    assert all(type(leaf) is LlmAgent for leaf in (native.sub_agents[0], loop.sub_agents[0]))


# -- loops: counts, conditions, and the check step an until-loop ends with ----------------------
LOOPS = [
    # id, expression, IR max_iterations, IR children, native max_iterations
    ("count", lambda: a * 3, 3, ("a",), 3),
    ("count_on_the_left", lambda: 3 * a, 3, ("a",), 3),
    ("until_default_max", lambda: a * until(done), 10, ("a", "loop__a__until"), 10),
    ("until_max", lambda: a * until(done, max=4), 4, ("a", "loop__a__until"), 4),
    ("until_on_the_left", lambda: until(done, max=4) * a, 4, ("a", "loop__a__until"), 4),
    ("loop_until", lambda: loop_until(done, a, max_iterations=6), 6, ("a", "loop__a__until"), 6),
    (
        "explicit_max_beats_until_max",
        lambda: Loop(a, max_iterations=2, until=until(done, max=9)),
        2,
        ("a", "loop__a__until"),
        2,
    ),
    ("constructor_without_count", lambda: Loop(a, b), UNSET, ("a", "b"), None),
    (
        "named_until_loop_names_its_check",
        lambda: Loop(a, b, until=until(done), name="retry"),
        10,
        ("a", "b", "retry__until"),
        10,
    ),
    ("body_is_a_pipeline", lambda: (a >> b) * 2, 2, ("a", "b"), 2),
    ("loops_nest_not_merge", lambda: (a * 2) * 3, 3, ("loop__a",), 3),
]


@pytest.mark.parametrize(
    "make, max_iterations, children, native_max",
    [row[1:] for row in LOOPS],
    ids=[row[0] for row in LOOPS],
)
def test_loop_count_condition_and_body(make, max_iterations, children, native_max):
    expr = make()
    node = expr.to_ir()
    assert node.max_iterations == max_iterations
    assert names(node.children) == children
    native = expr.build()
    assert native.max_iterations == native_max
    assert names(native.sub_agents) == children


def test_until_check_is_the_last_step_and_holds_the_predicate():
    native = (a * until(done, max=2)).build()
    check = native.sub_agents[-1]
    assert type(check) is UntilCheckAgent
    assert check.predicate is done
    assert (a * until(done, max=2)).to_ir().children[-1].predicate is done


def test_nested_loops_keep_their_own_counts():
    node = ((a * 2) * 3).to_ir()
    assert (node.max_iterations, node.children[0].max_iterations) == (3, 2)


# -- names composites are given -----------------------------------------------------------------
AUTO_NAMES = [
    ("pipeline", lambda: a >> b, "pipeline__a__b"),
    ("fanout", lambda: a | b, "fanout__a__b"),
    ("loop", lambda: a * 2, "loop__a"),
    ("loop_of_two", lambda: Loop(a, b), "loop__a__b"),
    ("fallback", lambda: a // b, "fallback__a__b"),
    ("fallback_of_three", lambda: Fallback(a, b, c), "fallback__a__b__c"),
    ("nested_uses_child_names", lambda: (a >> b) | c, "fanout__pipeline__a__b__c"),
    ("timeout", lambda: a.timeout(1), "timeout_a"),
    ("timeout_of_pipeline", lambda: (a >> b).timeout(1), "timeout_pipeline__a__b"),
    ("race", lambda: race(a, b), "race_a_b"),
    ("race_of_pipeline", lambda: race(a >> b, c), "race_pipeline__a__b_c"),
    ("map_over", lambda: map_over("docs", a), "map_docs"),
    ("map_over_scoped_key", lambda: map_over("user:docs", a), "map_user_docs"),
    ("route", lambda: Route("intent").eq("x", a), "route_intent"),
    ("tap_function", lambda: tap(watch), "tap_watch"),
    ("tap_lambda", lambda: tap(lambda state: None), "tap"),
    ("function_step", lambda: function_step(bump), "bump"),
    ("lambda_step", lambda: function_step(lambda state: {}), "fn_step"),
    ("gate_default", lambda: gate(True, "ok?"), "approval_gate"),
    # exactly 48 characters stays readable: pipeline__ (10) + 18 + __ (2) + 18
    (
        "at_the_limit",
        lambda: Agent("a" * 18) >> Agent("b" * 18),
        f"pipeline__{'a' * 18}__{'b' * 18}",
    ),
]


@pytest.mark.parametrize(
    "make, expected", [row[1:] for row in AUTO_NAMES], ids=[row[0] for row in AUTO_NAMES]
)
def test_auto_names(make, expected):
    expr = make()
    assert expr.name == expected
    assert expr.to_ir().name == expected


def test_a_long_auto_name_keeps_the_ends_and_a_digest():
    expr = Agent("a" * 18) >> Agent("b" * 19)  # 49 characters spelled out
    assert re.fullmatch(r"pipeline__a{18}__b{19}__[0-9a-f]{8}", expr.name)


def test_long_auto_names_differ_when_a_middle_child_differs():
    first = Agent("start_agent_x") >> Agent("middle_one_xx") >> Agent("final_agent_x")
    second = Agent("start_agent_x") >> Agent("middle_two_xx") >> Agent("final_agent_x")
    assert first.name.startswith("pipeline__start_agent_x__final_agent_x__")
    assert second.name.startswith("pipeline__start_agent_x__final_agent_x__")
    assert first.name != second.name
    # deterministic: the same children give the same name in a new expression
    again = Agent("start_agent_x") >> Agent("middle_one_xx") >> Agent("final_agent_x")
    assert again.name == first.name


def test_repeated_zero_cost_steps_get_unique_native_names():
    step, observer = S.set(k=1), tap(watch)
    expr = step >> observer >> Agent("a") >> step >> observer >> bump >> bump
    # the IR keeps the names as written; compiling suffixes repeats, as ADK needs unique names
    assert names(expr.to_ir().children) == (
        "set_k",
        "tap_watch",
        "a",
        "set_k",
        "tap_watch",
        "bump",
        "bump",
    )
    assert names(expr.build().sub_agents) == (
        "set_k",
        "tap_watch",
        "a",
        "set_k_2",
        "tap_watch_2",
        "bump",
        "bump_2",
    )


# -- refused (briefly: the misuse corpus owns the messages) -------------------------------------
REFUSED = [
    ("loop_count_text", lambda: a * "3", BuildError, "loop count"),
    ("loop_count_negative", lambda: a * -1, BuildError, "loop count"),
    ("loop_count_builder", lambda: a * b, BuildError, "loop count"),
    ("number_left_of_rshift", lambda: 3 >> a, BuildError, ">>"),
    ("number_right_of_or", lambda: a | 2.5, BuildError, r"\|"),
    ("same_agent_twice_in_a_fanout", lambda: (a | a).build(), DuplicateNameError, "used twice"),
    ("same_agent_in_loop_and_after", lambda: (a * 2 >> a).build(), DuplicateNameError, "twice"),
]


@pytest.mark.parametrize(
    "attempt, error, fragment", [row[1:] for row in REFUSED], ids=[row[0] for row in REFUSED]
)
def test_refused_operations_raise_adk_fluent_errors(attempt, error, fragment):
    with pytest.raises(error, match=fragment):
        attempt()


def test_timeout_method_returns_a_timeout_around_the_receiver():
    expr = (a >> b).timeout(2.5)
    assert type(expr) is Timeout
    node = expr.to_ir()
    assert node.seconds == 2.5
    assert shape(node) == ("timeout", ("seq", "a", "b"))
    assert type(expr.build()) is TimeoutAgent
