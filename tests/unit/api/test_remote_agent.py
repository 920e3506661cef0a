"""The RemoteAgent builder (pure: IR, composition, diagram, checker, the compiled agent; no call
is made): an A2A peer is a step like any other, its declared keys are its reads and writes, and
the builder is an immutable value."""

from __future__ import annotations

import json

import pytest

from adk_fluent import Agent, RemoteAgent, Route, S, check_contracts
from adk_fluent.errors import DuplicateNameError
from adk_fluent.ir.nodes import (
    FallbackNode,
    LoopAgentNode,
    ParallelAgentNode,
    RemoteAgentNode,
    RouteNode,
    SequentialAgentNode,
)

pytest.importorskip("a2a", reason="a2a-sdk (the a2a extra) is not installed")

CARD = "http://peer:8001/.well-known/agent-card.json"


def payments(**options):
    return RemoteAgent("payments", CARD, sends=["topic"], receives=["refund_id"], **options)


def test_the_ir_node_holds_the_card_the_keys_and_the_options():
    node = payments(timeout=30, description="Refunds orders.").to_ir()
    assert isinstance(node, RemoteAgentNode)
    assert (node.name, node.card, node.card_json) == ("payments", CARD, None)
    assert (node.timeout, node.description) == (30.0, "Refunds orders.")
    assert node.reads_keys == {"topic"} and node.writes_keys == {"refund_id"}


def test_defaults_send_and_receive_nothing_with_adks_timeout():
    remote = RemoteAgent("payments", CARD)
    assert (remote.sends, remote.receives) == ((), ())
    node = remote.to_ir()
    assert node.reads_keys == frozenset() and node.writes_keys == frozenset()
    assert node.timeout == 600.0


def test_keys_keep_their_order_once_each():
    remote = RemoteAgent("payments", CARD, sends=("b", "a", "b"), receives=iter(["x", "x"]))
    assert (remote.sends, remote.receives) == (("b", "a"), ("x",))


def test_a_card_given_as_an_object_is_kept_as_json_in_a_hashable_node():
    from a2a.types import AgentCard

    card = AgentCard.model_validate(
        {
            "name": "payments",
            "url": "http://peer:8001/",
            "description": "Refunds.",
            "version": "1",
            "capabilities": {},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [],
        }
    )
    node = RemoteAgent("payments", card).to_ir()
    assert node.card == "http://peer:8001/"
    assert json.loads(node.card_json)["name"] == "payments"
    assert node.description == "Refunds."  # from the card, when none is given
    hash(node)


@pytest.mark.parametrize(
    "expression, kind",
    [
        (lambda r: Agent("a").outputs("topic") >> r >> Agent("b"), SequentialAgentNode),
        (lambda r: r | Agent("other"), ParallelAgentNode),
        (lambda r: r // Agent("fallback"), FallbackNode),
        (lambda r: r * 3, LoopAgentNode),
        (
            lambda r: Route("intent").eq("refund", r).otherwise(Agent("chat")),
            RouteNode,
        ),
    ],
    ids=[">>", "|", "//", "*", "Route"],
)
def test_it_composes_with_every_operator(expression, kind):
    tree = expression(payments()).to_ir()
    assert isinstance(tree, kind)
    remote = [n for n in tree.walk() if isinstance(n, RemoteAgentNode)]
    assert [n.name for n in remote] == ["payments"]


def test_it_builds_to_adk_fluents_remote_a2a_agent_in_place():
    from google.adk.agents import SequentialAgent

    from adk_fluent.adk.compat import remote_a2a_agent_class
    from adk_fluent.adk.custom_agents.remote import FluentRemoteAgent

    native = (Agent("a").outputs("topic") >> payments() >> Agent("b")).build()
    assert isinstance(native, SequentialAgent)
    remote = native.sub_agents[1]
    assert isinstance(remote, FluentRemoteAgent)
    assert isinstance(remote, remote_a2a_agent_class())  # ADK's own RemoteA2aAgent
    assert remote.name == "payments"


def test_the_diagram_shows_the_peer_and_what_crosses():
    diagram = (
        Agent("a").outputs("topic") >> payments() >> Agent("b").instruct("Refund {refund_id}.")
    ).to_mermaid()
    assert "payments (A2A: http://peer:8001)<br/>sends: topic<br/>receives: refund_id" in diagram
    assert "-. topic .->" in diagram and "-. refund_id .->" in diagram


def test_the_checker_reports_a_sent_key_nothing_writes():
    report = check_contracts(Agent("a").instruct("Hello.") >> payments())
    [issue] = [i for i in report if i.code == "read-before-write"]
    assert (issue.severity, issue.node, issue.key) == ("error", "payments", "topic")
    assert "RemoteAgent(sends=...)" in issue.subject


def test_a_received_key_satisfies_a_later_reader_and_a_written_key_a_send():
    pipeline = (
        S.set(topic="cats")
        >> payments()
        >> Agent("responder").instruct("Tell the user about refund {refund_id}.")
    )
    assert check_contracts(pipeline).errors == []


def test_builders_are_values_operators_and_renames_change_nothing():
    remote = payments()
    before = remote.to_ir()
    first = Agent("a").outputs("topic") >> remote
    second = remote >> Agent("b")
    renamed = remote.named("refunds")
    assert remote.to_ir() == before
    assert (remote.name, renamed.name) == ("payments", "refunds")
    assert renamed.sends == remote.sends and renamed.receives == remote.receives
    # one builder may appear in several pipelines
    assert [n.name for n in first.to_ir().children] == ["a", "payments"]
    assert [n.name for n in second.to_ir().children] == ["payments", "b"]


def test_the_same_peer_twice_in_one_tree_needs_a_second_name():
    remote = payments()
    with pytest.raises(DuplicateNameError, match="payments"):
        (remote >> remote).build()
    native = (remote >> remote.named("again")).build()
    assert [agent.name for agent in native.sub_agents] == ["payments", "again"]


SECRET = "tok-unit-9c1e"


def test_credentials_and_retry_ride_in_the_ir_with_their_values_hidden():
    from adk_fluent.ir.a2a_card import RemoteConnection
    from adk_fluent.middleware import retry

    policy = retry(max_attempts=4)
    remote = payments(bearer_token=SECRET, headers={"X-Team": "support"}, retry=policy)
    node = remote.to_ir()
    assert isinstance(node.connection, RemoteConnection)
    assert dict(node.connection.headers) == {
        "X-Team": "support",
        "Authorization": f"Bearer {SECRET}",
    }
    assert node.connection.retry is policy
    hash(node)
    pipeline = S.set(topic="cats") >> remote
    for shown in (repr(node), repr(pipeline.to_ir()), pipeline.to_mermaid(), str(node.connection)):
        assert SECRET not in shown and "support" not in shown
    assert "'Authorization'" in repr(node.connection) and "max_attempts 4" in repr(node.connection)


def test_without_credentials_or_retry_the_node_is_what_it_was():
    assert "connection" not in payments().to_ir().set_fields()
    assert payments().to_ir().connection is None


def test_a_bad_header_name_or_factory_is_refused_without_echoing_a_secret():
    from adk_fluent.errors import BuildError

    with pytest.raises(BuildError) as raised:
        payments(headers={f"Authorization: Bearer {SECRET}": ""})
    assert SECRET not in str(raised.value)
    with pytest.raises(BuildError) as raised:
        payments(httpx_client_factory=SECRET)
    assert SECRET not in str(raised.value)


def test_from_card_and_the_directory_pass_credentials_on():
    from adk_fluent import AgentDirectory

    card = {
        "name": "payments",
        "url": "http://peer:8001/",
        "description": "Refunds.",
        "version": "1",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    from_card = RemoteAgent.from_card(card, bearer_token=SECRET).to_ir()
    listed = AgentDirectory.from_cards([card]).agent("payments", bearer_token=SECRET).to_ir()
    for node in (from_card, listed):
        assert dict(node.connection.headers) == {"Authorization": f"Bearer {SECRET}"}
