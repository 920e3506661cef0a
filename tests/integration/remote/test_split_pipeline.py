"""A pipeline split at its execution boundary runs as two processes talking A2A over loopback,
and gives what it gives in one process.

    S.capture >> a >> (b >> S.set(heavy_done=...) >> S.drop("question"))
                        .execution_boundary("heavy") >> c

The "heavy" service runs in a subprocess (tests/support/split.py: the split's own `serve`);
the root App of the same split runs here, its RemoteAgent calling the subprocess. Written as
ADK agent folders, the parts run under two `adk api_server` processes (the service's with
`--a2a`), as they would deploy. The scripted
models answer from their instructions, so the replies and the state show what each agent
read: b only names the question and topic if they crossed to the service, c only the result
and flag if they came back. The directory tests read the service's real card.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import S
from adk_fluent.api.directory import AgentDirectory
from adk_fluent.errors import BuildError
from adk_fluent.remote import to_apps, write_agent_folders
from adk_fluent.run.events import AgentEvent
from adk_fluent.testing import mock_backend
from tests.support.servers import free_port
from tests.support.split import SERVICE, api_server, scripts, service_process, split_pipeline

TURN_SECONDS = 60  # one turn, remote call included; it takes well under a second
QUESTIONS = ("refund my cat food", "and the dog's too")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    server = service_process(tmp_path_factory.mktemp("split") / "heavy.log")
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


async def run_turns(app: Any, messages: tuple[str, ...]) -> tuple[list[list[AgentEvent]], dict]:
    """Every turn's events, and the session state after the last, through ADK's Runner."""
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=app.name, user_id="u")
    runner = Runner(app=app, session_service=sessions)
    turns = []
    for text in messages:
        message = types.Content(role="user", parts=[types.Part(text=text)])

        async def turn(message: Any = message) -> list[Any]:
            return [
                event
                async for event in runner.run_async(
                    user_id="u", session_id=session.id, new_message=message
                )
            ]

        events = await asyncio.wait_for(turn(), TURN_SECONDS)
        turns.append([AgentEvent.from_adk(event) for event in events])
    stored = await sessions.get_session(app_name=app.name, user_id="u", session_id=session.id)
    return turns, dict(stored.state)


def replies(turn: list[AgentEvent]) -> list[tuple[str, str]]:
    """What the user is shown of one turn: (author, text) of user-facing replies."""
    return [
        (event.author, event.content)
        for event in turn
        if event.content and event.visibility == "user" and not event.is_partial
    ]


def session_state(state: dict) -> dict:
    return {key: value for key, value in state.items() if not key.startswith("adk_fluent")}


async def test_the_split_pipeline_gives_the_same_final_state_as_one_process(service):
    pipeline = split_pipeline()
    one_turns, one_state = await run_turns(
        pipeline.to_app(backend=mock_backend(scripts())), QUESTIONS
    )
    split = to_apps(pipeline, urls={SERVICE: service.base}, backend=mock_backend(scripts()))
    split_turns, split_state = await run_turns(split.root, QUESTIONS)

    assert not [e.error_code for turn in split_turns for e in turn if e.is_error]
    assert session_state(split_state) == session_state(one_state)
    assert [replies(turn) for turn in split_turns] == [replies(turn) for turn in one_turns]
    # the state shows both crossings: b read the question and topic, c what b wrote
    assert one_state["result"] == f"worked on topic of {QUESTIONS[1]} | {QUESTIONS[1]}"
    assert replies(split_turns[1]) == [("c", f"answer: {one_state['result']} | yes")]
    assert one_state["question"] is None  # dropped in the service, and so here
    # split, b ran in the service: its reply reached here as the remote agent's
    authors = {event.author for turn in split_turns for event in turn}
    assert "heavy" in authors and "b" not in authors


def test_the_directory_reads_the_service_card_with_its_crossing_keys(service):
    directory = AgentDirectory.from_urls([service.base])
    assert directory.names == (SERVICE,)
    split = to_apps(split_pipeline(), urls={SERVICE: service.base})
    step = directory.agent(SERVICE)
    crossing = split.crossing(SERVICE)
    assert (step.sends, step.receives) == (crossing.sends, crossing.receives)
    assert directory.card(SERVICE)["url"] == service.base + "/"
    assert directory.card(SERVICE)["description"] == "does the heavy work"


async def test_a_remote_agent_from_the_directory_calls_the_service(service):
    directory = await AgentDirectory.load([service.ready_url])  # the card's own URL
    caller = S.set(question="q1", topic="t1") >> directory.agent(SERVICE)
    backend = mock_backend({})  # no model here: the service's b answers
    events = await asyncio.wait_for(
        caller.run("go", backend=backend, session_id="s1"), TURN_SECONDS
    )
    assert not [event.error_code for event in events if event.is_error]
    state = (await caller.session("s1", backend=backend)).state
    assert state["result"] == "worked on t1 | q1" and state["heavy_done"] == "yes"


def test_a_card_url_nobody_serves_is_refused_naming_it():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(BuildError, match="no agent card could be fetched from") as raised:
        AgentDirectory.from_urls([url], timeout=5)
    assert f"{url}/.well-known/agent-card.json" in str(raised.value)


def _skip_where_adk_cannot_serve_a2a_folders(server: Any, folder: str) -> None:
    """Some releases' `adk api_server --a2a` (2.4.0 seen) fail to set up every A2A folder
    ("cannot access local variable 'json'", a bug in ADK's own server) and answer 404 for the
    card: asked of the running server, not of the version."""
    import httpx

    card = httpx.get(f"{server.base}/a2a/{folder}/.well-known/agent-card.json", timeout=10)
    failed = [
        line for line in server.log_tail().splitlines() if "Failed to setup A2A agent" in line
    ]
    if card.status_code == 404 and failed:
        pytest.skip(
            f"this google-adk's `adk api_server --a2a` cannot serve A2A folders: {failed[0]}"
        )


def test_the_agent_folders_run_under_adk_api_server_as_in_one_process(tmp_path):
    """The service's folder under `adk api_server --a2a`, the entry App's under another
    `adk api_server`, beside a folder with the whole pipeline in one App: one turn each, the
    stored states are equal."""
    import httpx

    from tests.support.split import PIPELINE  # what the folders import by reference

    agents = tmp_path / "agents"
    service_port = free_port()
    folders = write_agent_folders(
        PIPELINE,
        agents,
        "tests.support.split:PIPELINE",
        urls={SERVICE: f"http://127.0.0.1:{service_port}/a2a/{SERVICE}"},
        backend_ref="tests.support.split:BACKEND",
    )
    assert sorted(folders) == ["heavy", "root"] and (agents / SERVICE / "agent.json").is_file()
    whole = agents / "whole"  # the pipeline unsplit, for comparison
    whole.mkdir()
    (whole / "__init__.py").write_text("from . import agent\n")
    (whole / "agent.py").write_text(
        "from tests.support.split import BACKEND, PIPELINE\n"
        "app = PIPELINE.to_app(backend=BACKEND)\n"
    )
    servers = [
        api_server(agents, service_port, tmp_path / "service.log", a2a=True),
        api_server(agents, free_port(), tmp_path / "entry.log"),
    ]
    try:
        for server in servers:
            server.wait_ready()
        _skip_where_adk_cannot_serve_a2a_folders(servers[0], SERVICE)
        entry = servers[1].base
        states = {}
        with httpx.Client(base_url=entry, timeout=TURN_SECONDS) as client:
            for app in ("root", "whole"):
                session = f"/apps/{app}/users/u/sessions/s1"
                assert client.post(session, json={}).status_code == 200
                message = {"role": "user", "parts": [{"text": QUESTIONS[0]}]}
                body = {"app_name": app, "user_id": "u", "session_id": "s1", "new_message": message}
                ran = client.post("/run", json=body)
                assert ran.status_code == 200, servers[0].log_tail() + servers[1].log_tail()
                assert not [e for e in ran.json() if e.get("errorCode")]
                states[app] = client.get(session).json()["state"]
        assert session_state(states["root"]) == session_state(states["whole"])
        assert states["root"]["answer"].startswith("answer: worked on topic of")
    finally:
        for server in servers:
            server.stop()
