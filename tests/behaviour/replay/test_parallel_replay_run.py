"""Record and replay of runs whose parts run at once (issue 43, item 3), through the real Runner
on both ADK ends: a FanOut whose second branch finished first, a race won by its second
alternative while the first was still waiting for its model, and a concurrent map_over whose
second item was answered first. Each is recorded with scripted models whose order is made
certain (a step waits until the other's answer has come: no timing), saved, loaded and replayed
from the file: the replay passes with no mismatch, the client receives the same events, the
store holds the same session and the two recordings do not differ. A pipeline that did change
still fails, naming the changed agent, with the hint that it changed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adk_fluent import Agent, ExecutionConfig, FanOut
from adk_fluent.api.control import map_over, race
from adk_fluent.errors import ReplayMismatchError
from adk_fluent.middleware import Middleware
from adk_fluent.replay import Recorder, Recording, ReplayerBackend, diff_events
from adk_fluent.testing import call, mock_backend
from tests.behaviour.replay.trip import client_view, stored, the_error

SESSION = "trip-1"
TURNS = ("Plan a trip to Paris", "And one to Rome")


@pytest.fixture
def second_url(db_dir):
    """A second SQLite store for the replayed run."""
    return f"sqlite:///{db_dir / 'replayed.db'}"


class Replies(Middleware):
    """Counts each agent's whole replies as the Runner emits them, so a scripted step can wait
    for another agent's reply to have reached the session: a FanOut's order made certain."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}
        self._changed: asyncio.Event | None = None

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> None:
        if not event.partial and event.content is not None:
            self.counts[event.author] = self.counts.get(event.author, 0) + 1
            if self._changed is not None:
                self._changed.set()

    def after(self, agent: str, count: int, answer: Any) -> Any:
        """A script step answering `answer` once `agent` has sent `count` replies."""

        async def step(request: Any) -> Any:
            while self.counts.get(agent, 0) < count:
                self._changed = asyncio.Event()
                await self._changed.wait()
            return answer

        return step


def lookup(city: str) -> dict:
    """Look up what a city offers."""
    return {"city": city, "sights": 3}


async def run_turns(pipeline: Any, backend: Any, store: str | None, middleware=()) -> tuple:
    """Both turns with a Recorder; the recording and each turn's client events."""
    recorder = Recorder(tree=pipeline)
    config = ExecutionConfig(middleware=[recorder, *middleware])
    turns = [
        await pipeline.run(
            prompt, backend=backend, config=config, session_id=SESSION, session_store=store
        )
        for prompt in TURNS
    ]
    return recorder.recording(), turns


async def replayed_from_file(pipeline: Any, recording: Recording, path: Any, store: str, **options):
    """Save, load, and replay both turns from the file; the backend, recording and turns."""
    backend = ReplayerBackend(Recording.load(recording.save(path)), **options)
    replayed, turns = await run_turns(pipeline, backend, store)
    return backend, replayed, turns


def assert_same_run(recorded_turns, replayed_turns, recording, replayed, backend) -> None:
    for before, after in zip(recorded_turns, replayed_turns, strict=True):
        assert [client_view(e) for e in after] == [client_view(e) for e in before]
    diff = diff_events(recording, replayed)
    assert diff.empty, str(diff)
    assert backend.mismatches == []
    backend.assert_consumed()


# -- FanOut ---------------------------------------------------------------------------------
def fanout_trip(critic: str = "Criticise the plan: {plan}.") -> Any:
    return (
        Agent("planner").instruct("Plan the trip.").outputs("plan")
        >> FanOut(
            Agent("writer").instruct("Write up the plan: {plan}.").outputs("draft"),
            Agent("critic").instruct(critic).tool(lookup).outputs("critique"),
        ).named("report")
        >> Agent("editor").instruct("Edit the report.")
    ).named("trip")


def fanout_scripts(replies: Replies) -> dict[str, list[Any]]:
    # the writer answers only once the critic's whole reply of the turn is in the session:
    # the second branch finishes first (the critic has 3 replies a turn: its call, the tool's
    # result, its text)
    return {
        "planner": ["Paris, 3 days.", "Rome, 2 days."],
        "writer": [
            replies.after("critic", 3, "Day 1: the Louvre."),
            replies.after("critic", 6, "Day 1: the Forum."),
        ],
        "critic": [
            call("lookup", city="Paris"),
            "Too packed.",
            call("lookup", city="Rome"),
            "Fine.",
        ],
        "editor": ["Paris report.", "Rome report."],
    }


def branch_order(events) -> list[str]:
    return [e.author for e in events if e.author in ("writer", "critic") and e.content]


async def test_a_fanout_whose_second_branch_finished_first_replays(
    tmp_path, sqlite_url, second_url
):
    replies = Replies()
    backend = mock_backend(fanout_scripts(replies))
    recording, recorded_turns = await run_turns(fanout_trip(), backend, sqlite_url, [replies])
    # the critic (declared second) finished first in both turns, and the editor saw it so
    assert branch_order(recorded_turns[0]) == ["critic", "writer"]
    editor_request = recording.calls_of("editor")[0].request
    seen = " ".join(part.get("text", "") for c in editor_request["contents"] for part in c["parts"])
    assert seen.index("Too packed.") < seen.index("Day 1: the Louvre.")

    replayer, replayed, replayed_turns = await replayed_from_file(
        fanout_trip(), recording, tmp_path / "fanout.jsonl", second_url
    )
    assert_same_run(recorded_turns, replayed_turns, recording, replayed, replayer)
    assert await stored(second_url) == await stored(sqlite_url)
    events, state = await stored(second_url)
    assert state["critique"] == "Fine." and state["draft"] == "Day 1: the Forum."


async def test_a_changed_fanout_branch_still_fails_naming_it_and_skip_does_not_hang(tmp_path):
    replies = Replies()
    recording, _ = await run_turns(
        fanout_trip(), mock_backend(fanout_scripts(replies)), None, [replies]
    )
    changed = fanout_trip(critic="Criticise the plan harshly: {plan}.")
    with pytest.raises(BaseException) as caught:
        await changed.run(TURNS[0], backend=ReplayerBackend(recording), session_id=SESSION)
    error = the_error(caught.value, ReplayMismatchError)
    assert error is not None, caught.value
    assert (error.agent, error.call) == ("critic", 1)
    assert "instruction changed" in str(error)
    assert "the pipeline changed since it was recorded" in error.hint

    # skipping, the writer (which waits for the critic's replies) is not left waiting
    skipping = ReplayerBackend(recording, on_mismatch="skip")
    for prompt in TURNS:
        await changed.run(prompt, backend=skipping, session_id=SESSION)
    assert [(m.agent, m.call) for m in skipping.mismatches] == [("critic", n) for n in (1, 2, 3, 4)]


def first_complete_trip() -> Any:
    return (
        FanOut(
            Agent("thorough").instruct("Research thoroughly.").tool(lookup).outputs("tip"),
            Agent("quick").instruct("Give a quick tip.").outputs("tip"),
        )
        .named("tips")
        .first_complete()
        >> Agent("editor").instruct("Polish the tip: {tip}.")
    ).named("trip")


async def test_a_fanout_ended_by_its_second_branch_replays(tmp_path, sqlite_url, second_url):
    # the same scripts as the race's: the first branch is cut short waiting for its model
    recording, recorded_turns = await run_turns(
        first_complete_trip(), mock_backend(race_scripts()), sqlite_url
    )
    assert [c.unanswered for c in recording.calls_of("thorough")] == [False, True, False, True]
    replayer, replayed, replayed_turns = await replayed_from_file(
        first_complete_trip(), recording, tmp_path / "first.jsonl", second_url
    )
    assert_same_run(recorded_turns, replayed_turns, recording, replayed, replayer)
    assert await stored(second_url) == await stored(sqlite_url)
    # what the cut-short branch did before it was cut short stays in the session, both times
    events, _ = await stored(second_url)
    assert sum(1 for author, parts, *_ in events if author == "thorough" and parts) == 4


# -- race -----------------------------------------------------------------------------------
def race_trip() -> Any:
    return (
        race(
            Agent("thorough").instruct("Research thoroughly.").tool(lookup).outputs("tip"),
            Agent("quick").instruct("Give a quick tip.").outputs("tip"),
            name="tips",
        )
        >> Agent("editor").instruct("Polish the tip: {tip}.")
    ).named("trip")


def race_scripts() -> dict[str, list[Any]]:
    # the thorough alternative (declared first) looks a city up, then asks its model again;
    # the quick one answers once that second call is waiting, wins, and the thorough one is
    # cancelled while it waits for its model (its second call is recorded unanswered)
    asked = asyncio.Event()

    async def waits_forever(request: Any) -> Any:
        asked.set()
        await asyncio.Event().wait()

    async def once_asked(answer: str) -> Any:
        await asked.wait()
        asked.clear()
        return answer

    return {
        "thorough": [call("lookup", city="Paris"), waits_forever] * 2,
        "quick": [lambda r: once_asked("See the Louvre."), lambda r: once_asked("See the Forum.")],
        "editor": ["Louvre tip.", "Forum tip."],
    }


@pytest.mark.parametrize("on_mismatch", ["error", "skip"])
async def test_a_race_won_by_its_second_alternative_replays(
    on_mismatch, tmp_path, sqlite_url, second_url
):
    recording, recorded_turns = await run_turns(
        race_trip(), mock_backend(race_scripts()), sqlite_url
    )
    assert [e.author for e in recorded_turns[0] if e.content] == ["quick", "editor"]
    assert [len(c.responses) for c in recording.calls_of("thorough")] == [1, 0, 1, 0]

    replayer, replayed, replayed_turns = await replayed_from_file(
        race_trip(), recording, tmp_path / "race.json", second_url, on_mismatch=on_mismatch
    )
    assert_same_run(recorded_turns, replayed_turns, recording, replayed, replayer)
    assert await stored(second_url) == await stored(sqlite_url)
    # the thorough alternative's second call of each turn was cut short waiting for its model,
    # when recorded and when replayed: in its place among the calls, marked unanswered
    for made in (recording, replayed):
        thorough = made.calls_of("thorough")
        assert [c.unanswered for c in thorough] == [False, True, False, True]


# -- map_over -------------------------------------------------------------------------------
def map_trip() -> Any:
    return (
        map_over(
            "cities",
            Agent("summariser").instruct("Summarise {city}.").outputs("summary"),
            item_key="city",
            output_key="summaries",
            concurrency=2,
            name="each",
        )
        >> Agent("editor").instruct("Join {summaries}.")
    ).named("trip")


CITIES = (["Paris", "Lyon"], ["Rome", "Milan"])  # per turn: the first item, the second


def map_scripts() -> dict[str, list[Any]]:
    # a first item's answer comes only once the second item's has: the second is answered
    # first, and the items' events still reach the session in item order
    second_answered = {first: asyncio.Event() for first, _ in CITIES}

    async def summarise(request: Any) -> Any:
        instruction = str(request.config.system_instruction)
        for first, second in CITIES:
            if f"Summarise {second}." in instruction:
                second_answered[first].set()
                return f"{second} in brief."
            if f"Summarise {first}." in instruction:
                await second_answered[first].wait()
                return f"{first} in brief."
        raise AssertionError(instruction)

    return {"summariser": [summarise] * 4, "editor": ["Joined.", "Joined again."]}


async def test_a_concurrent_map_over_whose_second_item_was_answered_first_replays(
    tmp_path, sqlite_url, second_url
):
    pipeline = map_trip()
    recorder = Recorder(tree=pipeline)
    config = ExecutionConfig(middleware=[recorder])
    backend = mock_backend(map_scripts())
    recorded_turns = []
    for prompt, cities in zip(TURNS, CITIES, strict=True):
        recorded_turns.append(
            await pipeline.run(
                prompt,
                backend=backend,
                config=config,
                session_id=SESSION,
                session_store=sqlite_url,
                state={"cities": cities},
            )
        )
    recording = recorder.recording()
    texts = [c.text for c in recording.calls_of("summariser")]
    assert texts == ["Lyon in brief.", "Paris in brief.", "Milan in brief.", "Rome in brief."]

    replayer = ReplayerBackend(Recording.load(recording.save(tmp_path / "map.jsonl")))
    again = Recorder(tree=map_trip())
    replayed_turns = []
    for prompt, cities in zip(TURNS, CITIES, strict=True):
        replayed_turns.append(
            await map_trip().run(
                prompt,
                backend=replayer,
                config=ExecutionConfig(middleware=[again]),
                session_id=SESSION,
                session_store=second_url,
                state={"cities": cities},
            )
        )
    assert_same_run(recorded_turns, replayed_turns, recording, again.recording(), replayer)
    assert await stored(second_url) == await stored(sqlite_url)
    _, state = await stored(second_url)
    assert state["summaries"] == ["Rome in brief.", "Milan in brief."]
