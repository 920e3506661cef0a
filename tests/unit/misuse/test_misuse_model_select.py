"""Misuse of `.model_select()`: every wrong argument is refused when the policy is given (or,
for backends, when the agent is built), naming the agent, the field and a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, ModelFeedback
from adk_fluent.ir.model_selection import ModelCandidate
from adk_fluent.ir.prices import ModelPrice
from adk_fluent.testing import mock_backend
from tests.support.misuse import case, check, ids

FLASH = "gemini-2.5-flash"
PRO = "gemini-2.5-pro"
PRICED = ModelPrice(0.5, 1.5)


def select(*args, model: str | None = FLASH, **options):
    return Agent("picker", model).model_select(*args, **options)


def built(*args, model: str | None = FLASH, backend=None, **options):
    return select(*args, model=model, **options).build(backend=backend)


CASES = [
    # strategy
    case(
        "model-select-strategy-misspelt",
        lambda: select("cost_optimised", [FLASH]),
        "picker",
        "strategy",
        "cost_optimised",
        "did you mean 'cost_optimized'",
    ),
    # the adaptive strategy
    case(
        "model-select-adaptive-without-feedback",
        lambda: select("adaptive", [FLASH]),
        "picker",
        "feedback",
        "ModelFeedback",
    ),
    case(
        "model-select-adaptive-feedback-a-dict",
        lambda: select("adaptive", [FLASH], feedback={}),
        "feedback",
        "ModelFeedback",
    ),
    case(
        "model-select-adaptive-target-above-one",
        lambda: select("adaptive", [FLASH], feedback=ModelFeedback(), target=8),
        "target",
        "from 0 to 1",
    ),
    case(
        "model-select-adaptive-explore-too-large",
        lambda: select("adaptive", [FLASH], feedback=ModelFeedback(), explore=0.9),
        "explore",
        "at most 0.5",
    ),
    case(
        "model-select-adaptive-seed-text",
        lambda: select("adaptive", [FLASH], feedback=ModelFeedback(), seed="7"),
        "seed",
        "whole number",
    ),
    case(
        "model-select-adaptive-min-ratings-zero",
        lambda: select("adaptive", [FLASH], feedback=ModelFeedback(), min_ratings=0),
        "min_ratings",
    ),
    case(
        "model-select-feedback-on-another-strategy",
        lambda: select("cost_optimized", [FLASH], feedback=ModelFeedback()),
        "picker",
        "feedback",
        "adaptive strategy",
    ),
    case(
        "model-feedback-score-out-of-range",
        lambda: ModelFeedback().record("picker", FLASH, 4),
        "score",
        "from 0 to 1",
        "4 of 5 is 0.8",
    ),
    case(
        "model-feedback-window-zero",
        lambda: ModelFeedback(window=0),
        "window",
    ),
    case(
        "model-feedback-rate-events-without-a-pick",
        lambda: ModelFeedback().rate([], 1.0, agent="picker"),
        "events",
        "picker",
        ".model_select",
    ),
    case("model-select-strategy-not-text", lambda: select(1, [FLASH]), "strategy", "1"),
    # candidates
    case("model-select-candidates-empty", lambda: select("cost_optimized", []), "candidates"),
    case(
        "model-select-candidates-not-a-list",
        lambda: select("cost_optimized", 5),
        "picker",
        "candidates",
        "5",
    ),
    case(
        "model-select-candidates-dict",
        lambda: select("cost_optimized", {FLASH: 1}),
        "candidates",
        "dict",
    ),
    case(
        "model-select-candidate-not-a-candidate",
        lambda: select("cost_optimized", [FLASH, 3]),
        "candidates",
        "ModelCandidate",
    ),
    case(
        "model-select-candidates-duplicate",
        lambda: select("cost_optimized", [FLASH, ModelCandidate(FLASH, quality_tier=2)]),
        "candidates",
        "gemini-2.5-flash",
        "twice",
    ),
    case(
        "model-select-candidate-model-empty",
        lambda: ModelCandidate(""),
        "model",
        "model name",
    ),
    case(
        "model-select-candidate-tier-text",
        lambda: ModelCandidate(PRO, quality_tier="high"),
        "quality_tier",
        "high",
    ),
    case(
        "model-select-candidate-tier-bool",
        lambda: ModelCandidate(PRO, quality_tier=True),
        "quality_tier",
        "True",
    ),
    case(
        "model-select-candidate-max-input-zero",
        lambda: ModelCandidate(PRO, max_input_tokens=0),
        "max_input_tokens",
        "positive",
    ),
    case(
        "model-select-candidate-price-pair",
        lambda: ModelCandidate(PRO, price=(1.25, 10.0)),
        "price",
        "ModelPrice",
    ),
    case(
        "model-select-candidate-condition-not-callable",
        lambda: ModelCandidate(PRO, condition="long prompts"),
        "condition",
        "function",
    ),
    # prices
    case(
        "model-select-unpriced-cost",
        lambda: select("cost_optimized", [FLASH, "my-gemini-tune"]),
        "picker",
        "candidates",
        "my-gemini-tune",
        "no price",
    ),
    case(
        "model-select-unpriced-budget",
        lambda: select("budget_bounded", ["my-gemini-tune"], budget_key="budget_usd"),
        "budget_bounded",
        "no price",
    ),
    case(
        "model-select-prices-not-a-table",
        lambda: select("cost_optimized", [FLASH], prices=[0.3, 2.5]),
        "prices",
        "list",
    ),
    case(
        "model-select-prices-bad-entry",
        lambda: select("cost_optimized", [FLASH], prices={FLASH: "cheap"}),
        "prices",
        "ModelPrice",
    ),
    # budget
    case(
        "model-select-budget-without-key",
        lambda: select("budget_bounded", [FLASH, PRO]),
        "picker",
        "budget_key",
        "budget_bounded",
    ),
    case(
        "model-select-budget-key-not-text",
        lambda: select("budget_bounded", [FLASH], budget_key=5),
        "budget_key",
        "5",
    ),
    case(
        "model-select-budget-key-braces",
        lambda: select("budget_bounded", [FLASH], budget_key="{budget}"),
        "budget_key",
        "braces",
    ),
    case(
        "model-select-budget-key-bare-scope",
        lambda: select("budget_bounded", [FLASH], budget_key="user:"),
        "budget_key",
        "scope prefix",
    ),
    # the other arguments
    case(
        "model-select-fallback-not-text",
        lambda: select("cost_optimized", [FLASH], fallback_model=3),
        "fallback_model",
        "3",
    ),
    case(
        "model-select-requires-not-names",
        lambda: select("cost_optimized", [FLASH], requires=["vision", 1]),
        "requires",
        "capability names, got 1",
    ),
    case(
        "model-select-requires-number",
        lambda: select("cost_optimized", [FLASH], requires=7),
        "requires",
        "7",
    ),
    case(
        "model-select-requires-unmet",
        lambda: select("cost_optimized", [FLASH, PRO], requires="vision"),
        "requires",
        "vision",
    ),
    case(
        "model-select-output-tokens-negative",
        lambda: select("cost_optimized", [FLASH], expected_output_tokens=-1),
        "expected_output_tokens",
        "-1",
    ),
    case(
        "model-select-output-tokens-text",
        lambda: select("cost_optimized", [FLASH], expected_output_tokens="500"),
        "expected_output_tokens",
        "500",
    ),
    # backends, at build
    case(
        "model-select-mixed-backend-classes",
        lambda: built("quality_optimized", [FLASH, "gemma-3-27b-it"]),
        "picker",
        "candidates",
        "Gemma",
        "Gemini",
    ),
    case(
        "model-select-fallback-other-backend",
        lambda: built("quality_optimized", [FLASH], fallback_model="gemma-3-27b-it"),
        "fallback_model",
        "Gemma",
    ),
    case(
        "model-select-unknown-candidate",
        lambda: built("quality_optimized", [FLASH, ModelCandidate("my-own-llm", price=PRICED)]),
        "candidates",
        "my-own-llm",
        "registry",
    ),
    case(
        "model-select-unknown-agent-model",
        lambda: built("quality_optimized", [FLASH], model="my-own-llm"),
        "candidates",
        "my-own-llm",
        "registry",
    ),
    case(
        "model-select-mixed-without-agent-model",
        lambda: built("quality_optimized", [FLASH, "gemma-3-27b-it"], model=None),
        "candidates",
        "Gemma",
    ),
    case(
        "model-select-mixed-under-mock-backend",
        lambda: built(
            "quality_optimized",
            [FLASH, "gemma-3-27b-it"],
            backend=mock_backend({"picker": ["ok"]}),
        ),
        "candidates",
        "Gemma",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
