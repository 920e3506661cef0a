"""Filtered visibility in the `adk api_server` set-ups people run, over HTTP, restarted against
the same SQLite file:

* sessions in SQLite, artifacts in the server's memory (`--artifact_service_uri memory://`): the
  next turn after a restart still sees the hidden history (the text is kept in the session
  store, not in the memory the restart lost);
* sessions in memory (`--session_service_uri memory://`): no response carries hidden text, in
  its content or in its metadata.

Everywhere: /run, /run_sse and the session endpoints hold no hidden text (except, on releases
that store an event before plugins see it, the stored session itself: docs/visibility.md), and
every stored event an agent authored is annotated, tool calls and results included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adk_fluent.adk.compat import plugin_edits_are_stored
from tests.integration.server.test_api_server import (
    ADK_CLI,
    REQUEST_SECONDS,
    agent_folder,
    skip_without_server,
)
from tests.support.servers import ServerProcess, free_port, run_request

httpx = pytest.importorskip("httpx", reason="the HTTP client for the api_server test")
FOLDER = "desk"
LABEL = "LABEL-BOOKING"

AGENT_PY = """
import warnings

from adk_fluent import Agent, AdkFluentWarning
from adk_fluent.testing import call, mock_backend, repeat


def lookup(city: str) -> str:
    \"\"\"Look the city up.\"\"\"
    return city + ": sunny"


def answered(request):
    last = (request.contents or [])[-1]
    return any(p.function_response for p in last.parts or [])


def classify(request):
    return "__LABEL__" if answered(request) else call("lookup", city="Paris")


def count(request):
    if not answered(request):
        return call("lookup", city="Rome")
    texts = [p.text for c in request.contents or [] for p in c.parts or [] if p.text]
    return "I saw %d labels." % sum(t.count("__LABEL__") for t in texts)


backend = mock_backend({"classifier": repeat(classify), "counter": repeat(count)})
with warnings.catch_warnings():  # the label is meant to live in history only
    warnings.simplefilter("ignore", AdkFluentWarning)
    app = (
        Agent("classifier").tool(lookup) >> Agent("counter").tool(lookup)
    ).filtered().to_app(backend=backend)
""".replace("__LABEL__", LABEL)


class Server(ServerProcess):
    """`adk api_server` over `agents` with the given session and artifact URIs."""

    def __init__(self, agents: Path, log: Path, sessions: str, artifacts: str | None) -> None:
        port = free_port()
        argv = [str(ADK_CLI), "api_server", "--host", "127.0.0.1", "--port", str(port)]
        argv += ["--session_service_uri", sessions]
        if artifacts is not None:
            argv += ["--artifact_service_uri", artifacts]
        super().__init__(
            argv + [str(agents)], port=port, ready_path="/list-apps", log=log, cwd=agents.parent
        )


@pytest.fixture
def agents(tmp_path):
    skip_without_server()
    folder = agent_folder(tmp_path, FOLDER, AGENT_PY)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _turn(server: Server, text: str, *, stream: bool, create: bool) -> list[bytes]:
    """One turn (/run or /run_sse), then the session and the user's session list; every body."""
    base = f"/apps/{FOLDER}/users/u1/sessions"
    bodies = []
    with httpx.Client(base_url=server.base, timeout=REQUEST_SECONDS) as client:
        if create:
            created = client.post(f"{base}/s1", json={})
            assert created.status_code == 200, (created.text, server.log_tail())
            bodies.append(created.content)
        turn = run_request(FOLDER, text)
        if stream:
            reply = client.post("/run_sse", json={**turn, "streaming": True})
        else:
            reply = client.post("/run", json=turn)
        assert reply.status_code == 200, (reply.text, server.log_tail())
        bodies.append(reply.content)
        for path in (f"{base}/s1", base):
            answer = client.get(path)
            assert answer.status_code == 200, (answer.text, server.log_tail())
            bodies.append(answer.content)
    return bodies


def _events(body: bytes) -> list[dict]:
    if body.startswith(b"data: ") or b"\ndata: " in body:
        return [json.loads(line[6:]) for line in body.splitlines() if line.startswith(b"data: ")]
    loaded = json.loads(body)
    return loaded if isinstance(loaded, list) else loaded.get("events", [])


def _texts(events: list[dict], author: str) -> list[str]:
    return [
        part["text"]
        for event in events
        if event["author"] == author and not event.get("partial")
        for part in (event.get("content") or {}).get("parts") or []
        if part.get("text")
    ]


def _check_payloads(run: bytes, session: bytes, listing: bytes) -> None:
    assert LABEL.encode() not in run
    assert b"hidden_content" not in run and b"hidden_content" not in session
    assert LABEL.encode() not in listing
    # a store that keeps the event as the agent made it returns it (docs/visibility.md)
    assert (LABEL.encode() in session) is not plugin_edits_are_stored()


def _check_annotated(session: bytes) -> None:
    events = json.loads(session)["events"]
    unannotated = [
        e
        for e in events
        if e["author"] != "user" and "adk_fluent.visibility" not in (e.get("customMetadata") or {})
    ]
    assert unannotated == []
    kinds = {
        (e["author"], next(iter(p)))
        for e in events
        for p in (e.get("content") or {}).get("parts") or []
        if "functionCall" in p or "functionResponse" in p
    }
    # tool calls and results of the internal classifier and the user-facing counter
    assert {("classifier", "functionResponse"), ("counter", "functionResponse")} <= kinds
    assert {("classifier", "functionCall"), ("counter", "functionCall")} <= kinds


def test_sqlite_sessions_with_memory_artifacts_keep_the_hidden_history_across_a_restart(
    agents, tmp_path
):
    sessions = f"sqlite:///{tmp_path / 'sessions.db'}"
    first = Server(agents, tmp_path / "log1", sessions, "memory://")
    try:
        first.wait_ready()
        _, run, session, listing = _turn(first, "first", stream=False, create=True)
    finally:
        first.stop()
    _check_payloads(run, session, listing)
    assert _texts(_events(run), "counter") == ["I saw 1 labels."]

    second = Server(agents, tmp_path / "log2", sessions, "memory://")  # the same SQLite file
    try:
        second.wait_ready()
        sse, session, listing = _turn(second, "second", stream=True, create=False)
    finally:
        second.stop()
    _check_payloads(sse, session, listing)
    # the counter's model request held both labels: the one from before the restart too
    assert _texts(_events(sse), "counter")[-1] == "I saw 2 labels."
    assert _texts(_events(sse), "classifier") == []
    _check_annotated(session)


def test_memory_sessions_send_no_hidden_text_in_any_response(agents, tmp_path):
    server = Server(agents, tmp_path / "log", "memory://", None)  # artifacts: ADK's default
    try:
        server.wait_ready()
        _, run, session, listing = _turn(server, "first", stream=False, create=True)
        sse, session, listing = _turn(server, "second", stream=True, create=False)
    finally:
        server.stop()
    for body in (run, sse):
        _check_payloads(body, session, listing)
    assert _texts(_events(sse), "counter")[-1] == "I saw 2 labels."
    _check_annotated(session)
