"""Record and replay under a plain ADK Runner: a pipeline's `to_runner(config, backend=...)`
records with the Recorder in its middleware and replays with a ReplayerBackend; a hand-written
native agent records through `recorder.as_plugin()` in its own App, and replays through
`Native(agent).to_runner(backend=...)`."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService

from adk_fluent import Agent, ExecutionConfig, Native
from adk_fluent.adk.compat import quiet_workflow_deprecation
from adk_fluent.replay import Recorder, Recording, ReplayerBackend, diff_events
from adk_fluent.testing import ScriptedModel, call, mock_backend
from tests.support.middleware import user

CALLS: list[tuple[int, int]] = []


def add(a: int, b: int) -> int:
    """Add two numbers."""
    CALLS.append((a, b))
    return a + b


async def drive(runner: Runner, prompt: str, session_id: str = "s1") -> list[Any]:
    """One turn through the Runner itself, as adk web or a server would."""
    service = runner.session_service
    app = runner.app_name
    if await service.get_session(app_name=app, user_id="u", session_id=session_id) is None:
        await service.create_session(app_name=app, user_id="u", session_id=session_id)
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session_id, new_message=user(prompt)
        )
    ]


def view(event: Any) -> tuple[Any, ...]:
    parts = [
        (
            p.text,
            p.function_call and p.function_call.args,
            p.function_response and p.function_response.response,
        )
        for p in (event.content.parts if event.content else None) or []
    ]
    return (event.author, tuple(parts), dict(event.actions.state_delta or {}))


async def test_a_pipeline_records_and_replays_through_to_runner():
    pipeline = Agent("calc").instruct("Add what you are given.").tool(add).outputs("sum") >> Agent(
        "teller"
    ).instruct("Tell the user {sum}.")
    recorder = Recorder(tree=pipeline)
    scripts = {"calc": [call("add", a=2, b=3), "5"], "teller": "It is 5."}
    runner = pipeline.to_runner(
        ExecutionConfig(middleware=[recorder]), backend=mock_backend(scripts)
    )
    recorded_events = await drive(runner, "2 + 3?")
    recording = recorder.recording()
    assert len(recording.model_calls) == 3 and CALLS.count((2, 3)) == 1

    replay_recorder = Recorder(tree=pipeline)
    backend = ReplayerBackend(recording)
    replayer = pipeline.to_runner(ExecutionConfig(middleware=[replay_recorder]), backend=backend)
    replayed_events = await drive(replayer, "2 + 3?")

    assert [view(e) for e in replayed_events] == [view(e) for e in recorded_events]
    assert CALLS.count((2, 3)) == 1  # the tool did not run again
    assert diff_events(recorded_events, replayed_events).empty  # ADK Events compare too
    assert diff_events(recording, replay_recorder.recording()).empty
    backend.assert_consumed()


async def test_a_native_agent_records_through_as_plugin_and_replays_as_native(tmp_path):
    model = ScriptedModel({"adder": [call("add", a=4, b=4), "8"], "checker": ["8 is right."]})
    adder = LlmAgent(name="adder", model=model.for_agent("adder"), instruction="Add.", tools=[add])
    checker = LlmAgent(name="checker", model=model.for_agent("checker"), instruction="Check.")
    with quiet_workflow_deprecation():  # ADK 2.x deprecates SequentialAgent
        root = SequentialAgent(name="maths", sub_agents=[adder, checker])
    recorder = Recorder(tree=root)
    plugin = recorder.as_plugin()
    assert plugin.name == "adk_fluent_recorder"
    app = App(name="maths_app", root_agent=root, plugins=[plugin])
    recorded_events = await drive(Runner(app=app, session_service=InMemorySessionService()), "4+4")
    recording = recorder.recording()
    assert [(c.agent, c.path, c.call) for c in recording.model_calls] == [
        ("adder", "maths/adder", 1),
        ("adder", "maths/adder", 2),
        ("checker", "maths/checker", 1),
    ]
    assert [(t.tool, t.args, t.result) for t in recording.tool_calls] == [
        ("add", {"a": 4, "b": 4}, 8)
    ]
    assert [e.author for e in recording.events] == ["user", "adder", "adder", "adder", "checker"]
    path = recording.save(tmp_path / "maths.json")
    before = CALLS.count((4, 4))

    replayer = Native(root).to_runner(backend=ReplayerBackend(Recording.load(path)))
    replayed_events = await drive(replayer, "4+4")
    assert [view(e) for e in replayed_events] == [view(e) for e in recorded_events]
    assert CALLS.count((4, 4)) == before
