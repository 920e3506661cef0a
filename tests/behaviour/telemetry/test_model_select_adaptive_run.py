"""The adaptive strategy through the real Runner on SQLite (both ADK ends): the first calls go
to the cheapest model, ratings of a run's events (read back from the store) promote the agent to
the next model, the stored replies say which model answered, and the span carries the pick and
its reason."""

from __future__ import annotations

from typing import Any

from adk_fluent import Agent, ExecutionConfig, ModelFeedback
from adk_fluent.ir.model_selection import SELECTED_KEY
from adk_fluent.telemetry import otel_enrichment
from adk_fluent.testing import mock_backend
from tests.support.otel import ours, span_exporter


def says_model(request: Any) -> str:
    return f"model={request.model}"


def answerer(feedback: ModelFeedback) -> Agent:
    return (
        Agent("answerer", "gemini-2.5-flash")
        .instruct("Answer briefly.")
        .model_select(
            "adaptive",
            ["gemini-2.5-flash", "gemini-2.5-pro"],
            feedback=feedback,
            min_ratings=2,
            target=0.7,
        )
    )


async def test_poor_ratings_of_stored_runs_promote_the_agent_to_the_next_model(sqlite_url):
    feedback = ModelFeedback()
    agent = answerer(feedback)
    seen = []
    for turn in range(3):
        backend = mock_backend({"answerer": [says_model]})
        options = {"backend": backend, "session_store": sqlite_url}
        await agent.run("What is 2 + 2?", session_id=f"s{turn}", **options)
        stored = await agent.session(f"s{turn}", **options)  # what a restarted process reads
        [reply] = [e for e in stored.events if e.author == "answerer"]
        seen.append((reply.content.parts[0].text, reply.custom_metadata[SELECTED_KEY]))
        feedback.rate(stored, 0.2)  # a user's thumbs down
    assert seen == [
        ("model=gemini-2.5-flash", "gemini-2.5-flash"),
        ("model=gemini-2.5-flash", "gemini-2.5-flash"),  # two ratings needed before judging
        ("model=gemini-2.5-pro", "gemini-2.5-pro"),  # promoted
    ]
    assert feedback.stats("answerer", "gemini-2.5-flash") == (2, 0.2)


async def test_the_span_carries_the_pick_and_its_reason():
    exporter = span_exporter()
    feedback = ModelFeedback()
    await answerer(feedback).run(
        "hi",
        backend=mock_backend({"answerer": [says_model]}),
        config=ExecutionConfig(middleware=(otel_enrichment(),)),
    )
    picked = [
        ours(span)
        for span in exporter.get_finished_spans()
        if "adk_fluent.model.selected" in (span.attributes or {})
    ]
    assert picked and picked[0]["adk_fluent.model.selected"] == "gemini-2.5-flash"
    assert picked[0]["adk_fluent.model.selection_reason"] == "gathering ratings (0 of 2)"
