"""Route, Fallback, map_over, loop_until, gate, tap, timeout and race through the real Runner,
on SQLite, checked after reloading the session through a fresh service."""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    ReadOnlyState,
    Route,
    S,
    gate,
    loop_until,
    map_over,
    race,
    tap,
    timeout,
)
from adk_fluent.errors import StateWriteError
from adk_fluent.testing import delay, mock_backend
from tests.conftest import fresh_db_service, request_texts, system_instruction


async def stored(url: str, session_id: str):
    return await fresh_db_service(url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id=session_id
    )


def router():
    return Agent("classifier").outputs("intent") >> Route("intent").eq(
        "booking", Agent("booker").outputs("reply")
    ).eq("info", Agent("info").outputs("reply")).otherwise(Agent("helper").outputs("reply"))


@pytest.mark.parametrize(
    ("label", "branch"),
    [
        ("booking", "booker"),
        ("Booking.\n", "booker"),
        ("  **BOOKING**  ", "booker"),
        ('"info"', "info"),
        ("Info!", "info"),
        ("weather", "helper"),
    ],
)
async def test_route_handles_messy_labels(sqlite_url, label, branch):
    backend = mock_backend({"classifier": label, branch: f"{branch} here"})
    events = await router().run("hi", backend=backend, session_id="r", session_store=sqlite_url)
    assert events[-1].author == branch
    backend.assert_consumed()  # no other branch's model was called
    assert (await stored(sqlite_url, "r")).state["reply"] == f"{branch} here"


async def test_route_exact_matching_when_normalisation_is_off(sqlite_url):
    pipeline = Agent("classifier").outputs("intent") >> Route("intent", normalize=False).eq(
        "booking", Agent("booker")
    ).otherwise(Agent("helper"))
    backend = mock_backend({"classifier": "Booking", "helper": "helped"})
    events = await pipeline.run("hi", backend=backend, session_store=sqlite_url)
    assert events[-1].author == "helper"


async def test_route_missing_key_goes_to_otherwise(sqlite_url):
    backend = mock_backend({"helper": "helped"})
    pipeline = Route("intent").eq("booking", Agent("booker")).otherwise(Agent("helper"))
    events = await pipeline.run("hi", backend=backend, session_store=sqlite_url)
    assert events[-1].author == "helper"


async def test_route_missing_key_without_otherwise_is_an_error_event(sqlite_url):
    pipeline = Route("intent").eq("booking", Agent("booker"))
    events = await pipeline.run(
        "hi", backend=mock_backend({}), session_id="m", session_store=sqlite_url
    )
    assert events[-1].error_code == "ROUTE_KEY_MISSING"
    assert "state has no 'intent'" in events[-1].error_message
    assert (await stored(sqlite_url, "m")).events[-1].error_code == "ROUTE_KEY_MISSING"


@pytest.mark.parametrize(("score", "branch"), [(95, "vip"), ("72", "regular"), (10.5, "low")])
async def test_route_numeric_comparisons(sqlite_url, score, branch):
    pipeline = S.set(score=score) >> Route("score").gte(90, Agent("vip")).gt(
        50, Agent("regular")
    ).lte(50, Agent("low"))
    backend = mock_backend({branch: "ok"})
    events = await pipeline.run("x", backend=backend, session_store=sqlite_url)
    assert events[-1].author == branch


async def test_route_contains_and_when(sqlite_url):
    pipeline = S.set(topic="refund request", vip=True) >> Route("topic").when(
        lambda s: s.get("vip") is True and "refund" in s["topic"], Agent("vip_refunds")
    ).contains("refund", Agent("refunds"))
    backend = mock_backend({"vip_refunds": "ok"})
    events = await pipeline.run("x", backend=backend, session_store=sqlite_url)
    assert events[-1].author == "vip_refunds"


async def test_fallback_keeps_the_backups_output(sqlite_url):
    backend = mock_backend({"primary": RuntimeError("quota"), "backup": "from backup"})
    pipeline = Agent("primary").outputs("answer") // Agent("backup").outputs("answer")
    await pipeline.run("x", backend=backend, session_id="f", session_store=sqlite_url)
    assert (await stored(sqlite_url, "f")).state["answer"] == "from backup"


def _echo_item(request):
    instruction = system_instruction(request)
    return "summary of " + instruction.split("Summarise: ", 1)[1].split("\n", 1)[0]


async def test_map_over_stores_the_bodys_outputs_in_order(sqlite_url):
    summariser = Agent("summariser").instruct("Summarise: {doc}").outputs("summary")
    pipeline = S.set(docs=["alpha", "beta", "gamma"]) >> map_over(
        "docs", summariser, item_key="doc", output_key="summaries"
    )
    backend = mock_backend({"summariser": [_echo_item, _echo_item, _echo_item]})
    await pipeline.run("go", backend=backend, session_id="m", session_store=sqlite_url)
    state = (await stored(sqlite_url, "m")).state
    assert state["summaries"] == ["summary of alpha", "summary of beta", "summary of gamma"]
    assert state.get("doc") is None
    backend.assert_consumed()


async def test_map_over_without_output_key_collects_final_text(sqlite_url):
    pipeline = S.set(items=[1, 2]) >> map_over("items", Agent("doubler").instruct("Double {item}"))
    backend = mock_backend({"doubler": ["2", "4"]})
    await pipeline.run("go", backend=backend, session_id="m2", session_store=sqlite_url)
    assert (await stored(sqlite_url, "m2")).state["results"] == ["2", "4"]


async def test_map_over_over_a_missing_list_is_an_error_event(sqlite_url):
    events = await map_over("nothing", Agent("body")).run(
        "go", backend=mock_backend({}), session_store=sqlite_url
    )
    assert events[-1].error_code == "MAP_OVER_NOT_A_LIST"
    assert "state['nothing'] is missing" in events[-1].error_message


async def test_loop_until_function_form(sqlite_url):
    backend = mock_backend({"refiner": ["draft 1", "draft 2 FINAL", "unused"]})
    pipeline = loop_until(
        lambda s: "FINAL" in s.get("draft", ""), Agent("refiner").outputs("draft"), max_iterations=5
    )
    await pipeline.run("go", backend=backend, session_id="l", session_store=sqlite_url)
    assert (await stored(sqlite_url, "l")).state["draft"] == "draft 2 FINAL"
    assert len(backend.requests["refiner"]) == 2


def approval_pipeline():
    return (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: "refund" in s["draft"], "Send this refund email?")
        >> Agent("sender").instruct("Send: {draft}")
    )


async def test_gate_pauses_until_approved_in_a_later_turn(sqlite_url):
    backend = mock_backend({"drafter": "refund of 20 EUR", "sender": "Sent."})
    pipeline = approval_pipeline()
    first = await pipeline.run(
        "write to the customer", backend=backend, session_id="g", session_store=sqlite_url
    )
    assert "sender" not in backend.requests  # nothing after the gate ran
    assert first[-1].author == "approval_gate" and "Send this refund email?" in first[-1].content
    record = (await stored(sqlite_url, "g")).state["adk_fluent_gate__approval_gate"]
    assert record["status"] == "pending"

    second = await pipeline.run(
        "approve", backend=backend, session_id="g", session_store=sqlite_url
    )
    assert len(backend.requests["drafter"]) == 1  # not re-run on the approval turn
    assert len(backend.requests["sender"]) == 1
    assert "Send: refund of 20 EUR" in system_instruction(backend.requests["sender"][0])
    assert "approve" in request_texts(backend.requests["sender"][0])
    assert second[-1].content == "Sent."
    record = (await stored(sqlite_url, "g")).state["adk_fluent_gate__approval_gate"]
    assert record["status"] == "approved"  # history: the next run's gate asks anew
    backend.assert_consumed()


async def test_gate_rejection_ends_the_run_with_the_message(sqlite_url):
    backend = mock_backend({"drafter": "refund of 20 EUR"})
    pipeline = approval_pipeline()
    await pipeline.run("write", backend=backend, session_id="g2", session_store=sqlite_url)
    events = await pipeline.run(
        "reject", backend=backend, session_id="g2", session_store=sqlite_url
    )
    assert "sender" not in backend.requests
    assert events[-1].content.startswith("Rejected: Send this refund email?")


async def test_gate_not_needed_passes_straight_through(sqlite_url):
    backend = mock_backend({"drafter": "a thank-you note", "sender": "Sent."})
    events = await approval_pipeline().run("write", backend=backend, session_store=sqlite_url)
    assert events[-1].content == "Sent."


async def test_tap_sees_state_and_changes_nothing(sqlite_url):
    seen = []
    pipeline = S.set(a=1) >> tap(lambda state: seen.append(dict(state))) >> S.set(b=2)
    events = await pipeline.run("x", session_id="t", session_store=sqlite_url)
    assert seen == [{"a": 1}]
    assert all(e.author != "tap" for e in events)  # a tap emits no event
    assert dict((await stored(sqlite_url, "t")).state) == {"a": 1, "b": 2}


async def test_tap_that_writes_gets_a_clear_error(sqlite_url):
    def sneaky(state):
        state["a"] = 2

    with pytest.raises(StateWriteError, match="tap 'tap_sneaky' tried to change state"):
        sneaky(ReadOnlyState({"a": 1}, "tap_sneaky"))
    events = await (S.set(a=1) >> tap(sneaky)).run("x", session_store=sqlite_url)
    assert events[-1].error_code == "TAP_FAILED"
    assert "tap 'tap_sneaky' tried to change state" in events[-1].error_message


async def test_timeout_cancels_the_body_and_says_so(sqlite_url):
    slow = delay(30, "too late")
    backend = mock_backend({"slow": slow})  # "after" has no script: calling it would fail
    pipeline = timeout(Agent("slow").outputs("answer"), 1.5) >> Agent("after")
    events = await pipeline.run("x", backend=backend, session_id="to", session_store=sqlite_url)
    errors = [e for e in events if e.error_code == "TIMEOUT"]
    assert (
        errors and errors[0].error_message == "step 'slow' timed out after 1.5s and was cancelled"
    )
    assert slow.cancelled == [30]
    assert events[-1] is errors[0] and "after" not in backend.requests  # the run ends there
    session = await stored(sqlite_url, "to")
    assert "answer" not in session.state
    assert any(e.error_code == "TIMEOUT" for e in session.events)


async def test_timeout_method_lets_fast_bodies_finish(sqlite_url):
    backend = mock_backend({"quick": "fine"})
    events = (
        await Agent("quick")
        .outputs("answer")
        .timeout(5)
        .run("x", backend=backend, session_id="q", session_store=sqlite_url)
    )
    assert events[-1].content == "fine" and not any(e.is_error for e in events)
    assert (await stored(sqlite_url, "q")).state["answer"] == "fine"


async def test_race_keeps_the_winner_and_cancels_the_rest(sqlite_url):
    slow = delay(30, "slow answer")
    backend = mock_backend({"fast": delay(0.5, "fast answer"), "slow": slow})
    pipeline = race(Agent("fast").outputs("answer"), Agent("slow").outputs("answer"))
    events = await pipeline.run("x", backend=backend, session_id="rc", session_store=sqlite_url)
    assert [e.author for e in events] == ["fast"]
    assert slow.cancelled == [30]
    session = await stored(sqlite_url, "rc")
    assert session.state["answer"] == "fast answer"
    assert [e.author for e in session.events] == ["user", "fast"]


async def test_race_falls_back_when_the_first_finisher_failed(sqlite_url):
    backend = mock_backend({"broken": RuntimeError("boom"), "steady": delay(0.05, "steady answer")})
    events = await race(Agent("broken"), Agent("steady").outputs("answer")).run(
        "x", backend=backend, session_store=sqlite_url
    )
    assert events[-1].content == "steady answer"


async def test_map_over_with_concurrency_runs_items_at_once_and_keeps_order(sqlite_url):
    import asyncio

    running = {"now": 0, "peak": 0}

    async def slow_echo(request):
        running["now"] += 1
        running["peak"] = max(running["peak"], running["now"])
        await asyncio.sleep(0.05)
        running["now"] -= 1
        return _echo_item(request)

    summariser = Agent("summariser").instruct("Summarise: {doc}").outputs("summary")
    pipeline = S.set(docs=["a", "b", "c", "d"]) >> map_over(
        "docs", summariser, item_key="doc", output_key="summaries", concurrency=2
    )
    backend = mock_backend({"summariser": [slow_echo] * 4})
    await pipeline.run("go", backend=backend, session_id="mc", session_store=sqlite_url)
    session = await stored(sqlite_url, "mc")
    assert session.state["summaries"] == [
        "summary of a",
        "summary of b",
        "summary of c",
        "summary of d",
    ]
    assert running["peak"] == 2
    summaries = [e.content.parts[0].text for e in session.events if e.author == "summariser"]
    assert summaries == ["summary of a", "summary of b", "summary of c", "summary of d"]


async def test_gate_with_custom_words(sqlite_url):
    backend = mock_backend({"drafter": "refund of 5 EUR", "sender": "Sent."})
    pipeline = (
        Agent("drafter").outputs("draft")
        >> gate(True, "Ship it?", approve=("Ship it",), reject=("Hold",))
        >> Agent("sender")
    )
    await pipeline.run("write", backend=backend, session_id="cw", session_store=sqlite_url)
    asked_again = await pipeline.run(
        "yes", backend=backend, session_id="cw", session_store=sqlite_url
    )
    assert "sender" not in backend.requests  # 'yes' is not one of this gate's words
    assert "Ship it?" in asked_again[-1].content
    await pipeline.run("ship it!", backend=backend, session_id="cw", session_store=sqlite_url)
    assert len(backend.requests["sender"]) == 1
    backend.assert_consumed()
