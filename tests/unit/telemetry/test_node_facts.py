"""node_facts: what telemetry says of each agent, read from the IR (paths, kinds, visibility,
declared keys, the enclosing loop and route, which step begins an iteration)."""

from __future__ import annotations

from adk_fluent import Agent as FluentAgent
from adk_fluent import C, FanOut, Loop, Route, S, map_over
from adk_fluent.analysis.node_facts import kind_of, node_facts


def test_paths_kinds_and_declared_keys():
    tree = FluentAgent("classify").instruct("Classify.").outputs("intent") >> Route(
        "intent", name="route"
    ).eq("a", FluentAgent("alpha").instruct("A {intent}.").context(C.user_only())).eq(
        "b", FluentAgent("beta").instruct("B.")
    )
    ir = tree.to_ir()
    facts = node_facts(ir)
    root = ir.name
    assert facts[root].kind == "pipeline" and facts[root].path == root
    alpha = facts["alpha"]
    assert alpha.path == f"{root}/route/alpha" and alpha.kind == "agent"
    assert alpha.route == "route" and alpha.reads == ("intent",)
    assert alpha.context == "user_only" and alpha.visibility == "user" and alpha.depth == 0
    assert facts["classify"].writes == ("intent",) and facts["classify"].visibility == "internal"
    assert facts["route"].kind == "route" and facts["route"].route is None
    assert {f.pipeline for f in facts.values()} == {root}


def test_loops_mark_the_step_that_begins_an_iteration():
    body = FluentAgent("draft").instruct("D.") >> FluentAgent("check").instruct("C.")
    tree = FluentAgent("start").instruct("S.") >> Loop(body, max_iterations=3, name="refine")
    facts = node_facts(tree.to_ir())
    assert facts["refine"].kind == "loop"
    assert (facts["draft"].loop, facts["draft"].starts_iteration) == ("refine", True)
    assert (facts["check"].loop, facts["check"].starts_iteration) == ("refine", False)
    assert facts["start"].loop is None


def test_a_nested_first_step_begins_the_iteration():
    inner = FanOut(FluentAgent("x").instruct("X."), FluentAgent("y").instruct("Y."), name="fan")
    tree = Loop(inner >> FluentAgent("z").instruct("Z."), max_iterations=2, name="again")
    facts = node_facts(tree.to_ir())
    assert facts["fan"].starts_iteration and facts["x"].starts_iteration
    assert not facts["y"].starts_iteration and not facts["z"].starts_iteration
    assert {facts[n].loop for n in ("fan", "x", "y", "z")} == {"again"}


def test_map_over_is_a_loop_for_telemetry():
    tree = map_over("items", FluentAgent("each").instruct("Do {item}."), output_key="done")
    ir = tree.to_ir()
    facts = node_facts(ir)
    assert facts[ir.name].kind == "map_over"
    assert facts["each"].loop == ir.name and facts["each"].starts_iteration


def test_renamed_steps_share_their_facts():
    tree = S.set(a=1) >> FluentAgent("solo").instruct("Go.")
    ir = tree.to_ir()
    step = ir.children[0].name
    facts = node_facts(ir, {"compiled_step_2": step})
    assert facts["compiled_step_2"] is facts[step]
    assert facts[step].kind == "state_step"


def test_kind_of_names_unknown_types_in_snake_case():
    class WeirdThingNode:
        pass

    assert kind_of(WeirdThingNode()) == "weird_thing"  # type: ignore[arg-type]
