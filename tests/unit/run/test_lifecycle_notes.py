"""How the engine turns the visibility plugin's notes into lifecycle events (run/lifecycle.py,
pure: no Runner): in order, each start with one end, an agent's unreported end closed with the
agent around it or with the turn, a Workflow root reported once, notes after the turn ignored."""

from __future__ import annotations

from adk_fluent.run.lifecycle import Lifecycle


def marks(path: str, depth: int = 0) -> dict:
    return {"adk_fluent.path": path, "adk_fluent.depth": depth}


def note(lifecycle: Lifecycle, state: str, path: str, invocation: str = "i1") -> None:
    name = path.rsplit("/", 1)[-1]
    lifecycle.states.notes.append((state, name, marks(path), invocation, 1.0))


def seen(events) -> list[tuple[str, str]]:
    return [(e.agent_state, e.author) for e in events]


def test_notes_become_events_in_order_with_the_agents_annotations():
    lifecycle = Lifecycle()
    note(lifecycle, "started", "p")
    note(lifecycle, "started", "p/a")
    events = lifecycle.pending()
    assert seen(events) == [("started", "p"), ("started", "a")]
    assert events[1].metadata == marks("p/a") and events[1].invocation_id == "i1"
    assert events[1].raw is None and not events[1].is_final and events[1].content is None
    assert lifecycle.pending() == []  # handed over once
    note(lifecycle, "ended", "p/a")
    note(lifecycle, "ended", "p")
    assert seen(lifecycle.pending()) == [("ended", "a"), ("ended", "p")]
    assert lifecycle.close() == []


def test_an_end_closes_the_agents_still_open_inside_it_first():
    lifecycle = Lifecycle()
    for path in ("p", "p/race", "p/race/fast", "p/race/slow"):
        note(lifecycle, "started", path)
    note(lifecycle, "ended", "p/race/fast")
    note(lifecycle, "ended", "p/race")  # the loser was cancelled: ADK reported no end
    assert seen(lifecycle.pending())[-3:] == [
        ("ended", "fast"),
        ("ended", "slow"),
        ("ended", "race"),
    ]


def test_concurrent_siblings_are_not_closed_by_each_other():
    lifecycle = Lifecycle()
    for path in ("p", "p/fan", "p/fan/north", "p/fan/south"):
        note(lifecycle, "started", path)
    note(lifecycle, "ended", "p/fan/north")
    assert seen(lifecycle.pending())[-1] == ("ended", "north")
    note(lifecycle, "ended", "p/fan/south")
    assert seen(lifecycle.pending()) == [("ended", "south")]


def test_the_turns_end_closes_what_is_still_open_innermost_first():
    lifecycle = Lifecycle()
    for path in ("p", "p/a", "p/gate"):
        note(lifecycle, "started", path)
    note(lifecycle, "ended", "p/a")
    lifecycle.pending()
    assert seen(lifecycle.close()) == [("ended", "gate"), ("ended", "p")]
    assert lifecycle.states.open is False  # the plugin notes nothing more for this turn


def test_an_end_without_a_start_or_from_another_invocation_is_dropped():
    lifecycle = Lifecycle()
    note(lifecycle, "started", "a", "i1")
    note(lifecycle, "ended", "a", "i2")
    note(lifecycle, "ended", "b", "i1")
    assert seen(lifecycle.pending()) == [("started", "a")]
    assert seen(lifecycle.close()) == [("ended", "a")]


def test_a_workflow_root_starts_with_the_first_note_once_and_ends_with_the_turn():
    lifecycle = Lifecycle(("flow", marks("flow")))
    assert lifecycle.pending() == []
    note(lifecycle, "started", "flow")  # an agent of the root's name inside the graph
    note(lifecycle, "started", "flow/a")
    note(lifecycle, "ended", "flow/a")
    note(lifecycle, "ended", "flow")
    assert seen(lifecycle.pending()) == [("started", "flow"), ("started", "a"), ("ended", "a")]
    assert seen(lifecycle.close()) == [("ended", "flow")]


def test_a_transfer_on_a_graph_ends_the_agent_that_transferred():
    class Actions:
        transfer_to_agent = "helper"

    class Event:
        author, invocation_id, actions = "desk", "i1", Actions()

    lifecycle = Lifecycle(("flow", marks("flow")))
    note(lifecycle, "started", "flow/desk")
    lifecycle.pending()
    lifecycle.transferred(Event())
    note(lifecycle, "started", "flow/desk/helper")
    assert seen(lifecycle.pending()) == [("ended", "desk"), ("started", "helper")]
