"""What the engine's client receives besides the Runner's own events: the events of agent tools'
runs, and agent lifecycle events for a client that asked (`run()` / `stream()` with
`lifecycle=True`).

An agent tool runs its agent in a Runner of its own (ADK's AgentTool), whose events ADK never
streams to the caller; the visibility plugin, which that Runner runs too, notes each of them on
the turn's `AgentStates` (with the call that started the run), and the engine passes them on
before the calling agent's next event (the tool's result), and stream() as they come (the
plugin wakes it: engine._waking): annotated, with `PARENT_CALL`, the
turn's invocation id and their agents' visibility in the caller's stream (`internal` unless
`.show()` said otherwise); in filtered mode only user-facing ones. None of them is stored.

The visibility plugin notes each agent's start and end (in its before / after agent callbacks,
which run anyway, once per agent run) on the turn's `AgentStates`; the engine hands the notes
over, in order, before the next event it passes and when the turn ends. Every `started` gets
its `ended`, nested: an agent whose end ADK does not report (cancelled by a timeout or a race,
stopped by a failed step or a waiting gate, or, on the workflow target, an LLM agent that
transferred) ends when the agent around it ends, or when the turn ends.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from adk_fluent.adk.event_visibility import (
    PARENT_CALL,
    PATH,
    VISIBILITY,
    AgentStates,
    SubRunEvent,
    for_client,
)
from adk_fluent.run.events import AgentEvent

_Open = tuple[str, dict[str, Any], str]  # an agent running: name, annotations, invocation id


class Lifecycle:
    """One turn's agent lifecycle events (when asked for) and agent tools' events, from the
    plugin's notes."""

    __slots__ = ("states", "_open", "_graph", "_graph_name", "_mode")

    def __init__(
        self,
        graph: tuple[str, dict[str, Any]] | None = None,
        mode: str = "annotated",
        *,
        lifecycle: bool = True,
    ) -> None:
        self.states = AgentStates(lifecycle)
        self._mode = mode
        self._open: list[_Open] = []  # started and not yet ended, in the order they started
        # an ADK 2.x Workflow root (the workflow target), with its annotations: ADK gives a
        # graph no agent callbacks, so it starts with the turn's first note and ends with it
        # (an agent of the same name inside it is the same node: not reported twice)
        self._graph = graph
        self._graph_name = graph[0] if graph is not None else None

    def pending(self) -> list[AgentEvent]:
        """The events of the notes taken since the last call (the caller checks
        `states.notes` first: an event with no note costs nothing more)."""
        notes = self.states.notes
        self.states.notes = []
        out: list[AgentEvent] = []
        filtered = self._mode == "filtered"
        for note in notes:
            if isinstance(note, SubRunEvent):
                shown = self._passed_on(note, filtered)
                if shown is not None:
                    out.append(shown)
                continue
            state, name, marks, invocation, when = note
            if self._graph is not None:
                graph, graph_marks = self._graph
                self._graph = None
                self._open.append((graph, graph_marks, invocation))
                out.append(_event("started", graph, graph_marks, invocation, when))
            if name == self._graph_name:
                continue
            if state == "started":
                self._open.append((name, marks, invocation))
                if not self._hidden(marks):
                    out.append(_event(state, name, marks, invocation, when))
            else:
                self._end(name, marks, invocation, when, out)
        return out

    @staticmethod
    def _passed_on(note: SubRunEvent, filtered: bool) -> AgentEvent | None:
        """An agent tool's event as the client receives it (None: not at all)."""
        if filtered and note.metadata.get(VISIBILITY) != "user":
            return None  # filtered mode: an agent tool's run is internal work
        event = for_client(note.event, "filtered" if filtered else "annotated")
        if event is None:
            return None
        return replace(
            AgentEvent.from_adk(event), metadata=note.metadata, invocation_id=note.invocation_id
        )

    def _hidden(self, marks: dict[str, Any]) -> bool:
        """An agent tool's agent in filtered mode: its start and end are as hidden as its events
        (they are matched all the same, so what is shown stays nested)."""
        return self._mode == "filtered" and PARENT_CALL in marks and marks.get(VISIBILITY) != "user"

    def _end(
        self, name: str, marks: dict[str, Any], invocation: str, when: float, out: list[AgentEvent]
    ) -> None:
        """`name` ended: first the agents inside it still open (innermost first), then it."""
        call = marks.get(PARENT_CALL)
        for index in range(len(self._open) - 1, -1, -1):
            name_, marks_, invocation_ = self._open[index]
            if name_ == name and invocation_ == invocation and marks_.get(PARENT_CALL) == call:
                break
        else:
            return  # an end without a start this turn saw: nothing to close
        _, marks, _ = self._open[index]
        inside = f"{marks.get(PATH, name)}/"
        for later in range(len(self._open) - 1, index, -1):
            other, other_marks, other_invocation = self._open[later]
            if other_invocation == invocation and str(other_marks.get(PATH, "")).startswith(inside):
                del self._open[later]
                if not self._hidden(other_marks):
                    out.append(_event("ended", other, other_marks, invocation, when))
        del self._open[index]
        if not self._hidden(marks):
            out.append(_event("ended", name, marks, invocation, when))

    def transferred(self, event: Any) -> None:
        """On the workflow target an LLM agent's node ends when it transfers (ADK closes its
        run, and no after-agent callback reports it): note its end there. The caller passes
        only such a graph's events."""
        actions = event.actions
        if actions is None or not actions.transfer_to_agent:
            return
        for name, marks, invocation in reversed(self._open):
            if name == event.author and invocation == event.invocation_id:
                self.states.notes.append(("ended", name, marks, invocation, time.time()))
                return

    def close(self) -> list[AgentEvent]:
        """The turn is over: the last notes' events, then an `ended` for each agent still
        open (innermost first); nothing is noted after this."""
        self.states.open = False
        out = self.pending()
        now = time.time()
        out.extend(
            _event("ended", name, marks, invocation, now)
            for name, marks, invocation in reversed(self._open)
            if not self._hidden(marks)
        )
        self._open.clear()
        return out


def _event(
    state: str, name: str, marks: dict[str, Any], invocation: str, when: float
) -> AgentEvent:
    return AgentEvent(
        author=name,
        agent_state=state,
        metadata=dict(marks),
        invocation_id=invocation,
        timestamp=when,
    )
