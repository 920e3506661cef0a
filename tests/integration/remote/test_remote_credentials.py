"""A RemoteAgent calling a peer behind authentication, and calling again when the peer fails for
a moment: the served pipeline runs under uvicorn in a subprocess, wrapped in a middleware that
answers 401 without the right bearer token (and, when asked, 503 to the first JSON-RPC calls).

What is proved: without a token (or with a wrong one) the turn ends with one REMOTE_UNAUTHORIZED
error event and no traceback; with the token (as `bearer_token=`, as a header, or through an
httpx client factory) the call succeeds; the token is in no log line, no event and no stored
event; `retry=` calls again after 503 and after an unreachable peer, waiting as the policy says,
and never after a refusal.
"""

from __future__ import annotations

import logging
import traceback

import pytest

from adk_fluent import Agent, RemoteAgent, S
from adk_fluent.testing import mock_backend, repeat
from tests.conftest import fresh_db_service
from tests.support.a2a import serving_app, skip_without_a2a, write_module
from tests.support.servers import free_port

httpx = pytest.importorskip("httpx", reason="httpx (a2a-sdk's HTTP client) is not installed")

TOKEN = "tok-5ecret-7f3a9c"  # a value that can only appear where the token leaked

GUARDED = """
import json
import os

from adk_fluent import Agent
from adk_fluent.remote import a2a_app
from adk_fluent.testing import ScriptedModel, repeat

TOKEN = os.environ["TOKEN"]
FLAKY = int(os.environ.get("FLAKY", "0"))  # the first FLAKY JSON-RPC calls answer 503
pipeline = (
    Agent("payments").instruct("Refund {order_id}.").model(ScriptedModel([repeat("R-42")]))
    .outputs("refund_id")
)
served = a2a_app(pipeline, port=int(os.environ["PORT"]))
calls = {"rpc": 0}


async def answer(send, status, body):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def app(scope, receive, send):
    if scope["type"] != "http":  # lifespan: the served app sets its routes up there
        return await served(scope, receive, send)
    if scope["path"] == "/healthz":
        return await answer(send, 200, {"ok": True})
    if scope["path"] == "/calls":
        return await answer(send, 200, calls)
    if dict(scope["headers"]).get(b"authorization") != f"Bearer {TOKEN}".encode():
        return await answer(send, 401, {"error": "unauthorized"})
    if scope["method"] == "POST":
        calls["rpc"] += 1
        if calls["rpc"] <= FLAKY:
            return await answer(send, 503, {"error": "busy"})
    return await served(scope, receive, send)
"""


def _guarded(folder, **env: str):
    write_module(folder, "guarded_app", GUARDED)
    return serving_app(
        folder, "guarded_app:app", ready_path="/healthz", env={"TOKEN": TOKEN, **env}
    )


def _pipeline(card: str, **options):
    return (
        S.set(order_id="A-1")
        >> RemoteAgent("payments", card, sends=["order_id"], receives=["refund_id"], **options)
        >> Agent("after").instruct("Tell the user about refund {refund_id}.")
    )


def _backend():
    return mock_backend({"after": repeat("Told the user.")})


def _errors(events):
    return [(e.author, e.error_code) for e in events if e.is_error]


def _log_text(caplog) -> str:
    lines = []
    for record in caplog.records:
        lines.append(record.getMessage())
        if record.exc_info:
            lines.append("".join(traceback.format_exception(*record.exc_info)))
    return "\n".join(lines)


class Sleeps:
    """A retry policy's sleep that waits for nothing and records how long it was asked to."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)


def _retry(sleeps: Sleeps, attempts: int = 3):
    from adk_fluent.middleware import retry

    return retry(max_attempts=attempts, backoff=0.2, jitter=0, sleep=sleeps)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    with _guarded(tmp_path_factory.mktemp("guarded")) as server:
        yield server


@pytest.mark.parametrize("token", [None, "tok-wrong-1b2c3d"], ids=["no-token", "wrong-token"])
async def test_without_the_token_the_turn_ends_with_remote_unauthorized(guarded, caplog, token):
    caplog.set_level(logging.DEBUG)
    options = {} if token is None else {"bearer_token": token}
    pipeline, backend = _pipeline(guarded.card_url, **options), _backend()
    events = await pipeline.run("Refund my order.", backend=backend, session_id="denied")

    assert _errors(events) == [("payments", "REMOTE_UNAUTHORIZED")]
    assert events[-1].is_error and "after" not in backend.requests
    message = events[-1].error_message
    assert "HTTP 401" in message and "bearer_token" in message, message
    logged = _log_text(caplog)
    assert "Traceback" not in logged
    assert not [r for r in caplog.records if r.exc_info], logged
    if token is not None:
        assert token not in logged and token not in message


@pytest.mark.parametrize(
    "how",
    ["bearer_token", "headers", "httpx_client_factory"],
)
async def test_with_the_token_the_call_succeeds_and_the_token_is_nowhere(
    guarded, caplog, tmp_path, how
):
    caplog.set_level(logging.DEBUG)
    options = {
        "bearer_token": {"bearer_token": TOKEN},
        "headers": {"headers": {"Authorization": f"Bearer {TOKEN}"}},
        "httpx_client_factory": {
            "httpx_client_factory": lambda: httpx.AsyncClient(
                headers={"Authorization": f"Bearer {TOKEN}"}
            )
        },
    }[how]
    pipeline, backend = _pipeline(guarded.card_url, **options), _backend()
    url = f"sqlite:///{tmp_path / 'client.db'}"
    events = await pipeline.run(
        "Refund my order.", backend=backend, session_id="allowed", session_store=url
    )

    assert _errors(events) == []
    assert [e.content for e in events if e.content] == ["R-42", "Told the user."]
    stored = await pipeline.session("allowed", backend=backend, session_store=fresh_db_service(url))
    assert stored.state["refund_id"] == "R-42"
    assert TOKEN not in "".join(e.model_dump_json() for e in stored.events)
    assert TOKEN not in "".join(repr(e) for e in events)
    assert TOKEN not in _log_text(caplog)
    assert TOKEN not in repr(pipeline.to_ir()) and TOKEN not in pipeline.to_mermaid()


async def test_retry_calls_again_after_503_waiting_as_the_policy_says(tmp_path):
    with _guarded(tmp_path, FLAKY="2") as server:
        once, backend = _pipeline(server.card_url, bearer_token=TOKEN), _backend()
        failed = await once.run("Refund my order.", backend=backend, session_id="once")
        sleeps = Sleeps()
        again = _pipeline(server.card_url, bearer_token=TOKEN, retry=_retry(sleeps))
        events = await again.run("Refund my order.", backend=_backend(), session_id="again")
        calls = httpx.get(server.base + "/calls", timeout=30).json()

    # without a policy: one call, and the 503 ends the turn
    assert _errors(failed) == [("payments", "REMOTE_UNREACHABLE")]
    assert "503" in failed[-1].error_message and "after 2" not in failed[-1].error_message
    # with one: the second call fails too, the third answers
    assert _errors(events) == []
    assert [e.content for e in events if e.content] == ["R-42", "Told the user."]
    assert sleeps.asked == [0.2]
    assert calls == {"rpc": 3}


async def test_a_refusal_is_not_called_again(guarded):
    sleeps = Sleeps()
    pipeline = _pipeline(guarded.card_url, retry=_retry(sleeps))
    events = await pipeline.run("Refund my order.", backend=_backend(), session_id="refused")
    assert _errors(events) == [("payments", "REMOTE_UNAUTHORIZED")]
    assert sleeps.asked == []


async def test_an_unreachable_peer_is_called_max_attempts_times_with_backoff():
    skip_without_a2a()
    sleeps = Sleeps()
    card = f"http://127.0.0.1:{free_port()}/.well-known/agent-card.json"
    pipeline = _pipeline(card, retry=_retry(sleeps, attempts=3))
    events = await pipeline.run("Refund my order.", backend=_backend(), session_id="down")

    assert _errors(events) == [("payments", "REMOTE_UNREACHABLE")]
    assert "(after 3 attempts)" in events[-1].error_message
    assert sleeps.asked == [0.2, 0.4]
