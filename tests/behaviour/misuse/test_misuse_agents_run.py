"""Misuse of agent tools and native agents that shows only when a turn runs (or is about to):
an inner agent with no script fails the run naming it instead of calling a real model, a script
for an agent the scripted model cannot stand in for is refused, and tree mistakes inside tool
trees (a gate, a duplicate name, an exit_when with no loop of its own) are refused before any
model call. Build-time cases live in tests/unit/misuse/test_misuse_api.py."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event

from adk_fluent import Agent, Loop, exit_when, gate
from adk_fluent.errors import DuplicateNameError, ScriptError
from adk_fluent.testing import call, mock_backend
from tests.support.misuse import case, check, ids


class Planner(BaseAgent):
    """A custom agent that runs the LLM agent it holds in a field."""

    drafter: LlmAgent

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        async for event in self.drafter.run_async(ctx):
            yield event


def _planner() -> Planner:
    return Planner(name="planner", drafter=LlmAgent(name="drafter", model="gemini-2.5-flash"))


def _lead(inner) -> Agent:
    return Agent("lead").instruct("Use the tool.").tool(inner)


def _run(tree, scripts):
    return lambda: tree().run("go", backend=mock_backend(scripts))


CASES = [
    case(
        "run-agent-tool-inner-unscripted",
        _run(
            lambda: _lead(Agent("researcher").instruct("Research.")),
            {"lead": [call("researcher", request="q"), "done"]},
        ),
        "agent 'researcher' called the model",
        "no script for it",
        error=ScriptError,
        needs_hint=False,
    ),
    case(
        "run-native-agent-tool-inner-unscripted",
        _run(
            lambda: _lead(LlmAgent(name="researcher", model="gemini-2.5-flash")),
            {"lead": [call("researcher", request="q"), "done"]},
        ),
        "agent 'researcher' called the model",
        error=ScriptError,
        needs_hint=False,
    ),
    case(
        "run-custom-agent-inner-llm-unscripted",
        _run(lambda: _planner() >> Agent("editor"), {"editor": "x"}),
        "agent 'drafter' called the model",
        error=ScriptError,
        needs_hint=False,
    ),
    case(
        "run-script-typo-for-an-agent-tool",
        _run(lambda: _lead(Agent("researcher")), {"lead": "x", "reseacher": "y"}),
        "agent 'reseacher'",
        "no LLM agent of that name",
        "did you mean 'researcher'",
    ),
    case(
        "run-script-for-a-custom-agent-itself",
        _run(lambda: _planner() >> Agent("editor"), {"planner": "x", "editor": "y"}),
        "agent 'planner'",
        "no LLM agent of that name",
        "drafter",
    ),
    case(
        "run-gate-inside-an-agent-tool",
        _run(
            lambda: _lead(Agent("drafter") >> gate(lambda s: True, "Send?", name="send")),
            {"lead": "x", "drafter": "y"},
        ),
        "gate 'send' sits inside an agent tool of agent 'lead'",
        "sub-run",
    ),
    case(
        "run-agent-tool-name-clash",
        _run(lambda: _lead(Agent("writer")) >> Agent("writer"), {"lead": "x", "writer": "y"}),
        "used twice",
        "lead > writer",
        error=DuplicateNameError,
    ),
    case(
        "run-custom-agent-inner-name-clash",
        _run(lambda: _planner() >> Agent("drafter"), {"drafter": "y"}),
        "used twice",
        "planner > drafter",
        error=DuplicateNameError,
    ),
    case(
        "run-exit-when-in-a-tool-of-a-looping-agent",
        _run(
            lambda: Loop(_lead(Agent("checker") >> exit_when(lambda s: True)), max_iterations=2),
            {"lead": "x", "checker": "y"},
        ),
        "exit_when() is not inside a loop",
        "Loop(writer >> exit_when(pred) >> editor)",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
