"""What a served pipeline sends back to a RemoteAgent, byte for byte, and what the caller keeps.

The served pipeline (`adk-fluent serve`, filtered) has an internal agent whose reply is the key
`hidden_plan`, and a step writing `undeclared_note`; its card lists both among its writes. The
caller declares `receives=["answer"]` only. Every HTTP response the RemoteAgent gets is recorded
(through its own `httpx_client_factory`), and the caller's session is read back from SQLite by
a fresh store: neither holds the internal text nor either undeclared key, anywhere (state,
state deltas, custom metadata, the recorded A2A task); `answer` arrives. Run with a server on
this release and on the other one.
"""

from __future__ import annotations

import pytest

from adk_fluent import Agent, RemoteAgent
from adk_fluent.testing import mock_backend, repeat
from tests.conftest import fresh_db_service, system_instruction
from tests.support.a2a import ADK_VERSION, need_other_adk, serving, write_module

httpx = pytest.importorskip("httpx", reason="httpx (a2a-sdk's HTTP client) is not installed")

SECRETS = ("SECRET-PLAN", "hidden_plan", "undeclared_note", "NOTE-UNDECLARED")

SUPPORT = """
import warnings

from adk_fluent import AdkFluentWarning, Agent, S
from adk_fluent.testing import ScriptedModel, repeat

with warnings.catch_warnings():  # the thinker's text is meant to live in history only
    warnings.simplefilter("ignore", AdkFluentWarning)
    pipeline = (
        Agent("thinker").instruct("Plan.").model(ScriptedModel([repeat("SECRET-PLAN-ALPHA")]))
        .outputs("hidden_plan")
        >> S.set(undeclared_note="NOTE-UNDECLARED-42")
        >> Agent("writer").instruct("Answer with {hidden_plan}.")
        .model(ScriptedModel([repeat("Your answer is 42.")])).outputs("answer")
    ).named("support").filtered()
"""


async def _one_turn(card_url: str, db_url: str) -> tuple[list[bytes], object, object, object]:
    """(the body of every A2A response the RemoteAgent received, the caller's events, its
    session read back by a fresh store, the next agent's model request). The card, fetched
    with GET, is left out: it lists the pipeline's writes by name, as it should."""
    bodies: list[bytes] = []

    async def keep(response: httpx.Response) -> None:
        if response.request.method == "POST":
            bodies.append(await response.aread())

    def recording_client() -> httpx.AsyncClient:
        return httpx.AsyncClient(event_hooks={"response": [keep]})

    pipeline = RemoteAgent(
        "support", card_url, receives=["answer"], httpx_client_factory=recording_client
    ) >> Agent("after").instruct("Tell the user: {answer}")
    backend = mock_backend({"after": repeat("Told the user.")})
    events = await pipeline.run(
        "What is the answer?", backend=backend, session_id="s1", session_store=db_url
    )
    session = await pipeline.session("s1", backend=backend, session_store=fresh_db_service(db_url))
    return bodies, events, session, backend.requests["after"][0]


def _assert_only_the_declared_key_crossed(bodies, events, session, after, where: str) -> None:
    assert not [e for e in events if e.is_error], (where, [e.error_message for e in events])
    assert [e.content for e in events if e.content] == ["Your answer is 42.", "Told the user."]
    assert bodies, where
    raw = b"".join(bodies).decode()
    assert "Your answer is 42." in raw, where
    assert not [secret for secret in SECRETS if secret in raw], (where, raw[:3000])

    assert session.state["answer"] == "Your answer is 42."
    stored = "".join(event.model_dump_json() for event in session.events)
    assert "a2a:response" in stored, where  # the A2A task is recorded ...
    assert not [secret for secret in SECRETS if secret in stored], (where, stored[:3000])
    assert not [secret for secret in SECRETS if secret in str(dict(session.state))], where
    assert "Tell the user: Your answer is 42." in system_instruction(after), where


@pytest.fixture(scope="module")
def support(tmp_path_factory):
    folder = tmp_path_factory.mktemp("support")
    write_module(folder, "support_app", SUPPORT)
    with serving(folder, "support_app:pipeline") as server:
        yield server


async def test_a_remote_agent_receives_and_stores_only_the_key_it_declared(support, tmp_path):
    found = await _one_turn(support.card_url, f"sqlite:///{tmp_path / 'caller.db'}")
    _assert_only_the_declared_key_crossed(*found, where=f"server on {ADK_VERSION}")


async def test_a_server_on_the_other_release_sends_only_the_declared_key_too(tmp_path):
    python, version = need_other_adk()
    write_module(tmp_path, "support_app", SUPPORT)
    with serving(tmp_path, "support_app:pipeline", python=python) as server:
        found = await _one_turn(server.card_url, f"sqlite:///{tmp_path / 'caller.db'}")
    _assert_only_the_declared_key_crossed(*found, where=f"client {ADK_VERSION}, server {version}")
