"""Module-level ADK agents for adk-fluent's simple steps: fallback, loop checks, state steps, taps.

They only use ADK's public extension point (subclassing BaseAgent), and every state change
they make travels in an event's state_delta, so every session service persists it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.genai import types

from adk_fluent.adk.agents.halt import halt
from adk_fluent.ir.steps import ReadOnlyState


def state_of(ctx: Any) -> dict[str, Any]:
    """A copy of the session state as this invocation sees it now."""
    state = ctx.session.state
    return dict(state.to_dict() if hasattr(state, "to_dict") else state)


def user_text(ctx: Any) -> str | None:
    """The text of the user's message that started this invocation."""
    content = getattr(ctx, "user_content", None)
    if content is None or not content.parts:
        return None
    return "".join(p.text for p in content.parts if getattr(p, "text", None)) or None


def make_event(
    ctx: Any,
    author: str,
    *,
    text: str | None = None,
    error: tuple[str, str] | None = None,
    **actions: Any,
) -> Event:
    """An event from a step: optional text, optional (code, message) error, and actions."""
    content = (
        types.Content(role="model", parts=[types.Part(text=text)]) if text is not None else None
    )
    extra: dict[str, Any] = {}
    if error is not None:
        extra = {"error_code": error[0], "error_message": error[1]}
    return Event(
        author=author,
        invocation_id=ctx.invocation_id,
        branch=ctx.branch,
        content=content,
        actions=EventActions(**actions),
        **extra,
    )


def failure(ctx: Any, author: str, code: str, message: str) -> Event:
    """The one error event of a failed step (docs/errors.md): it names the step, is stored like
    any event, reaches every client, and ends the invocation so no later agent runs."""
    halt(ctx, "failed")
    return make_event(ctx, author, error=(code, message))


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
        if self.predicate(ReadOnlyState(state_of(ctx), self.name)):
            yield make_event(ctx, self.name, escalate=True)


class _Turn:
    """What a step may see of the run besides state (ir.steps.RunView)."""

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx

    @property
    def user_text(self) -> str | None:
        return user_text(self._ctx)

    @property
    def events(self) -> Any:
        return self._ctx.session.events


class StateStepAgent(BaseAgent):
    """Runs one typed state step (ir.steps) and emits its delta, if any."""

    step: Any  # an ir.steps.Step (typed Any so pydantic leaves the record as it is)

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = ReadOnlyState(state_of(ctx), self.name)
        delta = self.step.apply(state, _Turn(ctx), self.name)
        if delta:
            yield make_event(ctx, self.name, state_delta=delta)


class TapAgent(BaseAgent):
    """Calls a function with a read-only view of state; writes raise StateWriteError."""

    fn: Callable[[Any], Any]

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        result = self.fn(ReadOnlyState(state_of(ctx), self.name))
        if hasattr(result, "__await__"):
            await result
        return
        yield  # an async generator that yields nothing
