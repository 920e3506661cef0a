"""Replicas of `adk api_server` over one PostgreSQL, for the replica test
(tests/integration/replicas/test_replicas.py) and its benchmark (bench/bench_replicas.py).

Each replica is a separate process serving the same agent folder with
`--session_service_uri <postgres url>`: nothing is shared between them but the database. The
folder `shop` holds an adk-fluent pipeline with a scripted model, state writes and a gate; the
folder `shop_raw` the same work written with plain ADK agents (for the benchmark's comparison).

The scripted models answer from their instruction, so a reply shows what state the replica
serving the turn read from the database:

    "hello s1"   -> drafter "draft for hello s1", sender "sent: draft for hello s1"
    "refund s1"  -> drafter "draft for refund s1", then the gate asks
    "approve"    -> sender "sent: draft for refund s1" (the draft another replica wrote)
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.servers import ServerProcess, free_port, wait_all

ADK_CLI = Path(sys.executable).parent / "adk"
STARTUP_SECONDS = 90  # importing ADK in a fresh process is slow on a shared 2-core machine
REQUEST_SECONDS = 60
FLUENT_APP = "shop"
RAW_APP = "shop_raw"
GATE_QUESTION = (
    "Send this refund? Reply 'approve' or 'yes' to continue or 'reject' or 'no' to stop."
)

_MODELS = """
def _instruction(request):
    value = request.config.system_instruction if request.config else None
    return value if isinstance(value, str) else str(value or "")


def _between(text):
    return text.split("<<", 1)[1].split(">>", 1)[0]


def drafter(request):
    return "draft for " + _between(_instruction(request))


def sender(request):
    return "sent: " + _between(_instruction(request))
"""

FLUENT_AGENT_PY = (
    """
from adk_fluent import Agent, S, gate
from adk_fluent.testing import mock_backend, repeat
"""
    + _MODELS
    + """

backend = mock_backend({"drafter": repeat(drafter), "sender": repeat(sender)})
pipeline = (
    S.capture("question")
    >> S.compute(
        turns=lambda s: (s.get("turns") or 0) + 1,
        **{"user:turns": lambda s: (s.get("user:turns") or 0) + 1},
    )
    >> Agent("drafter").instruct("Draft a reply to <<{question}>>").outputs("draft")
    >> gate(lambda s: "refund" in s["question"], "Send this refund?")
    >> Agent("sender").instruct("Send <<{draft}>>").outputs("sent")
)
app = pipeline.to_app(backend=backend)
"""
)

# The same work with plain ADK: one custom agent that orders the steps and keeps the gate's
# status in state itself (a SequentialAgent cannot resume in its middle), two LlmAgents.
RAW_AGENT_PY = (
    """
from typing import AsyncGenerator

from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event, EventActions
from google.genai import types

from adk_fluent.testing import ScriptedModel, repeat
"""
    + _MODELS
    + """

QUESTION = "Send this refund? Reply 'approve' or 'yes' to continue or 'reject' or 'no' to stop."


def _said(ctx):
    parts = ctx.user_content.parts if ctx.user_content else []
    return "".join(p.text or "" for p in parts or [])


class Shop(BaseAgent):
    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        drafter, sender = self.sub_agents
        state = ctx.session.state
        if state.get("gate") == "pending":
            if _said(ctx).strip().rstrip(".!").lower() in ("approve", "yes"):
                yield Event(author=self.name, invocation_id=ctx.invocation_id,
                            actions=EventActions(state_delta={"gate": "approved"}))
                async for event in sender.run_async(ctx):
                    yield event
            else:
                yield Event(author=self.name, invocation_id=ctx.invocation_id,
                            content=types.Content(role="model", parts=[types.Part(text=QUESTION)]))
            return
        question = _said(ctx)
        delta = {
            "question": question,
            "turns": (state.get("turns") or 0) + 1,
            "user:turns": (state.get("user:turns") or 0) + 1,
        }
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    actions=EventActions(state_delta=delta))
        async for event in drafter.run_async(ctx):
            yield event
        if "refund" in question:
            yield Event(author=self.name, invocation_id=ctx.invocation_id,
                        content=types.Content(role="model", parts=[types.Part(text=QUESTION)]),
                        actions=EventActions(state_delta={"gate": "pending"}))
            return
        async for event in sender.run_async(ctx):
            yield event


root_agent = Shop(
    name="shop",
    sub_agents=[
        LlmAgent(name="drafter", model=ScriptedModel([repeat(drafter)]),
                 instruction="Draft a reply to <<{question}>>", output_key="draft"),
        LlmAgent(name="sender", model=ScriptedModel([repeat(sender)]),
                 instruction="Send <<{draft}>>", output_key="sent"),
    ],
)
"""
)


def write_agents(root: Path, *, raw: bool = False) -> Path:
    """`<root>/agents/shop/` (and `shop_raw/` with `raw=True`); returns the agents directory."""
    agents = root / "agents"
    folders = {FLUENT_APP: FLUENT_AGENT_PY, **({RAW_APP: RAW_AGENT_PY} if raw else {})}
    for folder, source in folders.items():
        package = agents / folder
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text("from . import agent\n")
        (package / "agent.py").write_text(textwrap.dedent(source))
    return agents


class Replica(ServerProcess):
    """One `adk api_server` process over the session database, stopped by its PID."""

    def __init__(self, agents: Path, session_url: str, log: Path) -> None:
        port = free_port()
        command = [str(ADK_CLI), "api_server", "--host", "127.0.0.1", "--port", str(port)]
        command += ["--session_service_uri", session_url, "--log_level", "warning", str(agents)]
        super().__init__(command, port=port, ready_path="/list-apps", log=log, cwd=agents.parent)


def start_replicas(count: int, agents: Path, session_url: str, logs: Path) -> list[Replica]:
    """`count` replicas started together and waited for (bounded); all stopped on failure."""
    logs.mkdir(parents=True, exist_ok=True)
    replicas: list[Replica] = []
    try:
        for index in range(count):
            replicas.append(Replica(agents, session_url, logs / f"replica{index}.log"))
        wait_all(replicas, STARTUP_SECONDS)
    except BaseException:
        stop_all(replicas)
        raise
    return replicas


def stop_all(replicas: Iterable[Replica]) -> None:
    """Stop every replica, each by its own PID."""
    for replica in replicas:
        replica.stop()


# -- conversations -------------------------------------------------------------------------------
@dataclass
class Plan:
    """One session's conversation: its messages, the replica (by index) each is sent to, and the
    final text the client must receive for each."""

    user: str
    session: str
    messages: list[str]
    replicas: list[int]
    finals: list[str]
    received: list[list[dict[str, Any]]] = field(default_factory=list)


def plan(index: int, replica_count: int, *, prefix: str = "s") -> Plan:
    """Session `index`: three turns, each on the next replica (round robin from `index`), one
    of them a refund whose gate asks on one replica and is approved on the next.

    Even sessions: hello, refund (gate asks), approve. Odd: refund (asks), yes, hello."""
    sid = f"{prefix}{index}"
    hello, refund = f"hello {sid}", f"refund {sid}"
    if index % 2 == 0:
        messages = [hello, refund, "approve"]
        finals = [f"sent: draft for {hello}", GATE_QUESTION, f"sent: draft for {refund}"]
    else:
        messages = [refund, "yes", hello]
        finals = [GATE_QUESTION, f"sent: draft for {refund}", f"sent: draft for {hello}"]
    replicas = [(index + turn) % replica_count for turn in range(len(messages))]
    return Plan(f"user-{sid}", sid, messages, replicas, finals)


def stored_texts(plan: Plan, gate_author: str = "approval_gate") -> list[tuple[str, str]]:
    """What the store must hold for a completed plan: (author, text) in order (the raw app's
    gate question is its root agent's, `shop`)."""
    out: list[tuple[str, str]] = []
    for message in plan.messages:
        out.append(("user", message))
        if message.startswith("hello"):
            out += [("drafter", f"draft for {message}"), ("sender", f"sent: draft for {message}")]
        elif message.startswith("refund"):
            out += [("drafter", f"draft for {message}"), (gate_author, GATE_QUESTION)]
        else:
            refund = next(m for m in plan.messages if m.startswith("refund"))
            out.append(("sender", f"sent: draft for {refund}"))
    return out


def final_text(events: list[dict[str, Any]]) -> str:
    """The last text the client received in one /run response."""
    texts = [
        part["text"]
        for event in events
        for part in ((event.get("content") or {}).get("parts") or [])
        if part.get("text")
    ]
    return texts[-1] if texts else ""


# uvicorn closes a connection idle for 5 s; a client reusing it at that moment gets a ReadError
# on a POST (which it does not retry). Idle connections are dropped by the client first.
KEEPALIVE_SECONDS = 2.0


def http_client(max_connections: int) -> Any:
    """The async HTTP client for the replicas: bounded timeouts, no stale keep-alive reuse."""
    import httpx

    limits = httpx.Limits(
        max_connections=max_connections,
        max_keepalive_connections=max_connections,
        keepalive_expiry=KEEPALIVE_SECONDS,
    )
    return httpx.AsyncClient(timeout=REQUEST_SECONDS, limits=limits)


async def create_session(client: Any, base: str, app: str, user: str, sid: str) -> None:
    """POST the session to one replica."""
    response = await client.post(f"{base}/apps/{app}/users/{user}/sessions/{sid}", json={})
    if response.status_code != 200:
        raise AssertionError(f"create {sid} on {base}: {response.status_code} {response.text}")


async def send(client: Any, base: str, app: str, user: str, sid: str, text: str) -> list[Any]:
    """One /run turn on one replica; the events it returned."""
    body = {
        "app_name": app,
        "user_id": user,
        "session_id": sid,
        "new_message": {"role": "user", "parts": [{"text": text}]},
    }
    response = await client.post(f"{base}/run", json=body)
    if response.status_code != 200:
        raise AssertionError(f"{sid} {text!r} on {base}: {response.status_code} {response.text}")
    return list(response.json())


async def converse(client: Any, replicas: list[Replica], app: str, session: Plan) -> None:
    """Create the session on its first replica, then each turn on its replica, in order."""
    first = replicas[session.replicas[0]].base
    await create_session(client, first, app, session.user, session.session)
    for message, index in zip(session.messages, session.replicas, strict=True):
        events = await send(
            client, replicas[index].base, app, session.user, session.session, message
        )
        session.received.append(events)


async def converse_all(
    client: Any, replicas: list[Replica], app: str, sessions: list[Plan], *, in_flight: int
) -> None:
    """Every session's conversation, at most `in_flight` sessions at a time."""
    gate = asyncio.Semaphore(in_flight)

    async def one(session: Plan) -> None:
        async with gate:
            await converse(client, replicas, app, session)

    await asyncio.gather(*[one(session) for session in sessions])


def replay(events: list[Any]) -> dict[str, Any]:
    """A session's state rebuilt from its events' state deltas, in order (temp: is never stored)."""
    state: dict[str, Any] = {}
    for event in events:
        for key, value in (event.actions.state_delta or {}).items():
            if not key.startswith("temp:"):
                state[key] = value
    return state
