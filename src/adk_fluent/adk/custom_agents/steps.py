"""Module-level ADK agents for adk-fluent's simple steps: fallback, loop checks, state steps, taps.

They only use ADK's public extension point (subclassing BaseAgent), and every state change
they make travels in an event's state_delta, so every session service persists it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.genai import types

from adk_fluent.adk.custom_agents.halt import halt, halted, release
from adk_fluent.adk.custom_agents.node import NodeAgent
from adk_fluent.errors import StepFailed
from adk_fluent.ir.steps import LOGGER_NAME, NOT_STORABLE, STEP_RAISED, ReadOnlyState
from adk_fluent.ir.values import storable_copy

LOGGER = logging.getLogger(LOGGER_NAME)


def state_of(ctx: Any) -> dict[str, Any]:
    """A copy of the session state as this invocation sees it now."""
    state = ctx.session.state
    return dict(state.to_dict() if hasattr(state, "to_dict") else state)


def read_view(ctx: Any, owner: str, step: str = "") -> ReadOnlyState:
    """A deep read-only view of the session state for a user's function (tap, predicate,
    rule): writes at any depth raise StateWriteError naming `owner`."""
    return ReadOnlyState(state_of(ctx), step, owner)


def storable_delta(delta: dict[str, Any], step: str) -> dict[str, Any]:
    """Private copies of a delta's values as every store will hold them; a value no store can
    hold raises StepFailed (nothing of the delta is written then)."""
    checked: dict[str, Any] = {}
    for key, value in delta.items():
        copy, problem = storable_copy(value)
        if problem is not None:
            raise StepFailed(
                NOT_STORABLE,
                f"step '{step}': {problem.describe(key)}. Nothing of this step was written. "
                f"Fix: {problem.hint}.",
            )
        checked[key] = copy
    return checked


def raised(step: str, what: str, error: BaseException) -> str:
    """The error message for a user's function that raised inside a step (also logged)."""
    LOGGER.error("step '%s': %s raised", step, what, exc_info=error)
    return (
        f"step '{step}': {what} raised {type(error).__name__}: {str(error)[:300]}. "
        "Fix the function, or check its input first with S.guard(...)."
    )


def user_text(ctx: Any) -> str | None:
    """The text of the user's message that started this invocation."""
    content = getattr(ctx, "user_content", None)
    if content is None or not content.parts:
        return None
    return "".join(p.text for p in content.parts if getattr(p, "text", None)) or None


def reply_text(event: Event) -> str:
    """The text of a model event (thoughts left out); '' for anything else."""
    content = event.content
    if content is None or not content.parts or content.role == "user":
        return ""
    return "".join(p.text for p in content.parts if p.text and not getattr(p, "thought", None))


def output_of(event: Event, current: Any, output_key: str | None) -> Any:
    """A step's output so far (a map_over body's, a FanOut branch's, a chunk consumer's), after
    `event`: the value its output key was last given, or (without one) its last final reply
    text. Partial events are never stored, so they never count: the output is what the store
    will hold."""
    if event.partial:
        return current
    if output_key:
        delta = event.actions.state_delta if event.actions else None
        return delta[output_key] if delta and output_key in delta else current
    if event.is_final_response():
        return reply_text(event) or current
    return current


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


# A value under a key that crosses a boundary (A2A or a queue) that JSON cannot carry.
STATE_NOT_SENDABLE = "REMOTE_STATE_NOT_SENDABLE"


def json_values(values: dict[str, Any], owner: str) -> tuple[dict[str, Any], str | None]:
    """`values` as JSON would carry them, or a message naming the first key it cannot carry."""
    for key, value in values.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError) as error:
            return {}, (
                f"'{owner}' cannot send state key '{key}' across its boundary: its value "
                f"({type(value).__name__}) is not JSON ({error}). Fix: store plain JSON "
                "values (str, int, float, bool, None, lists, dicts) under keys that cross."
            )
    return json.loads(json.dumps(values)), None


def failure(ctx: Any, author: str, code: str, message: str) -> Event:
    """The one error event of a failed step (docs/errors.md): it names the step, is stored like
    any event, reaches every client, and ends the invocation so no later agent runs."""
    halt(ctx, "failed")
    return make_event(ctx, author, error=(code, message))


class FallbackAgent(NodeAgent):
    """Runs sub-agents in order until one completes without failing; if all fail, the last
    failure stands (its exception is raised, or its error event is the run's last word).

    A child fails when it raises or when a step inside it fails (its error event ended the
    invocation): that error event is held back (logged), the invocation is resumed, and the
    next child runs, so `timeout(a, 5) // b` and `S.guard(...) // b` fall back too.
    """

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        last = len(self.sub_agents) - 1
        for index, child in enumerate(self.sub_agents):
            failed = False
            try:
                async with aclosing(child.run_async(ctx)) as events:
                    async for event in events:
                        if index < last and event.error_code and halted(ctx) == "failed":
                            LOGGER.warning(
                                "fallback '%s': '%s' failed (%s: %s); trying the next one",
                                self.name,
                                event.author,
                                event.error_code,
                                event.error_message,
                            )
                            release(ctx.invocation_id)  # the failure is handled here
                            failed = True
                            break
                        yield event
            except Exception:  # the next child is the fallback for any failure
                if index == last:
                    raise
                continue
            if not failed:
                return


class UntilCheckAgent(BaseAgent):
    """The last step of a loop body: escalates (ends the loop) once the predicate holds."""

    predicate: Callable[[Any], bool]

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        try:
            done = self.predicate(read_view(ctx, f"until '{self.name}'", self.name))
        except Exception as error:
            yield failure(
                ctx, self.name, STEP_RAISED, raised(self.name, "the until predicate", error)
            )
            return
        if done:
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
        state = ReadOnlyState(state_of(ctx), self.name, f"step '{self.name}'")
        try:
            delta = storable_delta(self.step.apply(state, _Turn(ctx), self.name), self.name)
        except StepFailed as failed:
            LOGGER.warning("%s", failed)
            yield failure(ctx, self.name, failed.code, str(failed))
            return
        except Exception as error:  # a user's function inside the step
            what = (
                f"the function of S.{self.step.kind}"
                if self.step.kind != "function"
                else ("the function step")
            )
            yield failure(ctx, self.name, STEP_RAISED, raised(self.name, what, error))
            return
        if delta:
            yield make_event(ctx, self.name, state_delta=delta)


class TapAgent(BaseAgent):
    """Calls a function with a read-only view of state; writes raise StateWriteError."""

    fn: Callable[[Any], Any]

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        try:
            result = self.fn(read_view(ctx, f"tap '{self.name}'", self.name))
            if hasattr(result, "__await__"):
                await result
        except Exception as error:  # a write (StateWriteError) or a failed assertion
            yield failure(ctx, self.name, "TAP_FAILED", raised(self.name, "the tap", error))
