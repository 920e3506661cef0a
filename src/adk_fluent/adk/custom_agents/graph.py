"""The agents the Workflow target adds to a graph (adk/workflow_target.py): a Route's choice and
a loop's check, each naming the edge to take in its event's `actions.route`.

They are agents, not function nodes, for the same reasons as every other step: ADK's agent
callbacks (the halt plugin, middleware, telemetry) see them, and their events carry their own
name as author, as in the classic target.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

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


def iteration_of(node_path: str, loop: str) -> int | None:
    """The iteration (from 1) of loop `loop` that a node path is in: the run count of the
    path's segment just below the loop's (`root@1/refine@1/polish@2/polish@1` -> 2)."""
    segments = node_path.split("/")
    for index, segment in enumerate(segments[:-1]):
        if segment.rpartition("@")[0] == loop:
            return _run_index(segments[index + 1])
    return None


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
        _TAKEN[(ctx.invocation_id, self.name)] = self.branch_names[chosen]
        while len(_TAKEN) > _TAKEN_REMEMBERED:
            _TAKEN.popitem(last=False)
        yield _edge(ctx, self.name, branch_route(chosen))


def _edge(ctx: Any, author: str, route: str) -> Event:
    """The event that names the edge to take, tagged as the graph's bookkeeping."""
    event = make_event(ctx, author, route=route)
    event.custom_metadata = {GRAPH_STEP: route}
    return event


def _path_of(event: Event) -> str:
    info = getattr(event, "node_info", None)
    return getattr(info, "path", None) or ""


def _run_index(node_path: str) -> int:
    """How many times this node has run inside its parent's run: `loop@1/check@3` -> 3."""
    _, _, count = node_path.rpartition("@")
    return int(count) if count.isdigit() else 1


class LoopCheck(BaseAgent):
    """After each item of a loop's body: end the loop once an event of this iteration escalated
    (ADK's LoopAgent checks after each sub-agent, so an escalation skips the rest of the body),
    else go on to the next item, or (the last check) to the next iteration while
    `max_iterations` allows."""

    checks: tuple[str, ...]  # the names of every check of this loop (this one included)
    last: bool = False
    max_iterations: int | None = None

    def _escalated(self, ctx: Any, loop_path: str) -> bool:
        """Whether an event of this loop's run escalated since its previous check."""
        inside = f"{loop_path}/"
        for event in reversed(ctx.session.events):
            if event.invocation_id != ctx.invocation_id:
                break
            if not _path_of(event).startswith(inside):
                continue  # a parallel branch outside the loop
            if event.author in self.checks:
                return False
            if event.actions is not None and event.actions.escalate:
                return True
        return False

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        node_path = getattr(ctx, "node_path", None) or ""
        loop_path = node_path.rpartition("/")[0]
        if self._escalated(ctx, loop_path):
            route = DONE
        elif not self.last:
            route = NEXT
        elif self.max_iterations is not None and _run_index(node_path) >= self.max_iterations:
            route = DONE
        else:
            route = AGAIN
        yield _edge(ctx, self.name, route)
