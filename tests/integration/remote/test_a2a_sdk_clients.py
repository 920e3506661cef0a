"""A served pipeline as any A2A client sees it: a2a-sdk's own client classes (send, stream,
get_task, cancel) and raw JSON-RPC over HTTP, against `a2a_app` under uvicorn in a subprocess.

What is proved, on this ADK release, and across releases (a server on the other release with a
client here, a client on the other release with a server here):

* the card publishes what the server does: `streaming` true, the skills amended with tags and
  examples, the provider;
* `message/send` returns the completed task with the answer as its artifact; `tasks/get` finds
  it; `message/stream` sends the answer's partial chunks as working status updates, then the
  answer as the artifact, then `completed`; `tasks/cancel` stops a running task (`canceled`);
* a filtered internal agent's text and the state keys no caller asked for are in no response;
* a malformed request gets a JSON-RPC error, and the server goes on answering;
* 20 clients at once each get their own answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.support.a2a import (
    ADK_VERSION,
    message_params,
    need_other_adk,
    serving_app,
    write_module,
)

httpx = pytest.importorskip("httpx", reason="httpx (a2a-sdk's HTTP client) is not installed")

REQUEST_SECONDS = 60
SECRETS = (b"SECRET-PLAN", b"hidden_plan", b"undeclared_note", b"NOTE-UNDECLARED")

# The served pipeline: a filtered thinker (internal) writes `hidden_plan`, a step writes
# `undeclared_note`, and the writer answers with the markers of the user's message (slowly for
# a SLOW marker, so that a task can be cancelled while it runs). Card options amend the card.
SUPPORT = """
import asyncio
import os
import re
import warnings

from adk_fluent import AdkFluentWarning, Agent, S
from adk_fluent.remote import a2a_app
from adk_fluent.testing import ScriptedModel, repeat


def markers(request):
    texts = [
        part.text
        for content in request.contents or []
        if content.role == "user"
        for part in content.parts or []
        if part.text
    ]
    return re.findall(r"MSG-[A-Za-z0-9-]+", " ".join(texts))


async def answer(request):
    found = markers(request)
    if any("SLOW" in marker for marker in found):
        await asyncio.sleep(120)
    return f"Answer for {found[-1] if found else 'nothing'} is ready"


with warnings.catch_warnings():  # the thinker's text is meant to live in history only
    warnings.simplefilter("ignore", AdkFluentWarning)
    pipeline = (
        Agent("thinker")
        .instruct("Plan.")
        .model(ScriptedModel([repeat("SECRET-PLAN-ALPHA thinking hard")]))
        .outputs("hidden_plan")
        >> S.set(undeclared_note="NOTE-UNDECLARED-42")
        >> Agent("writer").instruct("Answer.").model(ScriptedModel([repeat(answer)])).outputs("answer")
    ).named("support").filtered()

app = a2a_app(
    pipeline,
    port=int(os.environ["PORT"]),
    session_store=os.environ.get("STORE") or None,
    description="Answers support questions.",
    skills=[{"id": "writer", "tags": ["answers"], "examples": ["What about MSG-1?"]}],
    provider={"organization": "Support team", "url": "https://support.example"},
)
"""

# a2a-sdk's own client, as another team would write it; run by this interpreter or the other
# release's. Its last stdout line is what it saw, as JSON.
SDK_CLIENT = """
import asyncio
import json
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    Message,
    Part,
    Role,
    TaskIdParams,
    TaskQueryParams,
    TaskStatusUpdateEvent,
    TextPart,
)

BASE = sys.argv[1]


def message(text):
    return Message(role=Role.user, parts=[Part(root=TextPart(text=text))], message_id=uuid.uuid4().hex)


def texts(parts):
    return [part.root.text for part in parts or [] if getattr(part.root, "text", None)]


def outcome(task):
    return {
        "id": task.id,
        "state": task.status.state.value,
        "artifacts": [texts(artifact.parts) for artifact in task.artifacts or []],
    }


async def main():
    seen = {}
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, BASE).get_agent_card()
        seen["card"] = card.model_dump(mode="json", by_alias=True, exclude_none=True)
        sender = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        streamer = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)

        replies = [reply async for reply in sender.send_message(message("About MSG-send?"))]
        task = replies[-1][0]
        seen["send"] = outcome(task)
        seen["get"] = outcome(await sender.get_task(TaskQueryParams(id=task.id)))

        updates = []
        async for task, update in streamer.send_message(message("About MSG-stream?")):
            if update is None:
                updates.append(["task", task.status.state.value])
            elif isinstance(update, TaskStatusUpdateEvent):
                said = texts(update.status.message.parts) if update.status.message else []
                updates.append(["status", update.status.state.value, said])
            else:
                updates.append(["artifact", texts(update.artifact.parts)])
        seen["stream"] = updates
        seen["stream_task"] = outcome(task)

        # cancel a task while it runs: stream it, cancel once it works
        running = streamer.send_message(message("About MSG-SLOW?"))
        async for task, update in running:
            if task.status.state.value == "working":
                break
        cancelled = await sender.cancel_task(TaskIdParams(id=task.id))
        await running.aclose()
        seen["cancel"] = cancelled.status.state.value
        seen["after_cancel"] = outcome(await sender.get_task(TaskQueryParams(id=task.id)))

        async def one(index):
            got = [reply async for reply in sender.send_message(message(f"About MSG-c{index}?"))]
            return outcome(got[-1][0])["artifacts"]

        seen["concurrent"] = await asyncio.gather(*(one(index) for index in range(20)))
    print(json.dumps(seen))


asyncio.run(main())
"""


def _sdk_client(python, base: str, folder) -> dict:
    """What a2a-sdk's client saw at `base`, run by the interpreter `python`."""
    script = folder / "sdk_client.py"
    script.write_text(textwrap.dedent(SDK_CLIENT), encoding="utf-8")
    done = subprocess.run(
        [str(python), str(script), base],
        capture_output=True,
        text=True,
        timeout=REQUEST_SECONDS * 4,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _assert_a2a_clients_see_it_all(seen: dict, where: str) -> None:
    card = seen["card"]
    assert card["capabilities"]["streaming"] is True, where
    writer = next(skill for skill in card["skills"] if skill["id"] == "writer")
    assert (writer["tags"], writer["examples"]) == (["answers"], ["What about MSG-1?"]), where
    assert card["provider"] == {"organization": "Support team", "url": "https://support.example"}

    answer = ["Answer for MSG-send is ready"]
    assert seen["send"]["state"] == "completed" and seen["send"]["artifacts"] == [answer], where
    assert seen["get"] == seen["send"], where

    stream = seen["stream"]
    said = [update[2] for update in stream if update[:2] == ["status", "working"] and update[2]]
    # the writer's words, one partial chunk each, then its whole reply; never the thinker's
    assert said[:5] == [["Answer "], ["for "], ["MSG-stream "], ["is "], ["ready"]], (where, stream)
    assert ["Answer for MSG-stream is ready"] in said, (where, stream)
    assert ["artifact", ["Answer for MSG-stream is ready"]] in stream, (where, stream)
    assert stream[-1][:2] == ["status", "completed"], (where, stream)
    assert seen["stream_task"]["state"] == "completed", where
    assert "SECRET" not in json.dumps(stream), where

    assert seen["cancel"] == "canceled", where
    assert seen["after_cancel"]["state"] == "canceled", where

    assert seen["concurrent"] == [[[f"Answer for MSG-c{i} is ready"]] for i in range(20)], where


@pytest.fixture(scope="module")
def support(tmp_path_factory):
    """The support pipeline served by this environment's ADK."""
    folder = tmp_path_factory.mktemp("support")
    write_module(folder, "support_app", SUPPORT)
    with serving_app(folder, "support_app:app") as server:
        yield server


def test_a2a_sdks_client_sends_streams_gets_and_cancels(support, tmp_path):
    seen = _sdk_client(sys.executable, support.url, tmp_path)
    _assert_a2a_clients_see_it_all(seen, f"client and server on {ADK_VERSION}")


def test_a2a_sdks_client_on_the_other_release_and_this_server(support, tmp_path):
    python, version = need_other_adk()
    seen = _sdk_client(python, support.url, tmp_path)
    _assert_a2a_clients_see_it_all(seen, f"client on {version}, server on {ADK_VERSION}")


def test_a2a_sdks_client_here_and_a_server_on_the_other_release(tmp_path):
    python, version = need_other_adk()
    write_module(tmp_path, "support_app", SUPPORT)
    with serving_app(tmp_path, "support_app:app", python=python) as server:
        seen = _sdk_client(sys.executable, server.url, tmp_path)
    _assert_a2a_clients_see_it_all(seen, f"client on {ADK_VERSION}, server on {version}")


def _rpc(method: str, params: dict, request_id: str = "1") -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


# ADK 2.x runs a request with this extension through its newer executor, which sends an event
# of state changes alone (an internal agent's, with its hidden text in metadata) as a status update.
_ADK_INTEGRATION = "https://google.github.io/adk-docs/a2a/a2a-extension/"


@pytest.mark.parametrize("extension", [None, _ADK_INTEGRATION], ids=["plain", "adk-extension"])
@pytest.mark.parametrize("method", ["message/send", "message/stream"])
def test_raw_responses_hold_no_internal_text_and_no_key_nobody_asked_for(
    support, method, extension
):
    headers = {"X-A2A-Extensions": extension} if extension else {}
    asked = {"adk_fluent": {"state": {}, "receives": ["answer"]}}
    for metadata in (None, asked):  # a plain A2A client, and one asking for `answer`
        body = _rpc(method, message_params("About MSG-raw?", metadata))
        reply = httpx.post(support.url, json=body, headers=headers, timeout=REQUEST_SECONDS)
        assert reply.status_code == 200
        assert b"Answer for MSG-raw is ready" in reply.content
        found = [secret for secret in SECRETS if secret in reply.content]
        assert not found, (method, extension, metadata, found, reply.text[:3000])
        # the key asked for comes back (as JSON text inside the metadata's JSON text)
        unescaped = reply.content.replace(b"\\", b"")
        assert (b'"answer"' in unescaped) == (metadata is not None), reply.text[:3000]


def test_a_server_on_the_other_release_sends_nothing_undeclared_either(tmp_path):
    python, _ = need_other_adk()
    write_module(tmp_path, "support_app", SUPPORT)
    with serving_app(tmp_path, "support_app:app", python=python) as server:
        asked = {"adk_fluent": {"state": {}, "receives": ["answer"]}}
        for method in ("message/send", "message/stream"):
            body = _rpc(method, message_params("About MSG-raw?", asked))
            reply = httpx.post(server.url, json=body, timeout=REQUEST_SECONDS)
            assert b"Answer for MSG-raw is ready" in reply.content
            assert not [secret for secret in SECRETS if secret in reply.content], reply.text[:3000]


@pytest.mark.parametrize(
    "body, code",
    [
        (b"{not json", -32700),  # parse error
        (json.dumps({"jsonrpc": "2.0", "id": "1"}).encode(), -32600),  # no method
        (json.dumps(["not", "an", "object"]).encode(), -32600),
        (json.dumps(_rpc("tasks/explode", {})).encode(), -32601),  # no such method
        (json.dumps(_rpc("message/send", {"message": "hello"})).encode(), -32602),
        (json.dumps(_rpc("message/send", {})).encode(), -32602),
        (json.dumps(_rpc("tasks/get", {"id": "no-such-task"})).encode(), -32001),
        (json.dumps(_rpc("tasks/cancel", {"id": "no-such-task"})).encode(), -32001),
    ],
    ids=[
        "not-json",
        "no-method",
        "a-list",
        "unknown-method",
        "message-a-str",
        "no-message",
        "unknown-task",
        "cancel-unknown-task",
    ],
)
def test_a_malformed_request_gets_a_json_rpc_error_and_the_server_goes_on(support, body, code):
    reply = httpx.post(
        support.url,
        content=body,
        headers={"Content-Type": "application/json"},
        timeout=REQUEST_SECONDS,
    )
    error = reply.json().get("error")
    assert error is not None and error["code"] == code, reply.text
    after = httpx.post(
        support.url, json=_rpc("message/send", message_params("MSG-after")), timeout=60
    )
    assert b"Answer for MSG-after is ready" in after.content
