"""Agent lifecycle events (issue 39): `run()` / `stream()` with `lifecycle=True` add an event
when each agent starts and ends (`AgentEvent.agent_state`, with the agent's depth and path), in
the client stream only: nothing is stored, the other events are unchanged, and without the
option there are none. Every start gets its end, nested, also when a step fails, a gate waits,
a race cancels its losers or a nested turn runs inside a stream."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Route, S, gate, race
from adk_fluent.errors import BuildError
from adk_fluent.testing import call, delay, mock_backend

PATH = "adk_fluent.path"


def flow():
    """A pipeline hands on to a route, whose branch delegates to a helper, then a FanOut."""
    return (
        Agent("intake").instruct("Label.").outputs("kind")
        >> S.set(seen=True)
        >> Route("kind").eq(
            "help",
            Agent("desk").instruct("Route.").delegate(Agent("helper").description("Helps.")),
        )
        >> (Agent("north").instruct("N.") | Agent("south").instruct("S."))
    )


def scripts():
    return {
        "intake": "help",
        "desk": call("transfer_to_agent", agent_name="helper"),
        "helper": "Helped.",
        "north": "n",
        "south": "s",
    }


async def turn(expression, backend, way="run", **options):
    if way == "run":
        return await expression.run("go", backend=backend, **options)
    return [event async for event in expression.stream("go", backend=backend, **options)]


def states(events, names):
    return [(e.agent_state, e.author) for e in events if e.agent_state and e.author in names]


def assert_nested(events):
    """Every start has one end after it, and an agent ends after every agent inside it."""
    running: list[str] = []
    for event in events:
        if event.agent_state == "started":
            running.append(event.metadata[PATH])
        elif event.agent_state == "ended":
            path = event.metadata[PATH]
            assert path in running, f"{event.author} ended without starting"
            assert not [p for p in running if p.startswith(f"{path}/")], f"inside {path}"
            running.reverse()
            running.remove(path)
            running.reverse()
    assert running == [], f"never ended: {running}"


def assert_inside(events, name):
    """The agent's own events come between its start and its end."""
    indexes = [i for i, e in enumerate(events) if e.author == name]
    started = [i for i in indexes if events[i].agent_state == "started"]
    ended = [i for i in indexes if events[i].agent_state == "ended"]
    own = [i for i in indexes if events[i].agent_state is None]
    assert started and ended and own, name
    assert started[0] < min(own) and max(own) < ended[-1], name


@pytest.mark.parametrize("way", ["run", "stream"])
async def test_each_agent_starts_and_ends_around_its_events(way):
    events = await turn(flow(), mock_backend(scripts()), way, lifecycle=True)
    assert_nested(events)
    for name in ("intake", "desk", "helper", "north", "south"):
        assert_inside(events, name)
    assert states(events, {"intake"}) == [("started", "intake"), ("ended", "intake")]
    # the whole pipeline is the first to start and the last to end
    root = flow().to_ir().name
    assert (events[0].agent_state, events[0].author) == ("started", root)
    assert (events[-1].agent_state, events[-1].author) == ("ended", root)
    helper = next(e for e in events if e.author == "helper" and e.agent_state == "started")
    assert helper.depth == 1 and helper.metadata[PATH] == f"{root}/route_kind/desk/helper"
    desk = next(e for e in events if e.author == "desk" and e.agent_state == "started")
    assert desk.depth == 0 and desk.visibility == "internal" and desk.raw is None
    assert not any(e.is_final for e in events if e.agent_state)


async def test_nothing_is_stored_and_the_other_events_are_unchanged():
    backend = mock_backend({name: [reply, reply] for name, reply in scripts().items()})
    plain = await flow().run("go", backend=backend, session_id="plain")
    marked = await flow().run("go", backend=backend, session_id="marked", lifecycle=True)
    assert not any(e.agent_state for e in plain)

    def seen(events):
        return [(e.author, e.content, e.state_delta) for e in events]

    assert seen([e for e in marked if e.agent_state is None]) == seen(plain)
    first = await flow().session("plain", backend=backend)
    second = await flow().session("marked", backend=backend)
    assert [e.author for e in second.events] == [e.author for e in first.events]


async def test_internal_agents_start_and_end_in_filtered_mode_too():
    pipeline = (Agent("intake").instruct("Label.").outputs("kind") >> Agent("answer")).filtered()
    backend = mock_backend({"intake": "help", "answer": "Here."})
    events = await pipeline.run("go", backend=backend, lifecycle=True)
    assert states(events, {"intake"}) == [("started", "intake"), ("ended", "intake")]
    assert not [e for e in events if e.author == "intake" and e.content]  # its text stays hidden


async def test_a_failed_step_ends_what_started_and_nothing_after_it_starts():
    pipeline = Agent("a").instruct("A.") >> S.guard(lambda s: False, "no") >> Agent("b")
    events = await pipeline.run("go", backend=mock_backend({"a": "1"}), lifecycle=True)
    assert_nested(events)
    assert any(e.error_code == "STATE_GUARD_FAILED" for e in events)
    assert not [e for e in events if e.author == "b"]


async def test_a_waiting_gate_ends_the_agents_of_the_turn():
    pipeline = Agent("a").instruct("A.").outputs("d") >> gate(True, "Send?", name="check")
    pipeline = pipeline >> Agent("b").instruct("B.")
    events = await pipeline.run("go", backend=mock_backend({"a": "1"}), lifecycle=True)
    assert_nested(events)
    assert states(events, {"check", "b"}) == [("started", "check"), ("ended", "check")]


async def test_a_race_loser_ends_inside_the_race():
    pipeline = race(Agent("fast").instruct("F."), Agent("slow").instruct("S.")) >> Agent("after")
    backend = mock_backend({"fast": "f", "slow": delay(0.5, "s"), "after": "x"})
    events = await pipeline.run("go", backend=backend, lifecycle=True)
    assert_nested(events)
    assert ("ended", "slow") in states(events, {"slow"})


async def test_an_agent_tools_agent_runs_one_level_below_its_caller():
    lead = Agent("lead").instruct("Answer.").tool(Agent("researcher").instruct("Research."))
    backend = mock_backend({"lead": [call("researcher", request="q"), "Done."], "researcher": "r"})
    events = await lead.run("go", backend=backend, lifecycle=True)
    assert_nested(events)
    assert states(events, {"lead", "researcher"}) == [
        ("started", "lead"),
        ("started", "researcher"),
        ("ended", "researcher"),
        ("ended", "lead"),
    ]
    researcher = next(e for e in events if e.author == "researcher")
    assert researcher.depth == 1 and researcher.metadata[PATH] == "lead/researcher"


async def test_a_turn_run_inside_a_stream_keeps_its_agents_to_itself():
    outer = Agent("first").instruct("1.") >> Agent("second").instruct("2.")
    inner = Agent("inner").instruct("I.")
    backend = mock_backend({"first": "1", "second": "2"})
    inner_backend = mock_backend({"inner": ["x", "y"]})
    received, inner_runs = [], []
    async for event in outer.stream("go", backend=backend, lifecycle=True):
        received.append(event)
        if event.author == "first" and event.content:
            inner_runs.append(await inner.run("go", backend=inner_backend))
            inner_runs.append(await inner.run("go", backend=inner_backend, lifecycle=True))
    assert not [e for e in received if e.author == "inner"]
    assert_nested(received)
    assert not any(e.agent_state for e in inner_runs[0])
    assert states(inner_runs[1], {"inner"}) == [("started", "inner"), ("ended", "inner")]


async def test_a_stream_left_early_leaves_the_next_turn_clean():
    pipeline = Agent("first").instruct("1.") >> Agent("second").instruct("2.")
    backend = mock_backend({"first": ["1", "1"], "second": ["2"]})
    async for event in pipeline.stream("go", backend=backend, lifecycle=True):
        if event.agent_state == "started" and event.author == "first":
            break
    events = await pipeline.run("go", backend=backend)
    assert not any(e.agent_state for e in events)


async def test_lifecycle_takes_true_or_false():
    with pytest.raises(BuildError, match="lifecycle"):
        Agent("a").stream("go", lifecycle="yes")  # type: ignore[arg-type]
