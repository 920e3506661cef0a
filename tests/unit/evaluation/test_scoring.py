"""adk-fluent's own scoring: trajectory matching (exact / in_order / any_order), the trajectory
diff, and ROUGE-1 as ADK's response_match_score computes it on the installed ADK."""

from __future__ import annotations

import pytest

from adk_fluent.evaluation import ANY, Regex, ToolCall, tool
from adk_fluent.evaluation.scoring import check_trajectory, rouge1, trajectory_diff

LOOKUP = ToolCall("lookup")
BOOK_PARIS = tool("book", city="Paris", date=ANY)
PAY = tool("pay", ref=Regex("^BK-"))

lookup = ("lookup", {"q": "Paris"})
book_paris = ("book", {"city": "Paris", "date": "2026-12-01"})
book_rome = ("book", {"city": "Rome", "date": "2026-12-01"})
pay = ("pay", {"ref": "BK-001"})
log = ("log", {})


# ---- exact ----
def test_exact_accepts_the_same_calls_in_order():
    assert check_trajectory([LOOKUP, BOOK_PARIS, PAY], [lookup, book_paris, pay], "exact") is None


def test_exact_accepts_no_call_when_none_is_expected():
    assert check_trajectory([], [], "exact") is None
    assert check_trajectory([], [lookup], "exact") == "1 call(s), expected 0"


def test_exact_refuses_an_extra_call():
    assert check_trajectory([LOOKUP, BOOK_PARIS], [lookup, log, book_paris], "exact") == (
        "3 call(s), expected 2"
    )


def test_exact_refuses_another_order():
    reason = check_trajectory([LOOKUP, BOOK_PARIS], [book_paris, lookup], "exact")
    assert reason == "called book, expected lookup"


def test_exact_refuses_other_arguments_and_says_which():
    reason = check_trajectory([BOOK_PARIS], [book_rome], "exact")
    assert reason == "book argument ['city']: 'Rome' != 'Paris'"


# ---- in_order ----
def test_in_order_allows_calls_in_between_and_around():
    actual = [log, lookup, log, book_paris, log, pay, log]
    assert check_trajectory([LOOKUP, BOOK_PARIS, PAY], actual, "in_order") is None


def test_in_order_refuses_another_order():
    reason = check_trajectory([LOOKUP, BOOK_PARIS], [book_paris, lookup], "in_order")
    assert reason == "no book(city='Paris', date=ANY) in order among the calls"


def test_in_order_skips_a_call_with_the_wrong_arguments():
    assert check_trajectory([BOOK_PARIS], [book_rome, book_paris], "in_order") is None
    assert check_trajectory([BOOK_PARIS], [book_rome], "in_order") is not None


def test_in_order_needs_one_call_per_repeated_expectation():
    assert check_trajectory([LOOKUP, LOOKUP], [lookup, log, lookup], "in_order") is None
    assert check_trajectory([LOOKUP, LOOKUP], [lookup, log], "in_order") == (
        "no lookup in order among the calls"
    )


# ---- any_order ----
def test_any_order_accepts_any_order_and_extra_calls():
    actual = [pay, log, book_paris, lookup]
    assert check_trajectory([LOOKUP, BOOK_PARIS, PAY], actual, "any_order") is None


def test_any_order_refuses_a_missing_call():
    reason = check_trajectory([LOOKUP, PAY], [lookup, book_paris], "any_order")
    assert reason == "no pay(ref=Regex('^BK-')) among the calls"


def test_any_order_uses_each_actual_call_once():
    assert check_trajectory([LOOKUP, LOOKUP], [lookup, log, lookup], "any_order") is None
    assert check_trajectory([LOOKUP, LOOKUP], [lookup, log], "any_order") == (
        "no lookup among the calls"
    )


def test_any_order_does_not_let_a_loose_expectation_steal_the_strict_ones_call():
    # a valid assignment exists (the loose 'book' takes Rome, the strict one Paris); with
    # matchers, unlike ADK's exact equality, the first fit is not always a right one
    loose_first = [ToolCall("book"), BOOK_PARIS]
    assert check_trajectory(loose_first, [book_paris, book_rome], "any_order") is None


# ---- the diff ----
def test_diff_of_matching_calls():
    assert trajectory_diff([LOOKUP, BOOK_PARIS], [lookup, book_paris]) == [
        "= lookup(q='Paris')",
        "= book(city='Paris', date='2026-12-01')",
    ]


def test_diff_marks_other_arguments_missing_and_extra_calls():
    lines = trajectory_diff([LOOKUP, BOOK_PARIS, PAY], [lookup, book_rome, log])
    assert lines[0] == "= lookup(q='Paris')"
    assert lines[1] == (
        "~ book(city='Rome', date='2026-12-01')  expected book(city='Paris', date=ANY): "
        "book argument ['city']: 'Rome' != 'Paris'"
    )
    assert sorted(lines[2:]) == ["+ log()", "- pay(ref=Regex('^BK-'))"]


def test_diff_of_no_actual_call_lists_every_expected_one():
    assert trajectory_diff([LOOKUP, PAY], []) == ["- lookup", "- pay(ref=Regex('^BK-'))"]


def test_diff_of_no_expected_call_lists_every_actual_one():
    assert trajectory_diff([], [log, lookup]) == ["+ log()", "+ lookup(q='Paris')"]


def test_diff_aligns_repeated_tools():
    lines = trajectory_diff([LOOKUP, LOOKUP, BOOK_PARIS], [lookup, book_paris])
    assert lines.count("= lookup(q='Paris')") == 1
    assert "- lookup" in lines
    assert "= book(city='Paris', date='2026-12-01')" in lines


# ---- ROUGE-1 ----
def _adk_response_match_score(reference: str, candidate: str) -> float:
    """ADK's own response_match_score on one invocation (its public evaluator class)."""
    from google.adk.evaluation.eval_case import Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric
    from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
    from google.genai import types

    def invocation(text: str) -> Invocation:
        return Invocation(
            user_content=types.Content(role="user", parts=[types.Part(text="question")]),
            final_response=types.Content(role="model", parts=[types.Part(text=text)]),
        )

    evaluator = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.5))
    result = evaluator.evaluate_invocations([invocation(candidate)], [invocation(reference)])
    return float(result.overall_score)


PAIRS = [
    ("Your trip is booked.", "Your trip to Paris is booked!"),
    ("booking flights", "booked flight"),
    ("BK-PAR-001 confirmed", "confirmed bk par 001"),
    ("Which city would you like?", "Done: BK-PAR-001. Your trip is booked."),
    ("the the the cat", "the cat"),
]


@pytest.mark.parametrize(("reference", "candidate"), PAIRS)
def test_rouge1_is_adks_response_match_score(reference, candidate):
    assert rouge1(reference, candidate) == pytest.approx(
        _adk_response_match_score(reference, candidate)
    )


def test_rouge1_bounds():
    assert rouge1("your trip is booked", "Your trip is booked.") == pytest.approx(1.0)
    assert rouge1("your trip is booked", "Which city?") == 0.0


# Text outside [a-z0-9]: ADK releases whose tokenizer keeps Unicode words score these pairs
# differently from rouge-score's default tokenizer, which rouge1() uses.
UNICODE_PAIRS = [("東京に行きます", "東京に行きます"), ("Zürich ist gebucht", "Zürich gebucht")]


@pytest.mark.parametrize(("reference", "candidate"), UNICODE_PAIRS)
def test_rouge1_follows_the_installed_adk_on_unicode_text(reference, candidate):
    assert rouge1(reference, candidate) == pytest.approx(
        _adk_response_match_score(reference, candidate)
    )
