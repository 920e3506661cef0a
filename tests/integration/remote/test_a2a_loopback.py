"""Two processes talking A2A over loopback, as users run them: `adk-fluent serve module:pipeline`
in a subprocess (scripted models set on its agents), and a client pipeline with a RemoteAgent
step run through the real ADK Runner in this process (or, across ADK releases, in another
environment's interpreter).

What is proved: the declared keys cross both ways and nothing else does; the remote agent reads
what was sent and the client's next agent reads what came back; a second turn continues the same
remote conversation; every failure is one coded error event that ends the run (or falls back);
a 1.25 client and a 2.x server interoperate both ways; an internal agent's text reaches no A2A
client while the server's own store keeps it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from adk_fluent import Agent, RemoteAgent, S, restore_content
from adk_fluent.testing import mock_backend, repeat
from tests.conftest import fresh_db_service, request_texts, system_instruction
from tests.support.a2a import (
    A2A_1X_CARD,
    ADK_VERSION,
    card_server,
    message_params,
    need_other_adk,
    run_client_on_other_adk,
    serving,
    skip_without_a2a,
    write_module,
)
from tests.support.servers import free_port

httpx = pytest.importorskip("httpx", reason="httpx (a2a-sdk's HTTP client) is not installed")

REQUEST_SECONDS = 60

# The served pipeline: its scripted model answers with what it was given (its instruction, the
# state keys it read filled in, and the user turns it saw), so the client can tell what crossed.
PAYMENTS = """
from adk_fluent import Agent, S
from adk_fluent.testing import ScriptedModel, repeat


def echo(request):
    system = request.config.system_instruction if request.config else ""
    first = str(system or "").splitlines()[0] if system else ""
    turns = [
        part.text
        for content in request.contents or []
        if content.role == "user"
        for part in content.parts or []
        if part.text
    ]
    return f"REFUND[{first}] TURNS{turns}"


pipeline = (
    Agent("refunder")
    .instruct("Refund for topic={topic} secret={secret?}.")
    .model(ScriptedModel([repeat(echo)]))
    .outputs("refund_id")
    >> S.set(done=True)
).named("payments")
"""

# A served pipeline whose last step fails after the agent answered, when the amount it is sent
# is too high: the guard reads a key only its code names (the checker cannot see it).
FAILING = """
from adk_fluent import Agent, S
from adk_fluent.testing import ScriptedModel, repeat

pipeline = (
    Agent("refunder").instruct("Refund.").model(ScriptedModel([repeat("REFUNDED")]))
    .outputs("refund_id")
    >> S.guard(lambda state: state.get("amount", 1000) < 100, "amount over the refund limit")
).named("payments")
"""

# A served pipeline far slower than the caller's timeout.
SLOW = """
from adk_fluent import Agent
from adk_fluent.testing import ScriptedModel, delay, repeat

pipeline = Agent("payments").instruct("Think.").model(ScriptedModel([repeat(delay(6, "late"))]))
"""

# A served pipeline whose first agent is internal: in filtered mode no client sees its reply.
HIDDEN = """
import warnings

from adk_fluent import AdkFluentWarning, Agent
from adk_fluent.testing import ScriptedModel, repeat

with warnings.catch_warnings():  # the thinker's text is meant to live in history only
    warnings.simplefilter("ignore", AdkFluentWarning)
    pipeline = (
        Agent("thinker").instruct("Plan.").model(ScriptedModel([repeat("SECRET-PLAN-ALPHA")]))
        >> Agent("writer").instruct("Answer.").model(ScriptedModel([repeat("Final answer.")]))
    ).named("support").filtered()
"""

# The client, run by another environment's interpreter: one turn, the outcome as JSON.
CLIENT = """
import asyncio, json, sys, warnings

warnings.simplefilter("ignore")
from adk_fluent import Agent, RemoteAgent, S
from adk_fluent.testing import mock_backend, repeat

card = sys.argv[1]
pipeline = (
    S.set(topic="cats", secret="s3cr3t")
    >> RemoteAgent("payments", card, sends=["topic"], receives=["refund_id"])
    >> Agent("after").instruct("Tell the user about refund {refund_id}.")
)


async def main():
    backend = mock_backend({"after": repeat("Told the user.")})
    events = await pipeline.run("first question", backend=backend, session_id="s1")
    session = await pipeline.session("s1", backend=backend)
    (after,) = backend.requests["after"]
    print(json.dumps({
        "events": [[e.author, e.content, e.error_code] for e in events],
        "state": dict(session.state),
        "after_instruction": str(after.config.system_instruction),
    }))


asyncio.run(main())
"""


def _raw_send(url: str, text: str, metadata: dict | None = None):
    """One A2A `message/send` by hand (JSON-RPC over HTTP), as any A2A client sends it."""
    params = message_params(text, metadata)
    body = {"jsonrpc": "2.0", "id": "1", "method": "message/send", "params": params}
    return httpx.post(url, json=body, timeout=REQUEST_SECONDS)


def _client(card: str, *, receives=("refund_id",)):
    return (
        S.set(topic="cats", secret="s3cr3t")
        >> RemoteAgent("payments", card, sends=["topic"], receives=list(receives))
        >> Agent("after").instruct("Tell the user about refund {refund_id}.")
    )


def _backend():
    return mock_backend({"after": repeat("Told the user.")})


def _reply(events, author: str = "payments") -> str:
    texts = [e.content for e in events if e.author == author and e.content]
    assert texts, [(e.author, e.content, e.error_code, e.error_message) for e in events]
    return texts[-1]


def _served_session_of(event) -> tuple[str, str, str]:
    """(app, user, session) the server ran a client's remote call in, as its A2A task says."""
    metadata = event.custom_metadata["a2a:response"]["metadata"]
    return metadata["adk_app_name"], metadata["adk_user_id"], metadata["adk_session_id"]


async def _served_session(db: Path, app: str, user: str, session_id: str):
    session = await fresh_db_service(f"sqlite:///{db}").get_session(
        app_name=app, user_id=user, session_id=session_id
    )
    assert session is not None, (app, user, session_id)
    return session


def _user_texts(session) -> list[str]:
    return [
        part.text
        for event in session.events
        if event.author == "user" and event.content
        for part in event.content.parts or []
        if part.text
    ]


@pytest.fixture(scope="module")
def payments(tmp_path_factory):
    """The payments pipeline served by this environment's ADK, over a SQLite store."""
    folder = tmp_path_factory.mktemp("payments")
    write_module(folder, "payments_app", PAYMENTS)
    db = folder / "served.db"
    with serving(folder, "payments_app:pipeline", session_store=f"sqlite:///{db}") as server:
        server.db = db  # type: ignore[attr-defined]
        yield server


async def test_declared_keys_cross_both_ways_and_the_next_agent_reads_the_reply(payments):
    pipeline, backend = _client(payments.card_url), _backend()
    events = await pipeline.run("first question", backend=backend, session_id="roundtrip")

    assert not [e for e in events if e.is_error]
    reply = _reply(events)
    # the served agent read the key that was sent, in its own instruction, on the server
    assert reply.startswith("REFUND[Refund for topic=cats secret=.]"), reply
    assert "'first question'" in reply
    state = (await pipeline.session("roundtrip", backend=backend)).state
    assert state["refund_id"] == reply  # the remote's declared write came back as state
    (after,) = backend.requests["after"]
    assert f"Tell the user about refund {reply}" in system_instruction(after)
    assert any(reply in text for text in request_texts(after))  # and its reply as history


async def test_nothing_undeclared_crosses_in_either_direction(payments):
    pipeline, backend = _client(payments.card_url), _backend()
    await pipeline.run("first question", backend=backend, session_id="undeclared")
    client = await pipeline.session("undeclared", backend=backend)
    remote_event = next(e for e in client.events if e.author == "payments")

    served = await _served_session(payments.db, *_served_session_of(remote_event))
    # sent: topic; not sent: secret (the served pipeline reads it, the client did not declare it)
    assert served.state["topic"] == "cats"
    assert "secret" not in served.state
    # written on the server: refund_id (received) and done (not received by this client)
    assert served.state["done"] is True
    assert "done" not in client.state
    assert client.state["refund_id"] == served.state["refund_id"]

    # the server takes only keys its pipeline reads, whatever a caller puts in the request
    # where a RemoteAgent puts the keys it sends: the request's metadata
    sent = {"adk_fluent": {"state": {"topic": "dogs", "intruder": "x"}}}
    task = _raw_send(payments.url, "raw caller", sent).json()["result"]
    meta = task["metadata"]
    raw = await _served_session(
        payments.db, meta["adk_app_name"], meta["adk_user_id"], meta["adk_session_id"]
    )
    assert raw.state["topic"] == "dogs"
    assert "intruder" not in raw.state


async def test_a_second_turn_continues_the_same_remote_conversation(payments):
    pipeline, backend = _client(payments.card_url), _backend()
    await pipeline.run("first question", backend=backend, session_id="two-turns")
    second = await pipeline.run("second question", backend=backend, session_id="two-turns")

    reply = _reply(second)
    # the served model saw both turns: the server kept one conversation for this session
    assert "'first question'" in reply and "'second question'" in reply, reply
    client = await pipeline.session("two-turns", backend=backend)
    calls = [e for e in client.events if e.author == "payments"]
    assert len({_served_session_of(e) for e in calls}) == 1
    served = await _served_session(payments.db, *_served_session_of(calls[-1]))
    texts = _user_texts(served)
    assert "first question" in texts and "second question" in texts


async def test_an_unreachable_peer_is_one_coded_error_that_ends_the_run():
    skip_without_a2a()
    card = f"http://127.0.0.1:{free_port()}/.well-known/agent-card.json"
    pipeline, backend = _client(card), _backend()
    events = await pipeline.run("first question", backend=backend, session_id="down")

    errors = [e for e in events if e.is_error]
    assert [(e.author, e.error_code) for e in errors] == [("payments", "REMOTE_UNREACHABLE")]
    assert card in errors[0].error_message
    assert events[-1] is errors[0]
    assert "after" not in backend.requests  # the next agent did not run


async def test_an_a2a_1x_card_is_refused_with_the_reason():
    skip_without_a2a()
    with card_server(A2A_1X_CARD) as card:
        pipeline, backend = _client(card), _backend()
        events = await pipeline.run("first question", backend=backend, session_id="v1")

    errors = [e for e in events if e.is_error]
    assert [(e.author, e.error_code) for e in errors] == [("payments", "REMOTE_CARD_INVALID")]
    message = errors[0].error_message
    assert "A2A 1.x card" in message and "a2a-sdk" in message, message
    assert "after" not in backend.requests


async def test_a_fallback_runs_when_the_peer_is_down():
    skip_without_a2a()
    card = f"http://127.0.0.1:{free_port()}/.well-known/agent-card.json"
    remote = RemoteAgent("payments", card, sends=["topic"], receives=["refund_id"])
    pipeline = (
        S.set(topic="cats")
        >> (remote // Agent("fallback").instruct("Say refunds are offline.").outputs("refund_id"))
        >> Agent("after").instruct("Tell the user about refund {refund_id}.")
    )
    backend = mock_backend({"fallback": ["OFFLINE"], "after": ["Told the user."]})
    events = await pipeline.run("first question", backend=backend, session_id="fallback")

    assert not [e for e in events if e.is_error]
    assert [e.content for e in events if e.content] == ["OFFLINE", "Told the user."]
    assert "refund OFFLINE" in system_instruction(backend.requests["after"][0])


async def test_a_value_json_cannot_carry_is_refused_before_any_call():
    skip_without_a2a()
    from datetime import datetime

    from google.adk.sessions import InMemorySessionService

    # nothing listens there: a refusal after a call would be REMOTE_UNREACHABLE instead
    card = f"http://127.0.0.1:{free_port()}/.well-known/agent-card.json"
    pipeline = RemoteAgent("payments", card, sends=["when"]) >> Agent("after")
    backend = mock_backend({"after": ["Told the user."]})
    store = InMemorySessionService()  # a store that holds any object, as a tool may write one
    app_name = pipeline.to_app(backend=backend).name
    await store.create_session(
        app_name=app_name, user_id="user", session_id="s1", state={"when": datetime(2025, 1, 2)}
    )
    events = await pipeline.run("hi", backend=backend, session_id="s1", session_store=store)

    errors = [e for e in events if e.is_error]
    assert [(e.author, e.error_code) for e in errors] == [("payments", "REMOTE_STATE_NOT_SENDABLE")]
    assert "'when'" in errors[0].error_message and "datetime" in errors[0].error_message
    assert "after" not in backend.requests


async def test_a_failed_served_step_comes_back_as_remote_task_failed(tmp_path):
    write_module(tmp_path, "failing_app", FAILING)
    with serving(tmp_path, "failing_app:pipeline") as server:

        def client(amount):
            return (
                S.set(amount=amount)
                >> RemoteAgent(
                    "payments", server.card_url, sends=["amount"], receives=["refund_id"]
                )
                >> Agent("after").instruct("Tell the user.")
            )

        # a key read only by a step's code is still stored on the server: the guard sees it
        small = client(50)
        backend = _backend()
        events = await small.run("first question", backend=backend, session_id="ok")
        assert not [e for e in events if e.is_error]
        assert (await small.session("ok", backend=backend)).state["refund_id"] == "REFUNDED"

        pipeline = client(500)
        backend = _backend()
        events = await pipeline.run("first question", backend=backend, session_id="failed")

    errors = [e for e in events if e.is_error]
    assert [(e.author, e.error_code) for e in errors] == [("payments", "REMOTE_TASK_FAILED")]
    # the server's own code and message come along
    assert "STATE_GUARD_FAILED" in errors[0].error_message
    assert "amount over the refund limit" in errors[0].error_message
    assert "after" not in backend.requests
    # a failed remote step brings nothing back, not even what it wrote before failing
    state = (await pipeline.session("failed", backend=backend)).state
    assert "refund_id" not in state


async def test_a_peer_slower_than_the_timeout_is_remote_request_failed(tmp_path):
    write_module(tmp_path, "slow_app", SLOW)
    with serving(tmp_path, "slow_app:pipeline") as server:
        pipeline = RemoteAgent("payments", server.card_url, timeout=2) >> Agent("after")
        backend = _backend()
        events = await pipeline.run("first question", backend=backend, session_id="slow")
        server.process.kill()  # a graceful stop would wait for the abandoned call to finish

    errors = [e for e in events if e.is_error]
    assert [(e.author, e.error_code) for e in errors] == [("payments", "REMOTE_REQUEST_FAILED")]
    assert "timed out" in errors[0].error_message
    assert "after" not in backend.requests


async def test_this_client_and_a_server_on_the_other_adk_release(tmp_path):
    python, version = need_other_adk()
    write_module(tmp_path, "payments_app", PAYMENTS)
    with serving(tmp_path, "payments_app:pipeline", python=python) as server:
        pipeline, backend = _client(server.card_url), _backend()
        events = await pipeline.run("first question", backend=backend, session_id="cross")

    assert not [e for e in events if e.is_error], (ADK_VERSION, version)
    reply = _reply(events)
    assert reply.startswith("REFUND[Refund for topic=cats secret=.]"), reply
    state = (await pipeline.session("cross", backend=backend)).state
    assert state["refund_id"] == reply and "done" not in state
    assert f"refund {reply}" in system_instruction(backend.requests["after"][0])


def test_a_client_on_the_other_adk_release_and_this_server(payments, tmp_path):
    outcome, version = run_client_on_other_adk(
        CLIENT, payments.card_url, tmp_path, REQUEST_SECONDS * 2
    )

    events = outcome["events"]
    assert [code for _, _, code in events] == [None] * len(events), (version, events)
    (reply,) = [text for author, text, _ in events if author == "payments" and text]
    assert reply.startswith("REFUND[Refund for topic=cats secret=.]"), reply
    assert outcome["state"]["refund_id"] == reply
    assert "done" not in outcome["state"]
    assert f"refund {reply}" in outcome["after_instruction"]


async def test_an_internal_agents_text_reaches_no_a2a_client_and_stays_on_the_server(tmp_path):
    write_module(tmp_path, "support_app", HIDDEN)
    db = tmp_path / "served.db"
    with serving(tmp_path, "support_app:pipeline", session_store=f"sqlite:///{db}") as server:
        raw = _raw_send(server.url, "plan and answer")
        pipeline = RemoteAgent("support", server.card_url)
        events = await pipeline.run("plan and answer", session_id="hidden")
        client = await pipeline.session("hidden")

    assert raw.status_code == 200
    assert b"Final answer." in raw.content  # the served reply did arrive ...
    assert b"SECRET-PLAN" not in raw.content  # ... and nothing of the internal agent's
    assert [e.content for e in events if e.content] == ["Final answer."]
    stored_on_client = "".join(e.model_dump_json() for e in client.events)
    assert "Final answer." in stored_on_client
    assert "SECRET-PLAN" not in stored_on_client

    # the server's store, opened after it stopped, holds the internal text
    meta = raw.json()["result"]["metadata"]
    store = fresh_db_service(f"sqlite:///{db}")
    served = await store.get_session(
        app_name=meta["adk_app_name"],
        user_id=meta["adk_user_id"],
        session_id=meta["adk_session_id"],
    )
    assert served is not None
    restored = [
        await restore_content(e, session_service=store, session=served) for e in served.events
    ]
    texts = [
        (e.author, p.text)
        for e in restored
        if e.author != "user" and e.content
        for p in e.content.parts or []
        if p.text
    ]
    assert texts == [("thinker", "SECRET-PLAN-ALPHA"), ("writer", "Final answer.")]


def _serve_command(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from adk_fluent.cli import main; sys.exit(main())"]
        + ["serve", *argv],
        capture_output=True,
        text=True,
        timeout=REQUEST_SECONDS,
        cwd=cwd,
    )


def test_the_serve_command_refuses_a_bad_target_in_one_line(tmp_path):
    skip_without_a2a()
    write_module(tmp_path, "not_a_pipeline", "pipeline = 42\n")
    for target, fragment in (
        ("no_such_module:pipeline", "no module named 'no_such_module'"),
        ("not_a_pipeline:pipeline", "is an int, not an adk-fluent pipeline"),
    ):
        done = _serve_command(tmp_path, target, "--port", str(free_port()))
        assert done.returncode == 2, done.stderr
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("adk-fluent serve: "), done.stderr
        assert fragment in lines[0], lines[0]


def test_the_serve_command_exits_1_when_the_port_is_taken(payments, tmp_path):
    write_module(tmp_path, "payments_app", PAYMENTS)
    done = _serve_command(tmp_path, "payments_app:pipeline", "--port", str(payments.port))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "address already in use" in done.stderr.lower()
