"""Builders are values (README "Builders are values", DESIGN rule 6): every method and operator
returns a new builder and leaves its receiver and operands as they were (their IR compared with a
freshly made twin), an IR computed before a change never leaks into the changed copy, one
builder can sit in several pipelines (each build gets its own native agents), `clone` and
`named` behave as documented, and equal expressions give equal (and equally hashed) IR.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    C,
    Fallback,
    FanOut,
    Loop,
    Pipeline,
    Route,
    S,
    loop_until,
    map_over,
    race,
    tap,
    timeout,
    until,
)
from adk_fluent.api.control import MapOver, Race, Tap
from adk_fluent.api.expression import Timeout, function_step
from adk_fluent.ir.nodes import RouteRule
from adk_fluent.ir.options import BuildOptions, StrictOptions


def search(query: str) -> str:
    """Search the web."""
    return query


def lookup(key: str) -> str:
    """Look a key up."""
    return key


def cb(*args):
    return None


def cb2(*args):
    return None


def done(state):
    return bool(state.get("done"))


def vip(state):
    return bool(state.get("vip"))


def watch(state):
    return None


def bump(state):
    return {"n": 1}


class Out(BaseModel):
    title: str


class In(BaseModel):
    topic: str


def names(nodes):
    return tuple(node.name for node in nodes)


# -- every method returns a new builder and leaves the receiver as it was -----------------------
def _agent():
    return Agent("a")


def _pipeline():
    return Agent("a") >> Agent("b")


def _route():
    return Route("k").eq("x", Agent("a"))


METHODS = [
    # id, receiver, call, what to read from the result, expected
    ("agent.instruct", _agent, lambda r: r.instruct("Hi"), lambda o: o.to_ir().instruction, "Hi"),
    ("agent.outputs", _agent, lambda r: r.outputs("k"), lambda o: o.to_ir().output_key, "k"),
    (
        "agent.description",
        _agent,
        lambda r: r.description("d"),
        lambda o: o.to_ir().description,
        "d",
    ),
    ("agent.model", _agent, lambda r: r.model("m"), lambda o: o.to_ir().model, "m"),
    (
        "agent.include_contents",
        _agent,
        lambda r: r.include_contents("none"),
        lambda o: o.to_ir().include_contents,
        "none",
    ),
    (
        "agent.disallow_transfer_to_peers",
        _agent,
        lambda r: r.disallow_transfer_to_peers(True),
        lambda o: o.to_ir().disallow_transfer_to_peers,
        True,
    ),
    ("agent.tool", _agent, lambda r: r.tool(search), lambda o: o.to_ir().tools, (search,)),
    (
        "agent.tools",
        _agent,
        lambda r: r.tools(search, lookup),
        lambda o: o.to_ir().tools,
        (search, lookup),
    ),
    (
        "agent.tool_appends",
        lambda: Agent("a").tool(search),
        lambda r: r.tool(lookup),
        lambda o: o.to_ir().tools,
        (search, lookup),
    ),
    (
        "agent.delegate",
        _agent,
        lambda r: r.delegate(Agent("x"), Agent("y")),
        lambda o: names(o.to_ir().children),
        ("x", "y"),
    ),
    (
        "agent.delegate_appends",
        lambda: Agent("a").delegate(Agent("x")),
        lambda r: r.delegate(Agent("y")),
        lambda o: names(o.to_ir().children),
        ("x", "y"),
    ),
    (
        "agent.context",
        _agent,
        lambda r: r.context(C.user_only()),
        lambda o: o.to_ir().context,
        C.user_only(),
    ),
    ("agent.produces", _agent, lambda r: r.produces(Out), lambda o: o.to_ir().produces_type, Out),
    ("agent.consumes", _agent, lambda r: r.consumes(In), lambda o: o.to_ir().consumes_type, In),
    (
        "agent.reads",
        _agent,
        lambda r: r.reads("topic"),
        lambda o: o.to_ir().reads_keys,
        frozenset({"topic"}),
    ),
    (
        "agent.writes",
        _agent,
        lambda r: r.writes("ticket"),
        lambda o: o.to_ir().writes_keys,
        frozenset({"ticket"}),
    ),
    ("agent.clone", _agent, lambda r: r.clone("a2"), lambda o: o.to_ir().name, "a2"),
    (
        "agent.before_agent",
        _agent,
        lambda r: r.before_agent(cb),
        lambda o: o.to_ir().before_agent_callback,
        (cb,),
    ),
    (
        "agent.after_agent",
        _agent,
        lambda r: r.after_agent(cb),
        lambda o: o.to_ir().after_agent_callback,
        (cb,),
    ),
    (
        "agent.before_model",
        _agent,
        lambda r: r.before_model(cb),
        lambda o: o.to_ir().before_model_callback,
        (cb,),
    ),
    (
        "agent.after_model",
        _agent,
        lambda r: r.after_model(cb),
        lambda o: o.to_ir().after_model_callback,
        (cb,),
    ),
    (
        "agent.on_model_error",
        _agent,
        lambda r: r.on_model_error(cb),
        lambda o: o.to_ir().on_model_error_callback,
        (cb,),
    ),
    (
        "agent.before_tool",
        _agent,
        lambda r: r.before_tool(cb),
        lambda o: o.to_ir().before_tool_callback,
        (cb,),
    ),
    (
        "agent.after_tool",
        _agent,
        lambda r: r.after_tool(cb),
        lambda o: o.to_ir().after_tool_callback,
        (cb,),
    ),
    (
        "agent.on_tool_error",
        _agent,
        lambda r: r.on_tool_error(cb),
        lambda o: o.to_ir().on_tool_error_callback,
        (cb,),
    ),
    (
        "agent.callbacks_accumulate",
        lambda: Agent("a").before_model(cb),
        lambda r: r.before_model_callback(cb2),
        lambda o: o.to_ir().before_model_callback,
        (cb, cb2),
    ),
    ("agent.show", _agent, lambda r: r.show(), lambda o: o.to_ir().visibility, "user"),
    ("agent.hide", _agent, lambda r: r.hide(), lambda o: o.to_ir().visibility, "internal"),
    (
        "agent.transparent",
        _agent,
        lambda r: r.transparent(),
        lambda o: o.to_ir().visibility,
        "user",
    ),
    (
        "agent.filtered",
        _agent,
        lambda r: r.filtered(),
        lambda o: o.options,
        BuildOptions(visibility_mode="filtered"),
    ),
    (
        "agent.annotated",
        lambda: Agent("a").filtered(),
        lambda r: r.annotated(),
        lambda o: o.options,
        BuildOptions(visibility_mode="annotated"),
    ),
    (
        "agent.strict",
        _agent,
        lambda r: r.strict(initial_keys=("tenant",)),
        lambda o: o.options,
        BuildOptions(strict=StrictOptions(None, ("tenant",))),
    ),
    ("agent.timeout", _agent, lambda r: r.timeout(5), lambda o: o.to_ir().seconds, 5.0),
    ("pipeline.named", _pipeline, lambda r: r.named("intake"), lambda o: o.name, "intake"),
    (
        "pipeline.description",
        _pipeline,
        lambda r: r.description("d"),
        lambda o: o.to_ir().description,
        "d",
    ),
    ("pipeline.hide", _pipeline, lambda r: r.hide(), lambda o: o.to_ir().visibility, "internal"),
    (
        "pipeline.filtered",
        _pipeline,
        lambda r: r.filtered(),
        lambda o: o.options.visibility_mode,
        "filtered",
    ),
    ("pipeline.timeout", _pipeline, lambda r: r.timeout(2), lambda o: o.to_ir().seconds, 2.0),
    (
        "fanout.named",
        lambda: Agent("a") | Agent("b"),
        lambda r: r.named("both"),
        lambda o: o.name,
        "both",
    ),
    (
        "fanout.description",
        lambda: Agent("a") | Agent("b"),
        lambda r: r.description("d"),
        lambda o: o.to_ir().description,
        "d",
    ),
    (
        "loop.max_iterations",
        lambda: Agent("a") * 2,
        lambda r: r.max_iterations(5),
        lambda o: o.to_ir().max_iterations,
        5,
    ),
    ("loop.named", lambda: Agent("a") * 2, lambda r: r.named("retry"), lambda o: o.name, "retry"),
    (
        "until_loop.named_renames_its_check",
        lambda: Agent("a") * until(done),
        lambda r: r.named("retry"),
        lambda o: o.to_ir().children[-1].name,
        "retry__until",
    ),
    (
        "fallback.named",
        lambda: Agent("a") // Agent("b"),
        lambda r: r.named("safe"),
        lambda o: o.name,
        "safe",
    ),
    (
        "fallback.show",
        lambda: Agent("a") // Agent("b"),
        lambda r: r.show(),
        lambda o: o.to_ir().visibility,
        "user",
    ),
    (
        "route.eq",
        _route,
        lambda r: r.eq("y", Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("eq", "y")),
    ),
    (
        "route.ne",
        _route,
        lambda r: r.ne("y", Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("ne", "y")),
    ),
    (
        "route.gt",
        _route,
        lambda r: r.gt(1, Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("gt", 1)),
    ),
    (
        "route.gte",
        _route,
        lambda r: r.gte(1.5, Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("gte", 1.5)),
    ),
    (
        "route.lt",
        _route,
        lambda r: r.lt(0, Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("lt", 0)),
    ),
    (
        "route.lte",
        _route,
        lambda r: r.lte(-2, Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("lte", -2)),
    ),
    (
        "route.contains",
        _route,
        lambda r: r.contains("ref", Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("contains", "ref")),
    ),
    (
        "route.when",
        _route,
        lambda r: r.when(vip, Agent("b")),
        lambda o: o.to_ir().rules,
        (RouteRule("eq", "x"), RouteRule("when", vip)),
    ),
    (
        "route.otherwise",
        _route,
        lambda r: r.otherwise(Agent("b")),
        lambda o: (o.to_ir().has_otherwise, names(o.to_ir().children)),
        (True, ("a", "b")),
    ),
    ("route.hide", _route, lambda r: r.hide(), lambda o: o.to_ir().visibility, "internal"),
    ("state_step.named", lambda: S.set(k=1), lambda r: r.named("prep"), lambda o: o.name, "prep"),
    (
        "map_over.show",
        lambda: map_over("docs", Agent("a")),
        lambda r: r.show(),
        lambda o: o.to_ir().visibility,
        "user",
    ),
    (
        "timeout.hide",
        lambda: Agent("a").timeout(5),
        lambda r: r.hide(),
        lambda o: o.to_ir().visibility,
        "internal",
    ),
    (
        "race.hide",
        lambda: race(Agent("a"), Agent("b")),
        lambda r: r.hide(),
        lambda o: o.to_ir().visibility,
        "internal",
    ),
]


@pytest.mark.parametrize(
    "make, call, read, expected", [row[1:] for row in METHODS], ids=[row[0] for row in METHODS]
)
def test_a_method_returns_a_new_builder_and_leaves_the_receiver(make, call, read, expected):
    receiver = make()
    result = call(receiver)
    assert result is not receiver
    assert read(result) == expected
    # the receiver is still what a fresh one is (its IR first computed only now: no cache)
    assert receiver.to_ir() == make().to_ir()
    assert receiver.options == make().options
    assert receiver.name == make().name


# -- an IR computed before a change never reaches the changed copy ------------------------------
CACHED = [
    # id, receiver, call, what to read from the result, expected
    ("agent.instruct", _agent, lambda r: r.instruct("Hi"), lambda n: n.instruction, "Hi"),
    ("agent.outputs", _agent, lambda r: r.outputs("k"), lambda n: n.output_key, "k"),
    ("agent.tool", _agent, lambda r: r.tool(search), lambda n: n.tools, (search,)),
    ("agent.hide", _agent, lambda r: r.hide(), lambda n: n.visibility, "internal"),
    ("agent.clone", _agent, lambda r: r.clone("a2"), lambda n: n.name, "a2"),
    ("pipeline.named", _pipeline, lambda r: r.named("intake"), lambda n: n.name, "intake"),
    ("pipeline.description", _pipeline, lambda r: r.description("d"), lambda n: n.description, "d"),
    (
        "loop.max_iterations",
        lambda: Agent("a") * 2,
        lambda r: r.max_iterations(7),
        lambda n: n.max_iterations,
        7,
    ),
    (
        "route.otherwise",
        _route,
        lambda r: r.otherwise(Agent("b")),
        lambda n: n.has_otherwise,
        True,
    ),
    ("state_step.named", lambda: S.set(k=1), lambda r: r.named("prep"), lambda n: n.name, "prep"),
]


@pytest.mark.parametrize(
    "make, call, read, expected", [row[1:] for row in CACHED], ids=[row[0] for row in CACHED]
)
def test_an_ir_computed_before_a_change_is_not_carried_into_the_copy(make, call, read, expected):
    receiver = make()
    before = receiver.to_ir()
    result = call(receiver)
    assert read(result.to_ir()) == expected
    assert receiver.to_ir() is before  # the receiver's own IR, computed once, is kept
    assert before == make().to_ir()


def test_to_ir_is_computed_once_per_builder_value():
    expr = Agent("a") >> (Agent("b") | Agent("c"))
    assert expr.to_ir() is expr.to_ir()


# -- operators leave both operands as they were ------------------------------------------------
OPERANDS = {
    "agent": lambda: Agent("x"),
    "pipeline": lambda: Agent("p1") >> Agent("p2"),
    "named_pipeline": lambda: Pipeline(Agent("n1"), Agent("n2"), name="np"),
    "fanout": lambda: Agent("f1") | Agent("f2"),
    "fallback": lambda: Agent("b1") // Agent("b2"),
    "loop": lambda: Agent("l1") * 2,
    "until_loop": lambda: Agent("u1") * until(done, max=3),
    "route": lambda: Route("k").eq("x", Agent("r1")),
    "state_step": lambda: S.set(k=1),
    "map_over": lambda: map_over("docs", Agent("m1")),
    "tap": lambda: tap(watch),
    "timeout": lambda: Agent("t1").timeout(5),
    "race": lambda: race(Agent("c1"), Agent("c2")),
}
OTHER = {
    "pipeline": lambda: Agent("q1") >> Agent("q2"),
    "fanout": lambda: Agent("f3") | Agent("f4"),
    "fallback": lambda: Agent("b3") // Agent("b4"),
    "agent": lambda: Agent("z"),
}

OPERATIONS = [
    # id, left, operator, right (the operator flattens the unnamed composites of its own kind)
    ("pipeline>>pipeline", "pipeline", ">>", "pipeline"),
    ("agent>>pipeline", "agent", ">>", "pipeline"),
    ("named_pipeline>>pipeline", "named_pipeline", ">>", "pipeline"),
    ("fanout|fanout", "fanout", "|", "fanout"),
    ("fanout>>agent", "fanout", ">>", "agent"),
    ("fallback//fallback", "fallback", "//", "fallback"),
    ("pipeline//fallback", "pipeline", "//", "fallback"),
    ("loop>>pipeline", "loop", ">>", "pipeline"),
    ("until_loop|agent", "until_loop", "|", "agent"),
    ("route>>agent", "route", ">>", "agent"),
    ("state_step>>pipeline", "state_step", ">>", "pipeline"),
    ("map_over|fanout", "map_over", "|", "fanout"),
    ("tap>>agent", "tap", ">>", "agent"),
    ("timeout//fallback", "timeout", "//", "fallback"),
    ("race|fanout", "race", "|", "fanout"),
]


def _apply(left, op, right):
    if op == ">>":
        return left >> right
    if op == "|":
        return left | right
    return left // right


@pytest.mark.parametrize(
    "left_kind, op, right_kind", [row[1:] for row in OPERATIONS], ids=[r[0] for r in OPERATIONS]
)
def test_an_operator_leaves_both_operands(left_kind, op, right_kind):
    left, right = OPERANDS[left_kind](), OTHER[right_kind]()
    result = _apply(left, op, right)
    assert result is not left and result is not right
    assert left.to_ir() == OPERANDS[left_kind]().to_ir()
    assert right.to_ir() == OTHER[right_kind]().to_ir()
    # a second use of the same operands gives the same result: nothing was consumed
    assert _apply(left, op, right).to_ir() == result.to_ir()


@pytest.mark.parametrize(
    "kind, body_name",
    [
        ("agent", "x"),
        ("pipeline", ("p1", "p2")),  # an unnamed pipeline's steps are the loop's own (ADK's idiom)
        ("until_loop", "loop__u1"),
        ("race", "race_c1_c2"),
    ],
)
def test_mul_leaves_the_body(kind, body_name):
    body = OPERANDS[kind]()
    loop = body * 4
    expected = body_name if isinstance(body_name, tuple) else (body_name,)
    assert names(loop.to_ir().children) == expected
    assert body.to_ir() == OPERANDS[kind]().to_ir()
    assert (body * 4).to_ir() == loop.to_ir()


def test_flattening_does_not_empty_or_reorder_the_operand():
    inner = Agent("a") >> Agent("b")
    outer = Agent("z") >> inner >> Agent("c")
    assert names(outer.steps) == ("z", "a", "b", "c")
    assert names(inner.steps) == ("a", "b")
    assert inner.name == "pipeline__a__b"


# -- one builder in several places -------------------------------------------------------------
def test_one_agent_in_two_pipelines_gets_its_own_native_agent_in_each():
    shared = Agent("shared").instruct("Help.")
    first = Agent("a") >> shared
    second = shared >> Agent("b")
    built_first, built_second = first.build(), second.build()
    in_first, in_second = built_first.sub_agents[1], built_second.sub_agents[0]
    assert in_first is not in_second  # ADK gives an agent one parent: each tree has its own
    assert in_first.parent_agent is built_first
    assert in_second.parent_agent is built_second
    assert in_first.instruction == in_second.instruction == "Help."


def test_building_a_parent_does_not_adopt_the_shared_builder():
    shared = Agent("shared")
    (Agent("a") >> shared).build()
    alone = shared.build()
    assert alone.parent_agent is None
    assert alone.name == "shared"


def test_one_composite_in_a_pipeline_and_a_fanout():
    inner = Pipeline(Agent("a"), Agent("b"), name="inner")
    seq = Pipeline(inner, Agent("c"), name="one")
    fan = FanOut(inner, Agent("d"), name="two")
    assert seq.to_ir().children[0] == fan.to_ir().children[0] == inner.to_ir()
    built_seq, built_fan = seq.build(), fan.build()
    assert built_seq.sub_agents[0] is not built_fan.sub_agents[0]
    assert [s.name for s in built_seq.sub_agents[0].sub_agents] == ["a", "b"]
    assert [s.name for s in built_fan.sub_agents[0].sub_agents] == ["a", "b"]


@pytest.mark.parametrize(
    "step, first, second",
    [
        (S.set(k=1), "set_k", "set_k_2"),
        (tap(watch), "tap_watch", "tap_watch_2"),
        (function_step(bump), "bump", "bump_2"),
    ],
    ids=["state_step", "tap", "function_step"],
)
def test_one_zero_cost_step_twice_in_one_tree(step, first, second):
    expr = step >> Agent("a") >> step
    assert [s.name for s in expr.build().sub_agents] == [first, "a", second]
    assert step.name == first  # the step value itself is not renamed


def test_an_agent_twice_in_one_tree_fits_once_cloned():
    base = Agent("writer").instruct("Write.")
    expr = base >> Agent("editor") >> base.clone("rewriter")
    built = expr.build()
    assert [s.name for s in built.sub_agents] == ["writer", "editor", "rewriter"]
    assert built.sub_agents[2].instruction == "Write."


# -- clone --------------------------------------------------------------------------------------
CLONED = [
    # id, original (named "a"), what the twin must keep, expected
    ("instruction", lambda: Agent("a").instruct("Hi {x}"), lambda n: n.instruction, "Hi {x}"),
    ("reads_from_template", lambda: Agent("a").instruct("Hi {x}"), lambda n: n.reads_keys, {"x"}),
    ("output_key", lambda: Agent("a").outputs("k"), lambda n: n.output_key, "k"),
    ("model", lambda: Agent("a", "m"), lambda n: n.model, "m"),
    ("tools", lambda: Agent("a").tools(search, lookup), lambda n: n.tools, (search, lookup)),
    (
        "callbacks",
        lambda: Agent("a").before_model(cb).after_tool(cb2),
        lambda n: (n.before_model_callback, n.after_tool_callback),
        ((cb,), (cb2,)),
    ),
    (
        "delegates",
        lambda: Agent("a").delegate(Agent("x"), Agent("y")),
        lambda n: names(n.children),
        ("x", "y"),
    ),
    ("visibility", lambda: Agent("a").hide(), lambda n: n.visibility, "internal"),
    ("context", lambda: Agent("a").context(C.none()), lambda n: n.context, C.none()),
    ("produces", lambda: Agent("a").produces(Out), lambda n: n.writes_keys, {"title"}),
]


@pytest.mark.parametrize(
    "make, read, expected", [row[1:] for row in CLONED], ids=[row[0] for row in CLONED]
)
def test_clone_keeps_everything_but_the_name(make, read, expected):
    original = make()
    twin = original.clone("twin")
    assert twin.name == twin.to_ir().name == "twin"
    assert read(twin.to_ir()) == expected
    assert original.name == "a"
    assert read(original.to_ir()) == expected


def test_clone_keeps_the_build_options():
    twin = Agent("a").filtered().strict().clone("b")
    assert twin.options == BuildOptions(visibility_mode="filtered", strict=StrictOptions())


def test_a_clone_of_a_clone_is_the_original_under_the_last_name():
    original = Agent("a").instruct("x").outputs("k")
    assert original.clone("b").clone("c").to_ir() == Agent("c").instruct("x").outputs("k").to_ir()


# -- named ------------------------------------------------------------------------------------
NAMED_EQUALS_CONSTRUCTOR = [
    (
        "pipeline",
        lambda: (Agent("a") >> Agent("b")).named("x"),
        lambda: Pipeline(Agent("a"), Agent("b"), name="x"),
    ),
    (
        "fanout",
        lambda: (Agent("a") | Agent("b")).named("x"),
        lambda: FanOut(Agent("a"), Agent("b"), name="x"),
    ),
    (
        "fallback",
        lambda: (Agent("a") // Agent("b")).named("x"),
        lambda: Fallback(Agent("a"), Agent("b"), name="x"),
    ),
    (
        "loop",
        lambda: (Agent("a") * 2).named("x"),
        lambda: Loop(Agent("a"), max_iterations=2, name="x"),
    ),
    (
        "until_loop",
        lambda: (Agent("a") * until(done, max=3)).named("x"),
        lambda: Loop(Agent("a"), until=until(done, max=3), name="x"),
    ),
    (
        "state_step",
        lambda: S.set(k=1).named("x"),
        lambda: S.set(k=1).named("prep").named("x"),
    ),
]


@pytest.mark.parametrize(
    "named, constructed",
    [row[1:] for row in NAMED_EQUALS_CONSTRUCTOR],
    ids=[row[0] for row in NAMED_EQUALS_CONSTRUCTOR],
)
def test_named_is_the_constructor_name_and_the_last_name_wins(named, constructed):
    assert named().to_ir() == constructed().to_ir()
    assert named().to_ir().name == "x"


def test_naming_a_copy_leaves_the_receiver_flattening():
    inner = Agent("a") >> Agent("b")
    kept = inner.named("unit")
    assert names((inner >> Agent("c")).steps) == ("a", "b", "c")
    assert names((kept >> Agent("c")).steps) == ("unit", "c")


def test_named_keeps_the_composites_fields():
    node = (Agent("a") >> Agent("b")).description("intake step").named("intake").to_ir()
    assert (node.name, node.description, names(node.children)) == (
        "intake",
        "intake step",
        ("a", "b"),
    )


def test_a_named_step_keeps_its_record():
    step = S.drop("scratch")
    node = step.named("cleanup").to_ir()
    assert node.name == "cleanup"
    assert node.step == step.step
    assert step.to_ir().name == "drop_scratch"


# -- equal expressions give equal IR --------------------------------------------------------------
A, B, C_ = Agent("a"), Agent("b"), Agent("c")

EQUAL = [
    ("rshift_is_pipeline", lambda: A >> B >> C_, lambda: Pipeline(A, B, C_)),
    ("or_is_fanout", lambda: A | B, lambda: FanOut(A, B)),
    ("mul_is_loop", lambda: A * 3, lambda: Loop(A, max_iterations=3)),
    ("count_either_side", lambda: 3 * A, lambda: A * 3),
    ("floordiv_is_fallback", lambda: A // B, lambda: Fallback(A, B)),
    ("rshift_associative", lambda: (A >> B) >> C_, lambda: A >> (B >> C_)),
    ("or_associative", lambda: (A | B) | C_, lambda: A | (B | C_)),
    ("floordiv_associative", lambda: (A // B) // C_, lambda: A // (B // C_)),
    (
        "loop_until_is_mul_until",
        lambda: loop_until(done, A, max_iterations=4),
        lambda: A * until(done, max=4),
    ),
    ("until_either_side", lambda: until(done) * A, lambda: A * until(done)),
    ("loop_with_until", lambda: Loop(A, until=until(done, max=4)), lambda: A * until(done, max=4)),
    ("timeout_method_and_function", lambda: A.timeout(5), lambda: timeout(A, 5)),
    ("timeout_int_and_float", lambda: A.timeout(5), lambda: Timeout(A, 5.0)),
    ("race_function_and_class", lambda: race(A, B), lambda: Race(A, B)),
    ("map_over_function_and_class", lambda: map_over("docs", A), lambda: MapOver("docs", A)),
    ("tap_function_and_class", lambda: tap(watch), lambda: Tap(watch)),
    ("function_and_function_step", lambda: bump >> A, lambda: function_step(bump) >> A),
    ("function_on_the_left_of_or", lambda: bump | A, lambda: FanOut(function_step(bump), A)),
    ("model_argument_and_setter", lambda: Agent("a", "m"), lambda: Agent("a").model("m")),
    ("outputs_and_output_key", lambda: Agent("a").outputs("k"), lambda: Agent("a").output_key("k")),
    (
        "instruct_and_instruction",
        lambda: Agent("a").instruct("x"),
        lambda: Agent("a").instruction("x"),
    ),
    (
        "tool_twice_and_tools",
        lambda: Agent("a").tool(search).tool(lookup),
        lambda: Agent("a").tools(search, lookup),
    ),
    (
        "callback_sugar_and_setter",
        lambda: Agent("a").before_model(cb),
        lambda: Agent("a").before_model_callback(cb),
    ),
    ("transparent_and_show", lambda: A.transparent(), lambda: A.show()),
    ("filtered_is_not_in_the_ir", lambda: (A >> B).filtered(), lambda: A >> B),
    ("strict_is_not_in_the_ir", lambda: (A >> B).strict(), lambda: A >> B),
    (
        "shared_and_fresh_builders",
        lambda: Route("k").eq("x", A).otherwise(B),
        lambda: Route("k").eq("x", Agent("a")).otherwise(Agent("b")),
    ),
]


@pytest.mark.parametrize("left, right", [row[1:] for row in EQUAL], ids=[row[0] for row in EQUAL])
def test_equal_expressions_give_equal_ir(left, right):
    assert left().to_ir() == right().to_ir()
    assert hash(left().to_ir()) == hash(right().to_ir())


UNEQUAL = [
    ("rshift_order", lambda: A >> B, lambda: B >> A),
    ("or_order", lambda: A | B, lambda: B | A),
    ("floordiv_order", lambda: A // B, lambda: B // A),
    ("loop_count", lambda: A * 2, lambda: A * 3),
    ("until_is_not_a_count", lambda: A * until(done), lambda: A * 10),
    ("until_predicates", lambda: A * until(done), lambda: A * until(vip)),
    ("operator_kind", lambda: A >> B, lambda: A | B),
    ("fallback_or_fanout", lambda: A // B, lambda: A | B),
    ("constructor_nesting", lambda: Pipeline(A >> B, C_), lambda: A >> B >> C_),
    ("named_or_auto", lambda: Pipeline(A, B, name="x"), lambda: A >> B),
    ("timeout_seconds", lambda: A.timeout(5), lambda: A.timeout(6)),
    ("visibility_override", lambda: A.hide(), lambda: A),
    ("state_values", lambda: S.set(k=1), lambda: S.set(k=2)),
    ("route_rule_op", lambda: Route("k").eq("x", A), lambda: Route("k").ne("x", A)),
    (
        "route_otherwise",
        lambda: Route("k").eq("x", A).otherwise(B),
        lambda: Route("k").eq("x", A).eq("y", B),
    ),
    ("map_over_keys", lambda: map_over("docs", A), lambda: map_over("docs", A, item_key="doc")),
]


@pytest.mark.parametrize(
    "left, right", [row[1:] for row in UNEQUAL], ids=[row[0] for row in UNEQUAL]
)
def test_different_expressions_give_different_ir(left, right):
    assert left().to_ir() != right().to_ir()


# -- build options belong to the root expression -------------------------------------------------
def test_strict_on_an_operand_does_not_make_the_pipeline_strict():
    # docs/contracts.md: `a.strict() >> b` builds a new Pipeline that is not strict
    strict = Agent("a").strict()
    expr = strict >> Agent("b")
    assert expr.options == BuildOptions()
    assert strict.options == BuildOptions(strict=StrictOptions())


def test_options_do_not_keep_a_composite_from_flattening():
    expr = (Agent("a") >> Agent("b")).filtered() >> Agent("c")
    assert names(expr.steps) == ("a", "b", "c")
    assert expr.options == BuildOptions()


def test_the_last_visibility_mode_wins():
    assert Agent("a").filtered().annotated().options.visibility_mode == "annotated"
    assert Agent("a").annotated().filtered().options.visibility_mode == "filtered"
