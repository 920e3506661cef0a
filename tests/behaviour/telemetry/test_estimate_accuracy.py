"""The cost estimate against what scripted runs actually cost (goal: within 20%).

Each scenario runs real sessions through the ADK Runner (`pipeline.run(...)`, scripted models
whose replies report known token counts with `with_usage`, varied per call by a seeded
random.Random around known means), then prices every stored event's `usage_metadata` (prompt,
candidates, cached, thoughts) for the model the request carried (`model.requests`). The
estimate is made from the same means and the traffic mix the sessions had; each scenario also
shows that a wrong assumption misses by more than 20%, so the comparison can fail.

Which model name reaches the request: under `mock_backend` every agent's model is replaced by
the scripted model, so the request carries "gemini-2.5-flash-scripted" (priced as
gemini-2.5-flash) even for an agent declared `.model("gemini-2.5-pro")`; the estimate of such a
tree is made with `default_model` set to that name. An agent given a ScriptedModel of its own
(`.model(ScriptedModel(..., model="gemini-2.5-pro"))`) keeps that name in the request, and the
estimate reads it from the IR; `.model_select(...)` sets the request's model to its pick.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from adk_fluent import Agent, FanOut, Route, until
from adk_fluent.analysis.cost import CostModel, TrafficAssumptions, estimate_cost
from adk_fluent.ir.model_selection import ModelCandidate
from adk_fluent.ir.prices import Prices
from adk_fluent.testing import ScriptedModel, call, mock_backend, with_usage

GOAL = 0.20  # the estimate within 20% of the actual cost: close enough to budget by
PRICES = Prices()


class Tokens:
    """Token counts drawn around known means (uniform within +-30%), from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def around(self, mean: int) -> int:
        return self.random.randint(round(mean * 0.7), round(mean * 1.3))

    def step(self, reply: Any, means: tuple[int, int]) -> Any:
        return with_usage(reply, input=self.around(means[0]), output=self.around(means[1]))


def miss(estimate: CostModel, actual: float) -> float:
    return abs(estimate.total_estimated - actual) / actual


async def actual_cost(
    pipeline: Any, session_ids: list[str], requests: dict[str, list[Any]], **options: Any
) -> tuple[float, dict[str, str], int]:
    """USD of every stored model response of these sessions, each priced for the model its
    request carried; also the model names per agent, and the number of priced calls."""
    models = {agent: {r.model for r in calls} for agent, calls in requests.items()}
    assert all(len(names) == 1 for names in models.values()), models  # one model per agent
    total, counted = 0.0, 0
    for session_id in session_ids:
        stored = await pipeline.session(session_id, **options)  # the store the runs used
        for event in stored.events:
            usage = event.usage_metadata
            if usage is None:
                continue
            (model,) = models[event.author]
            cost = PRICES.cost(
                model,
                usage.prompt_token_count or 0,
                usage.candidates_token_count or 0,
                usage.cached_content_token_count or 0,
                usage.thoughts_token_count or 0,
            )
            assert cost is not None, model
            total += cost
            counted += 1
    return total, {agent: next(iter(names)) for agent, names in models.items()}, counted


async def run_sessions(pipeline: Any, prefix: str, count: int, **options: Any) -> list[str]:
    session_ids = [f"{prefix}{i}" for i in range(count)]
    for session_id in session_ids:
        events = await pipeline.run("Please help.", session_id=session_id, **options)
        assert not [e for e in events if e.error_code], [e.error_message for e in events]
    return session_ids


# -- (a) a classifier and a route with three branches ------------------------------------------
MIX = {"billing": 0.6, "technical": 0.3, "general": 0.1}
ROUTE_TOKENS = {
    "classifier": (700, 5),
    "biller": (900, 250),
    "techie": (2500, 900),
    "generalist": (600, 150),
}


async def test_a_route_estimate_is_within_20_percent_of_twenty_scripted_sessions():
    tokens = Tokens(seed=15)
    sessions = 20
    labels = [label for label, p in MIX.items() for _ in range(round(p * sessions))]
    tokens.random.shuffle(labels)
    answerer = {"billing": "biller", "technical": "techie", "general": "generalist"}
    scripts: dict[str, list[Any]] = {name: [] for name in ROUTE_TOKENS}
    for label in labels:
        scripts["classifier"].append(tokens.step(label, ROUTE_TOKENS["classifier"]))
        agent = answerer[label]
        scripts[agent].append(tokens.step(f"{agent} answers.", ROUTE_TOKENS[agent]))

    # each agent keeps its own model name in the request: a ScriptedModel per model
    flash_lite = ScriptedModel(
        {n: scripts[n] for n in ("classifier", "generalist")}, model="gemini-2.5-flash-lite"
    )
    flash = ScriptedModel({"biller": scripts["biller"]}, model="gemini-2.5-flash")
    pro = ScriptedModel({"techie": scripts["techie"]}, model="gemini-2.5-pro")

    def agent(name: str, model: ScriptedModel) -> Agent:
        return Agent(name).model(model.for_agent(name)).instruct(f"You are the {name}.")

    pipeline = (
        agent("classifier", flash_lite).outputs("intent")
        >> Route("intent")
        .eq("billing", agent("biller", flash))
        .eq("technical", agent("techie", pro))
        .otherwise(agent("generalist", flash_lite))
    ).named("support")
    session_ids = await run_sessions(pipeline, "route", sessions)
    for model in (flash_lite, flash, pro):
        model.assert_consumed()
    requests = {**flash_lite.requests, **flash.requests, **pro.requests}
    actual, models, counted = await actual_cost(pipeline, session_ids, requests)
    assert counted == 2 * sessions  # the classifier and one branch per session
    assert Counter(labels) == {"billing": 12, "technical": 6, "general": 2}

    assumed = TrafficAssumptions(
        invocations=sessions,
        tokens=ROUTE_TOKENS,
        # by rule value or, for the otherwise branch, by its agent's name; technical: the 0.3 left
        branch_probabilities={"billing": 0.6, "generalist": 0.1},
    )
    estimate = estimate_cost(pipeline, assumed)
    assert {n.agent: n.model for n in estimate.nodes} == models  # read from the IR
    assert miss(estimate, actual) <= GOAL, (estimate.total_estimated, actual)

    # the mix inverted (a quiet technical queue assumed busy and vice versa) misses the goal
    inverted = estimate_cost(
        pipeline,
        TrafficAssumptions(
            invocations=sessions,
            tokens=ROUTE_TOKENS,
            branch_probabilities={"billing": 0.1, "technical": 0.6, "generalist": 0.3},
        ),
    )
    assert miss(inverted, actual) > GOAL, (inverted.total_estimated, actual)


# -- (b) a loop with a known iteration count and a tool-calling agent --------------------------
def lookup(topic: str) -> str:
    """Look up facts about `topic`."""
    return f"Facts about {topic}."


LOOP_TOKENS = {"drafter": (1200, 400), "checker_call": (900, 30), "checker_reply": (1300, 60)}


async def test_a_loop_with_a_tool_calling_agent_is_within_20_percent():
    tokens = Tokens(seed=42)
    rounds = [1, 2, 3, 2, 2, 1, 3, 2]  # iterations per session: mean 2
    drafter: list[Any] = []
    checker: list[Any] = []
    for count in rounds:
        for index in range(count):
            drafter.append(tokens.step(f"Draft {index}.", LOOP_TOKENS["drafter"]))
            # two model calls per checker run: the tool call, then the verdict
            checker.append(tokens.step(call("lookup", topic="draft"), LOOP_TOKENS["checker_call"]))
            verdict = "approved" if index == count - 1 else "revise"
            checker.append(tokens.step(verdict, LOOP_TOKENS["checker_reply"]))
    backend = mock_backend({"drafter": drafter, "checker": checker})
    body = Agent("drafter").instruct("Draft.").outputs("draft") >> Agent("checker").instruct(
        "Check the draft."
    ).tool(lookup).outputs("verdict")
    pipeline = (body * until(lambda state: state.get("verdict") == "approved", max=5)).named(
        "refine"
    )
    session_ids = await run_sessions(pipeline, "loop", len(rounds), backend=backend)
    backend.assert_consumed()
    actual, models, counted = await actual_cost(
        pipeline, session_ids, backend.requests, backend=backend
    )
    assert counted == 3 * sum(rounds)  # drafter once, checker twice, per iteration
    assert models == {"drafter": backend.model_name, "checker": backend.model_name}

    call_in, call_out = LOOP_TOKENS["checker_call"]
    reply_in, reply_out = LOOP_TOKENS["checker_reply"]
    checker_tokens = ((call_in + reply_in) / 2, (call_out + reply_out) / 2)
    estimate = estimate_cost(
        pipeline,
        TrafficAssumptions(
            invocations=len(rounds),
            loop_iterations={"refine": sum(rounds) / len(rounds)},
            calls={"checker": 2},
            tokens={"drafter": LOOP_TOKENS["drafter"], "checker": checker_tokens},
            default_model=backend.model_name,
        ),
    )
    assert estimate.node("checker").expected_calls == pytest.approx(4)
    assert miss(estimate, actual) <= GOAL, (estimate.total_estimated, actual)

    # left to the defaults (max_iterations, one call per run) the estimate misses
    careless = estimate_cost(
        pipeline,
        TrafficAssumptions(
            invocations=len(rounds),
            tokens={"drafter": LOOP_TOKENS["drafter"], "checker": checker_tokens},
            default_model=backend.model_name,
        ),
    )
    assert miss(careless, actual) > GOAL, (careless.total_estimated, actual)
    assert any("refine" in note for note in careless.notes)  # and says what it assumed


# -- (c) a fan-out and a synthesiser -------------------------------------------------------------
FAN_TOKENS = {
    "news": (800, 300),
    "weather": (400, 120),
    "stocks": (1000, 350),
    "synthesiser": (3000, 600),
}


async def test_a_fan_out_and_synthesiser_estimate_is_within_20_percent():
    tokens = Tokens(seed=7)
    sessions = 12
    scripts = {
        name: [tokens.step(f"{name} says.", means) for _ in range(sessions)]
        for name, means in FAN_TOKENS.items()
    }
    backend = mock_backend(scripts)
    pipeline = (
        FanOut(
            *(Agent(n).instruct(f"Report {n}.").outputs(n) for n in ("news", "weather", "stocks"))
        )
        >> Agent("synthesiser")
        .model("gemini-2.5-pro")  # replaced by the scripted model under mock_backend
        .instruct("Combine {news}, {weather} and {stocks}.")
    ).named("briefing")
    session_ids = await run_sessions(pipeline, "fan", sessions, backend=backend)
    backend.assert_consumed()
    actual, models, counted = await actual_cost(
        pipeline, session_ids, backend.requests, backend=backend
    )
    assert counted == 4 * sessions
    assert models["synthesiser"] == backend.model_name  # not gemini-2.5-pro

    # priced as declared, the synthesiser is gemini-2.5-pro: not what the scripted run called
    declared = estimate_cost(
        pipeline,
        TrafficAssumptions(
            invocations=sessions, tokens=FAN_TOKENS, default_model=backend.model_name
        ),
    )
    assert declared.node("synthesiser").model == "gemini-2.5-pro"
    assert miss(declared, actual) > GOAL, (declared.total_estimated, actual)
    # priced as the requests were: the declared name at the price of the model that ran
    ran = {"gemini-2.5-pro": PRICES.price_of(backend.model_name)}
    as_run = estimate_cost(
        pipeline.to_ir(),
        TrafficAssumptions(
            invocations=sessions,
            tokens=FAN_TOKENS,
            default_model=backend.model_name,
            prices=ran,
        ),
    )
    assert miss(as_run, actual) <= GOAL, (as_run.total_estimated, actual)

    # the averages instead of per-agent tokens: the synthesiser's long prompt is missed
    averaged = estimate_cost(
        pipeline,
        TrafficAssumptions(
            invocations=sessions,
            default_model=backend.model_name,
            prices=ran,
        ),
    )
    assert miss(averaged, actual) > GOAL, (averaged.total_estimated, actual)


# -- (d) a model chosen per call ----------------------------------------------------------------
async def test_the_estimate_prices_the_model_that_model_select_calls():
    tokens = Tokens(seed=3)
    sessions = 10
    means = (1500, 300)
    backend = mock_backend({"answerer": [tokens.step("Answer.", means) for _ in range(sessions)]})
    pipeline = (
        Agent("answerer")
        .instruct("Answer briefly.")
        .model_select(
            "quality_optimized",
            [ModelCandidate("gemini-2.5-flash"), ModelCandidate("gemini-2.5-pro", quality_tier=2)],
        )
    )
    session_ids = await run_sessions(pipeline, "select", sessions, backend=backend)
    backend.assert_consumed()
    actual, models, _ = await actual_cost(pipeline, session_ids, backend.requests, backend=backend)
    assert models == {"answerer": "gemini-2.5-pro"}

    estimate = estimate_cost(
        pipeline, TrafficAssumptions(invocations=sessions, tokens={"answerer": means})
    )
    assert estimate.node("answerer").model == "gemini-2.5-pro"
    assert miss(estimate, actual) <= GOAL, (estimate.total_estimated, actual)
    # priced as the agent's fallback instead of the pick, the estimate would miss
    flash = estimate_cost(
        Agent("answerer"), TrafficAssumptions(invocations=sessions, tokens={"answerer": means})
    )
    assert miss(flash, actual) > GOAL
