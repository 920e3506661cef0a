"""The base of adk-fluent's agents that run sub-agents of their own, for their life as a node of
an ADK 2.x Workflow (the workflow target, adk/workflow_target.py).

ADK's node runner gives an agent node's event without a branch the branch of the node's last
event that had one (and keeps it for the next). An agent that ran parallel branches would then
stamp the next sub-agent's events with the last branch's name, hiding them from every agent
outside that branch in later turns. Each event that comes out without a branch is given the
node's own branch here ('' for none, which ADK stores as no branch and which resets the node's).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents.base_agent import BaseAgent


class NodeAgent(BaseAgent):
    """A BaseAgent whose events keep their own branch when it runs as a Workflow node."""

    async def _run_impl(self, *, ctx: Any, node_input: Any) -> AsyncGenerator[Any, None]:
        start = ctx.get_invocation_context().branch
        async for event in super()._run_impl(ctx=ctx, node_input=node_input):  # type: ignore[misc]
            if getattr(event, "branch", "") is None:
                event.branch = start or ""
            yield event
