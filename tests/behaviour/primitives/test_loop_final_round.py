"""A draft-review loop at the end of a Route branch, in filtered mode, through the real Runner
(both ADK ends, on SQLite, both ways apps run: adk-fluent's `run()` and a plain ADK Runner).

Without `.show("final")` every round is internal: the client receives nothing at all for the
turn, and the checker warns (`no-user-reply`). With it, the client receives the loop's final
round (each body agent's latest reply, presented by the loop) and nothing before it, while
the store keeps every round and the presentations.
"""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Loop, Route, check_contracts, exit_when
from tests.support.visibility import WAYS, run_turn

SCRIPTS = {
    "classifier": "write",
    "drafter": ["Draft one.", "Draft two."],
    "reviewer": ["Too vague.", "APPROVED"],
}
ROUNDS = [
    ("classifier", "write"),
    ("drafter", "Draft one."),
    ("reviewer", "Too vague."),
    ("drafter", "Draft two."),
    ("reviewer", "APPROVED"),
]


def desk(*, final: bool) -> Route:
    loop = Loop(
        Agent("drafter").instruct("Draft the reply; improve it on {review?}.").outputs("draft"),
        Agent("reviewer")
        .instruct("Review {draft}; say APPROVED when it is good.")
        .outputs("review"),
        exit_when(lambda state: "APPROVED" in state.get("review", "")),
        max_iterations=3,
        name="review_loop",
    )
    if final:
        loop = loop.show("final")
    return (
        Agent("classifier").instruct("Answer write or chat.").outputs("intent")
        >> Route("intent").eq("write", loop).otherwise(Agent("chatter").instruct("Chat."))
    ).filtered()


@pytest.mark.parametrize("way", WAYS)
async def test_without_the_fix_the_client_receives_nothing(way, sqlite_url):
    pipeline = desk(final=False)
    assert check_contracts(pipeline).codes() == ["no-user-reply", "channel-duplication"]
    outcome = await run_turn(pipeline, SCRIPTS, way=way, store=sqlite_url, prompt="Write to Ada.")
    assert outcome.client_texts() == []
    assert outcome.stored_texts() == ROUNDS  # every round is in the store all the same


@pytest.mark.parametrize("way", WAYS)
async def test_the_client_receives_the_final_round_and_the_store_keeps_every_round(way, sqlite_url):
    pipeline = desk(final=True)
    assert "no-user-reply" not in check_contracts(pipeline).codes()
    outcome = await run_turn(pipeline, SCRIPTS, way=way, store=sqlite_url, prompt="Write to Ada.")
    final_round = [("review_loop", "Draft two."), ("review_loop", "APPROVED")]
    assert outcome.client_texts() == final_round
    assert [e.custom_metadata["adk_fluent.visibility"] for e in outcome.client if e.content] == [
        "user",
        "user",
    ]
    assert outcome.stored_texts() == [*ROUNDS, *final_round]
    presented = [e for e in outcome.stored if e.author == "review_loop" and e.content]
    assert [e.custom_metadata["adk_fluent.presents"]["author"] for e in presented] == [
        "drafter",
        "reviewer",
    ]
    assert outcome.state["draft"] == "Draft two."
    outcome.backend.assert_consumed()


async def test_annotated_mode_sends_every_round_and_the_presentation(sqlite_url):
    pipeline = desk(final=True).annotated()
    outcome = await run_turn(pipeline, SCRIPTS, way="fluent", store=sqlite_url)
    shown = [
        (e.author, e.custom_metadata["adk_fluent.visibility"]) for e in outcome.client if e.content
    ]
    assert shown == [
        ("classifier", "internal"),
        ("drafter", "internal"),
        ("reviewer", "internal"),
        ("drafter", "internal"),
        ("reviewer", "internal"),
        ("review_loop", "user"),
        ("review_loop", "user"),
    ]


async def test_a_loop_that_runs_out_of_rounds_presents_its_last_one(sqlite_url):
    pipeline = desk(final=True)
    scripts = {
        "classifier": "write",
        "drafter": ["D1", "D2", "D3"],
        "reviewer": ["no", "no", "still no"],
    }
    outcome = await run_turn(pipeline, scripts, way="fluent", store=sqlite_url)
    assert outcome.client_texts() == [("review_loop", "D3"), ("review_loop", "still no")]
