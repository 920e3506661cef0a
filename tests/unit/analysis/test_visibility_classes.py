"""Who speaks to the user, as tables over pipeline shapes (analysis/visibility.py, pure):
for each shape and override, which agents are `user` (their text is the answer), `internal`
(their text feeds later steps) or `zero_cost` (steps and composites, which never speak), the
depth and path each event is annotated with, that the client mode (annotated / filtered) does
not change the classification, and which internal agents' replies land nowhere but history.
"""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    Pipeline,
    Route,
    S,
    gate,
    infer_visibility,
    loop_until,
    map_over,
    race,
    tap,
    timeout,
)
from adk_fluent.analysis.visibility import (
    NodeVisibility,
    infer_visibility_table,
    silent_internal_agents,
)


def classes(expr, names):
    """The visibility of the named nodes (composites' auto names are left out of the tables)."""
    table = infer_visibility(expr.to_ir())
    return {name: table[name] for name in names}


def _done(state):
    return state.get("done") == "yes"


def _route_end():
    return Route("k").eq("x", Agent("b")).otherwise(Agent("c"))


USER, INTERNAL, ZERO = "user", "internal", "zero_cost"

SHAPES = [
    # sequences: every child but the last has a successor
    (
        "three-in-a-row",
        Agent("a") >> Agent("b") >> Agent("c"),
        {"a": INTERNAL, "b": INTERNAL, "c": USER},
    ),
    (
        "fan-out-at-the-end",
        Agent("a") >> (Agent("b") | Agent("c")),
        {"a": INTERNAL, "b": USER, "c": USER},
    ),
    (
        "fan-out-then-agent",
        (Agent("a") | Agent("b")) >> Agent("c"),
        {"a": INTERNAL, "b": INTERNAL, "c": USER},
    ),
    (
        "sequence-inside-fan-out",
        (Agent("a") >> Agent("b")) | Agent("c"),
        {"a": INTERNAL, "b": USER, "c": USER},
    ),
    ("fallback-alone", Agent("a") // Agent("b"), {"a": USER, "b": USER}),
    (
        "fallback-then-agent",
        (Agent("a") // Agent("b")) >> Agent("c"),
        {"a": INTERNAL, "b": INTERNAL, "c": USER},
    ),
    ("race-alone", race(Agent("a"), Agent("b")), {"a": USER, "b": USER}),
    (
        "race-then-agent",
        race(Agent("a"), Agent("b")) >> Agent("c"),
        {"a": INTERNAL, "b": INTERNAL, "c": USER},
    ),
    ("timeout-alone", timeout(Agent("a"), 5), {"a": USER, "timeout_a": ZERO}),
    ("timeout-then-agent", timeout(Agent("a"), 5) >> Agent("b"), {"a": INTERNAL, "b": USER}),
    # loops and map_over: an iteration is never the answer, even at the end
    ("loop-at-the-end", Agent("a") * 3, {"a": INTERNAL, "loop__a": ZERO}),
    ("loop-of-a-sequence", (Agent("a") >> Agent("b")) * 2, {"a": INTERNAL, "b": INTERNAL}),
    (
        "loop-until",
        loop_until(_done, Agent("a")),
        {"a": INTERNAL, "loop__a": ZERO, "loop__a__until": ZERO},
    ),
    ("map-over", map_over("docs", Agent("s")), {"s": INTERNAL, "map_docs": ZERO}),
    (
        "map-over-sequence",
        map_over("docs", Agent("s") >> Agent("t")),
        {"s": INTERNAL, "t": INTERNAL},
    ),
    # routes: branches take the route's place
    ("route-at-the-end", _route_end(), {"route_k": ZERO, "b": USER, "c": USER}),
    (
        "route-then-agent",
        _route_end() >> Agent("d"),
        {"route_k": ZERO, "b": INTERNAL, "c": INTERNAL, "d": USER},
    ),
    (
        "sequence-inside-a-route-branch",
        Agent("a").outputs("k") >> Route("k").eq("x", Agent("b") >> Agent("c")),
        {"a": INTERNAL, "b": INTERNAL, "c": USER},
    ),
    # delegates take their agent's place
    (
        "delegates-of-the-last",
        Agent("boss").delegate(Agent("x"), Agent("y")),
        {"boss": USER, "x": USER, "y": USER},
    ),
    (
        "delegates-of-an-inner",
        Agent("boss").delegate(Agent("x")) >> Agent("z"),
        {"boss": INTERNAL, "x": INTERNAL, "z": USER},
    ),
    # steps never speak, but they are successors
    (
        "steps-around-an-agent",
        S.set(k=1) >> Agent("a") >> S.log("k"),
        {"set_k": ZERO, "a": INTERNAL, "log_k": ZERO},
    ),
    ("tap-after-an-agent", Agent("a") >> tap(print), {"a": INTERNAL, "tap_print": ZERO}),
    ("function-step", (lambda state: {"k": 1}) >> Agent("a"), {"fn_step": ZERO, "a": USER}),
    # a gate always asks the user, and is a successor like any step
    (
        "gate-after-an-agent",
        Agent("a") >> gate(True, "ok?"),
        {"a": INTERNAL, "approval_gate": USER},
    ),
    ("gate-before-an-agent", gate(True, "ok?") >> Agent("a"), {"approval_gate": USER, "a": USER}),
    (
        "gate-inside-a-loop",
        (Agent("a") >> gate(True, "again?", name="check")) * 2,
        {"a": INTERNAL, "check": USER},
    ),
]


@pytest.mark.parametrize(("expr", "expected"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_visibility_follows_the_topology(expr, expected):
    assert classes(expr, expected) == expected


COMPOSITES = [
    ("pipeline", Agent("a") >> Agent("b"), "pipeline__a__b"),
    ("fan-out", Agent("a") | Agent("b"), "fanout__a__b"),
    ("loop", Agent("a") * 2, "loop__a"),
    ("fallback", Agent("a") // Agent("b"), "fallback__a__b"),
    ("race", race(Agent("a"), Agent("b")), "race_a_b"),
    ("timeout", timeout(Agent("a"), 1), "timeout_a"),
    ("named-pipeline-in-a-pipeline", Agent("z") >> Pipeline(Agent("a"), name="inner"), "inner"),
]


@pytest.mark.parametrize(
    ("expr", "name"), [c[1:] for c in COMPOSITES], ids=[c[0] for c in COMPOSITES]
)
def test_composites_themselves_never_speak(expr, name):
    assert infer_visibility(expr.to_ir())[name] == ZERO


OVERRIDES = [
    ("show-an-inner-agent", Agent("a").show() >> Agent("b"), {"a": USER, "b": USER}),
    ("hide-the-last-agent", Agent("a") >> Agent("b").hide(), {"a": INTERNAL, "b": INTERNAL}),
    ("hide-a-lone-agent", Agent("a").hide(), {"a": INTERNAL}),
    ("show-a-whole-pipeline", (Agent("a") >> Agent("b")).show(), {"a": USER, "b": USER}),
    (
        "transparent-is-show",
        (Agent("a") >> Agent("b") >> Agent("c")).transparent(),
        {"a": USER, "b": USER, "c": USER},
    ),
    ("hide-a-fan-out", (Agent("a") | Agent("b")).hide(), {"a": INTERNAL, "b": INTERNAL}),
    ("show-a-loop-body", (Agent("a") * 2).show(), {"a": USER}),
    ("transparent-map-over", map_over("docs", Agent("s")).transparent(), {"s": USER}),
    ("hide-a-route", _route_end().hide(), {"b": INTERNAL, "c": INTERNAL}),
    (
        "child-show-beats-parent-hide",
        (Agent("a") >> Agent("b").show()).hide(),
        {"a": INTERNAL, "b": USER},
    ),
    (
        "child-hide-beats-parent-show",
        (Agent("a").hide() >> Agent("b")).show(),
        {"a": INTERNAL, "b": USER},
    ),
    (
        "show-an-inner-composite",
        (Agent("a") >> Agent("b")).show() >> Agent("c"),
        {"a": USER, "b": USER, "c": USER},
    ),
    (
        "shown-agent-lends-it-to-its-delegates",
        Agent("boss").delegate(Agent("x")).show() >> Agent("z"),
        {"boss": USER, "x": USER, "z": USER},
    ),
    (
        "a-delegate-keeps-its-own-override",
        Agent("boss").delegate(Agent("x").hide(), Agent("y")),
        {"boss": USER, "x": INTERNAL, "y": USER},
    ),
    (
        "show-does-not-make-a-step-speak",
        (S.set(k=1) >> Agent("a")).show(),
        {"set_k": ZERO, "a": USER},
    ),
]


@pytest.mark.parametrize(
    ("expr", "expected"), [c[1:] for c in OVERRIDES], ids=[c[0] for c in OVERRIDES]
)
def test_show_hide_and_transparent_override_the_topology(expr, expected):
    assert classes(expr, expected) == expected


MODES = [
    ("route", Agent("a").outputs("k") >> _route_end(), {"a": INTERNAL, "b": USER, "c": USER}),
    ("loop-then-agent", Agent("a") * 2 >> Agent("b"), {"a": INTERNAL, "b": USER}),
    ("hidden-last", Agent("a") >> Agent("b").hide(), {"a": INTERNAL, "b": INTERNAL}),
]


@pytest.mark.parametrize("mode", ["annotated", "filtered"])
@pytest.mark.parametrize(("expr", "expected"), [c[1:] for c in MODES], ids=[c[0] for c in MODES])
def test_the_client_mode_does_not_change_who_is_internal(mode, expr, expected):
    # the mode decides what a client receives; the classification is the topology's alone
    assert classes(getattr(expr, mode)(), expected) == expected


# Depth is the place in the call tree, whatever the visibility: a hand-off (a pipeline's next
# step, a route's branch, a loop's body, a FanOut's branch) keeps it; an LLM agent's delegates
# are one level below it; an agent tool's run is one level below the agent that calls it.
DEPTHS = [
    (
        "pipeline-hand-offs-keep-depth-0",
        Agent("a") >> Agent("b") >> Agent("c"),
        {
            "pipeline__a__b__c": (ZERO, 0, "pipeline__a__b__c"),
            "a": (INTERNAL, 0, "pipeline__a__b__c/a"),
            "b": (INTERNAL, 0, "pipeline__a__b__c/b"),
            "c": (USER, 0, "pipeline__a__b__c/c"),
        },
    ),
    (
        "named-route-branch",
        Pipeline(Agent("a"), Route("k").eq("x", Agent("b")), name="flow"),
        {"route_k": (ZERO, 0, "flow/route_k"), "b": (USER, 0, "flow/route_k/b")},
    ),
    (
        "loop-and-fanout-bodies-run-in-their-place",
        (Agent("a") * 2) >> (Agent("f1") | Agent("f2")),
        {
            "a": (INTERNAL, 0, "pipeline__loop__a__fanout__f1__f2/loop__a/a"),
            "f2": (USER, 0, "pipeline__loop__a__fanout__f1__f2/fanout__f1__f2/f2"),
        },
    ),
    (
        "a-delegate-is-one-level-below-its-llm-parent",
        Agent("boss").delegate(Agent("x")) >> Agent("z"),
        {
            "boss": (INTERNAL, 0, "pipeline__boss__z/boss"),
            "x": (INTERNAL, 1, "pipeline__boss__z/boss/x"),
            "z": (USER, 0, "pipeline__boss__z/z"),
        },
    ),
    (
        "a-delegates-delegate-is-two-levels-below",
        Agent("boss").delegate(Agent("x").delegate(Agent("y"))),
        {"boss": (USER, 0, "boss"), "x": (USER, 1, "boss/x"), "y": (USER, 2, "boss/x/y")},
    ),
    (
        "an-agent-tool-runs-one-level-below-its-caller",
        Agent("boss").delegate(Agent("x").tool(Agent("helper"))),
        {"x": (USER, 1, "boss/x"), "helper": NodeVisibility(USER, 2, "boss/x/helper", True)},
    ),
    (
        "gate-in-a-hidden-pipeline",
        Pipeline(Agent("a"), gate(True, "ok?", name="check"), name="p").hide(),
        {"a": (INTERNAL, 0, "p/a", False, True), "check": (USER, 0, "p/check")},
    ),
    (
        # in the caller's stream an agent tool's agents are internal unless .show() said so
        "an-agent-tools-agents-shown-or-not",
        Agent("boss").tool(Agent("shown").show()).tool(Agent("quiet").delegate(Agent("d"))),
        {
            "shown": (USER, 1, "boss/shown", True, True),
            "quiet": (USER, 1, "boss/quiet", True),
            "d": (USER, 2, "boss/quiet/d", True),
        },
    ),
    ("a-lone-agent", Agent("a"), {"a": (USER, 0, "a")}),
]


@pytest.mark.parametrize(("expr", "expected"), [c[1:] for c in DEPTHS], ids=[c[0] for c in DEPTHS])
def test_depth_and_path_of_each_node(expr, expected):
    table = infer_visibility_table(expr.to_ir())
    assert {name: table[name] for name in expected} == {
        name: row if isinstance(row, NodeVisibility) else NodeVisibility(*row)
        for name, row in expected.items()
    }


def test_an_agent_tools_agents_are_internal_in_the_callers_stream_unless_shown():
    table = infer_visibility_table(
        Agent("boss").tool(Agent("shown").show()).tool(Agent("quiet").delegate(Agent("d"))).to_ir()
    )
    assert {name: table[name].in_caller_stream for name in ("boss", "shown", "quiet", "d")} == {
        "boss": USER,
        "shown": USER,
        "quiet": INTERNAL,
        "d": INTERNAL,
    }


SILENT = [
    ("internal-without-output-key", Agent("a") >> Agent("b"), ["a"]),
    ("internal-with-output-key", Agent("a").outputs("k") >> Agent("b"), []),
    ("several-in-order", Agent("a") >> Agent("b") >> Agent("c"), ["a", "b"]),
    ("user-facing-is-never-silent", Agent("a").show() >> Agent("b"), []),
    ("loop-body", Agent("a") * 2 >> Agent("b").outputs("k"), ["a"]),
    ("map-over-collects-the-lone-body", map_over("docs", Agent("s")), []),
    ("map-over-collects-the-last-of-a-body", map_over("docs", Agent("s") >> Agent("t")), ["s"]),
    (
        "delegates-of-an-inner-agent",
        Agent("boss").delegate(Agent("x")) >> Agent("z"),
        ["boss", "x"],
    ),
    ("hidden-last-agent", Agent("a").outputs("k") >> Agent("b").hide(), ["b"]),
]


@pytest.mark.parametrize(("expr", "expected"), [c[1:] for c in SILENT], ids=[c[0] for c in SILENT])
def test_internal_agents_whose_reply_lands_only_in_history(expr, expected):
    assert silent_internal_agents(expr.to_ir()) == expected


@pytest.mark.parametrize(
    "tail", [S.set(done=True), tap(print)], ids=["set-after-the-agent", "tap-after-the-agent"]
)
def test_map_over_collects_the_agent_before_a_trailing_step(tail):
    assert silent_internal_agents(map_over("docs", Agent("s") >> tail).to_ir()) == []
