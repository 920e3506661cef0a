"""Replaying calls that ran at once in the order they were recorded.

A FanOut's branches run at once, each on a branch of its own (`report.writer`,
`report.critic`), and each event reaches the session when its branch produces it: when the run
was recorded, in the order the real model answered. Replayed answers come at once, so left to
itself a replay would interleave the branches in another order, and the agents after the
FanOut would see them (and the store keep them) in that order: the recording would not replay.

So a replayed answer of a branch waits until the events that the other branches had produced
before its own event, in the recording, have been produced again: the model call's answer
(ReplayModel) and a replayed tool call's result (the backend's middleware) both wait. Events
are counted per branch of the replayed invocation as the Runner emits them (the backend's
middleware sees each one), so the recorded order comes out whichever way the event loop
schedules the branches. A branch only waits for branches running beside it (neither branch's
path extends the other's).

map_over's items (with concurrency) and race's alternatives run at once on private copies of
the session, which reach the session only when they are committed, in an order their agents
fix (item order; the winner's). What must be kept there is the order the calls were answered
in: a race is won by the alternative that finishes first, and a loser's calls answered before
the winner won are replayed too. So a call under a race or a concurrent map_over also waits
until the calls answered before it, in the recording, by the alternatives (items) beside it have
been answered again (a call recorded `unanswered`: asked again). A loser's last call, recorded
`unanswered`, waits (`hang`) until the run cancels it, as it was cancelled when recorded.

Nothing waits for what cannot come: a branch or call of an agent the replayed tree does not
have, a branch that has ended in this run, or anything in a session whose replay has diverged
(a mismatch noted under on_mismatch='skip' or 'live', or one being raised): from there on the
answers come at once again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from adk_fluent.ir.nodes import MapOverNode, NativeAgentNode, Node, RaceNode
from adk_fluent.replay.recording import ModelCall, RecordedEvent, Recording, ToolCall

Call = ModelCall | ToolCall
Lane = tuple[str, int | None]  # (race or map_over, its alternative; None: map_over's items)


@dataclass(frozen=True)
class Needs:
    """What a recorded call waits for: events per branch, and calls by their `seq`."""

    events: dict[str, int] = field(default_factory=dict)
    answers: frozenset[int] = frozenset()


def side_by_side(one: str | None, other: str | None) -> bool:
    """Whether two branches run beside each other: both set, and neither path extends the
    other's ('report.writer' and 'report.critic'; not 'report' and 'report.writer')."""
    if not one or not other or one == other:
        return False
    return not (one.startswith(other + ".") or other.startswith(one + "."))


def branch_agent(branch: str) -> str:
    """The agent a branch was made for: its last segment, without ADK 2.x's '@run' suffix."""
    return branch.rsplit(".", 1)[-1].split("@", 1)[0]


def lanes(root: Node) -> dict[str, frozenset[Lane]]:
    """For each node of a tree, the races and concurrent map_overs above it, with the
    alternative it is in (map_over's items all run the one body: its lane has no index).
    Walked on a stack of its own: a tree of any depth."""
    found: dict[str, frozenset[Lane]] = {}
    stack: list[tuple[Node, frozenset[Lane]]] = [(root, frozenset())]
    while stack:
        node, above = stack.pop()
        found[node.name] = found.get(node.name, frozenset()) | above
        if isinstance(node, NativeAgentNode):
            for name in node.llm_agents:
                found[name] = found.get(name, frozenset()) | above
        for index, child in enumerate(node.children):
            lane: frozenset[Lane] = frozenset()
            if isinstance(node, RaceNode):
                lane = frozenset({(node.name, index)})
            elif isinstance(node, MapOverNode) and node.concurrency > 1:
                lane = frozenset({(node.name, None)})
            stack.append((child, above | lane))
        stack.extend((tree, above) for tree in node.attached)
    return found


def at_once(one: frozenset[Lane], other: frozenset[Lane]) -> bool:
    """Whether two agents run at once on private copies: in two alternatives of one race, or
    both in a concurrent map_over's body (two of its items)."""
    return any(
        name == other_name and (index is None or index != other_index)
        for name, index in one
        for other_name, other_index in other
    )


_Waiter = tuple[str | None, str | None, Needs | None, "asyncio.Future[None]"]


class Order:
    """The recorded order of a recording's events and calls, and the waits that reproduce it."""

    def __init__(self, recording: Recording, *, tools: bool = True) -> None:
        self.partials = recording.header.partials  # partial events are among the recorded ones
        self.tools = tools  # tool calls are answered from the recording (and so counted)
        self._events: dict[str | None, list[RecordedEvent]] = {}
        for event in recording.events:
            self._events.setdefault(event.invocation_id, []).append(event)
        self._calls: dict[str | None, list[Call]] = {}
        calls: list[Call] = [*recording.model_calls, *recording.tool_calls]
        for call in sorted(calls, key=lambda recorded: recorded.seq):
            self._calls.setdefault(call.invocation_id, []).append(call)
        self.agents: frozenset[str] = frozenset()  # the replayed tree's nodes (empty: unknown)
        self._lanes: dict[str, frozenset[Lane]] = {}
        self.reset()

    def tree(self, root: Node) -> None:
        """The replayed tree: which agents it has, and which run at once on private copies."""
        self._lanes = lanes(root)
        self.agents = frozenset(self._lanes)

    def reset(self) -> None:
        """Forget what this replay has produced (a new replay starts)."""
        self._seen: dict[tuple[str | None, str], int] = {}
        self._ended: set[tuple[str | None, str]] = set()
        self._answered: set[int] = set()
        self._diverged: set[str | None] = set()
        self._waiting: list[_Waiter] = []

    # -- what a recorded call waits for ---------------------------------------------------------
    def needs(self, call: Call) -> Needs:
        """What a recorded call waits for: the events of the branches beside its own that the
        recording holds before the event the call produced (its reply, or its tool's result),
        counted per branch; and the calls answered before it by the alternatives (items)
        running at once with it on private copies."""
        events: dict[str, int] = {}
        recorded = self._events.get(call.invocation_id, [])
        own = next((event for event in recorded if self._produced_by(event, call)), None)
        for event in recorded:
            if own is None or event.seq >= own.seq:
                break
            if self._counted(event.partial) and self._known_beside(event.branch, call.branch):
                branch = str(event.branch)
                events[branch] = events.get(branch, 0) + 1
        mine = self._lanes.get(call.agent)
        answers = frozenset(
            other.seq
            for other in self._calls.get(call.invocation_id, [])
            if mine
            if other.seq < call.seq
            and (self.tools or isinstance(other, ModelCall))
            and at_once(mine, self._lanes.get(other.agent, frozenset()))
        )
        return Needs(events, answers)

    def _known_beside(self, branch: str | None, own: str | None) -> bool:
        return side_by_side(branch, own) and (
            not self.agents or branch_agent(str(branch)) in self.agents
        )

    def _produced_by(self, event: RecordedEvent, call: Call) -> bool:
        if event.seq <= call.seq or event.branch != call.branch or event.author != call.agent:
            return False
        if isinstance(call, ToolCall):
            return bool(event.function_responses)
        return self._counted(event.partial)

    def _counted(self, partial: bool) -> bool:
        return self.partials or not partial

    # -- what the replay has produced ----------------------------------------------------------
    def seen(self, invocation: str | None, event: Any) -> None:
        """An event the Runner emitted in the replayed invocation."""
        branch = getattr(event, "branch", None)
        if not branch or not self._counted(bool(getattr(event, "partial", False))):
            return
        key = (invocation, branch)
        self._seen[key] = self._seen.get(key, 0) + 1
        self._wake()

    def ended(self, invocation: str | None, branch: str | None, agent: str) -> None:
        """An agent ended in the replayed invocation: when it is the one its branch was made
        for, the branch produces nothing more."""
        if branch and branch_agent(branch) == agent:
            self._ended.add((invocation, branch))
            self._wake()

    def answered(self, call: Call) -> None:
        """A recorded call was answered again (its reply, or its tool's result, is given), or,
        recorded `unanswered`, asked again."""
        self._answered.add(call.seq)
        self._wake()

    def diverged(self, session: str | None) -> None:
        """The session's replay no longer follows the recording: nothing in it waits."""
        self._diverged.add(session)
        self._wake()

    # -- waiting --------------------------------------------------------------------------------
    async def wait(self, session: str | None, invocation: str | None, needs: Needs) -> None:
        """Wait until the replayed invocation has produced what `needs` asks."""
        if not self._ready(session, invocation, needs):
            await self._until(session, invocation, needs)

    async def hang(self, session: str | None) -> None:
        """Wait until the run cancels the caller, or the session's replay diverges."""
        await self._until(session, None, None)

    async def _until(self, session: str | None, invocation: str | None, needs: Any) -> None:
        waiter = (session, invocation, needs, asyncio.get_running_loop().create_future())
        self._waiting.append(waiter)
        try:
            await waiter[3]
        finally:
            if waiter in self._waiting:
                self._waiting.remove(waiter)

    def _ready(self, session: str | None, invocation: str | None, needs: Needs | None) -> bool:
        if session in self._diverged:
            return True
        if needs is None:  # hanging
            return False
        return needs.answers <= self._answered and all(
            self._seen.get((invocation, branch), 0) >= count or (invocation, branch) in self._ended
            for branch, count in needs.events.items()
        )

    def _wake(self) -> None:
        for session, invocation, needs, future in list(self._waiting):
            if not future.done() and self._ready(session, invocation, needs):
                future.set_result(None)
