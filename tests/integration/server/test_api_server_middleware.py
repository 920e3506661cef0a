"""Middleware under `adk api_server`, as users serve it: an agent folder whose agent.py says
`app = agent.to_app(ExecutionConfig(middleware=...))`, served over HTTP by this environment's
ADK. A before_model middleware answers known questions from a table (the scripted model is
never asked them), marks its answers in the event metadata, and a structured_log writes one JSON
line per model call into the server's log. Reuses test_api_server.py's server harness."""

from __future__ import annotations

import json

import pytest

from tests.conftest import fresh_db_service
from tests.integration.server.test_api_server import (
    REQUEST_SECONDS,
    Server,
    _texts,
    agent_folder,
    httpx,
    serving,
)
from tests.support.servers import run_request

FOLDER = "helpdesk"

AGENT_PY = """
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware import Middleware
from adk_fluent.middleware.call_log import structured_log
from adk_fluent.middleware.replies import mark
from adk_fluent.testing import mock_backend

ANSWERS = {"opening hours?": "We are open 9 to 5."}


class Faq(Middleware):
    \"\"\"Answers the questions in ANSWERS itself; the model gets the others.\"\"\"

    async def before_model_callback(self, *, callback_context, llm_request):
        question = callback_context.user_content.parts[0].text.strip().lower()
        if question in ANSWERS:
            answer = LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text=ANSWERS[question])])
            )
            return mark(answer, "faq", question)
        return None


backend = mock_backend({"desk": ["A scripted joke."]})  # one model call, no more
app = Agent("desk").instruct("Help the customer.").to_app(
    ExecutionConfig(middleware=(structured_log(), Faq())), backend=backend
)
"""


@pytest.fixture
def server(tmp_path):
    with serving(tmp_path, agent_folder(tmp_path, FOLDER, AGENT_PY)) as started:
        yield started


def _ask(client: httpx.Client, server: Server, question: str) -> list[dict]:
    turn = run_request(FOLDER, question)
    response = client.post("/run", json=turn)
    assert response.status_code == 200, (response.text, server.log_tail())
    return response.json()


async def test_a_middleware_answers_over_http_and_the_log_lines_reach_the_server_log(
    server, tmp_path
):
    with httpx.Client(base_url=server.base, timeout=REQUEST_SECONDS) as client:
        created = client.post(f"/apps/{FOLDER}/users/u1/sessions/s1", json={})
        assert created.status_code == 200, (created.text, server.log_tail())
        from_table = _ask(client, server, "Opening hours?")
        from_model = _ask(client, server, "Tell me a joke")
    server.stop()

    # the middleware's answer, marked, with adk-fluent's visibility annotations as usual
    assert _texts(from_table) == [("desk", "We are open 9 to 5.")]
    [answered] = [e for e in from_table if e.get("content")]
    assert answered["customMetadata"]["adk_fluent.faq"] == "opening hours?"
    assert answered["customMetadata"]["adk_fluent.visibility"] == "user"
    # anything else goes to the model (scripted for exactly one call: a second would fail)
    assert _texts(from_model) == [("desk", "A scripted joke.")]
    [modelled] = [e for e in from_model if e.get("content")]
    assert "adk_fluent.faq" not in modelled["customMetadata"]

    # the log: one line for the one model call, none for the answer the model never gave
    lines = [
        json.loads(line[line.index("{") :])
        for line in server.log.read_text(errors="replace").splitlines()
        if '"kind": "model"' in line
    ]
    assert [(line["agent"], line["outcome"], line["session_id"]) for line in lines] == [
        ("desk", "ok", "s1")
    ]
    assert "joke" not in json.dumps(lines)  # no message text in the log

    stored = await fresh_db_service(f"sqlite:///{tmp_path / 'sessions.db'}").get_session(
        app_name=FOLDER, user_id="u1", session_id="s1"
    )
    replies = [e for e in stored.events if e.author == "desk"]
    assert [e.content.parts[0].text for e in replies] == ["We are open 9 to 5.", "A scripted joke."]
    assert replies[0].custom_metadata["adk_fluent.faq"] == "opening hours?"
