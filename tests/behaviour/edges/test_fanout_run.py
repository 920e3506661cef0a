"""FanOut merges and first_complete through the real Runner, scripted, on SQLite: what the
store holds after a reload, what the next agent's model request contains, what a cancelled
branch leaves behind (and how that differs from race)."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, FanOut, gate, race
from adk_fluent.errors import BuildError
from adk_fluent.testing import call, delay, mock_backend
from tests.conftest import fresh_db_service, request_texts, system_instruction


async def stored(url: str, session_id: str):
    return await fresh_db_service(url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id=session_id
    )


def searches():
    return FanOut(
        Agent("web").instruct("Search the web.").outputs("web_hits"),
        Agent("docs").instruct("Search the docs."),
    )


# -- merge ------------------------------------------------------------------------------------------
async def test_merge_dict_stores_each_branchs_output_in_one_event(sqlite_url):
    pipeline = searches().merge("dict", into="results") >> Agent("writer").instruct(
        "Write up {results}."
    )
    scripted = mock_backend({"web": "web found X", "docs": "docs found Y", "writer": "Report."})
    await pipeline.run("go", backend=scripted, session_id="d", session_store=sqlite_url)
    session = await stored(sqlite_url, "d")
    expected = {"web": "web found X", "docs": "docs found Y"}
    assert session.state["results"] == expected
    assert session.state["web_hits"] == "web found X"  # the branch's own key stays
    merges = [e for e in session.events if "results" in (e.actions.state_delta or {})]
    assert [(e.author, e.actions.state_delta) for e in merges] == [
        ("fanout__web__docs", {"results": expected})
    ]
    assert session.events.index(merges[0]) == len(session.events) - 2  # after both branches
    assert str(expected) in system_instruction(scripted.requests["writer"][0])


async def test_merge_concat_keeps_branch_order_whoever_finishes_first(sqlite_url):
    fan = FanOut(Agent("slow"), Agent("fast")).merge("concat", into="report", separator=" | ")
    scripted = mock_backend({"slow": delay(0.2, "slow part"), "fast": "fast part"})
    events = await fan.run("go", backend=scripted, session_id="c", session_store=sqlite_url)
    replies = [e.author for e in events if e.content]
    assert replies == ["fast", "slow"]  # fast finished first ...
    assert (await stored(sqlite_url, "c")).state["report"] == "slow part | fast part"  # ... yet


async def test_merge_with_a_reducer_stores_its_value(sqlite_url):
    def longest(outputs):
        return max(outputs.values(), key=len)

    fan = FanOut(Agent("a"), Agent("b")).merge(longest, into="best")
    scripted = mock_backend({"a": "short", "b": "the longer one"})
    await fan.run("go", backend=scripted, session_id="r", session_store=sqlite_url)
    assert (await stored(sqlite_url, "r")).state["best"] == "the longer one"


async def test_a_reducer_that_raises_is_one_error_event_and_the_run_ends(sqlite_url):
    def broken(outputs):
        raise ValueError("no winner")

    pipeline = FanOut(Agent("a"), Agent("b")).merge(broken, into="best") >> Agent("after")
    scripted = mock_backend({"a": "A", "b": "B"})
    events = await pipeline.run("go", backend=scripted, session_id="x", session_store=sqlite_url)
    assert events[-1].error_code == "FANOUT_MERGE_RAISED"
    assert "ValueError: no winner" in events[-1].error_message
    session = await stored(sqlite_url, "x")
    assert session.events[-1].error_code == "FANOUT_MERGE_RAISED"
    assert "best" not in session.state and "after" not in {e.author for e in session.events}
    scripted.assert_consumed()  # `after` never called its model


async def test_a_value_no_store_can_hold_is_refused(sqlite_url):
    fan = FanOut(Agent("a"), Agent("b")).merge(lambda outputs: set(outputs), into="names")
    events = await fan.run(
        "go", backend=mock_backend({"a": "A", "b": "B"}), session_store=sqlite_url
    )
    assert events[-1].error_code == "STATE_VALUE_NOT_STORABLE"
    assert "names" in events[-1].error_message


async def test_branches_of_a_merging_fanout_see_only_their_own_history(sqlite_url):
    fan = FanOut(Agent("a"), Agent("b") >> Agent("b2")).merge("dict", into="r")
    scripted = mock_backend({"a": "from a", "b": "from b", "b2": "from b2"})
    await fan.run("go", backend=scripted, session_id="h", session_store=sqlite_url)
    seen_by_b2 = " ".join(request_texts(scripted.requests["b2"][0]))
    assert "from b" in seen_by_b2 and "from a" not in seen_by_b2
    assert (await stored(sqlite_url, "h")).state["r"] == {
        "a": "from a",
        "pipeline__b__b2": "from b2",
    }


# -- first_complete --------------------------------------------------------------------------------
async def test_the_first_branch_to_finish_ends_the_fanout_and_the_rest_is_cancelled(sqlite_url):
    slow = delay(30, "slow answer")
    pipeline = FanOut(
        Agent("fast").outputs("answer"), Agent("slow").outputs("answer"), join="first_complete"
    ) >> Agent("presenter").instruct("Present {answer}.")
    scripted = mock_backend(
        {"fast": delay(0.05, "fast answer"), "slow": slow, "presenter": "Here."}
    )
    events = await pipeline.run("go", backend=scripted, session_id="f", session_store=sqlite_url)
    assert slow.cancelled == [30]  # cancelled and awaited: nothing is left running
    assert [e.author for e in events if e.content] == ["fast", "presenter"]
    session = await stored(sqlite_url, "f")
    assert session.state["answer"] == "fast answer"
    assert "Present fast answer." in system_instruction(scripted.requests["presenter"][0])


def _noting_branch(name: str):
    def note(text: str, tool_context) -> dict:
        """Write a note to state."""
        tool_context.state[f"{name}_note"] = text
        return {"ok": True}

    return Agent(name).instruct("Take a note, then answer.").tool(note)


async def test_what_a_cancelled_branch_already_stored_stays(sqlite_url):
    # first_complete runs branches live: the loser's tool call happened and is in the store
    loser_answer = delay(30, "too late")
    fan = FanOut(Agent("fast"), _noting_branch("slow")).first_complete()
    scripted = mock_backend(
        {"fast": delay(0.3, "fast answer"), "slow": [call("note", text="seen"), loser_answer]}
    )
    await fan.run("go", backend=scripted, session_id="live", session_store=sqlite_url)
    session = await stored(sqlite_url, "live")
    assert loser_answer.cancelled == [30]
    assert session.state["slow_note"] == "seen"
    # the loser's call and the tool's answer are stored (ADK stamps an LLM event when the call
    # starts, so a reload orders by start), and nothing it would have said after the winner
    assert sorted(e.author for e in session.events if e.author != "user") == [
        "fast",
        "slow",
        "slow",
    ]
    assert not any(e.content and "too late" in str(e.content) for e in session.events)


async def test_race_instead_leaves_nothing_of_the_loser(sqlite_url):
    loser_answer = delay(30, "too late")
    contest = race(Agent("fast"), _noting_branch("slow"))
    scripted = mock_backend(
        {"fast": delay(0.3, "fast answer"), "slow": [call("note", text="seen"), loser_answer]}
    )
    await contest.run("go", backend=scripted, session_id="race", session_store=sqlite_url)
    session = await stored(sqlite_url, "race")
    assert "slow_note" not in session.state
    assert {e.author for e in session.events} == {"user", "fast"}


async def test_a_branch_that_raises_does_not_finish_first(sqlite_url):
    fan = FanOut(Agent("broken"), Agent("steady").outputs("answer")).first_complete()
    scripted = mock_backend({"broken": RuntimeError("boom"), "steady": delay(0.05, "steady")})
    events = await fan.run("go", backend=scripted, session_id="b", session_store=sqlite_url)
    assert events[-1].content == "steady"
    assert (await stored(sqlite_url, "b")).state["answer"] == "steady"


async def test_when_every_branch_raises_the_last_error_is_raised(sqlite_url):
    fan = FanOut(Agent("a"), Agent("b")).first_complete()
    scripted = mock_backend(
        {"a": RuntimeError("a failed"), "b": delay(0.05, RuntimeError("b failed"))}
    )
    with pytest.raises(RuntimeError, match="b failed"):
        await fan.run("go", backend=scripted, session_store=sqlite_url)


async def test_merge_on_first_complete_holds_the_winner_only(sqlite_url):
    slow = delay(30, "slow")
    fan = FanOut(Agent("fast"), Agent("slow")).first_complete().merge("dict", into="winner")
    scripted = mock_backend({"fast": delay(0.05, "fast"), "slow": slow})
    await fan.run("go", backend=scripted, session_id="w", session_store=sqlite_url)
    assert (await stored(sqlite_url, "w")).state["winner"] == {"fast": "fast"}


async def test_events_of_live_branches_are_forwarded_as_they_come(sqlite_url):
    fan = FanOut(Agent("a"), Agent("b")).first_complete()
    scripted = mock_backend({"a": delay(0.2, "a done"), "b": "b done"})
    events = [
        e
        async for e in fan.stream("go", backend=scripted, session_store=sqlite_url, streaming="sse")
    ]
    assert [e.author for e in events if not e.is_partial] == ["b"]
    assert any(e.is_partial and e.author == "b" for e in events)


def test_a_gate_in_a_first_complete_or_merging_fanout_is_refused_at_build():
    gated = Agent("a") >> gate(message="Go on?")
    with pytest.raises(BuildError, match="first_complete"):
        FanOut(gated, Agent("b")).first_complete().build()
    with pytest.raises(BuildError, match="merging FanOut"):
        FanOut(gated, Agent("b")).merge("dict", into="r").build()
