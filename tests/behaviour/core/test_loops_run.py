"""Loops through the real Runner: `(a >> b) * n` is ADK's flat LoopAgent(sub_agents=[a, b]);
`Loop(a, b)` without a maximum ends when a step escalates (ADK's exit_loop tool called by a
scripted model, or a custom checker agent); `until(pred, name=...)` names the check that ends
the loop; `exit_when(pred)` ends it between two steps; `until(max=None)` has no limit."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent, LoopAgent
from google.adk.events import Event, EventActions
from google.adk.tools import exit_loop

from adk_fluent import Agent, Loop, Pipeline, exit_when, until
from adk_fluent.testing import call, mock_backend
from tests.conftest import system_instruction


def drafter() -> Agent:
    return Agent("drafter").instruct("Draft a haiku.").outputs("draft")


def critic() -> Agent:
    return Agent("critic").instruct("Judge: {draft}. Reply 'good' or 'again'.").outputs("verdict")


def authors(events) -> list[str]:
    return [e.author for e in events]


async def test_pipeline_times_n_is_a_flat_loop_agent_that_runs_n_iterations():
    loop = (drafter() >> critic()) * 3
    native = loop.build(target="classic")
    assert type(native) is LoopAgent and native.max_iterations == 3
    assert [type(s).__name__ for s in native.sub_agents] == ["LlmAgent", "LlmAgent"]
    assert [s.name for s in native.sub_agents] == ["drafter", "critic"]
    backend = mock_backend({"drafter": ["d1", "d2", "d3"], "critic": ["c1", "c2", "c3"]})
    events = await loop.run("Autumn", backend=backend)
    backend.assert_consumed()
    assert authors(events) == ["drafter", "critic"] * 3
    # the second round's critic judged the second round's draft
    assert "Judge: d2." in system_instruction(backend.requests["critic"][1])


async def test_loop_without_max_ends_when_a_step_calls_adks_exit_loop():
    loop = Loop(drafter(), critic().tool(exit_loop))
    assert loop.build(target="classic").max_iterations is None
    backend = mock_backend({"drafter": ["d1", "d2"], "critic": ["again", call("exit_loop")]})
    events = await loop.run("Winter", backend=backend)
    backend.assert_consumed()  # no third draft
    assert [(e.author, e.escalate) for e in events] == [
        ("drafter", False),
        ("critic", False),
        ("drafter", False),
        ("critic", False),  # the call to exit_loop
        ("critic", True),  # its response escalates: ADK's loop stops
    ]
    assert events[-2].tool_calls[0].tool_name == "exit_loop"


class GoodEnough(BaseAgent):
    """A checker agent, as a native ADK app would write one: escalates on a good verdict."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        if ctx.session.state.get("verdict") == "good":
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
                actions=EventActions(escalate=True),
            )


async def test_loop_without_max_ends_when_a_custom_checker_escalates():
    loop = Loop(drafter(), critic(), GoodEnough(name="good_enough"))
    backend = mock_backend({"drafter": ["d1", "d2"], "critic": ["again", "good"]})
    events = await loop.run("Spring", backend=backend)
    backend.assert_consumed()
    assert [(e.author, e.escalate) for e in events] == [
        ("drafter", False),
        ("critic", False),
        ("drafter", False),
        ("critic", False),
        ("good_enough", True),
    ]


async def test_a_named_until_is_the_author_of_the_event_that_ends_the_loop():
    loop = (drafter() >> critic()) * until(lambda s: s.get("verdict") == "good", name="approved")
    assert [s.name for s in loop.build(target="classic").sub_agents] == [
        "drafter",
        "critic",
        "approved",
    ]
    backend = mock_backend({"drafter": ["d1", "d2"], "critic": ["again", "good"]})
    events = await loop.run("Summer", backend=backend)
    backend.assert_consumed()
    assert [(e.author, e.escalate) for e in events] == [
        ("drafter", False),
        ("critic", False),
        ("drafter", False),
        ("critic", False),
        ("approved", True),
    ]


async def test_exit_when_between_two_steps_stops_the_loop_before_the_second():
    loop = (
        drafter()
        >> exit_when(lambda s: s.get("draft") == "perfect", name="draft_is_perfect")
        >> critic()
    ) * 5
    assert [s.name for s in loop.build(target="classic").sub_agents] == [
        "drafter",
        "draft_is_perfect",
        "critic",
    ]
    backend = mock_backend({"drafter": ["rough", "perfect"], "critic": ["again"]})
    events = await loop.run("Rain", backend=backend)
    backend.assert_consumed()
    assert [(e.author, e.escalate) for e in events] == [
        ("drafter", False),
        ("critic", False),
        ("drafter", False),
        ("draft_is_perfect", True),
    ]
    assert len(backend.requests["critic"]) == 1  # the critic's model was not called again


async def test_exit_when_in_a_loop_without_max():
    loop = Loop(drafter(), exit_when(lambda s: s.get("draft") == "perfect"), critic())
    assert loop.build(target="classic").max_iterations is None
    backend = mock_backend({"drafter": ["a", "b", "perfect"], "critic": ["again", "again"]})
    events = await loop.run("Snow", backend=backend)
    backend.assert_consumed()
    assert authors(events) == ["drafter", "critic"] * 2 + ["drafter", "exit_when"]


async def test_exit_when_inside_a_named_step_ends_the_loop_once_that_step_finishes():
    """ADK stops a loop after the loop step that escalated: the rest of a named sub-pipeline
    still runs, the loop's next step does not (docs/primitives.md says so)."""
    body = Pipeline(drafter(), exit_when(lambda s: s.get("draft") == "perfect"), critic())
    loop = Loop(body.named("round"), Agent("closer").instruct("Close."), max_iterations=3)
    backend = mock_backend({"drafter": ["perfect"], "critic": ["fine"]})
    events = await loop.run("Fog", backend=backend)
    backend.assert_consumed()  # the closer was never called
    assert authors(events) == ["drafter", "exit_when", "critic"]


@pytest.mark.parametrize("limit", [None, 2])
async def test_until_with_max_none_has_no_limit(limit):
    loop = (drafter() >> critic()) * until(lambda s: s.get("verdict") == "good", max=limit)
    assert loop.build(target="classic").max_iterations == limit
    rounds = 4  # more than the limit of 2
    backend = mock_backend(
        {"drafter": [f"d{i}" for i in range(rounds)], "critic": ["again"] * 3 + ["good"]}
    )
    events = await loop.run("Wind", backend=backend)
    if limit is None:
        backend.assert_consumed()
        assert authors(events) == ["drafter", "critic"] * rounds + ["loop__drafter__critic__until"]
    else:
        assert authors(events) == ["drafter", "critic"] * limit
        assert len(backend.requests["drafter"]) == limit


async def test_a_loop_inside_an_agent_tool_ends_in_its_sub_run_and_the_callers_loop_goes_on():
    polish = Loop(
        Agent("polisher").instruct("Polish.").outputs("text"),
        exit_when(lambda s: s.get("text") == "shiny", name="shiny"),
        name="polish",
    )
    outer = Loop(
        Agent("lead").instruct("Polish, then report.").tool(polish),
        Agent("reporter").instruct("Report."),
        max_iterations=2,
    )
    backend = mock_backend(
        {
            "lead": [call("polish", request="a"), "L1", call("polish", request="b"), "L2"],
            "polisher": ["dull", "shiny", "shiny"],
            "reporter": ["R1", "R2"],
        }
    )
    events = await outer.run("go", backend=backend)
    backend.assert_consumed()  # both outer iterations ran: the inner escalation stayed inside
    # (run() passes the tool's own events on, marked with its call: they are not the loop's)
    turn = [e for e in events if e.parent_call_id is None]
    assert not any(e.escalate for e in turn)
    assert [e.content for e in turn if e.content] == ["L1", "R1", "L2", "R2"]
    responses = [
        p.function_response.response
        for c in backend.requests["lead"][1].contents
        for p in c.parts
        if p.function_response
    ]
    assert responses == [{"result": "shiny"}]
