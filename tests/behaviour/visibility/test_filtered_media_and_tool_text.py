"""Filtered mode hides every kind of chat content an internal agent produces, not only text
alone: an image reply, and text a model writes beside a tool call (the call itself and its
result still reach the client, as tool traffic always does). The store keeps the whole reply,
and the next agent's model request still holds it, both ways an app runs."""

from __future__ import annotations

import pytest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent import Agent
from tests.support.visibility import WAYS, run_turn

# the internal agents here are meant to speak to the next agent through the history only
pytestmark = pytest.mark.filterwarnings("ignore:agent '.*' is internal:UserWarning")

SECRET_TEXT = "internal-plan-7731"
SECRET_BYTES = b"\x89PNG-internal-7731"


def _response(*parts: types.Part) -> LlmResponse:
    return LlmResponse(
        content=types.Content(role="model", parts=list(parts)),
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=1, candidates_token_count=1, total_token_count=2
        ),
    )


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city, "found": True}


def _image_pipeline():
    return (Agent("painter").instruct("Paint.") >> Agent("writer").instruct("Write.")).filtered()


def _tool_pipeline():
    return (
        Agent("planner").instruct("Plan.").tool(lookup) >> Agent("writer").instruct("Write.")
    ).filtered()


IMAGE = types.Part(inline_data=types.Blob(mime_type="image/png", data=SECRET_BYTES))
TEXT_AND_CALL = (
    types.Part(text=SECRET_TEXT),
    types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Oslo"})),
)


def _client_payloads(outcome) -> list[types.Part]:
    return [part for e in outcome.client for part in (e.content.parts if e.content else [])]


@pytest.fixture(params=["memory", "sqlite"])
def store(request, db_dir):
    return "memory" if request.param == "memory" else f"sqlite:///{db_dir / 'm.db'}"


@pytest.mark.parametrize("way", WAYS)
async def test_an_internal_image_reaches_no_client_but_the_store_and_the_next_agent(way, store):
    outcome = await run_turn(
        _image_pipeline(),
        {"painter": [_response(IMAGE)], "writer": ["Here is the story."]},
        way=way,
        store=store,
    )
    client = _client_payloads(outcome)
    assert not any(p.inline_data for p in client)
    assert all(SECRET_BYTES not in e.model_dump_json().encode() for e in outcome.client)
    assert [(a, t) for a, t in outcome.client_texts()] == [("writer", "Here is the story.")]
    stored = [
        p.inline_data.data
        for e in outcome.stored
        if e.author == "painter"
        for p in (e.content.parts if e.content else [])
        if p.inline_data
    ]
    assert stored == [SECRET_BYTES]
    seen = outcome.backend.requests["writer"][0]
    assert any(
        p.inline_data and p.inline_data.data == SECRET_BYTES
        for c in seen.contents
        for p in c.parts or []
    )


@pytest.mark.parametrize("way", WAYS)
async def test_text_beside_a_tool_call_is_hidden_and_the_call_still_reaches_the_client(way, store):
    outcome = await run_turn(
        _tool_pipeline(),
        {"planner": [_response(*TEXT_AND_CALL), "Planned."], "writer": ["All set."]},
        way=way,
        store=store,
    )
    client = _client_payloads(outcome)
    assert not any(p.text and SECRET_TEXT in p.text for p in client)
    assert [p.function_call.name for p in client if p.function_call] == ["lookup"]
    assert [p.function_response.name for p in client if p.function_response] == ["lookup"]
    assert outcome.client_texts() == [("writer", "All set.")]
    stored = [
        (p.text, p.function_call.name if p.function_call else None)
        for e in outcome.stored
        if e.author == "planner"
        for p in (e.content.parts if e.content else [])
        if p.text or p.function_call
    ]
    assert stored[:2] == [(SECRET_TEXT, None), (None, "lookup")]
    writer_saw = " ".join(
        p.text or "" for c in outcome.backend.requests["writer"][0].contents for p in c.parts or []
    )
    assert SECRET_TEXT in writer_saw
    assert outcome.state == {}
