"""The adaptive strategy's rule (ir/model_selection.py), without ADK: start cheap while ratings
are gathered, pass over a model whose recent ratings fall short (promotion), come back to it when
its recent ratings recover (demotion), the highest tier when none holds up, exploration only to
the next cheaper model, the same picks under the same seed, and always one of the candidates."""

from __future__ import annotations

import random

from adk_fluent import ModelCandidate, ModelFeedback
from adk_fluent.ir.model_selection import SelectionInput, model_selector, select_model

LITE = ModelCandidate("gemini-2.5-flash-lite", quality_tier=1)
FLASH = ModelCandidate("gemini-2.5-flash", quality_tier=2)
PRO = ModelCandidate("gemini-2.5-pro", quality_tier=3)
SEEN = SelectionInput(state={}, input_tokens=100, agent="a")


def policy(feedback: ModelFeedback, **options):
    return model_selector("a", "adaptive", [PRO, LITE, FLASH], feedback=feedback, **options)


def pick(selector, draw=None):
    return select_model(selector, SEEN, default="gemini-2.5-flash", draw=draw)


def test_it_starts_cheap_and_says_it_is_gathering_ratings():
    selection = pick(policy(ModelFeedback(), min_ratings=3))
    assert selection.model == "gemini-2.5-flash-lite"
    assert selection.reason == "gathering ratings (0 of 3)"


def test_a_model_rated_below_target_is_passed_over_and_comes_back_when_its_ratings_do():
    feedback = ModelFeedback(window=4)
    selector = policy(feedback, min_ratings=2, target=0.7)
    for _ in range(2):
        feedback.record("a", "gemini-2.5-flash-lite", 0.3)
    assert pick(selector).model == "gemini-2.5-flash"  # promoted past lite
    for _ in range(2):
        feedback.record("a", "gemini-2.5-flash", 0.9)
    assert pick(selector).reason == "cheapest meeting the target: mean 0.90 >= 0.7 over 2"
    for _ in range(4):  # lite's recent ratings recover; the old ones leave the window
        feedback.record("a", "gemini-2.5-flash-lite", 0.8)
    assert pick(selector).model == "gemini-2.5-flash-lite"  # demoted back to the cheapest


def test_when_no_model_holds_up_the_highest_tier_is_used():
    feedback = ModelFeedback()
    selector = policy(feedback, min_ratings=1, target=0.9)
    for model in ("gemini-2.5-flash-lite", "gemini-2.5-flash", "gemini-2.5-pro"):
        feedback.record("a", model, 0.5)
    selection = pick(selector)
    assert selection.model == "gemini-2.5-pro"
    assert selection.reason == "no candidate keeps a mean of 0.9: highest tier"


def test_exploration_tries_only_the_next_cheaper_model_and_repeats_under_a_seed():
    feedback = ModelFeedback()
    selector = policy(feedback, min_ratings=1, explore=0.3, seed=7)
    feedback.record("a", "gemini-2.5-flash-lite", 0.1)
    feedback.record("a", "gemini-2.5-flash", 0.1)
    feedback.record("a", "gemini-2.5-pro", 0.95)

    def picks(seed):
        draws = random.Random(seed)
        return [pick(selector, draws.random()).model for _ in range(200)]

    first = picks(7)
    assert first == picks(7)  # the same seed, the same picks
    assert set(first) == {"gemini-2.5-pro", "gemini-2.5-flash"}  # never two steps down
    explored = first.count("gemini-2.5-flash") / len(first)
    assert 0.2 < explored < 0.4  # about the share asked for
    assert pick(selector, 0.1).reason == "exploring the next cheaper model (share 0.3)"


def test_ratings_survive_a_round_trip_and_only_the_window_counts():
    feedback = ModelFeedback(window=2)
    for score in (0.0, 1.0, 1.0):
        feedback.record("a", "gemini-2.5-flash", score)
    assert feedback.stats("a", "gemini-2.5-flash") == (2, 1.0)
    again = ModelFeedback.from_dict(feedback.to_dict())
    assert again.stats("a", "gemini-2.5-flash") == (2, 1.0) and again.window == 2
    assert feedback.stats("a", "gemini-2.5-pro") == (0, None)
