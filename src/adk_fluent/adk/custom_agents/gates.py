"""Human approval (the gate) as a state machine, and the containers that can pause and resume.

Each gate instance keeps an explicit record in session state (`gate_state_key(name)`):
`{"status": "pending" | "approved" | "rejected", "iteration": [[loop, n], ...], "asked_in":
invocation id, "decided_in": invocation id}`. A record is the same instance only while it is
pending for the same loop iterations; an approved or rejected record is history, so the next run
(or the next loop iteration) asks anew.

A turn stops at the FIRST gate that asks. The gate calls `halt(ctx, "paused")` (HaltPlugin ends
every agent that has not started). The gate-aware containers below (sequence, loop, FanOut,
Route: whatever CONTAINS a gate compiles to one of them) stop between children and report
where they stopped; the outermost one writes every cursor to one resume record in session state
(`gate_resume_key(root)`), so a process restart loses nothing. On the next turn each container
starts from its cursor, so nothing that already ran runs again. A rejection, or a failed step,
clears the resume record: the turn after starts from the top.

FanOut: when a branch pauses, its siblings are NOT cut short. They run on until they finish (and
are recorded done, never re-run) or until they reach a gate of their own, which does not ask
while another gate waits (only one question per turn) and stops its branch there; it asks after
the first is answered. Only when every branch has stopped does the FanOut end the turn.

Per-invocation bookkeeping (`_Run`) lives in this process only for the duration of one turn;
everything that must outlive the turn travels in an event's state_delta.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncGenerator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.custom_agents.flow import RouteAgent
from adk_fluent.adk.custom_agents.halt import halt, halted
from adk_fluent.adk.custom_agents.handoff import handed_over
from adk_fluent.adk.custom_agents.node import NodeAgent
from adk_fluent.adk.custom_agents.steps import failure, make_event, raised, state_of, user_text
from adk_fluent.ir.nodes import DEFAULT_APPROVE_WORDS, DEFAULT_REJECT_WORDS
from adk_fluent.ir.state_keys import gate_resume_key
from adk_fluent.ir.steps import STEP_RAISED, ReadOnlyState

# Accepted replies when the gate gives none; the first two of each are named in the prompt.
APPROVE_WORDS = DEFAULT_APPROVE_WORDS
REJECT_WORDS = DEFAULT_REJECT_WORDS

Stop = Literal["pause", "end"]


@dataclass
class _Run:
    """What the gate-aware agents of one invocation share while it runs (never persisted)."""

    root: str  # the outermost gate-aware container: it owns the resume record
    resume: dict[str, Any]  # container name -> cursor to start from (taken once)
    resume_gate: str | None = None  # the gate whose question this turn answers
    active: dict[str, _GateAware] = field(default_factory=dict)  # containers running now
    position: dict[str, Any] = field(default_factory=dict)  # container -> child running now
    stops: dict[str, Any] = field(default_factory=dict)  # container name -> where it stopped
    iterations: dict[str, int] = field(default_factory=dict)  # gated loop -> current iteration
    fanout_branches: set[str] = field(default_factory=set)  # branches made by gated FanOuts
    paused_branches: set[str] = field(default_factory=set)  # branches that stopped at a gate
    paused_gates: set[str] = field(default_factory=set)  # gates that stopped this turn
    asked: str | None = None  # the one gate that asked this turn
    paused: bool = False
    ended: bool = False  # a gate rejected: clear every cursor


_RUNS: dict[str, _Run] = {}


def _run_of(ctx: Any) -> _Run | None:
    return _RUNS.get(ctx.invocation_id)


def _stop(ctx: Any, run: _Run | None) -> Stop | None:
    """Whether the child a container just ran ended the turn ('end') or paused it ('pause')."""
    reason = halted(ctx)
    if reason in ("failed", "ended") or (run is not None and run.ended):
        return "end"
    if reason == "paused" or (run is not None and ctx.branch in run.paused_branches):
        return "pause"
    return None


def _pause(ctx: Any, run: _Run | None) -> None:
    """Stop this turn here. Inside a FanOut branch only the branch stops (its siblings run on;
    the FanOut ends the turn once all have stopped); elsewhere the whole invocation halts."""
    if run is not None:
        run.paused = True
        if ctx.branch in run.fanout_branches:
            run.paused_branches.add(ctx.branch)
            return
    halt(ctx, "paused")


def _quoted(words: Iterable[str]) -> str:
    shown = [f"'{w}'" for w in words]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _normalised(text: str | None) -> str:
    return " ".join((text or "").strip().strip(".!'\"").split()).casefold()


class GateAgent(BaseAgent):
    """Asks a person to approve when the predicate says so; the next turn's reply decides."""

    predicate: Callable[[Any], bool]
    message: str
    state_key: str
    approve_words: tuple[str, ...] = APPROVE_WORDS
    reject_words: tuple[str, ...] = REJECT_WORDS
    shown_approve: tuple[str, ...] = APPROVE_WORDS[:2]
    shown_reject: tuple[str, ...] = REJECT_WORDS[:2]
    loops: tuple[str, ...] = ()  # the gated loops around this gate, outermost first

    def _instructions(self) -> str:
        return (
            f"Reply {_quoted(self.shown_approve)} to continue "
            f"or {_quoted(self.shown_reject)} to stop."
        )

    def _record(self, status: str, iteration: list[list[Any]], **extra: Any) -> dict[str, Any]:
        return {"status": status, "iteration": iteration, **extra}

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        run = _run_of(ctx)
        state = state_of(ctx)
        iteration = [[loop, run.iterations.get(loop, 0) if run else 0] for loop in self.loops]
        stored = state.get(self.state_key)
        record: dict[str, Any] = stored if isinstance(stored, dict) else {}
        # the question this turn answers: pending, for these loop iterations, and (inside a
        # gate-aware container) the gate the resume record names, so a stale record left by a
        # failed run never swallows a fresh turn's message
        answering = (
            record.get("status") == "pending"
            and record.get("iteration") == iteration
            and (run is None or run.resume_gate == self.name)
        )
        if answering:
            async for event in self._answer(ctx, run, record, iteration):
                yield event
            return
        try:
            asks = self.predicate(ReadOnlyState(state, self.name, f"gate '{self.name}'"))
        except Exception as error:  # the error model: a failed step ends the run with an event
            yield failure(ctx, self.name, STEP_RAISED, raised(self.name, "the predicate", error))
            return
        if not asks:
            return
        if run is not None:
            run.paused_gates.add(self.name)
            if run.asked is not None:
                # another gate (a FanOut sibling) is waiting: one question per turn; this gate
                # stops its branch unasked and asks once the first question is answered
                _pause(ctx, run)
                return
            run.asked = self.name
        pending = self._record("pending", iteration, asked_in=ctx.invocation_id)
        yield make_event(
            ctx,
            self.name,
            text=f"{self.message} {self._instructions()}",
            state_delta={self.state_key: pending, **self._resume_record(ctx, run)},
        )
        _pause(ctx, run)

    async def _answer(
        self, ctx: Any, run: _Run | None, record: dict[str, Any], iteration: list[list[Any]]
    ) -> AsyncGenerator[Event, None]:
        reply = _normalised(user_text(ctx))
        decided = {"asked_in": record.get("asked_in"), "decided_in": ctx.invocation_id}
        # the resume record is spent once the question is answered (containers loaded it)
        spent = {gate_resume_key(run.root): None} if run is not None else {}
        if reply in {w.casefold() for w in self.approve_words}:
            approved = self._record("approved", iteration, **decided)
            yield make_event(ctx, self.name, state_delta={self.state_key: approved, **spent})
            return
        if reply in {w.casefold() for w in self.reject_words}:
            if run is not None:
                run.ended = True
            yield make_event(
                ctx,
                self.name,
                text=f"Rejected: {self.message} The run stopped here and nothing after this "
                "step ran. Your next message starts again from the beginning.",
                state_delta={
                    self.state_key: self._record("rejected", iteration, **decided),
                    **spent,
                },
            )
            halt(ctx, "ended")  # a rejection ends the whole invocation, FanOut siblings too
            return
        if run is not None:
            run.asked = self.name
            run.paused_gates.add(self.name)
        said = f"'{reply[:60]}' is not" if reply else "An empty reply is not"
        yield make_event(
            ctx,
            self.name,
            text=f"{said} an answer to: {self.message} {self._instructions()} "
            "(Still waiting: nothing after this step has run.)",
            state_delta=self._resume_record(ctx, run),
        )
        _pause(ctx, run)

    def _resume_record(self, ctx: Any, run: _Run | None) -> dict[str, Any]:
        """Outside FanOuts nothing else runs once this gate asks, so the gate itself writes where
        every container stands (one event fewer, and the question stays the turn's last event);
        a FanOut's branches are still running, so there the outermost container writes it."""
        if run is None or ctx.branch in run.fanout_branches:
            return {}
        cursors = {name: agent._position(run, self.name) for name, agent in run.active.items()}
        return {gate_resume_key(run.root): _resume(self.name, cursors, ctx.invocation_id)}


def _resume(gate: str | None, cursors: dict[str, Any], asked_in: str) -> dict[str, Any]:
    return {"gate": gate, "cursors": cursors, "asked_in": asked_in}


class _GateAware(NodeAgent):
    """The bookkeeping every gate-aware container shares; the outermost one owns the `_Run`."""

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        run = _run_of(ctx)
        owner = run is None
        if run is None:
            saved = state_of(ctx).get(gate_resume_key(self.name))
            saved = saved if isinstance(saved, dict) else {}
            run = _RUNS[ctx.invocation_id] = _Run(
                root=self.name,
                resume=dict(saved.get("cursors") or {}),
                resume_gate=saved.get("gate"),
            )
        run.active[self.name] = self
        try:
            async for event in self._steps(ctx, run):
                yield event
            run.active.pop(self.name, None)
            if owner:
                final = self._finish(ctx, run)
                if final is not None:
                    yield final
        finally:
            run.active.pop(self.name, None)
            run.position.pop(self.name, None)
            if owner:
                _RUNS.pop(ctx.invocation_id, None)

    def _finish(self, ctx: Any, run: _Run) -> Event | None:
        """Write (or clear) the resume record, unless the gate already did."""
        key = gate_resume_key(self.name)
        wanted = None
        if run.paused and not run.ended and halted(ctx) not in ("failed", "ended"):
            wanted = _resume(run.asked, run.stops, ctx.invocation_id)
        if state_of(ctx).get(key) == wanted:
            return None
        return make_event(ctx, self.name, state_delta={key: wanted})

    def _position(self, run: _Run, gate: str) -> Any:
        """Where this container stands while `gate` asks (what it will resume from)."""
        return run.position.get(self.name)

    @abstractmethod
    def _steps(self, ctx: Any, run: _Run) -> AsyncGenerator[Event, None]:
        """Run the children from this container's cursor (each container says how)."""


class GatedSequenceAgent(_GateAware):
    """A sequence that contains a gate: stops where the gate waits, resumes there."""

    async def _steps(self, ctx: Any, run: _Run) -> AsyncGenerator[Event, None]:
        start = int(run.resume.pop(self.name, 0))
        for index in range(start, len(self.sub_agents)):
            run.position[self.name] = index
            async for event in self.sub_agents[index].run_async(ctx):
                yield event
            stop = _stop(ctx, run)
            if stop == "pause":
                run.stops[self.name] = index
            if stop:
                return


class GatedLoopAgent(_GateAware):
    """A loop that contains a gate (ADK's LoopAgent would keep iterating after a pause and has
    no notion of resuming): stops at the waiting gate, resumes in the same iteration, and the
    next iteration's gate is a new instance that asks again."""

    max_iterations: int | None = None

    async def _steps(self, ctx: Any, run: _Run) -> AsyncGenerator[Event, None]:
        iteration, start = run.resume.pop(self.name, (0, 0))
        try:
            while self.max_iterations is None or iteration < self.max_iterations:
                run.iterations[self.name] = iteration
                escalated = False
                for index in range(start, len(self.sub_agents)):
                    run.position[self.name] = [iteration, index]
                    async for event in self.sub_agents[index].run_async(ctx):
                        yield event
                        if event.actions and event.actions.escalate:
                            escalated = True
                    stop = _stop(ctx, run)
                    if stop == "pause":
                        run.stops[self.name] = [iteration, index]
                    if stop:
                        return
                    if escalated:
                        return
                start, iteration = 0, iteration + 1
        finally:
            run.iterations.pop(self.name, None)


class GatedParallelAgent(_GateAware):
    """A FanOut that contains a gate. Branches run concurrently on their own branch (as in ADK's
    ParallelAgent, so each sees only its own history). When one pauses the others run on until
    they finish or stop at a gate of their own; finished branches are recorded and never re-run."""

    async def _steps(self, ctx: Any, run: _Run) -> AsyncGenerator[Event, None]:
        cursor = run.resume.pop(self.name, None) or {}
        done = set(cursor.get("done", ()))
        branches = []
        for index, child in enumerate(self.sub_agents):
            if index in done:
                continue
            suffix = f"{self.name}.{child.name}"
            branch_ctx = ctx.model_copy()
            branch_ctx.branch = f"{ctx.branch}.{suffix}" if ctx.branch else suffix
            run.fanout_branches.add(branch_ctx.branch)
            branches.append((index, child, branch_ctx))
        async for event in handed_over([child.run_async(c) for _, child, c in branches]):
            yield event
        if _stop(ctx, run) == "end":
            return
        stopped = [i for i, _, c in branches if c.branch in run.paused_branches]
        done |= {i for i, _, _ in branches if i not in stopped}
        if stopped:
            run.stops[self.name] = {"done": sorted(done)}
            _pause(ctx, run)


class GatedRouteAgent(_GateAware, RouteAgent):
    """A Route with a gate in a branch: on the turn after a pause it goes straight back into the
    branch it took (state may have changed since; the choice is not made again)."""

    branch_gates: tuple[frozenset[str], ...] = ()  # per branch: names of the gates inside it

    def _position(self, run: _Run, gate: str) -> Any:
        return next((i for i, names in enumerate(self.branch_gates) if gate in names), None)

    async def _steps(self, ctx: Any, run: _Run) -> AsyncGenerator[Event, None]:
        taken = run.resume.pop(self.name, None)
        if taken is not None:
            agen = self.sub_agents[int(taken)].run_async(ctx)
        else:
            agen = RouteAgent._run_async_impl(self, ctx)
        async for event in agen:
            yield event
        if _stop(ctx, run) == "pause":
            index = next(
                (i for i, names in enumerate(self.branch_gates) if names & run.paused_gates),
                None,
            )
            if index is not None:
                run.stops[self.name] = index
