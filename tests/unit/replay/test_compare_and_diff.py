"""What counts as a difference and how it is told: a replayed model request against the
recorded one (instruction, contents and their parts, tool names; never ids or thought
signatures), and diff_events over two recordings or two lists of events (ADK Events,
AgentEvents, recorded events), aligned so an added or removed event is reported once."""

from __future__ import annotations

import json

import pytest
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.genai import types

from adk_fluent import AgentEvent
from adk_fluent.errors import BuildError
from adk_fluent.replay import diff_events
from adk_fluent.replay.compare import request_difference, text_change
from tests.unit.replay.recordings import made, request


def test_equal_requests_match_whatever_their_ids_and_signatures():
    recorded = request("Write.", "hi")
    recorded["contents"].append(
        {
            "parts": [
                {"function_call": {"name": "f", "args": {}, "id": "x1"}, "thought_signature": "s1"}
            ]
        }
    )
    current = json.loads(json.dumps(recorded))
    current["contents"][1]["parts"][0]["function_call"]["id"] = "y2"
    current["contents"][1]["parts"][0]["thought_signature"] = "s2"
    current["model"] = "another-model"
    assert request_difference(recorded, current) is None


def test_the_first_difference_is_told_instruction_then_contents_then_tools():
    recorded = request("Write a haiku.", "about ponds", tools=("lookup",))
    assert request_difference(recorded, request("Write a limerick.", "about ponds")) == (
        "instruction changed:\n  - Write a haiku.\n  + Write a limerick."
    )
    assert request_difference(
        recorded, request("Write a haiku.", "about frogs", tools=("lookup",))
    ) == ("contents: message #1 (user) part #1 text changed:\n  - about ponds\n  + about frogs")
    longer = request("Write a haiku.", "about ponds", "and frogs", tools=("lookup",))
    assert "1 messages in the recording, 2 in this run" in request_difference(recorded, longer)
    assert "message #2 (user) is only in this run: 'and frogs'" in request_difference(
        recorded, longer
    )
    assert request_difference(recorded, request("Write a haiku.", "about ponds")) == (
        "tools changed: ['lookup'] in the recording, [] in this run"
    )


def test_a_changed_function_call_is_told_by_name_and_arguments():
    recorded = request("Write.")
    recorded["contents"] = [
        {"parts": [{"function_call": {"name": "book", "args": {"city": "Paris"}}}], "role": "model"}
    ]
    current = json.loads(json.dumps(recorded))
    current["contents"][0]["parts"][0]["function_call"]["args"] = {"city": "Rome"}
    assert request_difference(recorded, current) == (
        'contents: message #1 (model) part #1 function call changed: call book({"city":"Paris"}) '
        '-> call book({"city":"Rome"})'
    )


def test_a_long_text_change_shows_the_changed_lines_unified_style():
    before = "\n".join(f"line {n}" for n in range(30))
    after = before.replace("line 12", "line twelve")
    told = text_change(before, after)
    assert told == "  - line 12\n  + line twelve"
    several = after.replace("line 25", "line 25!")
    told = text_change(before, several).splitlines()
    assert [line for line in told if line.startswith("  @@")] == [
        "  @@ -13 +13 @@",
        "  @@ -26 +26 @@",
    ]


CALLS = [("writer", "Write.", "a haiku", "Old pond."), ("critic", "Judge.", "Old pond.", "Fine.")]


def test_two_equal_recordings_have_no_differences():
    diff = diff_events(made(CALLS), made(CALLS, session="other"))
    assert diff.empty and not diff and len(diff) == 0
    assert diff.first_divergence is None and str(diff) == "no differences"
    assert diff.to_dict() == {
        "empty": True,
        "summary": "no differences",
        "first_divergence": None,
        "differences": [],
    }


def test_a_changed_reply_is_the_first_divergence_with_both_sides():
    changed = made([CALLS[0], ("critic", "Judge.", "Old pond.", "Bad.")])
    diff = diff_events(made(CALLS), changed)
    first = diff.first_divergence
    assert (first.kind, first.what, first.index, first.right_index) == ("event", "text", 2, 2)
    assert (first.left, first.right) == ("Fine.", "Bad.")
    assert str(first) == "event #3 ('critic'): text changed:\n  - Fine.\n  + Bad."
    assert diff.summary == "2 differences; first: event #3 ('critic'): text changed: - Fine. + Bad."
    assert [d.what for d in diff.differences] == ["text", "state delta"]
    json.dumps(diff.to_dict())  # JSON all the way down


def test_a_changed_instruction_with_the_same_replies_shows_in_the_model_requests():
    changed = made([("writer", "Write a limerick.", "a haiku", "Old pond."), CALLS[1]])
    diff = diff_events(made(CALLS), changed)
    first = diff.first_divergence
    assert (first.kind, first.what, first.agent, first.call) == (
        "model_request",
        "instruction",
        "writer",
        1,
    )
    assert str(first) == (
        "model request #1 of 'writer': instruction changed:\n  - Write.\n  + Write a limerick."
    )


def test_a_removed_event_is_reported_once_and_the_rest_still_pair_up():
    three = CALLS + [("editor", "Edit.", "Fine.", "Edited.")]
    diff = diff_events(made(three), made([CALLS[0], three[2]]))
    events = [d for d in diff.differences if d.kind == "event"]
    assert [(d.what, d.agent, d.index, d.right_index) for d in events] == [
        ("missing", "critic", 2, None)
    ]
    assert str(events[0]) == "event #3 ('critic'): only in the first: 'Fine.'"
    requests = [d for d in diff.differences if d.kind == "model_request"]
    assert [(d.what, d.agent, d.call) for d in requests] == [("missing", "critic", 1)]


def adk_event(author, text=None, *, delta=None, partial=None, call=None):
    parts = [types.Part(text=text)] if text else []
    if call:
        parts.append(
            types.Part(function_call=types.FunctionCall(name=call[0], args=call[1], id="adk-1"))
        )
    return Event(
        author=author,
        invocation_id="inv",
        content=types.Content(role="model", parts=parts) if parts else None,
        actions=EventActions(state_delta=delta or {}),
        partial=partial,
    )


def test_lists_of_adk_events_compare_without_ids_timestamps_or_partials():
    left = [adk_event("a", "Hi", delta={"k": 1}), adk_event("b", call=("book", {"city": "Paris"}))]
    right = [
        adk_event("a", "H", partial=True),
        adk_event("a", "Hi", delta={"k": 1}),
        adk_event("b", call=("book", {"city": "Paris"})),
    ]
    right[1].id, right[1].timestamp, right[1].invocation_id = "other", 1.0, "other"
    assert diff_events(left, right).empty
    changed = [left[0], adk_event("b", call=("book", {"city": "Rome"}))]
    first = diff_events(left, changed).first_divergence
    assert (first.what, first.index) == ("tool calls", 1)
    assert 'call book({"city":"Paris"}) -> call book({"city":"Rome"})' in str(first)


def test_agent_events_and_recorded_events_compare_and_user_messages_only_when_both_have_them():
    recording = made(CALLS)
    client = [
        AgentEvent.from_adk(adk_event("writer", "Old pond.", delta={"writer_out": "Old pond."})),
        AgentEvent.from_adk(adk_event("critic", "Fine.", delta={"critic_out": "Fine."})),
    ]
    assert diff_events(list(recording.events), client).empty  # the user's message left out
    bare = [
        AgentEvent(author="writer", content="Old pond.", state_delta={"writer_out": "Old pond."})
    ]
    diff = diff_events(client, bare)
    assert [(d.what, d.agent) for d in diff.differences] == [("missing", "critic")]


@pytest.mark.parametrize(
    "a, b, side",
    [
        ("events", [], "a"),
        ([], 42, "b"),
        (made(CALLS), [], "b"),
        ([], made(CALLS), "a"),
    ],
)
def test_diff_events_refuses_what_it_cannot_compare_naming_the_side(a, b, side):
    with pytest.raises(BuildError) as caught:
        diff_events(a, b)
    assert caught.value.field == side and "hint" in str(caught.value)


def test_a_list_holding_something_else_is_refused_naming_the_position():
    with pytest.raises(BuildError, match=r"b\[1\] is a dict, not an event"):
        diff_events([], [adk_event("a", "x"), {"author": "a"}])
