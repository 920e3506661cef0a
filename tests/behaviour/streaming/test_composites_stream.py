"""Partial events through every composite, on both ADK ends: `stream(..., streaming="sse")`
delivers the user-facing agent's partials, in order and before its final event; internal
agents' partials are kept from the client in filtered mode and annotated in annotated mode;
a plain ADK Runner in filtered mode puts no internal partial text in any client payload; and
the store (SQLite, reloaded) holds exactly what the same run without streaming stores.

Every internal agent's text contains "zq" and no user-facing text does, so a leak is a
substring away from being caught.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from adk_fluent import Agent, ExecutionConfig, Loop, Route, S, map_over, race, timeout, until
from adk_fluent.testing import streamed
from tests.behaviour.streaming.streams import (
    fluent_turn,
    is_partial,
    payload,
    record,
    runner_turn,
    streams,
    text_of,
)
from tests.conftest import system_instruction

GAP = 0.005  # seconds before each chunk: enough for concurrent streams to interleave
SECRET = "zq"  # in every internal agent's text, in no user-facing one


def chunks(*parts: str, gap: float = GAP, error: BaseException | None = None) -> Any:
    return streamed(*parts, gap=gap, error=error)


def summarise(request: Any) -> Any:
    """The map_over body's answer: its item, streamed in two chunks."""
    doc = system_instruction(request).split("Summarise: ", 1)[1].split("\n", 1)[0]
    return chunks(f"zq-{doc}1 ", f"zq-{doc}2")


@dataclass(frozen=True)
class Case:
    """A composite in a small pipeline: its scripts (made afresh per run), the user-facing
    agents whose partials must reach the client and end in a final, the internal agents that
    stream, and the agents whose partials end without a final (a loser, a failed child)."""

    id: str
    build: Callable[[], Any]
    scripts: Callable[[], dict[str, Any]]
    users: tuple[str, ...]
    internal: tuple[str, ...]
    unfinished: tuple[str, ...] = field(default=())


def _map_case(concurrency: int) -> Case:
    return Case(
        f"map_over_{concurrency}",
        lambda: (
            S.set(docs=["a", "b", "c"])
            >> map_over(
                "docs",
                Agent("summariser").instruct("Summarise: {doc}").outputs("summary"),
                item_key="doc",
                output_key="summaries",
                concurrency=concurrency,
            )
            >> Agent("reporter").instruct("Report on {summaries}")
        ),
        lambda: {"summariser": [summarise] * 3, "reporter": chunks("Report ", "ready.")},
        ("reporter",),
        ("summariser",),
    )


CASES = [
    Case(
        "sequence",
        lambda: (
            Agent("reader").outputs("notes")
            >> Agent("planner").instruct("Plan from {notes}").outputs("plan")
            >> Agent("writer").instruct("Write from {plan}")
        ),
        lambda: {
            "reader": chunks("zq-r1 ", "zq-r2"),
            "planner": chunks("zq-p1 ", "zq-p2"),
            "writer": chunks("Dear ", "reader, ", "hello."),
        },
        ("writer",),
        ("reader", "planner"),
    ),
    Case(
        "fanout",
        lambda: (
            (Agent("west").outputs("w") | Agent("east").outputs("e"))
            >> Agent("joiner").instruct("Join {w} and {e}")
        ),
        lambda: {
            "west": chunks("zq-w1 ", "zq-w2 ", "zq-w3"),
            "east": chunks("zq-e1 ", "zq-e2 ", "zq-e3"),
            "joiner": chunks("Both ", "sides ", "joined."),
        },
        ("joiner",),
        ("west", "east"),
    ),
    Case(
        "fanout_last",
        lambda: Agent("intake").outputs("topic") >> (Agent("west") | Agent("east")),
        lambda: {
            "intake": chunks("zq-i1 ", "zq-i2"),
            "west": chunks("From ", "the ", "west."),
            "east": chunks("From ", "the ", "east."),
        },
        ("west", "east"),
        ("intake",),
    ),
    Case(
        "route",
        lambda: (
            Agent("classifier").outputs("intent")
            >> Route("intent").contains("booking", Agent("reserver")).otherwise(Agent("helper"))
        ),
        lambda: {
            "classifier": chunks("zq-label ", "booking"),
            "reserver": chunks("Booked ", "your ", "room."),
        },
        ("reserver",),
        ("classifier",),
    ),
    Case(
        "loop",
        lambda: (
            Loop(
                Agent("drafter").outputs("draft"),
                Agent("critic").instruct("Judge {draft}").outputs("notes"),
                max_iterations=2,
            )
            >> Agent("editor").instruct("Edit {draft} with {notes}")
        ),
        lambda: {
            "drafter": [chunks("zq-d1 ", "zq-d2"), chunks("zq-d3 ", "zq-d4")],
            "critic": [chunks("zq-c1 ", "zq-c2"), chunks("zq-c3 ", "zq-c4")],
            "editor": chunks("Final ", "text."),
        },
        ("editor",),
        ("drafter", "critic"),
    ),
    Case(
        "loop_until",
        lambda: (
            (Agent("drafter").outputs("draft") * until(lambda s: "zq-d4" in s.get("draft", "")))
            >> Agent("editor").instruct("Edit {draft}")
        ),
        lambda: {
            "drafter": [chunks("zq-d1 ", "zq-d2"), chunks("zq-d3 ", "zq-d4")],
            "editor": chunks("Final ", "text."),
        },
        ("editor",),
        ("drafter",),
    ),
    Case(
        "fallback",
        lambda: Agent("intake").outputs("topic") >> (Agent("primary") // Agent("backup")),
        lambda: {
            "intake": chunks("zq-i1 ", "zq-i2"),
            "primary": chunks("Let ", "me ", "think", error=RuntimeError("model down")),
            "backup": chunks("Backup ", "answer."),
        },
        ("backup",),
        ("intake",),
        ("primary",),
    ),
    Case(
        "timeout",
        lambda: Agent("intake").outputs("topic") >> timeout(Agent("answerer"), 30),
        lambda: {
            "intake": chunks("zq-i1 ", "zq-i2"),
            "answerer": chunks("In ", "good ", "time."),
        },
        ("answerer",),
        ("intake",),
    ),
    Case(
        "race",
        lambda: Agent("intake").outputs("topic") >> race(Agent("fast"), Agent("slow")),
        lambda: {
            "intake": chunks("zq-i1 ", "zq-i2"),
            "fast": chunks("Fast ", "answer."),
            # its first chunk comes after the race is over: no partial of it reaches anyone
            "slow": chunks("Slow ", "answer.", gap=5),
        },
        ("fast",),
        ("intake",),
    ),
    Case(
        "race_internal",
        lambda: (
            race(Agent("fast").outputs("answer"), Agent("slow").outputs("answer"))
            >> Agent("teller").instruct("Tell {answer}")
        ),
        lambda: {
            "fast": chunks("zq-f1 ", "zq-f2"),
            "slow": chunks("zq-s1 ", "zq-s2 ", "zq-s3 ", "zq-s4", gap=0.2),
            "teller": chunks("Here ", "it ", "is."),
        },
        ("teller",),
        ("fast",),
        ("slow",),
    ),
    _map_case(1),
    _map_case(2),
]
IDS = [case.id for case in CASES]


def _check_user_streams(case: Case, client: list[Any], *, filtered: bool) -> None:
    finals, leftover = streams(client)
    for user in case.users:  # each streamed, in order, before its final
        assert finals.get(user), f"{user}: no partials led up to a final"
    assert set(leftover) <= set(case.unfinished) | set(case.internal), leftover
    for event in client:
        text = text_of(event) or ""
        if event.author in case.users:
            assert SECRET not in text
        if filtered:
            assert SECRET not in text, (event.author, text)  # no internal text, partial or not


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_user_facing_partials_stream_and_internal_ones_are_filtered(case, sqlite_url):
    turn = await fluent_turn(
        case.build().filtered(), case.scripts(), sqlite_url, "f", streaming="sse"
    )
    _check_user_streams(case, turn.client, filtered=True)
    assert not [e for e in turn.client if e.author in case.internal and e.content]
    assert any(e.is_partial for e in turn.client)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_annotated_mode_sends_internal_partials_annotated(case, sqlite_url):
    turn = await fluent_turn(case.build(), case.scripts(), sqlite_url, "a", streaming="sse")
    _check_user_streams(case, turn.client, filtered=False)
    finals, _ = streams(turn.client)
    for agent in case.internal:
        partials = [e for e in turn.client if e.author == agent and e.is_partial and e.content]
        assert partials, f"{agent}: no partial reached the client"
        assert {e.visibility for e in partials} == {"internal"}
        assert {e.metadata["adk_fluent.visibility"] for e in partials} == {"internal"}
        assert finals.get(agent), f"{agent}: its partials led to no final"
    for user in case.users:
        assert {e.visibility for e in turn.client if e.author == user and e.is_partial} == {"user"}


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_the_store_holds_what_the_run_without_streaming_stores(case, sqlite_url):
    streaming = await fluent_turn(case.build(), case.scripts(), sqlite_url, "sse", streaming="sse")
    plain = await fluent_turn(case.build(), case.scripts(), sqlite_url, "plain")
    assert not any(e.is_partial for e in plain.client)  # the reference run did not stream
    assert not any(e.partial for e in streaming.stored)  # no partial is ever stored
    assert record(streaming.stored) == record(plain.stored)  # nothing lost, nothing added
    assert streaming.state == plain.state
    for agent in case.unfinished:  # what failed or lost left nothing behind
        assert agent not in {e.author for e in streaming.stored}


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_a_plain_runner_keeps_internal_partials_from_every_payload(case, sqlite_url):
    turn = await runner_turn(case.build().filtered(), case.scripts(), sqlite_url, "r")
    for event in turn.client:
        assert SECRET not in payload(event), (event.author, event.partial)
    finals, leftover = streams(turn.client)
    for user in case.users:
        assert finals.get(user), f"{user}: no partials led up to a final"
    assert set(leftover) <= set(case.unfinished), leftover
    assert any(e.partial for e in turn.client)
    # the store holds every event whole (filtered text set aside, restored here)
    reference = await fluent_turn(case.build(), case.scripts(), sqlite_url, "ref")
    assert not any(e.partial for e in turn.stored)
    assert record(turn.stored) == record(reference.stored)
    assert turn.state == reference.state


async def test_the_config_switches_streaming_and_filtering_on_as_the_arguments_do(sqlite_url):
    case = CASES[0]
    config = ExecutionConfig(streaming_mode="sse", visibility="filtered")
    by_config = await fluent_turn(case.build(), case.scripts(), sqlite_url, "c", config=config)
    by_arguments = await fluent_turn(
        case.build().filtered(), case.scripts(), sqlite_url, "a", streaming="sse"
    )
    shown = [(e.author, e.content, e.is_partial) for e in by_config.client]
    assert shown == [(e.author, e.content, e.is_partial) for e in by_arguments.client]
    assert [text for author, text, partial in shown if partial] == ["Dear ", "reader, ", "hello."]
    # streaming="none" turns it off for one turn, whatever the config says
    off = await fluent_turn(
        case.build(), case.scripts(), sqlite_url, "o", config=config, streaming="none"
    )
    assert not any(is_partial(e) for e in off.client)
    assert [e.content for e in off.client if e.content] == ["Dear reader, hello."]
