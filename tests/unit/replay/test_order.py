"""What a replayed call waits for, without a Runner (src/adk_fluent/replay/order.py): which
branches run beside each other, which agents run at once on private copies (race, concurrent
map_over), the events and calls a recorded call waits for, and when it goes on; and a call
recorded `unanswered`, which a replay makes wait until it is cancelled, kept by the format and
never counted as left unreplayed."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from adk_fluent import Agent, FanOut
from adk_fluent.api.control import map_over, race
from adk_fluent.replay import ModelCall, RecordedEvent, Recording, ReplayerBackend
from adk_fluent.replay.order import Needs, Order, at_once, branch_agent, lanes, side_by_side
from tests.unit.replay.recordings import HEADER, made, reply, request
from tests.unit.replay.test_replayer import ask


@pytest.mark.parametrize(
    ("one", "other", "beside"),
    [
        ("report.writer", "report.critic", True),
        ("report.writer", "report.writer", False),
        ("report", "report.writer", False),  # the FanOut's own events, around its branches
        ("report.writer", "report.writer.inner.a", False),  # a branch inside the writer's
        ("report.writer.inner.a", "report.critic", True),
        ("report.writer", None, False),
        ("critic@1", "writer@1", True),  # ADK 2.x Workflow branches
    ],
)
def test_which_branches_run_beside_each_other(one, other, beside):
    assert side_by_side(one, other) is beside
    assert side_by_side(other, one) is beside


@pytest.mark.parametrize(
    ("branch", "agent"),
    [("report.critic", "critic"), ("trip.report.critic", "critic"), ("critic@2", "critic")],
)
def test_the_agent_a_branch_was_made_for(branch, agent):
    assert branch_agent(branch) == agent


def test_agents_under_a_race_or_a_concurrent_map_over_run_at_once():
    tree = (
        race(Agent("slow").instruct("s"), Agent("fast").instruct("f"), name="pick")
        >> map_over("xs", Agent("each").instruct("e"), concurrency=2, name="many")
        >> map_over("ys", Agent("one").instruct("o"), name="serial")
        >> Agent("editor").instruct("x")
    ).to_ir()
    found = lanes(tree)
    assert at_once(found["slow"], found["fast"])  # two alternatives of one race
    assert at_once(found["each"], found["each"])  # two items of one concurrent map_over
    assert not at_once(found["slow"], found["slow"])  # one alternative runs once
    assert not at_once(found["one"], found["one"])  # map_over's items one at a time
    assert not at_once(found["editor"], found["fast"])
    assert found["editor"] == frozenset()


def fanout_recording() -> Recording:
    """writer and critic of FanOut 'report' in invocation i1: the critic's reply first."""

    def call(seq, agent, branch):
        return ModelCall(
            seq=seq,
            session_id="s1",
            invocation_id="i1",
            agent=agent,
            call=1,
            request=request(f"{agent}.", "go"),
            responses=(reply(agent),),
            branch=branch,
        )

    def event(seq, author, branch=None):
        content = {"parts": [{"text": author}], "role": "model"}
        return RecordedEvent(
            seq=seq,
            session_id="s1",
            invocation_id="i1",
            author=author,
            branch=branch,
            content=content,
        )

    return Recording(
        HEADER,
        (call(2, "critic", "report.critic"), call(4, "writer", "report.writer")),
        (),
        (
            event(1, "user"),
            event(3, "critic", "report.critic"),
            event(5, "writer", "report.writer"),
        ),
    )


def test_a_branch_waits_for_the_events_recorded_before_its_own_in_the_branches_beside_it():
    recording = fanout_recording()
    order = Order(recording)
    critic, writer = recording.model_calls
    assert order.needs(writer) == Needs({"report.critic": 1})
    assert order.needs(critic) == Needs()
    order.tree(FanOut(Agent("writer"), Agent("editor")).to_ir())  # no critic in this tree
    assert order.needs(writer) == Needs()


async def test_a_waiting_call_goes_on_when_the_events_come_the_branch_ends_or_the_run_diverges():
    recording = fanout_recording()
    writer = recording.model_calls[1]
    for release in ("event", "ended", "diverged"):
        order = Order(recording)
        waiting = asyncio.ensure_future(order.wait("s1", "r1", order.needs(writer)))
        await asyncio.sleep(0)
        assert not waiting.done()
        order.seen("r1", replace(recording.events[2], branch="report.writer"))  # its own branch
        order.seen("r0", recording.events[1])  # another invocation's
        await asyncio.sleep(0)
        assert not waiting.done()
        if release == "event":
            order.seen("r1", recording.events[1])
        elif release == "ended":
            order.ended("r1", "report.critic", "critic")
        else:
            order.diverged("s1")
        await asyncio.wait_for(waiting, 1)


async def test_a_call_recorded_unanswered_waits_until_it_is_cancelled():
    recording = made([("quick", "Q.", "go", "Tip."), ("slow", "S.", "go", "never")])
    slow = replace(recording.model_calls[1], responses=(), unanswered=True)
    recording = replace(recording, model_calls=(recording.model_calls[0], slow))
    backend = ReplayerBackend(recording)
    asking = asyncio.ensure_future(ask(backend, "slow", "S.", "go"))
    for _ in range(5):  # let it run up to its wait
        await asyncio.sleep(0)
    assert not asking.done()
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    await ask(backend, "quick", "Q.", "go")
    backend.assert_consumed()  # an unanswered call is never owed a replay
    assert backend.mismatches == []


def test_the_format_keeps_an_unanswered_call_and_leaves_the_flag_out_otherwise(tmp_path):
    recording = made([("quick", "Q.", "go", "Tip."), ("slow", "S.", "go", "never")])
    slow = replace(recording.model_calls[1], responses=(), unanswered=True)
    recording = replace(recording, model_calls=(recording.model_calls[0], slow))
    data = recording.to_dict()
    assert [c.get("unanswered") for c in data["model_calls"]] == [None, True]
    for suffix in (".json", ".jsonl"):
        assert Recording.load(recording.save(tmp_path / f"r{suffix}")) == recording


async def test_calls_of_one_agent_at_once_each_get_the_recorded_call_with_their_request():
    backend = ReplayerBackend(
        made(
            [
                ("each", "Summarise Lyon.", "go", "Lyon."),
                ("each", "Summarise Paris.", "go", "Paris."),
            ]
        )
    )
    assert (await ask(backend, "each", "Summarise Paris.", "go"))[0].content.parts[0].text == (
        "Paris."
    )
    assert (await ask(backend, "each", "Summarise Lyon.", "go"))[0].content.parts[0].text == "Lyon."
    assert backend.mismatches == []
