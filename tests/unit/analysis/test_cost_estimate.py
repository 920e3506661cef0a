"""The cost estimate without running (analysis/cost.py), pure: each node type's rule for the
expected calls it contributes, per-agent tokens and calls, models (named, from a model object,
the default, picked by `.model_select`), named scenarios, unpriced models, the table and the
JSON form. Prices are a one-model table (1 USD per million input tokens, 2 per million output)
so every expected figure is plain arithmetic."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event

from adk_fluent import (
    Agent,
    FanOut,
    Loop,
    Native,
    Route,
    S,
    exit_when,
    gate,
    map_over,
    race,
    tap,
    timeout,
    until,
)
from adk_fluent.analysis.cost import CostModel, NodeCost, TrafficAssumptions, estimate_cost
from adk_fluent.ir.model_selection import ModelCandidate
from adk_fluent.ir.prices import ModelPrice, Prices
from adk_fluent.testing import ScriptedModel

M = "m"  # the one priced model of PRICES
PRICES = Prices({M: ModelPrice(1.0, 2.0)}, defaults=False)
IN, OUT = 1000, 500  # tokens per call in ASSUME
PER_CALL = (IN * 1.0 + OUT * 2.0) / 1_000_000  # USD


def assume(**fields) -> TrafficAssumptions:
    base = {"avg_input_tokens": IN, "avg_output_tokens": OUT, "default_model": M, "prices": PRICES}
    base.update(fields)
    return TrafficAssumptions(**base)


def calls(model: CostModel) -> dict[str, float]:
    """Expected calls per agent name."""
    return {node.agent: node.expected_calls for node in model.nodes}


def a(name: str) -> Agent:
    return Agent(name).instruct(f"You are {name}.")


def book(city: str) -> str:
    """Book a trip to `city`."""
    return f"Booked {city}."


# -- composition rules ------------------------------------------------------------------------


def test_a_sequence_runs_each_agent_once_in_tree_order():
    model = estimate_cost((a("first") >> a("second")).named("pipe"), assume())
    assert [(n.path, n.agent, n.expected_calls) for n in model.nodes] == [
        ("pipe/first", "first", 1.0),
        ("pipe/second", "second", 1.0),
    ]
    assert model.per_invocation == pytest.approx(2 * PER_CALL)
    assert model.total_estimated == pytest.approx(2 * PER_CALL)
    assert model.nodes[0] == NodeCost(
        "pipe/first", "first", M, 1.0, float(IN), float(OUT), pytest.approx(PER_CALL), True
    )


def test_invocations_multiply_the_total_not_the_per_invocation_figures():
    model = estimate_cost(a("solo"), assume(invocations=10_000))
    assert model.per_invocation == pytest.approx(PER_CALL)
    assert model.total_estimated == pytest.approx(10_000 * PER_CALL)
    assert model.invocations == 10_000
    assert model.nodes[0].expected_calls == 1.0


def test_a_fan_out_runs_every_branch_once():
    model = estimate_cost(a("lead") >> (a("left") | a("right") | a("middle")), assume())
    assert calls(model) == {"lead": 1.0, "left": 1.0, "right": 1.0, "middle": 1.0}


def route_pipeline():
    return (
        a("classifier").outputs("intent")
        >> Route("intent")
        .eq("billing", a("biller"))
        .eq("technical", a("techie") >> a("reviewer"))
        .otherwise(a("generalist"))
    ).named("support")


def test_route_branches_by_rule_value_with_the_rest_to_the_unlisted_branch():
    model = estimate_cost(
        route_pipeline(), assume(branch_probabilities={"billing": 0.6, "technical": 0.3})
    )
    assert calls(model) == pytest.approx(
        {"classifier": 1, "biller": 0.6, "techie": 0.3, "reviewer": 0.3, "generalist": 0.1}
    )
    assert model.node("reviewer").path == "support/route_intent/pipeline__techie__reviewer/reviewer"
    assert model.per_invocation == pytest.approx(2.3 * PER_CALL)


def test_route_branches_by_agent_name_and_unlisted_ones_share_the_remainder():
    model = estimate_cost(route_pipeline(), assume(branch_probabilities={"generalist": 0.5}))
    assert calls(model) == pytest.approx(
        {"classifier": 1, "biller": 0.25, "techie": 0.25, "reviewer": 0.25, "generalist": 0.5}
    )


def test_route_without_probabilities_splits_evenly_and_a_qualified_key_wins():
    even = estimate_cost(route_pipeline(), assume())
    assert even.node("biller").expected_calls == pytest.approx(1 / 3)
    qualified = estimate_cost(
        route_pipeline(),
        assume(branch_probabilities={"billing": 0.2, "route_intent/billing": 0.8}),
    )
    assert qualified.node("biller").expected_calls == pytest.approx(0.8)
    assert qualified.node("generalist").expected_calls == pytest.approx(0.1)


def test_route_whose_listed_branches_cover_everything_leaves_nothing_to_the_rest():
    route = a("c").outputs("k") >> Route("k").eq("x", a("ax")).eq("y", a("ay"))
    model = estimate_cost(route, assume(branch_probabilities={"x": 0.7, "y": 0.1}))
    # the 0.2 left is the run where no rule matches: no branch runs
    assert calls(model) == pytest.approx({"c": 1, "ax": 0.7, "ay": 0.1})


def test_a_loop_runs_its_body_max_iterations_times_by_default():
    loop = Loop(a("writer"), a("critic"), max_iterations=3, name="refine")
    model = estimate_cost(loop, assume())
    assert calls(model) == {"writer": 3.0, "critic": 3.0}
    assert not model.notes  # no exit check: it always runs max_iterations times


def test_loop_iterations_override_and_the_exit_check_costs_nothing():
    body = (a("writer") >> a("critic")) * until(lambda s: s.get("done"), max=5)
    model = estimate_cost(body.named("refine"), assume())
    assert calls(model) == {"writer": 5.0, "critic": 5.0}
    assert any("refine" in note and "max_iterations (5)" in note for note in model.notes)
    expected = estimate_cost(body.named("refine"), assume(loop_iterations={"refine": 2.5}))
    assert calls(expected) == {"writer": 2.5, "critic": 2.5}


def test_a_loop_with_exit_when_and_no_max_needs_loop_iterations():
    loop = Loop(a("worker"), exit_when(lambda s: s.get("done")), name="work")
    assert calls(estimate_cost(loop, assume(loop_iterations={"work": 4}))) == {"worker": 4.0}


def test_map_over_runs_its_body_once_per_expected_item():
    mapped = a("loader") >> map_over("docs", a("summariser") >> a("tagger"), item_key="doc")
    model = estimate_cost(mapped, assume(items={"map_docs": 12}))
    assert calls(model) == {"loader": 1.0, "summariser": 12.0, "tagger": 12.0}


def test_nested_multipliers_compose():
    inner = map_over("docs", a("summariser"), item_key="doc") * 2
    model = estimate_cost(
        a("c").outputs("k") >> Route("k").eq("x", inner.named("twice")).otherwise(a("other")),
        assume(items={"map_docs": 3}, branch_probabilities={"x": 0.5}),
    )
    assert model.node("summariser").expected_calls == pytest.approx(0.5 * 2 * 3)


def test_fallback_runs_later_children_with_the_earlier_ones_failure_probability():
    chain = (a("primary") // a("secondary") // a("last_resort")).named("safe")
    model = estimate_cost(chain, assume(failure_rates={"primary": 0.1, "secondary": 0.2}))
    assert calls(model) == pytest.approx({"primary": 1, "secondary": 0.1, "last_resort": 0.02})
    assert calls(estimate_cost(chain, assume())) == {
        "primary": 1.0,
        "secondary": 0.0,
        "last_resort": 0.0,
    }


def test_a_race_counts_every_branch_in_full_and_says_so():
    model = estimate_cost(race(a("fast"), a("slow"), name="quickest"), assume())
    assert calls(model) == {"fast": 1.0, "slow": 1.0}
    assert any("quickest" in note and "upper bound" in note for note in model.notes)


def test_a_timeout_runs_its_body_once():
    model = estimate_cost(timeout(a("slowpoke") >> a("after"), 30), assume())
    assert calls(model) == {"slowpoke": 1.0, "after": 1.0}


def test_gates_state_steps_and_taps_cost_nothing():
    steps = (
        S.set(draft="") >> a("writer") >> tap(lambda s: None) >> gate(True, "Go on?") >> a("sender")
    )
    model = estimate_cost(steps, assume())
    assert [n.agent for n in model.nodes] == ["writer", "sender"]
    assert model.per_invocation == pytest.approx(2 * PER_CALL)


# -- agents -----------------------------------------------------------------------------------


def test_per_agent_tokens_and_calls_override_the_averages():
    model = estimate_cost(
        a("reader") >> a("booker").tool(book),
        assume(tokens={"reader": (4000, 100)}, calls={"booker": 2}),
    )
    reader, booker = model.nodes
    assert (reader.input_tokens, reader.output_tokens) == (4000, 100)
    assert reader.cost_usd == pytest.approx((4000 + 200) / 1_000_000)
    assert (booker.expected_calls, booker.input_tokens, booker.output_tokens) == (
        2,
        2 * IN,
        2 * OUT,
    )
    assert not model.notes  # calls were given for the agent with a tool


def test_an_agent_with_tools_and_no_calls_given_gets_a_note():
    model = estimate_cost(a("booker").tool(book), assume())
    assert model.node("booker").expected_calls == 1.0
    assert any("calls={'booker': 2}" in note for note in model.notes)


def test_agent_tools_run_tool_calls_times_per_run_of_their_caller():
    checker = a("fact_checker")
    researcher = a("researcher").tool(checker)
    tree = (a("lead").tool(researcher) * 2).named("loop2")
    model = estimate_cost(tree, assume(tool_calls={"researcher": 1.5}, calls={"lead": 2}))
    assert calls(model) == pytest.approx({"lead": 4, "researcher": 3, "fact_checker": 3})
    assert model.node("fact_checker").path == "loop2/lead/researcher/fact_checker"


def test_delegates_are_one_per_run_like_route_branches():
    coordinator = a("coordinator").delegate(a("booker"), a("helper"))
    even = estimate_cost(coordinator, assume())
    assert calls(even) == pytest.approx({"coordinator": 1, "booker": 0.5, "helper": 0.5})
    given = estimate_cost(coordinator, assume(branch_probabilities={"booker": 0.9}))
    assert calls(given) == pytest.approx({"coordinator": 1, "booker": 0.9, "helper": 0.1})


class Planner(BaseAgent):
    drafter: LlmAgent

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        if False:  # pragma: no cover - never run in the unit tier
            yield


def test_a_native_custom_agent_counts_its_llm_agents_with_the_default_model():
    planner = Planner(name="planner", drafter=LlmAgent(name="drafter", model="gemini-2.5-pro"))
    model = estimate_cost(
        (a("intake") >> Native(planner)).named("flow"), assume(tokens={"drafter": (10, 10)})
    )
    drafter = model.node("drafter")
    assert (drafter.path, drafter.model, drafter.expected_calls) == (
        "flow/planner/drafter",
        M,
        1.0,
    )
    assert drafter.input_tokens == 10
    assert any("native agent 'planner'" in note for note in model.notes)


def test_a_native_llm_agent_is_read_field_by_field_and_priced_by_its_model():
    native = LlmAgent(name="native_writer", model="gemini-2.5-pro", instruction="Write.")
    model = estimate_cost(a("intake") >> Native(native), TrafficAssumptions())
    writer = model.node("native_writer")
    assert writer.model == "gemini-2.5-pro"
    assert writer.cost_usd == pytest.approx((500 * 1.25 + 200 * 10.0) / 1_000_000)


def test_models_named_by_string_by_model_object_and_by_default():
    tree = (
        a("by_name").model("gemini-2.5-pro")
        >> a("by_object").model(ScriptedModel(["x"], model="gemini-2.0-flash-001"))
        >> a("by_default")
    )
    model = estimate_cost(tree, TrafficAssumptions(default_model="gemini-2.5-flash-lite"))
    assert [n.model for n in model.nodes] == [
        "gemini-2.5-pro",
        "gemini-2.0-flash-001",
        "gemini-2.5-flash-lite",
    ]
    by_object = model.node("by_object")
    assert by_object.cost_usd == pytest.approx((500 * 0.10 + 200 * 0.40) / 1_000_000)


def test_long_prompts_are_priced_at_the_long_context_tier():
    model = estimate_cost(
        a("reader").model("gemini-2.5-pro"),
        TrafficAssumptions(tokens={"reader": (300_000, 1_000)}),
    )
    assert model.per_invocation == pytest.approx((300_000 * 2.50 + 1_000 * 15.00) / 1_000_000)


# -- model selection --------------------------------------------------------------------------

FLASH = ModelCandidate("gemini-2.5-flash", quality_tier=1)
PRO = ModelCandidate("gemini-2.5-pro", quality_tier=2)


def test_cost_optimized_selection_is_priced_with_the_cheapest_candidate():
    agent = a("classifier").model_select("cost_optimized", [PRO, FLASH])
    model = estimate_cost(agent, TrafficAssumptions())
    assert model.node("classifier").model == "gemini-2.5-flash"
    assert model.per_invocation == pytest.approx((500 * 0.30 + 200 * 2.50) / 1_000_000)
    assert any("picks gemini-2.5-flash" in note for note in model.notes)


def test_quality_optimized_selection_is_priced_with_the_best_tier():
    agent = a("classifier").model_select("quality_optimized", [FLASH, PRO])
    assert estimate_cost(agent, TrafficAssumptions()).node("classifier").model == "gemini-2.5-pro"


def test_budget_bounded_selection_reads_the_initial_state():
    agent = a("writer").model_select(
        "budget_bounded",
        [FLASH, PRO],
        budget_key="budget_usd",
        fallback_model="gemini-2.5-flash-lite",
    )
    rich = estimate_cost(agent, TrafficAssumptions(initial_state={"budget_usd": 5.0}))
    poor = estimate_cost(agent, TrafficAssumptions(initial_state={"budget_usd": 0.0000001}))
    unknown = estimate_cost(agent, TrafficAssumptions())
    assert rich.node("writer").model == "gemini-2.5-pro"
    assert poor.node("writer").model == "gemini-2.5-flash-lite"
    assert unknown.node("writer").model == "gemini-2.5-pro"  # no budget in state: best tier


def test_a_selection_sees_the_agents_expected_input_tokens():
    small = ModelCandidate("gemini-2.5-flash-lite", quality_tier=1, max_input_tokens=2_000)
    agent = a("reader").model_select("cost_optimized", [small, FLASH])
    short = estimate_cost(agent, TrafficAssumptions(tokens={"reader": (1_000, 10)}))
    long = estimate_cost(agent, TrafficAssumptions(tokens={"reader": (50_000, 10)}))
    assert short.node("reader").model == "gemini-2.5-flash-lite"
    assert long.node("reader").model == "gemini-2.5-flash"


def test_a_candidates_own_price_is_used_for_a_model_the_table_lacks():
    local = ModelCandidate("local-llm", quality_tier=1, price=ModelPrice(0.0, 0.0))
    agent = a("helper").model_select("cost_optimized", [local, FLASH])
    model = estimate_cost(agent, TrafficAssumptions())
    helper = model.node("helper")
    assert (helper.model, helper.priced, helper.cost_usd) == ("local-llm", True, 0.0)
    assert model.unpriced == ()


# -- scenarios, unpriced models, output ---------------------------------------------------------


def test_named_scenarios_give_one_estimate_each():
    scenarios = {
        "billing_heavy": assume(invocations=100, branch_probabilities={"billing": 0.9}),
        "technical_heavy": assume(invocations=100, branch_probabilities={"technical": 0.9}),
    }
    models = estimate_cost(route_pipeline(), scenarios)
    assert list(models) == ["billing_heavy", "technical_heavy"]
    assert models["billing_heavy"].node("biller").expected_calls == pytest.approx(0.9)
    assert models["technical_heavy"].node("techie").expected_calls == pytest.approx(0.9)
    # the technical branch has two agents: the technical-heavy day costs more
    assert models["technical_heavy"].total_estimated > models["billing_heavy"].total_estimated


def test_a_model_without_a_price_costs_zero_and_is_listed():
    tree = a("known") >> a("local").model("my-local-llm")
    model = estimate_cost(tree, TrafficAssumptions())
    local = model.node("local")
    assert (local.priced, local.cost_usd, local.expected_calls) == (False, 0.0, 1.0)
    assert model.unpriced == ("my-local-llm",)
    assert model.per_invocation == pytest.approx(model.node("known").cost_usd)
    assert "unpriced models (counted as 0 USD): my-local-llm" in model.table()


def test_prices_given_as_a_dict_add_to_the_defaults():
    tree = a("known") >> a("local").model("my-local-llm")
    model = estimate_cost(tree, TrafficAssumptions(prices={"my-local-llm": ModelPrice(1.0, 1.0)}))
    assert model.unpriced == ()
    assert model.node("local").cost_usd == pytest.approx(700 / 1_000_000)
    assert model.node("known").model == "gemini-2.5-flash"


def test_the_table_lists_each_agent_with_aligned_columns_and_totals():
    model = estimate_cost(
        route_pipeline(),
        assume(invocations=1000, branch_probabilities={"billing": 0.6, "technical": 0.3}),
    )
    text = model.table()
    lines = text.splitlines()
    assert lines[0] == "Estimated cost of 1,000 invocation(s)"
    header = lines[1]
    assert header.split() == [
        "agent", "in", "support", "model", "calls", "input", "tok", "output", "tok", "USD/run",
        "USD", "total",
    ]  # fmt: skip
    rows = {line.split()[0]: line.split() for line in lines[3:8]}
    biller = rows["route_intent/biller"]  # the root is named once, in the header
    assert biller[1:5] == [M, "0.60", "600", "300"]
    assert biller[5] == f"{0.6 * PER_CALL:.6f}"
    assert biller[6] == f"{600 * PER_CALL:.4f}"  # fewer decimals once the column reaches 1 USD
    total = next(line for line in lines if line.startswith("total")).split()
    assert total[1:] == [
        "2.30",
        "2,300",
        "1,150",
        f"{2.3 * PER_CALL:.6f}",
        f"{2300 * PER_CALL:.4f}",
    ]
    # right-aligned numbers end in one column
    ends = {len(line) for line in lines[1:9] if not line.startswith("-")}
    assert len(ends) == 1
    assert str(model) == text


def test_to_dict_is_json_and_reads_back_as_the_same_model():
    model = estimate_cost(
        route_pipeline() >> race(a("fast"), a("slow")) >> a("local").model("my-local-llm"),
        TrafficAssumptions(invocations=250, branch_probabilities={"billing": 0.5}),
    )
    data = json.loads(json.dumps(model.to_dict()))
    assert data == model.to_dict()
    assert CostModel.from_dict(data) == model
    assert data["unpriced"] == ["my-local-llm"] and data["notes"]
    assert data["nodes"][0]["path"].endswith("/classifier")
    assert json.loads(model.to_json()) == data


def test_the_ir_and_its_builder_give_the_same_estimate():
    tree = route_pipeline()
    assert estimate_cost(tree, assume()) == estimate_cost(tree.to_ir(), assume())


def test_the_default_assumptions_price_one_run_of_every_agent_on_gemini_flash():
    model = estimate_cost(a("one") >> a("two"))
    assert [n.model for n in model.nodes] == ["gemini-2.5-flash"] * 2
    assert model.per_invocation == pytest.approx(2 * (500 * 0.30 + 200 * 2.50) / 1_000_000)


def test_assumptions_are_frozen_read_only_values():
    value = assume(calls={"x": 2})
    with pytest.raises(AttributeError):
        value.invocations = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        value.calls["x"] = 3  # type: ignore[index]
    assert value == assume(calls={"x": 2})
    changed = dataclasses.replace(value, invocations=5)  # a new value, checked like any other
    assert (changed.invocations, changed.calls, value.invocations) == (5, {"x": 2}, 1)


def test_a_fan_out_builder_of_composites_is_walked_through():
    tree = FanOut(a("p") >> a("q"), a("r") * 2)
    assert calls(estimate_cost(tree, assume())) == {"p": 1.0, "q": 1.0, "r": 2.0}
