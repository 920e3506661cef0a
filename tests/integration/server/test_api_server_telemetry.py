"""Telemetry under `adk web`, as users serve it: an agent folder whose agent.py puts
otel_enrichment and cost_attribution on the App. The server's own session-trace endpoint (what
adk web's Trace view shows; ADK 2.x serves it from `adk web` only, not `adk api_server`) returns
ADK's spans with adk-fluent's attributes on them, and the stored events carry the usage records
`adk-fluent report` reads. Reuses test_api_server.py's server harness."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.server.test_api_server import (
    REQUEST_SECONDS,
    _texts,
    agent_folder,
    httpx,
    serving,
)
from tests.support.servers import run_request

FOLDER = "shop"

AGENT_PY = """
from adk_fluent import Agent, ExecutionConfig
from adk_fluent.telemetry import cost_attribution, otel_enrichment
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


@dataclass
class Served:
    """One turn served by `adk web`: what the client received, the server's session trace (None
    where it serves none) and the session store's file."""

    events: list[dict]
    trace: list[dict] | None
    no_trace: str
    store: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Served:
    tmp_path = tmp_path_factory.mktemp("telemetry")
    with (
        serving(tmp_path, agent_folder(tmp_path, FOLDER, AGENT_PY), "web") as server,
        httpx.Client(base_url=server.base, timeout=REQUEST_SECONDS) as client,
    ):
        created = client.post(f"/apps/{FOLDER}/users/u1/sessions/s1", json={})
        assert created.status_code == 200, (created.text, server.log_tail())
        turn = run_request(FOLDER, "Where is my order?")
        response = client.post("/run", json=turn)
        assert response.status_code == 200, (response.text, server.log_tail())
        route = _session_trace_path(client, "s1")
        trace = None
        if route is not None:
            found = client.get(route)
            assert found.status_code == 200, (found.text, server.log_tail())
            trace = found.json()
        lines = [line for line in server.log_tail().splitlines() if "DevServer" in line]
        reason = "this google-adk's `adk web` serves no trace endpoint" + (
            f" (its log: {lines[0].split(' - ')[-1]})" if lines else ""
        )
        return Served(response.json(), trace, reason, tmp_path / "sessions.db")


def _session_trace_path(client: httpx.Client, session_id: str) -> str | None:
    """The server's session-trace route, asked of its OpenAPI document: ADK releases serve it
    under different paths (/debug/trace/session/... or /dev/apps/<app>/debug/...), and some
    `adk web` builds serve none (2.0.0 falls back to its API server when its dev server cannot
    be imported)."""
    paths = client.get("/openapi.json").json()["paths"]
    routes = [p for p in paths if p.endswith("/debug/trace/session/{session_id}")]
    if not routes:
        return None
    return routes[0].replace("{app_name}", FOLDER).replace("{session_id}", session_id)


def _spans(found) -> list[dict]:
    """Flatten a session trace: a list of spans, or of span trees with children."""
    spans: list[dict] = []
    stack = list(found)
    while stack:
        span = stack.pop()
        spans.append(span)
        stack.extend(span.get("children") or [])
    return spans


def test_the_trace_view_shows_our_attributes_on_adks_spans(served):
    if served.trace is None:
        pytest.skip(served.no_trace)
    assert ("answer", "It shipped yesterday.") in _texts(served.events)
    spans = _spans(served.trace)
    attributes = [span.get("attributes") or {} for span in spans]
    answer_agent = [a for a in attributes if a.get("adk_fluent.node.path", "").endswith("/answer")]
    assert answer_agent, [span.get("name") for span in spans]
    assert {a["adk_fluent.pipeline"] for a in answer_agent} == {"shop"}
    costs = [a["adk_fluent.cost.usd"] for a in attributes if "adk_fluent.cost.usd" in a]
    assert len(costs) == 2  # the two model calls' spans


def test_the_store_keeps_the_usage_and_adk_fluent_report_reads_it(served):
    assert ("answer", "It shipped yesterday.") in _texts(served.events)
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "adk_fluent.cli.main",
            "report",
            "--store",
            f"sqlite:///{served.store}",
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
