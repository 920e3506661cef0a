"""Module-level ADK agents for human approval: the gate, and sequences that pause at a gate."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.agents.steps import make_event, state_of, user_text

APPROVE_WORDS = frozenset({"approve", "approved", "yes", "y", "ok", "okay", "confirm", "go ahead"})
REJECT_WORDS = frozenset({"reject", "rejected", "no", "n", "deny", "cancel", "stop"})


class GateAgent(BaseAgent):
    """Asks a person to approve when the predicate says so; the next turn's reply decides.

    Status lives in session state (so it survives restarts): 'pending' while waiting,
    'rejected' after a no. An approval clears it, so the next run asks again.
    """

    predicate: Callable[[Any], bool]
    message: str
    state_key: str
    approve_words: frozenset[str] = APPROVE_WORDS
    reject_words: frozenset[str] = REJECT_WORDS

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = state_of(ctx)
        status = state.get(self.state_key)
        if status == "pending":
            reply = (user_text(ctx) or "").strip().strip(".!").casefold()
            if reply in self.approve_words:
                yield make_event(ctx, self.name, state_delta={self.state_key: None})
                return
            if reply in self.reject_words:
                yield make_event(
                    ctx,
                    self.name,
                    text=f"Stopped: {self.message} (rejected).",
                    state_delta={self.state_key: "rejected"},
                )
                return
        elif not self.predicate(state):
            return
        yield make_event(
            ctx,
            self.name,
            text=f"{self.message} Reply 'approve' to continue or 'reject' to stop.",
            state_delta={self.state_key: "pending"},
        )


class GatedSequenceAgent(BaseAgent):
    """A sequence that contains gates: it stops while a gate waits, and resumes at that gate."""

    gate_keys: tuple[tuple[str, ...], ...] = ()  # per sub-agent: the gate state keys inside it

    def _waiting(self, ctx: Any, index: int) -> bool:
        state = state_of(ctx)
        return any(state.get(key) in ("pending", "rejected") for key in self.gate_keys[index])

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = state_of(ctx)
        start = next(
            (
                i
                for i, keys in enumerate(self.gate_keys)
                if any(state.get(k) == "pending" for k in keys)
            ),
            0,
        )
        for index in range(start, len(self.sub_agents)):
            async for event in self.sub_agents[index].run_async(ctx):
                yield event
            if self._waiting(ctx, index):
                return
