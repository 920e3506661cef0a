"""The agents the Workflow target adds to a graph (adk/workflow_target.py): a Route's choice
and a loop's start and checks. A choice or a check names the edge to take in its event's
`actions.route` (ADK 2.x); the loop's iteration lives in a small registry keyed by invocation,
which its LoopStart opens and its checks advance (telemetry reads it, and which branch a Route
took, by `loop_iteration` and `route_taken`).

They are agents, not function nodes, for the same reasons as every other step: ADK's agent
callbacks (the halt plugin, middleware, telemetry) see them, and their events carry their own
name as author, as in the classic target.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.custom_agents.flow import RouteAgent
from adk_fluent.adk.custom_agents.steps import make_event
from adk_fluent.adk.event_visibility import GRAPH_STEP

# the route names on the edges these agents choose between
OTHERWISE = "otherwise"
NEXT = "next"  # a loop check: the next item of the body
AGAIN = "again"  # the last check of a loop's body: the next iteration
DONE = "done"  # the loop ends (escalated, or max_iterations reached)
STOP = "stop"  # a Route found no branch (its failure event ends the run)


_TAKEN_REMEMBERED = 4096  # routes whose choice waits for the telemetry to read it
_TAKEN: OrderedDict[tuple[str, str], str] = OrderedDict()


def route_taken(invocation_id: str, route: str) -> str | None:
    """The branch a RouteChoice of this invocation chose (read once, by telemetry)."""
    return _TAKEN.pop((invocation_id, route), None)


def branch_route(index: int) -> str:
    """The route name of a Route's branch (-1: the otherwise branch)."""
    return OTHERWISE if index < 0 else str(index)


class RouteChoice(RouteAgent):
    """A Route's rules, run as a graph node: the chosen branch is the edge its event names."""

    branch_names: tuple[str, ...] = ()  # the branches' names, in order (otherwise last)

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        chosen = self.choose(ctx)
        if isinstance(chosen, Event):  # the failure event ends the run; the edge goes nowhere
            chosen.actions.route = STOP
            yield chosen
            return
        remember(
            _TAKEN, (ctx.invocation_id, self.name), self.branch_names[chosen], _TAKEN_REMEMBERED
        )
        yield _edge(ctx, self.name, branch_route(chosen))


def _edge(ctx: Any, author: str, route: str) -> Event:
    """The event that names the edge to take, tagged as the graph's bookkeeping."""
    event = make_event(ctx, author, route=route)
    event.custom_metadata = {GRAPH_STEP: route}
    return event


def _in_loop(event: Event, loop: str) -> bool:
    """Whether an event comes from inside a run of loop `loop`: its node path (set by ADK on
    every event of a Workflow) has a segment of the loop's name."""
    info = getattr(event, "node_info", None)
    path = getattr(info, "path", None) or ""
    return any(segment.rpartition("@")[0] == loop for segment in path.split("/"))


@dataclass
class _LoopRun:
    """One run of a Workflow loop: its iteration (from 1) and how far its events were read."""

    iteration: int = 1
    seen: int = 0  # session events before this index were read by an earlier check


_LOOPS_REMEMBERED = 4096  # loop runs in flight at once
_LOOPS: OrderedDict[tuple[str, str], _LoopRun] = OrderedDict()


def loop_iteration(invocation_id: str, loop: str) -> int | None:
    """The iteration (from 1) a Workflow loop of this invocation is in, or None (telemetry)."""
    run = _LOOPS.get((invocation_id, loop))
    return None if run is None else run.iteration


class LoopStart(BaseAgent):
    """The first node of a loop's graph: a new run of the loop, at iteration 1. (The iteration
    lives here, not in the node path: ADK before 2.10 gives an agent node no path.)"""

    loop: str

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        run = _LoopRun(seen=len(ctx.session.events))
        remember(_LOOPS, (ctx.invocation_id, self.loop), run, _LOOPS_REMEMBERED)
        return
        yield  # an async generator that yields nothing


class LoopCheck(BaseAgent):
    """After each item of a loop's body: end the loop once an event of this iteration escalated
    (ADK's LoopAgent checks after each sub-agent, so an escalation skips the rest of the body),
    else go on to the next item, or (the last check) to the next iteration while
    `max_iterations` allows."""

    loop: str
    last: bool = False
    max_iterations: int | None = None

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        key = (ctx.invocation_id, self.loop)
        run = _LOOPS.get(key)
        if run is None:  # forgotten (thousands of loops at once): count from here on
            run = _LoopRun()
            remember(_LOOPS, key, run, _LOOPS_REMEMBERED)
        events = ctx.session.events
        fresh = events[run.seen :] if run.seen <= len(events) else events
        escalated = any(
            event.invocation_id == ctx.invocation_id
            and event.actions is not None
            and event.actions.escalate
            and _in_loop(event, self.loop)
            for event in fresh
        )
        run.seen = len(events)
        if escalated:
            route = DONE
        elif not self.last:
            route = NEXT
        elif self.max_iterations is not None and run.iteration >= self.max_iterations:
            route = DONE
        else:
            route = AGAIN
            run.iteration += 1
        if route == DONE:
            _LOOPS.pop(key, None)
        yield _edge(ctx, self.name, route)
