"""Module-level ADK agents that run children concurrently or against a clock: timeout and race."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.agents.halt import halted
from adk_fluent.adk.agents.handoff import DeadlinePassed, handed_over
from adk_fluent.adk.agents.steps import failure
from adk_fluent.ir.values import fresh


class TimeoutAgent(BaseAgent):
    """Runs its one sub-agent under a deadline; on expiry cancels it and emits an error event.

    The child runs in its own task and hands over one event at a time, waiting until the
    runner has taken it (and persisted it) before going on, exactly as if run inline.
    """

    seconds: float

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        deadline = asyncio.get_running_loop().time() + self.seconds
        child = self.sub_agents[0]
        try:
            async with aclosing(handed_over([child.run_async(ctx)], deadline=deadline)) as events:
                async for event in events:
                    yield event
        except DeadlinePassed:
            yield failure(
                ctx,
                self.name,
                "TIMEOUT",
                f"step '{child.name}' timed out after {self.seconds:g}s and was cancelled",
            )


async def run_on_private_copy(
    child: BaseAgent, ctx: Any, seed: dict[str, Any] | None = None
) -> list[Event]:
    """Run `child` against a deep copy of the session (plus `seed` state) and return its events.

    The copy receives each event as the runner would apply it (history and state delta), so
    multi-step agents (tool calls) see their own progress; the real session sees nothing until
    the caller yields the returned events.
    """
    private = ctx.session.model_copy(deep=True)
    private.state.update(fresh(seed or {}))  # the copy never shares a value with the caller
    child_ctx = ctx.model_copy(update={"session": private})
    events: list[Event] = []
    async for event in child.run_async(child_ctx):
        if not event.partial:
            private.events.append(event)
            for key, value in (event.actions.state_delta or {}).items():
                private.state[key] = value
        events.append(event)
    return events


def commit_in_order(ctx: Any, events: list[Event]) -> Iterator[Event]:
    """Events made on a private copy, stamped in the order they are committed: stores that
    reload by timestamp (DatabaseSessionService) then give back the order the client saw, even
    though the copies ran at once."""
    history = ctx.session.events
    last = history[-1].timestamp if history else 0.0
    for event in events:
        last = max(time.time(), last + 1e-5)
        event.timestamp = last
        yield event


class RaceAgent(BaseAgent):
    """Runs sub-agents concurrently, each against a private copy of the session; the first to
    finish without error wins: its events (and so its output and state) go to the real session,
    the others are cancelled and leave nothing behind. If all fail, the last error is raised."""

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        pending = {
            asyncio.create_task(run_on_private_copy(child, ctx)) for child in self.sub_agents
        }
        last_error: BaseException | None = None
        winner: list[Event] | None = None
        try:
            while pending and winner is None:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    error = task.exception()
                    if error is not None:
                        last_error = error
                        continue
                    events = task.result()
                    if any(e.error_code for e in events):  # a step in it failed: the run ends
                        winner = events
                        break
                    if halted(ctx) != "failed":  # not cut short by another's failure
                        winner = winner or events
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if winner is None:
            if last_error is None:  # every alternative was cut short by a failure elsewhere
                return
            raise last_error
        for event in commit_in_order(ctx, winner):
            yield event
