"""Misuse of the cost estimate (estimate_cost, TrafficAssumptions): each mistake is refused when
the assumptions are made or the estimate is asked for, naming the field (and the agent, route,
loop or map_over where there is one) with a hint; a name the tree does not have gets a
did-you-mean, since a typo would otherwise give a wrong estimate without a word."""

from __future__ import annotations

import pytest
from google.adk.agents import LlmAgent

from adk_fluent import Agent, Loop, Route, exit_when, map_over
from adk_fluent.analysis.cost import TrafficAssumptions, estimate_cost
from tests.support.misuse import case, check, ids


def support():
    return Agent("classifier").instruct("Classify.").outputs("intent") >> Route("intent").eq(
        "billing", Agent("biller")
    ).eq("technical", Agent("techie")).otherwise(Agent("generalist"))


def researched():
    return (Agent("lead").tool(Agent("researcher").instruct("Research.")) * 2).named("rounds")


def estimate(tree=None, **fields):
    return lambda: estimate_cost(
        tree if tree is not None else support(), TrafficAssumptions(**fields)
    )


CASES = [
    # the assumptions' own values
    case(
        "cost-est-invocations-not-a-number",
        lambda: TrafficAssumptions(invocations="10k"),
        "invocations",
        "str '10k'",
    ),
    case(
        "cost-est-invocations-negative",
        lambda: TrafficAssumptions(invocations=-5),
        "invocations",
        "-5",
        "0 or more",
    ),
    case(
        "cost-est-avg-tokens-bool",
        lambda: TrafficAssumptions(avg_input_tokens=True),
        "avg_input_tokens",
        "True",
    ),
    case(
        "cost-est-tokens-not-a-pair",
        lambda: TrafficAssumptions(tokens={"writer": 1200}),
        "tokens['writer']",
        "(input, output) pair",
    ),
    case(
        "cost-est-tokens-negative",
        lambda: TrafficAssumptions(tokens={"writer": (-1, 30)}),
        "tokens['writer']",
        "-1",
    ),
    case(
        "cost-est-tokens-not-a-dict",
        lambda: TrafficAssumptions(tokens=[("writer", (10, 2))]),
        "tokens",
        "dict keyed by LLM agent name",
    ),
    case(
        "cost-est-calls-negative",
        lambda: TrafficAssumptions(calls={"booker": -2}),
        "calls['booker']",
        "0 or more",
    ),
    case(
        "cost-est-probability-above-one",
        lambda: TrafficAssumptions(branch_probabilities={"billing": 1.5}),
        "branch_probabilities['billing']",
        "between 0 and 1",
    ),
    case(
        "cost-est-failure-rate-above-one",
        lambda: TrafficAssumptions(failure_rates={"primary": 2}),
        "failure_rates['primary']",
        "between 0 and 1",
    ),
    case(
        "cost-est-unknown-field",
        lambda: TrafficAssumptions(invocations_per_day=10_000),
        "invocations_per_day",
        "did you mean 'invocations'",
    ),
    case(
        "cost-est-default-model-blank",
        lambda: TrafficAssumptions(default_model="  "),
        "default_model",
        "model name",
    ),
    case(
        "cost-est-prices-not-a-table",
        lambda: TrafficAssumptions(prices=[("gemini-2.5-flash", 0.3, 2.5)]),
        "prices",
        "Prices table",
    ),
    case(
        "cost-est-price-entry-not-a-price",
        lambda: TrafficAssumptions(prices={"my-model": 3}),
        "prices",
        "'my-model'",
        "ModelPrice",
    ),
    case(
        "cost-est-initial-state-not-a-dict",
        lambda: TrafficAssumptions(initial_state=["budget_usd", 1]),
        "initial_state",
        "dict of state values",
    ),
    # the assumptions against the tree
    case(
        "cost-est-branches-sum-above-one",
        estimate(branch_probabilities={"billing": 0.7, "technical": 0.6}),
        "route_intent",
        "add up to 1.3",
        "branch_probabilities",
    ),
    case(
        "cost-est-unknown-agent-in-tokens",
        estimate(tokens={"clasifier": (800, 20)}),
        "tokens",
        "'clasifier'",
        "did you mean 'classifier'",
    ),
    case(
        "cost-est-unknown-agent-in-calls",
        estimate(calls={"bilelr": 2}),
        "calls",
        "no LLM agent",
        "did you mean 'biller'",
    ),
    case(
        "cost-est-unknown-branch",
        estimate(branch_probabilities={"biling": 0.5}),
        "branch_probabilities",
        "'biling'",
        "did you mean 'billing'",
    ),
    case(
        "cost-est-unknown-loop",
        estimate(researched(), loop_iterations={"round": 1}),
        "loop_iterations",
        "did you mean 'rounds'",
    ),
    case(
        "cost-est-unknown-map-over",
        estimate(map_over("docs", Agent("summariser")), items={"map_doc": 3}),
        "items",
        "did you mean 'map_docs'",
    ),
    case(
        "cost-est-unknown-fallback-child",
        estimate(Agent("primary") // Agent("backup"), failure_rates={"primry": 0.1}),
        "failure_rates",
        "did you mean 'primary'",
    ),
    case(
        "cost-est-unknown-agent-tool",
        estimate(researched(), tool_calls={"reseacher": 2}),
        "tool_calls",
        "did you mean 'researcher'",
    ),
    case(
        "cost-est-name-of-another-kind",
        estimate(loop_iterations={"classifier": 2}),
        "loop_iterations",
        "no loop",
        "'classifier' is an LLM agent",
        "tokens= or calls=",
    ),
    case(
        "cost-est-loop-without-iterations",
        estimate(Loop(Agent("worker"), exit_when(lambda s: s.get("done")), name="work")),
        "loop 'work'",
        "loop_iterations",
        "no max_iterations",
    ),
    case(
        "cost-est-loop-iterations-above-max",
        estimate(researched(), loop_iterations={"rounds": 5}),
        "rounds",
        "stops after 2",
        "loop_iterations",
    ),
    case(
        "cost-est-map-over-without-items",
        estimate(map_over("docs", Agent("summariser"), item_key="doc")),
        "map_over 'map_docs'",
        "items",
        "state['docs']",
    ),
    # what is estimated
    case(
        "cost-est-native-agent",
        lambda: estimate_cost(LlmAgent(name="writer", model="gemini-2.5-flash")),
        "native ADK agent",
        "LlmAgent 'writer'",
        ".build()",
        "Native(agent)",
    ),
    case(
        "cost-est-built-pipeline",
        lambda: estimate_cost(support().build()),
        "native ADK agent",
        "pipeline",
    ),
    case(
        "cost-est-not-a-pipeline",
        lambda: estimate_cost("classifier >> biller"),
        "pipeline",
        "adk-fluent expression",
    ),
    case(
        "cost-est-assumptions-plain-dict",
        lambda: estimate_cost(support(), {"invocations": 100}),
        "assumptions",
        "TrafficAssumptions",
    ),
    case(
        "cost-est-scenario-with-a-typo",
        lambda: estimate_cost(
            support(),
            {
                "quiet": TrafficAssumptions(invocations=10),
                "peak": TrafficAssumptions(calls={"clasifier": 2}),
            },
        ),
        "scenario 'peak'",
        "did you mean 'classifier'",
    ),
    case(
        "cost-est-node-lookup-typo",
        lambda: estimate_cost(support()).node("biler"),
        "'biler'",
        "did you mean 'biller'",
    ),
    # drawing the estimate on the diagram
    case(
        "cost-est-mermaid-cost-text",
        lambda: support().to_mermaid(cost="yes"),
        "cost",
        "str 'yes'",
        "TrafficAssumptions",
    ),
    case(
        "cost-est-mermaid-scenarios",
        lambda: support().to_mermaid(cost={"peak": TrafficAssumptions()}),
        "cost",
        "CostModels",
    ),
    case(
        "cost-est-mermaid-another-tree",
        lambda: support().to_mermaid(cost=estimate_cost(researched())),
        "cost",
        "another tree",
        "estimate_cost(pipeline",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_cost_estimate_misuse(misuse):
    check(misuse)
