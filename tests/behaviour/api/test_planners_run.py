"""ADK's planners as a builder setting, through the real Runner on SQLite: PlanReActPlanner's
plan and reasoning stay out of the output key, the next agent's request and the client's text
(they are stored as thought parts), and BuiltInPlanner's thinking config is what the model is
sent; the checker's planner checks are in the contracts corpus."""

from __future__ import annotations

import pytest
from google.adk.planners import BuiltInPlanner, PlanReActPlanner
from google.genai import types

from adk_fluent import Agent
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service, request_texts, system_instruction
from tests.support.gates import USER, WAYS, turn

TAGGED = (
    "/*PLANNING*/\n1. Check the atlas.\n/*REASONING*/\nIt is the capital.\n/*FINAL_ANSWER*/\nParis."
)


def planned():
    return Agent("researcher").instruct("Answer the question.").planner(PlanReActPlanner()).outputs(
        "answer"
    ) >> Agent("writer").instruct("Write one line about {answer}.")


@pytest.mark.parametrize("way", WAYS)
async def test_the_plan_stays_in_thought_parts_and_only_the_answer_travels(way, sqlite_url):
    backend = mock_backend({"researcher": TAGGED, "writer": "Paris it is."})
    result = await turn(planned(), backend, "capital of France?", sqlite_url, way=way)
    assert result.state["answer"].strip() == "Paris."
    assert "PLANNING" in system_instruction(backend.requests["researcher"][0])  # the planner's
    sent = "\n".join(request_texts(backend.requests["writer"][0]))
    assert "Paris." in sent and "atlas" not in sent and "It is the capital" not in sent
    app = planned().to_app(backend=backend)
    session = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id=USER, session_id="s"
    )
    thoughts = [
        part.text
        for event in session.events
        if event.author == "researcher" and event.content
        for part in event.content.parts
        if part.thought
    ]
    assert thoughts and "atlas" in thoughts[0]  # stored, as thought parts


async def test_the_client_is_shown_the_answer_not_the_plan():
    backend = mock_backend({"researcher": TAGGED, "writer": "Paris it is."})
    events = await planned().run("capital of France?", backend=backend)
    shown = [(event.author, event.content.strip()) for event in events if event.content]
    assert ("researcher", "Paris.") in shown
    assert not any("atlas" in text for _, text in shown)


async def test_builtin_planners_thinking_config_is_what_the_model_is_sent(sqlite_url):
    thinking = types.ThinkingConfig(thinking_budget=256, include_thoughts=True)
    agent = (
        Agent("thinker")
        .instruct("Think, then answer.")
        .planner(BuiltInPlanner(thinking_config=thinking))
    )
    backend = mock_backend({"thinker": "42"})
    result = await turn(agent, backend, "the answer?", sqlite_url)
    assert result.said_by("thinker") == ["42"]
    sent = backend.requests["thinker"][0].config.thinking_config
    assert sent.thinking_budget == 256 and sent.include_thoughts is True
