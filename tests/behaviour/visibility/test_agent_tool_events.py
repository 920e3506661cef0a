"""The events of agent tools' runs reach run()'s and stream()'s caller (issue 39): each run's
events, at any nesting, come before its call's result, annotated with their depth, path, the
function call that started the run (`parent_call_id`) and visibility `internal` unless `.show()`
made them user-facing; none of them is stored in the parent session (reloaded from SQLite);
filtered mode passes none of them, nor the lifecycle events of their agents. A plain Runner
streams none of them (ADK has no way for a plugin to add events to a Runner's stream). On both
ADK ends, through the real Runner with scripted models."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, AgentTool, ExecutionConfig
from adk_fluent.telemetry import cost_attribution, usage
from adk_fluent.testing import call, delay, mock_backend, with_usage

PATH = "adk_fluent.path"


def team(researcher: Any = None):
    """lead calls researcher, which calls fact_checker: two levels of agent tools."""
    fact_checker = Agent("fact_checker").instruct("Check.")
    researcher = researcher or Agent("researcher").instruct("Research.").tool(fact_checker)
    return Agent("intro").instruct("Greet.").outputs("hi") >> Agent("lead").instruct(
        "Answer."
    ).tool(researcher)


def scripts() -> dict[str, Any]:
    return {
        "intro": "Hi.",
        "lead": [call("researcher", request="rome"), "Rome is old."],
        "researcher": [call("fact_checker", request="753 BC?"), "Founded 753 BC."],
        "fact_checker": "Checked.",
    }


async def turn(expression, backend, way="run", **options) -> list[Any]:
    if way == "run":
        return await expression.run("Rome?", backend=backend, **options)
    return [event async for event in expression.stream("Rome?", backend=backend, **options)]


def seen(events) -> list[tuple[Any, ...]]:
    """(author, depth, visibility, what it said or did) of every event."""

    def said(e):
        if e.agent_state:
            return e.agent_state
        if e.tool_calls:
            return f"call {e.tool_calls[0].tool_name}"
        if e.tool_responses:
            return f"result {e.tool_responses[0].tool_name}"
        return e.content

    return [(e.author, e.depth, e.visibility, said(e)) for e in events]


def call_id(events, caller: str, tool: str) -> str:
    """The id of `caller`'s call of `tool`, as its event says."""
    return next(
        c.call_id for e in events if e.author == caller for c in e.tool_calls if c.tool_name == tool
    )


@pytest.mark.parametrize("way", ["run", "stream"])
async def test_each_runs_events_come_annotated_before_its_calls_result(way):
    events = await turn(team(), mock_backend(scripts()), way)
    assert seen(events) == [
        ("intro", 0, "internal", "Hi."),
        ("lead", 0, "user", "call researcher"),
        ("researcher", 1, "internal", "call fact_checker"),
        ("fact_checker", 2, "internal", "Checked."),
        ("researcher", 1, "internal", "result fact_checker"),
        ("researcher", 1, "internal", "Founded 753 BC."),
        ("lead", 0, "user", "result researcher"),
        ("lead", 0, "user", "Rome is old."),
    ]
    lead_call = call_id(events, "lead", "researcher")
    research_call = call_id(events, "researcher", "fact_checker")
    assert [e.parent_call_id for e in events] == [
        None,
        None,
        lead_call,
        research_call,
        lead_call,
        lead_call,
        None,  # the calling agent's own events are not the tool's
        None,
    ]
    # the tool's result answers the call its events name
    assert events[6].tool_responses[0].call_id == lead_call
    assert {e.metadata[PATH] for e in events if e.author == "fact_checker"} == {
        f"{team().to_ir().name}/lead/researcher/fact_checker"
    }
    # one turn: the tools' events carry its invocation id (their own runs' are on `raw`)
    assert {e.invocation_id for e in events} == {events[0].invocation_id}
    assert events[3].raw.invocation_id != events[0].invocation_id
    assert events[-1].content == "Rome is old."  # events[-1] is still the turn's answer


async def test_none_of_them_is_stored(sqlite_url):
    pipeline = team()
    events = await pipeline.run(
        "Rome?", backend=mock_backend(scripts()), session_id="s", session_store=sqlite_url
    )
    assert [e.author for e in events if e.parent_call_id] == [
        "researcher",
        "fact_checker",
        "researcher",
        "researcher",
    ]
    stored = await pipeline.session("s", session_store=sqlite_url, backend=mock_backend({}))
    authors = [e.author for e in stored.events]
    assert authors == ["user", "intro", "lead", "lead", "lead"]
    assert not any("adk_fluent.parent_call_id" in (e.custom_metadata or {}) for e in stored.events)


@pytest.mark.parametrize("way", ["run", "stream"])
async def test_filtered_mode_passes_none_of_them_nor_their_agents_starts_and_ends(way):
    events = await turn(team().filtered(), mock_backend(scripts()), way, lifecycle=True)
    assert not [e for e in events if e.parent_call_id is not None]
    assert {e.author for e in events} == {team().to_ir().name, "intro", "lead"}
    assert [e for e in events if e.agent_state is None][-1].content == "Rome is old."


@pytest.mark.parametrize("mode", ["annotated", "filtered"])
async def test_show_makes_a_tools_agent_user_facing_in_the_callers_stream(mode):
    shown = Agent("researcher").instruct("Research.").show()
    pipeline = Agent("lead").instruct("Answer.").tool(shown)
    backend = mock_backend(
        {"lead": [call("researcher", request="rome"), "Old."], "researcher": "R."}
    )
    events = await pipeline.run("Rome?", backend=backend, config=ExecutionConfig(visibility=mode))
    researcher = [(e.visibility, e.content) for e in events if e.author == "researcher"]
    assert researcher == [("user", "R.")]


async def test_lifecycle_their_agents_start_and_end_inside_the_call_marked_with_it():
    events = await turn(team(), mock_backend(scripts()), lifecycle=True)
    lead_call = call_id(events, "lead", "researcher")
    marks = [
        (e.author, e.agent_state, e.parent_call_id is not None)
        for e in events
        if e.agent_state and e.author in ("researcher", "fact_checker")
    ]
    assert marks == [
        ("researcher", "started", True),
        ("fact_checker", "started", True),
        ("fact_checker", "ended", True),
        ("researcher", "ended", True),
    ]
    start = next(i for i, e in enumerate(events) if e.agent_state and e.author == "researcher")
    result = next(i for i, e in enumerate(events) if e.author == "lead" and e.tool_responses)
    call_at = next(i for i, e in enumerate(events) if e.author == "lead" and e.tool_calls)
    assert call_at < start < result
    assert events[start].parent_call_id == lead_call and events[start].depth == 1
    assert events[start].visibility == "internal"


async def test_two_calls_in_one_reply_keep_their_own_ids():
    two = LlmResponse(
        content=types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(
                        id="c1", name="researcher", args={"request": "a"}
                    )
                ),
                types.Part(
                    function_call=types.FunctionCall(
                        id="c2", name="researcher", args={"request": "b"}
                    )
                ),
            ],
        )
    )
    pipeline = Agent("lead").instruct("Answer.").tool(Agent("researcher").instruct("R."))
    backend = mock_backend({"lead": [two, "Both."], "researcher": ["about a", "about b"]})
    events = await pipeline.run("go", backend=backend, lifecycle=True)
    replies = {
        e.content: e.parent_call_id for e in events if e.author == "researcher" and e.content
    }
    ids = [c.call_id for e in events if e.author == "lead" for c in e.tool_calls]
    assert sorted(replies.values()) == sorted(ids) and len(set(ids)) == 2
    starts = [
        e.parent_call_id for e in events if e.author == "researcher" and e.agent_state == "started"
    ]
    ends = [
        e.parent_call_id for e in events if e.author == "researcher" and e.agent_state == "ended"
    ]
    assert sorted(starts) == sorted(ends) == sorted(ids)


async def test_an_error_in_a_tools_run_is_its_result_not_the_turns():
    failed = LlmResponse(error_code="QUOTA", error_message="the researcher's model is out")
    pipeline = Agent("lead").instruct("Answer.").tool(Agent("researcher").instruct("R."))
    backend = mock_backend(
        {"lead": [call("researcher", request="a"), "Sorry."], "researcher": failed}
    )
    events = await pipeline.run("go", backend=backend)
    error = next(e for e in events if e.is_error)
    assert (error.author, error.error_code, error.parent_call_id is not None) == (
        "researcher",
        "QUOTA",
        True,
    )
    assert (
        await pipeline.ask(
            "go",
            backend=mock_backend(
                {"lead": [call("researcher", request="a"), "Sorry."], "researcher": failed}
            ),
        )
        == "Sorry."
    )


async def test_usage_and_the_diagram_count_the_tools_model_calls():
    pipeline = Agent("lead").instruct("Answer.").tool(Agent("researcher").instruct("R."))
    backend = mock_backend(
        {
            "lead": [
                with_usage(call("researcher", request="a"), input=100, output=10),
                with_usage("Done.", input=150, output=20),
            ],
            "researcher": with_usage("Found.", input=40, output=5),
        }
    )
    config = ExecutionConfig(middleware=[cost_attribution()])
    events = await pipeline.run("go", backend=backend, config=config)
    report = usage(events)
    assert len(report.by_invocation()) == 1  # the tool's run is part of the turn
    calls = {path: agent.calls for path, agent in report.by_agent().items()}
    assert calls == {"lead": 2, "lead/researcher": 1}
    diagram = pipeline.to_mermaid(cost=True, actual=events)
    researcher_box = next(line for line in diagram.splitlines() if '"researcher' in line)
    assert "actual" in researcher_box and "1 call per run" in researcher_box


async def test_a_plain_runner_streams_none_of_them():
    pipeline = team()
    service = InMemorySessionService()
    runner = Runner(app=pipeline.to_app(backend=mock_backend(scripts())), session_service=service)
    session = await service.create_session(app_name=runner.app_name, user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="Rome?")])
    authors = [
        event.author
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]
    assert authors == ["intro", "lead", "lead", "lead"]


async def test_an_agent_tool_without_the_apps_plugins_passes_nothing_on():
    # include_plugins=False: the tool's Runner runs none of the App's plugins, so nothing
    # notes its events (docs/visibility.md says so)
    isolated = AgentTool(Agent("researcher").instruct("R."), include_plugins=False)
    pipeline = Agent("lead").instruct("Answer.").tool(isolated)
    backend = mock_backend({"lead": [call("researcher", request="a"), "Done."], "researcher": "R."})
    events = await pipeline.run("go", backend=backend, lifecycle=True)
    assert {e.author for e in events} == {"lead"}
    assert [e.content for e in events if e.content] == ["Done."]


@pytest.mark.parametrize("way", ["run", "stream"])
async def test_a_composite_tools_agents_nest_inside_the_call_with_lifecycle(way):
    desk = Agent("drafter").instruct("Draft.").outputs("draft") >> Agent("editor").instruct("Edit.")
    pipeline = Agent("lead").instruct("Answer.").tool(desk)
    scripts = {
        "lead": [call(desk.to_ir().name, request="a"), "Done."],
        "drafter": "d",
        "editor": "e",
    }
    events = await turn(pipeline, mock_backend(scripts), way, lifecycle=True)
    assert [(e.author, e.agent_state) for e in (events[0], events[-1])] == [
        ("lead", "started"),
        ("lead", "ended"),
    ]
    inside = [
        (e.author, e.agent_state or e.content) for e in events if e.parent_call_id is not None
    ]
    assert inside == [
        (desk.to_ir().name, "started"),
        ("drafter", "started"),
        ("drafter", "d"),
        ("drafter", "ended"),
        ("editor", "started"),
        ("editor", "e"),
        ("editor", "ended"),
        (desk.to_ir().name, "ended"),
    ]
    assert {e.visibility for e in events if e.parent_call_id and e.author != desk.to_ir().name} == {
        "internal"
    }


async def test_stream_hands_them_over_while_the_tool_runs():
    # the editor answers 0.5 s after it is asked: the drafter's reply (and the tool's agents'
    # starts) reach the client during that wait, not together with the call's result
    desk = Agent("drafter").instruct("Draft.").outputs("draft") >> Agent("editor").instruct("Edit.")
    pipeline = Agent("lead").instruct("Answer.").tool(desk)
    scripts = {
        "lead": [call(desk.to_ir().name, request="a"), "Done."],
        "drafter": "d",
        "editor": delay(0.5, "e"),
    }
    loop = asyncio.get_running_loop()
    arrived = {}
    async for event in pipeline.stream("go", backend=mock_backend(scripts), lifecycle=True):
        said = "result" if event.tool_responses else event.agent_state or event.content
        arrived.setdefault((event.author, said), loop.time())
    assert arrived[("editor", "e")] - arrived[("drafter", "d")] >= 0.4
    assert arrived[("editor", "e")] - arrived[("editor", "started")] >= 0.4
    assert arrived[("lead", "result")] >= arrived[("editor", "e")]


async def test_a_stream_left_inside_a_tools_run_leaves_the_next_turn_clean():
    desk = Agent("drafter").instruct("Draft.").outputs("draft") >> Agent("editor").instruct("Edit.")
    pipeline = Agent("lead").instruct("Answer.").tool(desk)
    scripts = {
        "lead": [call(desk.to_ir().name, request="a"), "Done."],
        "drafter": "d",
        "editor": delay(5, "e"),  # cut off: never answers
    }
    stream = pipeline.stream("go", backend=mock_backend(scripts), session_id="left")
    async for event in stream:
        if event.author == "drafter":
            break
    await stream.aclose()
    again = {"lead": [call(desk.to_ir().name, request="b"), "Done."], "drafter": "d", "editor": "e"}
    events = [e async for e in pipeline.stream("go", backend=mock_backend(again))]
    assert [e.author for e in events if e.parent_call_id] == ["drafter", "editor"]
    assert events[-1].content == "Done."
