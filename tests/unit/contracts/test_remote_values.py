"""The remote-values check: a key that crosses an A2A boundary must be one JSON can carry."""

from __future__ import annotations

import datetime

from adk_fluent import Agent, RemoteAgent, S, StateSchema, check_contracts

CARD = "http://peer:8001/.well-known/agent-card.json"


class Booking(StateSchema):
    when: datetime.date
    seats: set[str]
    city: str


def _codes(pipeline, code="remote-value-not-json"):
    return [(i.node, i.key) for i in check_contracts(pipeline) if i.code == code]


def test_a_date_sent_to_a_remote_agent_is_an_error_naming_the_writer():
    pipeline = Agent("planner").instruct("Plan.").writes(Booking.when) >> RemoteAgent(
        "booker", CARD, sends=["when"]
    )
    report = check_contracts(pipeline)
    [issue] = [i for i in report if i.code == "remote-value-not-json"]
    assert (issue.node, issue.key, issue.severity) == ("booker", "when", "error")
    assert "planner writes it as date" in issue.message
    assert "REMOTE_STATE_NOT_SENDABLE" in issue.message


def test_a_set_inside_an_execution_boundary_is_found_too():
    inner = Agent("seater").instruct("Seat.").writes(Booking.seats)
    pipeline = Agent("a").instruct("A.") >> inner.execution_boundary("seating")
    assert _codes(pipeline) == [("seating", "seats")]


def test_json_values_cross_without_an_issue():
    pipeline = (
        Agent("planner").instruct("Plan.").writes(Booking.city)
        >> S.set(count=2)
        >> RemoteAgent("booker", CARD, sends=["city", "count"], receives=["ref"])
    )
    assert _codes(pipeline) == []


def test_a_key_sent_that_nothing_writes_is_read_before_write_named_as_a_send():
    pipeline = Agent("a").instruct("A.") >> RemoteAgent("booker", CARD, sends=["city"])
    [issue] = [i for i in check_contracts(pipeline) if i.code == "read-before-write"]
    assert issue.key == "city"
    assert "RemoteAgent(sends=...)" in issue.subject


def test_a_received_key_satisfies_a_later_reader():
    pipeline = RemoteAgent("booker", CARD, receives=["ref"]) >> Agent("r").instruct("Ref {ref}.")
    assert [i for i in check_contracts(pipeline) if i.key == "ref"] == []
