"""Streaming at the edges: a deadline passing mid-stream, a fallback after a child that streamed
and failed, a gate in a streaming run, a Route after a streaming classifier, and the output_key
delta wherever ADK puts it: the client gets what was produced, the store what would be stored
without streaming."""

from __future__ import annotations

import json
import re

from adk_fluent import Agent, Route, gate, timeout
from adk_fluent.testing import streamed
from tests.behaviour.streaming.streams import fluent_turn, record, streams, text_of
from tests.conftest import request_texts, system_instruction


def long_reply():
    return streamed(*[f"part{i} " for i in range(40)], gap=0.05)


async def test_a_deadline_passing_mid_stream_keeps_what_was_sent_and_stores_none_of_it(
    sqlite_url,
):
    def pipeline():
        return timeout(Agent("answerer").outputs("answer"), 0.4) >> Agent("after")

    turn = await fluent_turn(
        pipeline(), {"answerer": long_reply()}, sqlite_url, "t", streaming="sse"
    )
    partials = [e.content for e in turn.client if e.is_partial]
    assert partials and partials == [f"part{i} " for i in range(len(partials))]
    assert len(partials) < 40  # the model was cut off mid-stream
    assert turn.client[-1].error_code == "TIMEOUT"  # then the run ended there
    assert "answer" not in turn.state
    assert "answerer" not in {e.author for e in turn.stored}
    plain = await fluent_turn(pipeline(), {"answerer": long_reply()}, sqlite_url, "p")
    assert record(turn.stored) == record(plain.stored)


def fallback():
    return timeout(Agent("primary").outputs("answer"), 0.3) // Agent("backup").outputs("answer")


def fallback_scripts():
    return {"primary": long_reply(), "backup": streamed("Backup ", "answer.", gap=0.01)}


async def test_a_fallback_after_a_child_that_streamed_and_failed(sqlite_url):
    turn = await fluent_turn(fallback(), fallback_scripts(), sqlite_url, "f", streaming="sse")
    finals, leftover = streams(turn.client)
    assert leftover["primary"] and leftover["primary"][0] == "part0 "  # the client got them
    assert finals == {"backup": ["Backup answer."]}
    assert not any(e.is_error for e in turn.client)  # the failure was handled
    plain = await fluent_turn(fallback(), fallback_scripts(), sqlite_url, "p")
    assert [e.author for e in turn.stored] == ["user", "backup"]
    assert record(turn.stored) == record(plain.stored)
    assert turn.state == plain.state == {"answer": "Backup answer."}


def gated():
    return (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: True, "Send it?", name="check")
        >> Agent("sender").instruct("Send: {draft}")
    ).filtered()


def gated_scripts():
    return {
        "drafter": streamed("zq-draft ", "zq-text", gap=0.005),
        "sender": streamed("Sent ", "it.", gap=0.005),
    }


async def test_a_gate_in_a_streaming_run_asks_and_resumes(sqlite_url):
    scripts = gated_scripts()
    first = await fluent_turn(gated(), scripts, sqlite_url, "g", streaming="sse")
    assert not [e for e in first.client if "zq" in (e.content or "")]  # internal: filtered
    assert "Send it?" in first.client[-1].content
    backend = first.backend  # the second turn answers from the same scripts
    second = [
        e
        async for e in gated().stream(
            "yes", backend=backend, session_id="g", session_store=sqlite_url, streaming="sse"
        )
    ]
    finals, leftover = streams(second)
    assert finals == {"sender": ["Sent it."]} and not leftover
    assert "zq-draft zq-text" in system_instruction(backend.requests["sender"][0])
    backend.assert_consumed()
    # the same two turns without streaming store the same
    plain = await fluent_turn(gated(), gated_scripts(), sqlite_url, "p")
    await gated().run("yes", backend=plain.backend, session_id="p", session_store=sqlite_url)
    from tests.conftest import fresh_db_service

    stored = {
        session_id: await fresh_db_service(sqlite_url).get_session(
            app_name="adk_fluent_app", user_id="user", session_id=session_id
        )
        for session_id in ("g", "p")
    }
    assert not any(e.partial for e in stored["g"].events)
    # the gate's records name the invocations that asked and decided: those ids differ
    assert _without_ids(record(stored["g"].events)) == _without_ids(record(stored["p"].events))
    assert _without_ids(stored["g"].state) == _without_ids(stored["p"].state)


def _without_ids(value):
    return re.sub(r'"e-[0-9a-f-]+"', '"<invocation>"', json.dumps(value, sort_keys=True))


def routed():
    return (
        Agent("classifier").outputs("intent")
        >> Route("intent").eq("booking", Agent("booker")).otherwise(Agent("helper"))
        >> Agent("closer").instruct("Close: {intent}")
    )


async def test_a_route_after_a_streaming_classifier_reads_the_whole_value(sqlite_url):
    scripts = {
        "classifier": streamed("boo", "king", gap=0.005),  # no chunk alone is "booking"
        "booker": streamed("Booked.", gap=0.005),
        "closer": "Bye.",
    }
    turn = await fluent_turn(routed(), scripts, sqlite_url, "r", streaming="sse")
    assert [e.content for e in turn.client if e.author == "classifier" and e.is_partial] == [
        "boo",
        "king",
    ]
    assert "booker" in turn.backend.requests and "helper" not in turn.backend.requests
    assert turn.state["intent"] == "booking"
    assert "Close: booking" in system_instruction(turn.backend.requests["closer"][0])


async def test_the_output_key_is_stored_whole_wherever_adk_puts_its_delta(sqlite_url):
    """ADK 2.x hands the final event's actions to the partials of the same model turn too, so
    a client holding a partial may see the output_key delta on it; 1.x does not. Either way the
    value is the whole reply, the store holds it once, and the next agent reads it whole; the
    client's AgentEvent carries the delta on the whole reply only."""
    pipeline = Agent("classifier").outputs("intent") >> Agent("closer").instruct("Go: {intent}")
    scripts = {"classifier": streamed("alpha ", "beta ", "gamma", gap=0.005), "closer": "ok"}
    turn = await fluent_turn(pipeline, scripts, sqlite_url, "o", streaming="sse")
    carried = [
        e.raw.actions.state_delta["intent"]
        for e in turn.client
        if "intent" in (e.raw.actions.state_delta or {})
    ]
    assert carried and set(carried) == {"alpha beta gamma"}  # never a prefix
    # the client's own view is the same on every release and target: a chunk changes no
    # state (no store applies it), the whole reply's event carries the delta
    assert [e.state_delta for e in turn.client if e.author == "classifier"] == [
        {},
        {},
        {},
        {"intent": "alpha beta gamma"},
    ]
    stored = [e for e in turn.stored if "intent" in (e.actions.state_delta or {})]
    assert [(e.author, text_of(e), e.partial) for e in stored] == [
        ("classifier", "alpha beta gamma", None)
    ]
    assert turn.state["intent"] == "alpha beta gamma"
    assert "Go: alpha beta gamma" in system_instruction(turn.backend.requests["closer"][0])
    # the history the next agent is shown holds the reply once, whole, and no chunk of it
    history = request_texts(turn.backend.requests["closer"][0])
    assert [text for text in history if "alpha" in text or "gamma" in text] == [
        text for text in history if "alpha beta gamma" in text
    ]
    assert len([text for text in history if "alpha" in text]) == 1
