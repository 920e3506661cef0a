"""adk_fluent.patterns through the real Runner on SQLite, in adk-fluent's runtime and in a plain
ADK Runner built from `.to_app()`: each pattern does what its operators would (the branch the
label picks, the rounds until approval, one mapper call per item, every branch before the
synthesis, the pause for a person, the next step when one fails), what each agent's model is
sent and what the store holds after a reload."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Pipeline, Route, S, check_contracts
from adk_fluent.patterns import (
    classifier_router,
    draft_review,
    escalate_to_human,
    fallback_chain,
    fan_out_synthesise,
    map_reduce,
)
from adk_fluent.testing import call, mock_backend
from tests.conftest import system_instruction
from tests.support.gates import WAYS, calls, turn


def desk():
    return classifier_router(
        Agent("classify").instruct("Answer billing or tech."),
        {
            "billing": Agent("billing").instruct("Help with the bill."),
            "tech": Agent("tech").instruct("Fix it."),
        },
        otherwise=Agent("general").instruct("Help."),
    )


@pytest.mark.parametrize("way", WAYS)
async def test_classifier_router_runs_the_branch_the_label_picks(way, sqlite_url):
    backend = mock_backend({"classify": ["tech", "weather"], "tech": "Rebooted.", "general": "Hi."})
    first = await turn(desk(), backend, "my router is down", sqlite_url, way=way)
    assert first.said_by("tech") == ["Rebooted."]
    assert first.state["intent"] == "tech"
    assert calls(backend, "billing") == 0

    second = await turn(desk(), backend, "what's the weather", sqlite_url, way=way)
    assert second.said_by("general") == ["Hi."]  # an unknown label: otherwise
    assert second.state["intent"] == "weather"
    backend.assert_consumed()


def test_classifier_router_is_the_expression_written_by_hand():
    classify = Agent("classify").instruct("Answer billing or tech.")
    billing, tech = Agent("billing").instruct("b"), Agent("tech").instruct("t")
    by_hand = classify.outputs("intent") >> Route("intent").eq("billing", billing).eq("tech", tech)
    made = classifier_router(classify, {"billing": billing, "tech": tech})
    assert made.to_mermaid() == by_hand.to_mermaid()
    assert isinstance(made, Pipeline)
    assert "output_key" not in classify._fields  # the user's classifier is not changed


@pytest.mark.parametrize("way", WAYS)
async def test_draft_review_revises_until_the_review_approves(way, sqlite_url):
    loop = draft_review(
        Agent("writer").instruct("Write a tagline. Last review: {review?}"),
        Agent("reviewer").instruct("Review: {draft}. Start with APPROVED if it is good."),
        max_rounds=4,
    )
    backend = mock_backend(
        {
            "writer": ["Fast shoes.", "Shoes that run with you."],
            "reviewer": ["Too plain.", "approved: warm and short"],
        }
    )
    result = await turn(loop, backend, "a tagline for running shoes", sqlite_url, way=way)
    assert calls(backend, "writer") == 2  # stopped at the approval, not at max_rounds
    assert "Last review: Too plain." in system_instruction(backend.requests["writer"][1])
    assert "Review: Shoes that run with you." in system_instruction(backend.requests["reviewer"][1])
    assert result.state["draft"] == "Shoes that run with you."
    assert result.state["review"] == "approved: warm and short"
    backend.assert_consumed()


async def test_draft_review_stops_at_max_rounds_with_the_last_draft(sqlite_url):
    loop = draft_review(
        Agent("writer").instruct("Write. {review?}"),
        Agent("reviewer").instruct("Review {draft}."),
        approved=lambda state: "ship it" in state.get("review", ""),
        max_rounds=2,
    )
    backend = mock_backend({"writer": ["v1", "v2"], "reviewer": ["no", "still no"]})
    result = await turn(loop, backend, "write", sqlite_url)
    assert calls(backend, "writer") == 2
    assert result.state["draft"] == "v2"
    assert result.errors == []


@pytest.mark.parametrize("way", WAYS)
async def test_map_reduce_maps_each_item_then_reduces_the_results(way, sqlite_url):
    flow = S.set(topics=["alpha", "beta"]) >> map_reduce(
        Agent("summarise").instruct("Summarise {topic}."),
        Agent("combine").instruct("Combine: {summaries}"),
        items_key="topics",
        item_key="topic",
        results_key="summaries",
    )
    backend = mock_backend({"summarise": ["A in short.", "B in short."], "combine": "Both."})
    result = await turn(flow, backend, "summarise", sqlite_url, way=way)
    sent = [system_instruction(request) for request in backend.requests["summarise"]]
    assert len(sent) == 2  # one mapper call per item, in item order
    assert "Summarise alpha." in sent[0] and "Summarise beta." in sent[1]
    assert "Combine: ['A in short.', 'B in short.']" in system_instruction(
        backend.requests["combine"][0]
    )
    assert result.state["summaries"] == ["A in short.", "B in short."]
    assert result.said_by("combine") == ["Both."]


@pytest.mark.parametrize("way", WAYS)
async def test_fan_out_synthesise_runs_every_branch_before_the_synthesis(way, sqlite_url):
    flow = fan_out_synthesise(
        Agent("web").instruct("Search the web.").outputs("web"),
        Agent("docs").instruct("Search the docs.").outputs("docs"),
        synthesiser=Agent("writer").instruct("Web: {web}. Docs: {docs}."),
    )
    backend = mock_backend({"web": "W1", "docs": "D1", "writer": "Answer."})
    result = await turn(flow, backend, "question", sqlite_url, way=way)
    assert "Web: W1. Docs: D1." in system_instruction(backend.requests["writer"][0])
    assert result.state["web"] == "W1" and result.state["docs"] == "D1"
    assert result.said_by("writer") == ["Answer."]


@pytest.mark.parametrize("way", WAYS)
async def test_escalate_to_human_pauses_only_when_asked_and_resumes_after_approval(way, sqlite_url):
    def flow():
        return escalate_to_human(
            Agent("refund").instruct("Decide the refund amount.").outputs("amount"),
            lambda state: float(state["amount"]) > 100,
            "Refund over 100: approve?",
            then=Agent("send").instruct("Send the refund of {amount}."),
        )

    backend = mock_backend({"refund": ["250", "20"], "send": ["Sent 250.", "Sent 20."]})
    asked = await turn(flow(), backend, "refund me", sqlite_url, way=way, sid="big")
    assert asked.last_text.startswith("Refund over 100: approve?")
    assert calls(backend, "send") == 0
    approved = await turn(flow(), backend, "yes", sqlite_url, way=way, sid="big")
    assert approved.said_by("send") == ["Sent 250."]
    assert calls(backend, "refund") == 1  # not re-run on the approval turn

    small = await turn(flow(), backend, "refund me", sqlite_url, way=way, sid="small")
    assert small.said_by("send") == ["Sent 20."]  # under the line: no question
    backend.assert_consumed()


@pytest.mark.parametrize("way", WAYS)
async def test_fallback_chain_runs_the_next_step_when_one_fails(way, sqlite_url):
    def broken(tool_context) -> str:
        """Always fails."""
        raise RuntimeError("service down")

    flow = fallback_chain(
        Agent("primary").instruct("Use the tool.").tool(broken),
        Agent("backup").instruct("Answer from memory."),
    )
    backend = mock_backend({"primary": call("broken"), "backup": "From memory."})
    result = await turn(flow, backend, "help", sqlite_url, way=way)
    assert result.said_by("backup") == ["From memory."]
    assert result.errors == []


def test_every_pattern_checks_clean_when_its_keys_are_wired():
    made = [
        desk(),
        draft_review(Agent("w").instruct("{review?}"), Agent("r").instruct("{draft}")),
        S.set(topics=[])
        >> map_reduce(
            Agent("m").instruct("{item}"), Agent("r").instruct("{results}"), items_key="topics"
        ),
        escalate_to_human(Agent("a").outputs("x"), lambda s: True, then=Agent("b")),
        fallback_chain(Agent("a"), Agent("b")),
    ]
    for expression in made:
        assert not [i for i in check_contracts(expression).issues if i.severity != "info"]
