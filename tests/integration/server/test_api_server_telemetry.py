"""Telemetry under `adk web`, as users serve it: an agent folder whose agent.py puts
otel_enrichment and cost_attribution on the App. The server's own session-trace endpoint (what
adk web's Trace view shows; ADK 2.x serves it from `adk web` only, not `adk api_server`) returns
ADK's spans with adk-fluent's attributes on them, and the stored events carry the usage records
`adk-fluent report` reads. Reuses test_api_server.py's server harness."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.integration.server.test_api_server import (
    REQUEST_SECONDS,
    _texts,
    agent_folder,
    httpx,
    serving,
)

FOLDER = "shop"

AGENT_PY = """
from adk_fluent import Agent, ExecutionConfig, cost_attribution, otel_enrichment
from adk_fluent.testing import mock_backend, with_usage

backend = mock_backend(
    {
        "triage": [with_usage("orders", input=1200, output=30)],
        "answer": [with_usage("It shipped yesterday.", input=2100, output=120)],
    }
)
tree = Agent("triage").instruct("Triage.").outputs("topic") >> Agent("answer").instruct(
    "Answer about {topic}."
)
app = tree.to_app(
    ExecutionConfig(middleware=(otel_enrichment(pipeline="shop"), cost_attribution())),
    backend=backend,
)
"""


@pytest.fixture
def server(tmp_path):
    with serving(tmp_path, agent_folder(tmp_path, FOLDER, AGENT_PY), "web") as started:
        yield started


def _session_trace_path(client: httpx.Client, session_id: str) -> str:
    """The server's session-trace route: asked of its OpenAPI document, since ADK releases
    serve it under different paths (/debug/trace/session/... or /dev/apps/<app>/debug/...)."""
    paths = client.get("/openapi.json").json()["paths"]
    [route] = [p for p in paths if p.endswith("/debug/trace/session/{session_id}")]
    return route.replace("{app_name}", FOLDER).replace("{session_id}", session_id)


def _spans(found) -> list[dict]:
    """Flatten a session trace: a list of spans, or of span trees with children."""
    spans: list[dict] = []
    stack = list(found)
    while stack:
        span = stack.pop()
        spans.append(span)
        stack.extend(span.get("children") or [])
    return spans


def test_the_servers_trace_view_shows_our_attributes_and_the_store_keeps_the_usage(
    server, tmp_path
):
    with httpx.Client(base_url=server.base, timeout=REQUEST_SECONDS) as client:
        created = client.post(f"/apps/{FOLDER}/users/u1/sessions/s1", json={})
        assert created.status_code == 200, (created.text, server.log_tail())
        turn = {
            "app_name": FOLDER,
            "user_id": "u1",
            "session_id": "s1",
            "new_message": {"role": "user", "parts": [{"text": "Where is my order?"}]},
        }
        response = client.post("/run", json=turn)
        assert response.status_code == 200, (response.text, server.log_tail())
        events = response.json()
        trace = client.get(_session_trace_path(client, "s1"))
        assert trace.status_code == 200, (trace.text, server.log_tail())
    server.stop()

    assert ("answer", "It shipped yesterday.") in _texts(events)
    spans = _spans(trace.json())
    attributes = [span.get("attributes") or {} for span in spans]
    answer_agent = [a for a in attributes if a.get("adk_fluent.node.path", "").endswith("/answer")]
    assert answer_agent, [span.get("name") for span in spans]
    assert {a["adk_fluent.pipeline"] for a in answer_agent} == {"shop"}
    costs = [a["adk_fluent.cost.usd"] for a in attributes if "adk_fluent.cost.usd" in a]
    assert len(costs) == 2  # the two model calls' spans

    # the stored events carry the usage records: `adk-fluent report` reads them from the store
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "adk_fluent.cli.main",
            "report",
            "--store",
            f"sqlite:///{tmp_path / 'sessions.db'}",
            "--app",
            FOLDER,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert report.returncode == 0, report.stderr
    assert "triage" in report.stdout and "answer" in report.stdout
    assert "1200" in report.stdout and "2100" in report.stdout
