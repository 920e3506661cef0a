"""The gate as a state machine, through the real Runner on SQLite (both ways apps run): a turn
stops at the first gate that asks, wherever it sits; approval resumes exactly there and re-runs
nothing; a rejection ends the run and the next turn starts fresh; the prompt names the words."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, FanOut, Loop, Route, S, gate, loop_until, tap
from adk_fluent.testing import mock_backend
from tests.conftest import request_texts, system_instruction
from tests.support.gates import WAYS, calls, turn

KEY = "adk_fluent_gate__approval_gate"


def refund_flow():
    return (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: "refund" in s["draft"], "Send this refund email?")
        >> Agent("sender").instruct("Send: {draft}")
    )


@pytest.mark.parametrize("way", WAYS)
async def test_sequence_pauses_then_resumes_at_the_gate(way, sqlite_url):
    backend = mock_backend({"drafter": "refund of 20 EUR", "sender": "Sent."})
    flow = refund_flow()
    first = await turn(flow, backend, "write to the customer", sqlite_url, way=way)
    assert calls(backend, "sender") == 0  # nothing after the gate ran
    assert first.texts[-1][0] == "approval_gate"
    assert first.last_text == (
        "Send this refund email? Reply 'approve' or 'yes' to continue or 'reject' or 'no' to stop."
    )
    assert first.state[KEY]["status"] == "pending"

    second = await turn(flow, backend, "Approve.", sqlite_url, way=way)
    assert calls(backend, "drafter") == 1  # not re-run on the approval turn
    assert calls(backend, "sender") == 1
    assert "Send: refund of 20 EUR" in system_instruction(backend.requests["sender"][0])
    assert second.texts == [("sender", "Sent.")]
    assert second.state[KEY]["status"] == "approved"
    assert not any(k.startswith("adk_fluent_resume__") and v for k, v in second.state.items())
    backend.assert_consumed()


async def test_a_restart_between_question_and_approval_loses_nothing(sqlite_url):
    """Turn 1 in adk-fluent's runtime; then a new process: a newly built pipeline, a new backend,
    a new Runner and session service over the same SQLite file, approving."""
    first_backend = mock_backend({"drafter": "refund of 20 EUR"})
    await turn(refund_flow(), first_backend, "write", sqlite_url, way="fluent")

    restarted = mock_backend({"sender": "Sent."})
    second = await turn(refund_flow(), restarted, "yes", sqlite_url, way="runner")
    assert calls(restarted, "drafter") == 0
    assert second.texts == [("sender", "Sent.")]
    assert "Send: refund of 20 EUR" in system_instruction(restarted.requests["sender"][0])
    restarted.assert_consumed()


@pytest.mark.parametrize("way", WAYS)
async def test_reject_ends_the_run_and_the_next_turn_starts_fresh(way, sqlite_url):
    backend = mock_backend({"drafter": ["refund of 20 EUR", "refund of 5 EUR"], "sender": "Sent."})
    flow = refund_flow()
    await turn(flow, backend, "write", sqlite_url, way=way)
    rejected = await turn(flow, backend, "no", sqlite_url, way=way)
    assert calls(backend, "sender") == 0
    assert rejected.texts == [
        (
            "approval_gate",
            "Rejected: Send this refund email? The run stopped here and nothing after this step "
            "ran. Your next message starts again from the beginning.",
        )
    ]
    assert rejected.state[KEY]["status"] == "rejected"
    assert rejected.errors == []  # a decision, not an error

    # not stuck: the next turn runs from the top and the new draft is a new question
    fresh = await turn(flow, backend, "write a smaller one", sqlite_url, way=way)
    assert calls(backend, "drafter") == 2
    assert fresh.texts[0] == ("drafter", "refund of 5 EUR")
    assert fresh.state[KEY]["status"] == "pending"
    approved = await turn(flow, backend, "approve", sqlite_url, way=way)
    assert approved.texts == [("sender", "Sent.")]
    assert "Send: refund of 5 EUR" in system_instruction(backend.requests["sender"][0])
    backend.assert_consumed()


@pytest.mark.parametrize("way", WAYS)
async def test_an_unrecognised_reply_names_the_words_and_stays_pending(way, sqlite_url):
    backend = mock_backend({"drafter": "refund of 20 EUR", "sender": "Sent."})
    flow = refund_flow()
    await turn(flow, backend, "write", sqlite_url, way=way)
    unclear = await turn(flow, backend, "hmm, maybe later", sqlite_url, way=way)
    assert unclear.texts == [
        (
            "approval_gate",
            "'hmm, maybe later' is not an answer to: Send this refund email? Reply 'approve' or "
            "'yes' to continue or 'reject' or 'no' to stop. (Still waiting: nothing after this "
            "step has run.)",
        )
    ]
    assert unclear.state[KEY]["status"] == "pending"
    assert calls(backend, "sender") == 0 and calls(backend, "drafter") == 1
    done = await turn(flow, backend, "OK", sqlite_url, way=way)
    assert done.texts == [("sender", "Sent.")]
    backend.assert_consumed()


async def test_the_prompt_names_custom_words_and_only_they_count(sqlite_url):
    backend = mock_backend({"drafter": "refund of 5 EUR", "sender": "Sent."})
    flow = (
        Agent("drafter").outputs("draft")
        >> gate(True, "Ship it?", approve=("ship it",), reject=("no",))
        >> Agent("sender")
    )
    asked = await turn(flow, backend, "write", sqlite_url)
    assert asked.last_text == "Ship it? Reply 'ship it' to continue or 'no' to stop."
    again = await turn(flow, backend, "yes", sqlite_url)  # a default word, not this gate's
    assert calls(backend, "sender") == 0
    assert "Reply 'ship it' to continue or 'no' to stop." in again.last_text
    done = await turn(flow, backend, "Ship it!", sqlite_url)
    assert done.texts == [("sender", "Sent.")]
    backend.assert_consumed()


async def test_a_gate_whose_predicate_is_false_passes_straight_through(sqlite_url):
    backend = mock_backend({"drafter": "a thank-you note", "sender": "Sent."})
    done = await turn(refund_flow(), backend, "write", sqlite_url)
    assert done.texts == [("drafter", "a thank-you note"), ("sender", "Sent.")]
    assert KEY not in done.state


@pytest.mark.parametrize("way", WAYS)
async def test_in_a_loop_the_gate_asks_once_per_turn_and_each_iteration_anew(way, sqlite_url):
    backend = mock_backend(
        {
            "drafter": ["draft 1", "draft 2"],
            "publisher": ["published 1", "published 2"],
        }
    )
    body = (
        Agent("drafter").outputs("draft")
        >> gate(True, "Publish this draft?", name="review")
        >> Agent("publisher").instruct("Publish: {draft}")
    )
    flow = Loop(body, max_iterations=2).named("editions")
    key = "adk_fluent_gate__review"

    first = await turn(flow, backend, "go", sqlite_url, way=way)
    assert calls(backend, "drafter") == 1  # the loop did not run on past the waiting gate
    assert [a for a, _ in first.texts] == ["drafter", "review"]
    assert first.state[key]["iteration"] == [["editions", 0]]

    # approval continues THAT iteration (the draft the user saw), then iteration 2 asks anew
    second = await turn(flow, backend, "approve", sqlite_url, way=way)
    assert "Publish: draft 1" in system_instruction(backend.requests["publisher"][0])
    assert [a for a, _ in second.texts] == ["publisher", "drafter", "review"]
    assert second.state[key]["status"] == "pending"
    assert second.state[key]["iteration"] == [["editions", 1]]
    assert calls(backend, "publisher") == 1

    third = await turn(flow, backend, "approve", sqlite_url, way=way)
    assert "Publish: draft 2" in system_instruction(backend.requests["publisher"][1])
    assert third.texts == [("publisher", "published 2")]  # max_iterations reached: done
    assert calls(backend, "drafter") == 2
    backend.assert_consumed()


async def test_a_loop_until_with_a_gate_stops_when_the_condition_holds(sqlite_url):
    backend = mock_backend({"drafter": ["draft 1", "draft 2 FINAL"]})
    flow = loop_until(
        lambda s: "FINAL" in s.get("draft", ""),
        Agent("drafter").outputs("draft") >> gate(True, "Keep this one?", name="keep"),
        max_iterations=5,
    )
    await turn(flow, backend, "go", sqlite_url)
    await turn(flow, backend, "yes", sqlite_url)  # iteration 1 approved; iteration 2 asks
    last = await turn(flow, backend, "yes", sqlite_url)
    assert last.texts == []  # the until-check ended the loop after the approved iteration
    assert calls(backend, "drafter") == 2
    backend.assert_consumed()


@pytest.mark.parametrize("way", WAYS)
async def test_in_a_fanout_branch_approval_never_reruns_the_sibling(way, sqlite_url):
    backend = mock_backend(
        {
            "writer": "refund of 20 EUR",
            "mailer": "Mailed.",
            "auditor": "audit logged",  # the sibling: its side effect must happen exactly once
            "reporter": "All done.",
        }
    )
    flow = FanOut(
        Agent("writer").outputs("draft") >> gate(True, "Mail it?") >> Agent("mailer"),
        Agent("auditor").outputs("audit"),
    ).named("work") >> Agent("reporter")
    first = await turn(flow, backend, "go", sqlite_url, way=way)
    assert calls(backend, "auditor") == 1  # the sibling finished its work in the first turn
    assert calls(backend, "mailer") == 0 and calls(backend, "reporter") == 0
    assert first.last_text.startswith("Mail it?")
    assert first.state["audit"] == "audit logged"

    second = await turn(flow, backend, "approve", sqlite_url, way=way)
    assert calls(backend, "auditor") == 1  # recorded done: not re-run on approval
    assert calls(backend, "writer") == 1
    assert [a for a, _ in second.texts] == ["mailer", "reporter"]
    backend.assert_consumed()


async def test_two_gates_in_fanout_branches_ask_one_at_a_time(sqlite_url):
    backend = mock_backend({"a": "A done", "b": "B done", "after": "both done"})
    flow = FanOut(
        gate(True, "Run A?", name="gate_a") >> Agent("a"),
        gate(True, "Run B?", name="gate_b") >> Agent("b"),
    ).named("pair") >> Agent("after")
    first = await turn(flow, backend, "go", sqlite_url)
    questions = [t for a, t in first.texts if a in ("gate_a", "gate_b")]
    assert len(questions) == 1  # one question per turn, never two answered by one reply
    asked = "gate_a" if "Run A?" in questions[0] else "gate_b"
    other = "gate_b" if asked == "gate_a" else "gate_a"

    second = await turn(flow, backend, "yes", sqlite_url)
    assert [t for a, t in second.texts if a == other][0].startswith(
        "Run B?" if other == "gate_b" else "Run A?"
    )
    assert calls(backend, "after") == 0
    third = await turn(flow, backend, "yes", sqlite_url)
    assert third.texts[-1] == ("after", "both done")
    assert calls(backend, "a") == 1 and calls(backend, "b") == 1
    backend.assert_consumed()


@pytest.mark.parametrize("way", WAYS)
async def test_in_a_route_branch_approval_goes_back_into_the_branch_taken(way, sqlite_url):
    backend = mock_backend({"classifier": "refund", "refunder": "Refunded.", "closer": "Bye."})
    flow = (
        Agent("classifier").outputs("intent")
        >> Route("intent")
        .eq("refund", gate(True, "Refund 20 EUR?", name="refund_ok") >> Agent("refunder"))
        .otherwise(Agent("helper"))
        >> Agent("closer")
    )
    first = await turn(flow, backend, "money back please", sqlite_url, way=way)
    assert first.last_text.startswith("Refund 20 EUR?")
    # the state changes before the reply: the route is not asked again, the branch resumes
    second = await turn(flow, backend, "approve", sqlite_url, way=way)
    assert calls(backend, "classifier") == 1
    assert [a for a, _ in second.texts] == ["refunder", "closer"]
    backend.assert_consumed()


async def test_nested_pipelines_resume_at_the_inner_gate(sqlite_url):
    backend = mock_backend({"a": "A", "b": "B", "c": "C", "d": "D"})
    inner = (Agent("b") >> gate(True, "Go on?", name="inner_gate") >> Agent("c")).named("inner")
    flow = (Agent("a") >> inner).named("outer") >> S.set(marker="x") >> Agent("d")
    first = await turn(flow, backend, "go", sqlite_url)
    assert [a for a, _ in first.texts] == ["a", "b", "inner_gate"]
    assert "marker" not in first.state
    second = await turn(flow, backend, "yes", sqlite_url, way="runner")
    assert [a for a, _ in second.texts] == ["c", "d"]
    assert second.state["marker"] == "x"
    assert calls(backend, "a") == 1 and calls(backend, "b") == 1
    backend.assert_consumed()


async def test_the_reply_reaches_the_next_agent_as_the_users_message(sqlite_url):
    backend = mock_backend({"drafter": "refund of 20 EUR", "sender": "Sent."})
    flow = refund_flow()
    await turn(flow, backend, "write", sqlite_url)
    await turn(flow, backend, "yes", sqlite_url)
    assert "yes" in request_texts(backend.requests["sender"][0])


async def test_a_failure_after_approval_does_not_leave_the_session_stuck(sqlite_url):
    """The approval turn fails after the gate: the next turn is a new run from the top (its
    message is not taken as a reply), whichever way the failure surfaced."""
    backend = mock_backend({"drafter": ["refund of 20 EUR", "refund of 9 EUR"]})

    def mail_server_down(state):
        raise ConnectionError("the mail server is down")

    failing = (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: "refund" in s["draft"], "Send this refund email?")
        >> tap(mail_server_down)
        >> Agent("sender")
    )
    await turn(failing, backend, "write", sqlite_url)
    try:
        await turn(failing, backend, "yes", sqlite_url)
    except ConnectionError:
        pass  # exceptions from user code propagate as ADK raises them
    fresh = await turn(failing, backend, "yes", sqlite_url)  # a new run from the top
    assert calls(backend, "drafter") == 2
    assert fresh.texts[0] == ("drafter", "refund of 9 EUR")
    assert fresh.last_text.startswith("Send this refund email?")


@pytest.mark.parametrize("way", WAYS)
async def test_a_predicate_that_raises_ends_the_run_with_an_error_event(way, sqlite_url):
    """The error model holds for gates too: the predicate's exception becomes one stored error
    event naming the gate, nothing after it runs, and no gate record is left pending."""
    backend = mock_backend({"drafter": "refund of 20 EUR"})  # no script for sender: never called
    flow = (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: s["amount"] > 100, "Send it?", name="amount_gate")
        >> Agent("sender")
    )
    result = await turn(flow, backend, "write", sqlite_url, way=way)
    assert result.errors == ["STATE_STEP_RAISED"]
    assert calls(backend, "sender") == 0
    assert "adk_fluent_gate__amount_gate" not in result.state
    backend.assert_consumed()
