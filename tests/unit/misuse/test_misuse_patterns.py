"""Misuse of adk_fluent.patterns: each refusal names the pattern, the argument and a fix, when the
pattern is made (nothing is built or run)."""

from __future__ import annotations

import pytest

from adk_fluent import Agent
from adk_fluent.patterns import (
    classifier_router,
    draft_review,
    escalate_to_human,
    fallback_chain,
    fan_out_synthesise,
    map_reduce,
)
from tests.support.misuse import case, check, ids


def _a(name: str = "a") -> Agent:
    return Agent(name).instruct("Do it.")


CASES = [
    case(
        "router-classifier-a-string",
        lambda: classifier_router("classify", {"x": _a()}),
        "classifier_router()",
        "classifier",
        "Agent builder",
    ),
    case(
        "router-routes-empty",
        lambda: classifier_router(_a("c"), {}),
        "classifier_router()",
        "routes",
        "non-empty mapping",
    ),
    case(
        "router-routes-a-list",
        lambda: classifier_router(_a("c"), [_a()]),
        "routes",
        "mapping of label to step",
    ),
    case(
        "router-label-not-text",
        lambda: classifier_router(_a("c"), {1: _a()}),
        "routes",
        "label",
    ),
    case(
        "router-classifier-writes-another-key",
        lambda: classifier_router(_a("c").outputs("topic"), {"x": _a()}),
        "agent 'c'",
        "'topic'",
        "'intent'",
        "key='topic'",
    ),
    case(
        "router-branch-not-a-step",
        lambda: classifier_router(_a("c"), {"x": 42}),
        "42",
    ),
    case(
        "draft-review-writer-a-function",
        lambda: draft_review(print, _a("r")),
        "draft_review()",
        "writer",
    ),
    case(
        "draft-review-same-keys",
        lambda: draft_review(_a("w"), _a("r"), draft_key="text", review_key="text"),
        "draft_review()",
        "review_key",
        "overwrite",
    ),
    case(
        "draft-review-zero-rounds",
        lambda: draft_review(_a("w"), _a("r"), max_rounds=0),
        "max_rounds",
        "positive whole number",
    ),
    case(
        "draft-review-approved-empty",
        lambda: draft_review(_a("w"), _a("r"), approved=" "),
        "approved",
        "empty",
    ),
    case(
        "draft-review-approved-takes-two",
        lambda: draft_review(_a("w"), _a("r"), approved=lambda state, extra: True),
        "approved",
        "1 argument",
    ),
    case(
        "map-reduce-items-key-empty",
        lambda: map_reduce(_a("m"), _a("r"), items_key=""),
        "map_reduce()",
        "items_key",
    ),
    case(
        "map-reduce-same-item-and-results-key",
        lambda: map_reduce(_a("m"), _a("r"), items_key="docs", item_key="x", results_key="x"),
        "'x'",
    ),
    case(
        "fan-out-synthesise-one-branch",
        lambda: fan_out_synthesise(_a("web"), synthesiser=_a("w")),
        "fan_out_synthesise()",
        "at least two",
    ),
    case(
        "escalate-when-not-a-function",
        lambda: escalate_to_human(_a(), True),
        "escalate_to_human(when=...)",
        "when",
    ),
    case(
        "escalate-message-empty",
        lambda: escalate_to_human(_a(), lambda s: True, ""),
        "message",
    ),
    case(
        "fallback-chain-one-step",
        lambda: fallback_chain(_a()),
        "fallback_chain()",
        "at least two",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
