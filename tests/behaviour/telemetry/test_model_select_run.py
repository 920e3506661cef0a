"""`.model_select()` through the real ADK Runner (scripted models, both ADK ends): the model the
policy picks is the request's model when it reaches the agent's BaseLlm (`model.requests`, and a
script step reading `request.model` at call time) and the name of ADK's `generate_content
{model}` span. Each case is paired with what the same tree does without the policy, or with
the input that makes the policy pick otherwise.

Spans go to tests/support/otel.py's in-memory exporter (the process's tracer provider is set
once, by the first test that needs spans, or joined when one is set already)."""

from __future__ import annotations

from typing import Any

from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.tool_context import ToolContext

from adk_fluent import Agent, C, S
from adk_fluent.adk.model_selection import selection_for
from adk_fluent.ir.model_selection import ModelCandidate, SelectionInput
from adk_fluent.ir.prices import ModelPrice
from adk_fluent.testing import call, mock_backend
from adk_fluent.testing.scripted import DEFAULT_MODEL
from tests.support.middleware import text_of, user
from tests.support.otel import model_spans, span_exporter

LITE = ModelCandidate("gemini-2.5-flash-lite", quality_tier=1)
FLASH = ModelCandidate("gemini-2.5-flash", quality_tier=2, capabilities=frozenset({"vision"}))
PRO = ModelCandidate("gemini-2.5-pro", quality_tier=3, capabilities=frozenset({"vision"}))


def says_model(request: Any) -> str:
    """A script step answering with the model name the request carries when it arrives."""
    return f"model={request.model}"


def agent(name: str = "answerer") -> Agent:
    return Agent(name, "gemini-2.5-flash").instruct("Answer briefly.")


async def models_called(tree: Any, scripts: dict[str, list[Any]], prompt: str = "hi") -> list[str]:
    """Run one turn; the model name each call of each agent received, in call order."""
    backend = mock_backend(scripts)
    events = await tree.run(prompt, backend=backend)
    assert not [e for e in events if e.error_code], [e.error_message for e in events]
    backend.assert_consumed()
    return [request.model for _, request in backend.model.calls]


# -- the three strategies ----------------------------------------------------------------------
async def test_cost_optimized_calls_the_cheapest_candidate_and_names_the_span_after_it():
    exporter = span_exporter()
    tree = agent().model_select("cost_optimized", [PRO, FLASH, LITE])
    backend = mock_backend({"answerer": [says_model]})
    events = await tree.run("hi", backend=backend)
    assert [e.content for e in events if e.content] == ["model=gemini-2.5-flash-lite"]
    assert [r.model for r in backend.requests["answerer"]] == ["gemini-2.5-flash-lite"]
    spans = model_spans(exporter.get_finished_spans())
    assert [s.name for s in spans] == ["generate_content gemini-2.5-flash-lite"]
    assert spans[0].attributes["gen_ai.request.model"] == "gemini-2.5-flash-lite"

    # without the policy: the agent's own (here: the scripted) model is called and traced
    exporter.clear()
    assert await models_called(agent(), {"answerer": [says_model]}) == [DEFAULT_MODEL]
    spans = model_spans(exporter.get_finished_spans())
    assert [s.name for s in spans] == [f"generate_content {DEFAULT_MODEL}"]


async def test_quality_optimized_calls_the_highest_tier():
    tree = agent().model_select("quality_optimized", [LITE, PRO, FLASH])
    assert await models_called(tree, {"answerer": ["ok"]}) == ["gemini-2.5-pro"]
    # the same candidates under cost_optimized: the cheapest instead
    cheap = agent().model_select("cost_optimized", [LITE, PRO, FLASH])
    assert await models_called(cheap, {"answerer": ["ok"]}) == ["gemini-2.5-flash-lite"]


def budgeted(budget: float | None) -> Any:
    chooser = agent().model_select(
        "budget_bounded",
        [FLASH, PRO],
        budget_key="budget_usd",
        fallback_model="gemini-2.5-flash-lite",
    )
    return chooser if budget is None else S.set(budget_usd=budget) >> chooser


async def test_budget_bounded_takes_the_best_tier_the_budget_left_affords():
    # one call of ~10 prompt + 500 expected output tokens: pro ~0.005 USD, flash ~0.00125 USD
    assert await models_called(budgeted(1.0), {"answerer": ["ok"]}) == ["gemini-2.5-pro"]
    assert await models_called(budgeted(0.002), {"answerer": ["ok"]}) == ["gemini-2.5-flash"]
    assert await models_called(budgeted(0.0001), {"answerer": ["ok"]}) == [
        "gemini-2.5-flash-lite"  # none fits: the fallback
    ]
    # no budget in state: unlimited, the best tier
    assert await models_called(budgeted(None), {"answerer": ["ok"]}) == ["gemini-2.5-pro"]


def spend_everything(tool_context: ToolContext) -> str:
    """Spend the budget that is left."""
    tool_context.state["budget_usd"] = 0.0
    return "spent"


async def test_budget_bounded_switches_to_the_fallback_once_the_budget_runs_low():
    chooser = (
        agent()
        .tool(spend_everything)
        .model_select(
            "budget_bounded",
            [FLASH, PRO],
            budget_key="budget_usd",
            fallback_model="gemini-2.5-flash-lite",
        )
    )
    tree = S.set(budget_usd=1.0) >> chooser
    scripts = {"answerer": [call("spend_everything"), says_model]}
    # the first call is made with budget left; the tool spends it; the second gets the fallback
    assert await models_called(tree, scripts) == ["gemini-2.5-pro", "gemini-2.5-flash-lite"]

    # without the policy both calls go to the agent's own model
    plain = S.set(budget_usd=1.0) >> agent().tool(spend_everything)
    assert await models_called(plain, scripts) == [DEFAULT_MODEL, DEFAULT_MODEL]


# -- what skips a candidate ----------------------------------------------------------------------
async def test_required_capabilities_filter_the_candidates():
    needs_vision = agent().model_select("cost_optimized", [LITE, FLASH, PRO], requires="vision")
    assert await models_called(needs_vision, {"answerer": ["ok"]}) == ["gemini-2.5-flash"]
    anything = agent().model_select("cost_optimized", [LITE, FLASH, PRO])
    assert await models_called(anything, {"answerer": ["ok"]}) == ["gemini-2.5-flash-lite"]


async def test_a_large_request_skips_a_candidate_with_a_small_max_input():
    small = ModelCandidate("gemini-2.5-flash-lite", max_input_tokens=100)
    tree = agent().model_select("cost_optimized", [small, PRO])
    assert await models_called(tree, {"answerer": ["ok"]}, "a short question") == [
        "gemini-2.5-flash-lite"
    ]
    long_prompt = "Summarise this: " + "lorem ipsum " * 100  # ~1200 characters, ~300 tokens
    assert await models_called(tree, {"answerer": ["ok"]}, long_prompt) == ["gemini-2.5-pro"]


async def test_the_selection_measures_the_context_view_the_model_is_sent():
    # writer's long reply reaches reader's request by default; C.user_only() leaves it out
    small = ModelCandidate("gemini-2.5-flash-lite", max_input_tokens=100)
    reader = Agent("reader", "gemini-2.5-flash").instruct("Reply.")
    reader = reader.model_select("cost_optimized", [small, PRO])
    writer = Agent("writer", "gemini-2.5-flash").instruct("Write.")
    scripts = {"writer": ["word " * 400], "reader": ["ok"]}
    assert await models_called(writer >> reader, scripts) == [DEFAULT_MODEL, "gemini-2.5-pro"]
    viewed = writer >> reader.context(C.user_only())
    assert await models_called(viewed, scripts) == [DEFAULT_MODEL, "gemini-2.5-flash-lite"]


async def test_a_condition_receives_the_selection_input():
    seen: list[SelectionInput] = []

    def gold_only(selection: SelectionInput) -> bool:
        seen.append(selection)
        return selection.state.get("tier") == "gold"

    vip = ModelCandidate("gemini-2.5-pro", quality_tier=3, condition=gold_only)
    chooser = agent().model_select("quality_optimized", [FLASH, vip])
    gold = S.set(tier="gold") >> chooser
    assert await models_called(gold, {"answerer": ["ok"]}) == ["gemini-2.5-pro"]
    assert len(seen) == 1
    given = seen[0]
    assert isinstance(given, SelectionInput)
    assert given.agent == "answerer" and given.state["tier"] == "gold"
    assert given.input_tokens >= 1
    try:
        given.state["tier"] = "changed"  # type: ignore[index]
    except TypeError:
        pass
    else:  # pragma: no cover - the assertion below explains
        raise AssertionError("a condition could write the state it reads")

    basic = S.set(tier="basic") >> chooser
    assert await models_called(basic, {"answerer": ["ok"]}) == ["gemini-2.5-flash"]


# -- the user's own callbacks, and a plain Runner ------------------------------------------------
async def test_the_users_before_model_callback_sees_the_chosen_model():
    seen: list[tuple[str, Any]] = []

    def watch(callback_context: Any, llm_request: Any) -> None:
        selection = selection_for(llm_request)
        seen.append((llm_request.model, selection and selection.model))

    chosen = agent().before_model(watch).model_select("quality_optimized", [FLASH, PRO])
    assert await models_called(chosen, {"answerer": ["ok"]}) == ["gemini-2.5-pro"]
    assert seen == [("gemini-2.5-pro", "gemini-2.5-pro")]

    seen.clear()
    assert await models_called(agent().before_model(watch), {"answerer": ["ok"]}) == [DEFAULT_MODEL]
    assert seen == [(DEFAULT_MODEL, None)]  # no policy: no selection recorded


async def test_a_plain_runner_over_the_app_calls_and_traces_the_chosen_model():
    exporter = span_exporter()
    tree = agent().model_select("quality_optimized", [FLASH, PRO])
    backend = mock_backend({"answerer": [says_model]})
    app = tree.to_app(backend=backend)
    service = InMemorySessionService()
    await service.create_session(app_name=app.name, user_id="u", session_id="s")
    runner = Runner(app=app, session_service=service)
    events = [
        event
        async for event in runner.run_async(user_id="u", session_id="s", new_message=user("hi"))
    ]
    assert [text_of(e) for e in events if text_of(e)] == ["model=gemini-2.5-pro"]
    assert [s.name for s in model_spans(exporter.get_finished_spans())] == [
        "generate_content gemini-2.5-pro"
    ]


async def test_under_a_mock_backend_a_name_the_registry_cannot_resolve_is_still_picked():
    # the provider's package may be installed only where the real model runs; a real build of
    # the same agent is refused (misuse corpus: model-select-*registry*)
    priced = ModelCandidate("claude-sonnet-x", price=ModelPrice(3, 15))
    chosen = Agent("a", "claude-sonnet-x").instruct("Go.").model_select("cost_optimized", [priced])
    assert await models_called(chosen, {"a": ["ok"]}) == ["claude-sonnet-x"]
