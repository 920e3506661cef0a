"""Module-level ADK agents that adk-fluent's own IR nodes compile to.

They only use ADK's public extension point (subclassing BaseAgent), and every state change
they make travels in an event's state_delta.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from types import MappingProxyType
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions


def _event(ctx: Any, author: str, **actions: Any) -> Event:
    return Event(
        author=author,
        invocation_id=ctx.invocation_id,
        branch=ctx.branch,
        actions=EventActions(**actions),
    )


class FallbackAgent(BaseAgent):
    """Runs sub-agents in order until one completes without raising; re-raises the last error."""

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        last_error: BaseException | None = None
        for child in self.sub_agents:
            try:
                async for event in child.run_async(ctx):
                    yield event
            except Exception as error:  # the next child is the fallback for any failure
                last_error = error
                continue
            return
        assert last_error is not None  # sub_agents is never empty (builders refuse that)
        raise last_error


class UntilCheckAgent(BaseAgent):
    """The last step of a loop body: escalates (ends the loop) once the predicate holds."""

    predicate: Callable[[Any], bool]

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = MappingProxyType(
            ctx.session.state.to_dict()
            if hasattr(ctx.session.state, "to_dict")
            else dict(ctx.session.state)
        )
        if self.predicate(state):
            yield _event(ctx, self.name, escalate=True)
