"""Scoped resources (`inject(x=per_invocation(...))`, `per_session(...)`) through the real Runner
on SQLite, on both ADK ends: one value per invocation shared by its tool calls and torn down when
the turn ends, also when it fails, is left early or times out, in adk-fluent's runtime and in a
plain Runner; one value per session, never shared between sessions, torn down by
close_session_stores(); the model is never told of the resource or of ADK's tool_context."""

from __future__ import annotations

import pytest
from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent import (
    Agent,
    ExecutionConfig,
    close_session_stores,
    per_invocation,
    per_session,
)
from adk_fluent.testing import call, mock_backend, streamed
from tests.support.gates import WAYS, turn

LOG: list[tuple[str, int]] = []


class Connection:
    opened = 0

    def __init__(self) -> None:
        Connection.opened += 1
        self.id = Connection.opened
        LOG.append(("open", self.id))

    async def aclose(self) -> None:
        LOG.append(("close", self.id))


def lookup(order: str, db) -> str:
    """Look an order up."""
    LOG.append(("use", db.id))
    return f"{order}: shipped"


def broken(order: str, db) -> str:
    """Fails after using the connection."""
    LOG.append(("use", db.id))
    raise RuntimeError("the warehouse is down")


def clerk(resource, *tools):
    agent = Agent("clerk").instruct("Help with orders.")
    for tool in tools or (lookup,):
        agent = agent.tool(tool)
    return agent.inject(db=resource)


@pytest.fixture(autouse=True)
def fresh_log():
    LOG.clear()


@pytest.mark.parametrize("way", WAYS)
async def test_one_value_per_turn_shared_by_its_calls_and_closed_when_it_ends(way, sqlite_url):
    backend = mock_backend(
        {
            "clerk": [
                call("lookup", order="A7"),
                call("lookup", order="B1"),
                "Both shipped.",
                call("lookup", order="C3"),
                "Shipped.",
            ]
        }
    )
    agent = clerk(per_invocation(Connection))
    await turn(agent, backend, "A7 and B1?", sqlite_url, way=way)
    first = list(LOG)
    await turn(agent, backend, "C3?", sqlite_url, way=way)
    second = LOG[len(first) :]
    opened = first[0][1]
    assert first == [("open", opened), ("use", opened), ("use", opened), ("close", opened)]
    assert second == [("open", opened + 1), ("use", opened + 1), ("close", opened + 1)]
    declared = backend.requests["clerk"][0].config.tools[0].function_declarations[0]
    shown = declared.model_dump_json()
    assert '"order"' in shown and '"db"' not in shown and "tool_context" not in shown


async def test_a_failed_turn_closes_what_it_opened(sqlite_url):
    backend = mock_backend({"clerk": [call("broken", order="A7")]})
    with pytest.raises(RuntimeError, match="warehouse"):
        await clerk(per_invocation(Connection), broken).run(
            "A7?", backend=backend, session_store=sqlite_url
        )
    assert [kind for kind, _ in LOG] == ["open", "use", "close"]


async def test_a_failed_plain_runner_run_closes_it_where_adk_reports_the_failure(sqlite_url):
    backend = mock_backend({"clerk": [call("broken", order="A7")]})
    with pytest.raises(RuntimeError, match="warehouse"):
        await turn(
            clerk(per_invocation(Connection), broken), backend, "A7?", sqlite_url, way="runner"
        )
    reported = hasattr(BasePlugin, "on_run_error_callback")  # ADK tells plugins of a failed run
    assert [kind for kind, _ in LOG] == (["open", "use", "close"] if reported else ["open", "use"])


async def test_a_turn_left_early_or_timed_out_closes_it(sqlite_url):
    slow = [call("lookup", order="A7"), streamed("Looking ", "further", gap=30.0)]
    agent = clerk(per_invocation(Connection))
    stream = agent.stream("A7?", backend=mock_backend({"clerk": slow}), streaming="sse")
    async for event in stream:
        if event.tool_responses:
            break  # the caller leaves while the model is still answering
    await stream.aclose()
    limited = ExecutionConfig(timeout_seconds=1.0)
    await agent.run("warm", backend=mock_backend({"clerk": "hi"}), config=limited)
    events = await agent.run("A7?", backend=mock_backend({"clerk": slow}), config=limited)
    assert events[-1].error_code == "TIMEOUT"
    kinds = [kind for kind, _ in LOG]
    assert kinds == ["open", "use", "close", "open", "use", "close"]


async def test_one_value_per_session_never_shared_and_closed_with_the_stores(sqlite_url):
    agent = clerk(per_session(Connection))
    script = [call("lookup", order="A7"), "ok"]
    backend = mock_backend({"clerk": script * 3})
    for session_id in ("s1", "s1", "s2"):
        await agent.run("A7?", backend=backend, session_id=session_id, session_store=sqlite_url)
    uses = [value for kind, value in LOG if kind == "use"]
    assert uses[0] == uses[1] != uses[2]  # s1 twice with one value; s2 its own
    assert [kind for kind, _ in LOG].count("close") == 0
    await close_session_stores()
    assert sorted(value for kind, value in LOG if kind == "close") == sorted({uses[0], uses[2]})
