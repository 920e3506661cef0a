"""Where the Workflow target differs from the classic one, on purpose or by ADK's design
(docs/workflow.md, "Differences"): each difference is pinned here, so a change on either side
is noticed and the documentation updated."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.adk.compat import workflow_graphs_missing
from adk_fluent.testing import call, mock_backend
from tests.conftest import system_instruction

pytestmark = pytest.mark.skipif(
    workflow_graphs_missing() is not None, reason=f"{workflow_graphs_missing()}"
)


async def test_an_agent_in_a_pipeline_is_not_offered_the_pipeline_as_a_transfer_target():
    """ADK's classic LlmAgent offers its parent agent as a transfer target, and in a pipeline
    that parent is the SequentialAgent; in a Workflow the enclosing node is no agent, so only
    the agent's own transfer targets are offered. `.disallow_transfer_to_parent(True)` gives
    the same instruction on both targets."""
    instructions = {}
    for target in ("classic", "workflow"):
        helper = Agent("helper").instruct("Help.").description("Helps.")
        tree = (
            Agent("intro").instruct("Greet.") >> Agent("lead").instruct("Lead.").delegate(helper)
        ).named("desk")
        backend = mock_backend(
            {
                "intro": "hi",
                "lead": [call("transfer_to_agent", agent_name="helper")],
                "helper": "ok",
            }
        )
        await tree.run("hello", backend=backend, config=ExecutionConfig(target=target))
        instructions[target] = system_instruction(backend.requests["lead"][0])
    assert "transfer to your parent agent desk" in instructions["classic"]
    assert "parent agent" not in instructions["workflow"]
    assert "`helper`" in instructions["workflow"]


async def test_agent_callbacks_of_middleware_do_not_see_graph_composites():
    """A pipeline, FanOut, Route or loop that became a graph is no agent: middleware's
    before/after_agent hooks see its agents, not it (ADK traces it as `invoke_workflow`)."""

    class Seen:
        def __init__(self) -> None:
            self.agents: list[str] = []

        def before_agent_callback(self, *, agent, callback_context) -> None:
            self.agents.append(agent.name)

    seen = {}
    for target in ("classic", "workflow"):
        recorder = Seen()
        tree = (Agent("a").instruct("A.") >> Agent("b").instruct("B.")).named("desk")
        await tree.run(
            "go",
            backend=mock_backend({"a": "1", "b": "2"}),
            config=ExecutionConfig(target=target, middleware=[recorder]),
        )
        seen[target] = recorder.agents
    assert seen == {"classic": ["desk", "a", "b"], "workflow": ["a", "b"]}
