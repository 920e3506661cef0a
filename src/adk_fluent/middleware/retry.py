"""retry: call a failed model or tool again, with exponential backoff, before ADK sees the error.

A failed model call reaches `on_model_error_callback`; retry calls the agent's model again with
the same LlmRequest and hands ADK the reply that answered, marked `adk_fluent.retry:
{"attempts": n}`. A failed tool call reaches `on_tool_error_callback`; retry runs the tool again
with the same arguments and tool context. The failed attempts happen inside the callback, so no
error event is made for them: neither the client nor the session store ever sees one. When every
attempt failed, retry returns None and ADK raises the ORIGINAL error, as without it.

How it sits with other error handling:

* ADK 2.x `retry_config` on an agent re-runs the whole node after an error escapes the model
  call. Our `on_model_error_callback` runs inside that call, so retry answers first; ADK's
  retry_config only sees an error once retry is exhausted (and then stores an error event per
  failed node attempt, as it always does).
* circuit_breaker (priority -30) sees a failed call before retry (-10) and counts it; when
  retry recovers the call, the breaker sees the good reply in after_model and resets. So the
  breaker counts calls that failed after retry, never retry's own attempts.
* fallback_model (-5) runs after retry: a model is retried first, then the next model is tried.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.plugins.middleware import sync_callback
from adk_fluent.arguments import (
    checked_callable,
    checked_count,
    checked_exceptions,
    checked_seconds,
)
from adk_fluent.errors import BuildError
from adk_fluent.ir.middleware import Middleware
from adk_fluent.middleware.replies import METADATA_PREFIX, mark

Sleep = Callable[[float], Awaitable[Any]]

DEFAULT_MAX_DELAY = 30.0  # seconds: no wait between two attempts is longer
_MAX_PENDING_TOOL_MARKS = 4096  # retried tool calls whose event has not been seen yet


# -- the backoff schedule --------------------------------------------------------------------------
def backoff_delay(
    failed: int,
    *,
    backoff: float,
    jitter: float,
    max_delay: float,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait after the `failed`-th failed attempt (1-based) before the next one:
    `backoff * 2 ** (failed - 1)`, capped at `max_delay`, then moved by up to `jitter` of itself
    either way (`rand()` in [0, 1): 0 is the shortest, 0.5 the exact delay), never below 0 nor
    above `max_delay`."""
    base = min(max_delay, backoff * 2.0 ** (failed - 1))
    moved = base * (1.0 + jitter * (2.0 * rand() - 1.0))
    return min(max_delay, max(0.0, moved))


# -- calling a model once more -------------------------------------------------------------------
class EmptyModelReply(Exception):
    """The model answered a retried or fallback call with no response at all."""


async def one_reply(model: BaseLlm, llm_request: LlmRequest) -> LlmResponse:
    """Call `model` once, not streaming, and return its complete reply.

    An `on_model_error_callback` hands ADK one response, so the call is made with
    `stream=False`: the model sends its whole reply at once. Should it still yield partial
    chunks, they are dropped and the last complete response is returned (a model that only
    yields partials has its last one returned, marked complete)."""
    last: LlmResponse | None = None
    last_complete: LlmResponse | None = None
    responses = model.generate_content_async(llm_request, stream=False)
    try:
        async for response in responses:
            last = response
            if not response.partial:
                last_complete = response
    finally:
        closing = getattr(responses, "aclose", None)
        if closing is not None:
            await closing()
    if last_complete is not None:
        return last_complete
    if last is None:
        raise EmptyModelReply(f"model {model.model!r} returned no response")
    last.partial = False
    return last


def count_model_call(callback_context: Any) -> bool:
    """Count one more model call against RunConfig.max_llm_calls, as ADK counts its own; False
    when the limit is reached (the caller then stops and lets ADK raise the original error)."""
    ctx = invocation_of(callback_context)
    increment = getattr(ctx, "increment_llm_call_count", None)
    if increment is None:
        return True
    try:
        increment()
    except Exception:  # LlmCallsLimitExceededError: no more model calls in this invocation
        return False
    return True


def agent_model(callback_context: Any) -> BaseLlm | None:
    """The model the agent of a model callback calls (ADK's `canonical_model`), or None."""
    agent = getattr(invocation_of(callback_context), "agent", None)
    model = getattr(agent, "canonical_model", None)
    return model if isinstance(model, BaseLlm) else None


# -- retry ---------------------------------------------------------------------------------------
class Retry(Middleware):
    """Retries failed model and tool calls (see `retry()`)."""

    name = "retry"

    def __init__(
        self,
        max_attempts: int = 3,
        backoff: float = 0.5,
        jitter: float = 0.1,
        on: type[Exception] | Iterable[type[Exception]] = (Exception,),
        max_delay: float = DEFAULT_MAX_DELAY,
        *,
        scope: str | tuple[str, ...] | None = None,
        priority: int = -10,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        name = self.name
        self.max_attempts = checked_count(
            max_attempts,
            name,
            "max_attempts",
            least=2,
            hint="max_attempts counts the first call too: max_attempts=3 is one call and up to "
            "two retries (1 would never retry).",
        )
        self.backoff = checked_seconds(
            backoff,
            name,
            "backoff",
            positive=False,
            hint="backoff=0.5 waits 0.5 s, then 1 s, 2 s, ... between attempts; 0 never waits.",
        )
        self.jitter = checked_seconds(
            jitter,
            name,
            "jitter",
            positive=False,
            hint="jitter is a fraction of each wait: 0.1 moves it by up to 10% either way; "
            "0 waits exactly; at most 1.",
        )
        if self.jitter > 1:
            raise BuildError(
                f"jitter={jitter} is more than the whole wait",
                agent=name,
                field="jitter",
                hint="jitter is a fraction between 0 and 1: 0.1 moves each wait by up to 10%.",
            )
        self.max_delay = checked_seconds(
            max_delay,
            name,
            "max_delay",
            positive=True,
            hint=f"max_delay caps each wait in seconds, e.g. max_delay={DEFAULT_MAX_DELAY}.",
        )
        if self.max_delay < self.backoff:
            raise BuildError(
                f"max_delay={max_delay} is shorter than the first wait, backoff={backoff}",
                agent=name,
                field="max_delay",
                hint="make max_delay at least backoff, or lower backoff.",
            )
        self.on = checked_exceptions(on, name)
        self.sleep: Sleep = checked_callable(
            sleep,
            name,
            "sleep",
            "sleep is an async function of seconds, like the default asyncio.sleep.",
        )
        super().__init__(scope=scope, priority=priority)
        # function_call_id -> (tool name, attempts): tool replies to mark when their event passes
        self._tool_marks: OrderedDict[str, tuple[str, int]] = OrderedDict()

    def delay(self, failed: int, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait after the `failed`-th failed attempt (see backoff_delay)."""
        return backoff_delay(
            failed, backoff=self.backoff, jitter=self.jitter, max_delay=self.max_delay, rand=rand
        )

    async def _wait(self, failed: int) -> None:
        waited = self.sleep(self.delay(failed))
        if inspect.isawaitable(waited):
            await waited

    # -- models --------------------------------------------------------------------------------
    async def on_model_error_callback(
        self, *, callback_context: Any, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Call the agent's model again (after a wait) until it answers or the attempts run out;
        None when they do, so ADK raises the original error."""
        if not isinstance(error, self.on):
            return None
        model = agent_model(callback_context)
        if model is None:
            return None
        for attempt in range(2, self.max_attempts + 1):
            await self._wait(attempt - 1)
            if not count_model_call(callback_context):
                return None
            try:
                response = await one_reply(model, llm_request)
            except Exception as failed:
                if not isinstance(failed, (*self.on, EmptyModelReply)):
                    return None
                continue
            return mark(response, "retry", {"attempts": attempt})  # type: ignore[no-any-return]
        return None

    # -- tools ---------------------------------------------------------------------------------
    async def on_tool_error_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: Any, error: Exception
    ) -> dict[str, Any] | None:
        """Run the tool again (after a wait) until it returns or the attempts run out; None when
        they do, so ADK raises the original error."""
        # ADK hands an unknown tool name to the error callbacks as a bare BaseTool placeholder:
        # there is nothing to run again.
        if not isinstance(error, self.on) or type(tool) is BaseTool:
            return None
        for attempt in range(2, self.max_attempts + 1):
            await self._wait(attempt - 1)
            try:
                result = await tool.run_async(args=tool_args, tool_context=tool_context)
            except Exception as failed:
                if not isinstance(failed, self.on):
                    return None
                continue
            self._remember_tool_mark(getattr(tool_context, "function_call_id", None), tool, attempt)
            # ADK wants a dict (and reads None as "not handled"): wrap like ADK wraps a result
            return result if isinstance(result, dict) else {"result": result}
        return None

    def _remember_tool_mark(self, call_id: str | None, tool: BaseTool, attempts: int) -> None:
        if not call_id:
            return
        remember(self._tool_marks, call_id, (tool.name, attempts), _MAX_PENDING_TOOL_MARKS)

    @sync_callback
    def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        """Mark the function-response event of a retried tool call `adk_fluent.retry`: {"attempts":
        most attempts in the event, "tools": {tool: attempts}}. A tool callback cannot reach its
        event's metadata, so the mark is put on here (a copy: stored as well as streamed where
        ADK stores plugin edits, streamed only on ADK releases that store the event first)."""
        if not self._tool_marks:
            return None
        retried: dict[str, int] = {}
        for response in _function_responses(event):
            found = self._tool_marks.pop(getattr(response, "id", None) or "", None)
            if found is not None:
                retried[found[0]] = max(found[1], retried.get(found[0], 0))
        if not retried:
            return None
        metadata = {
            **(event.custom_metadata or {}),
            METADATA_PREFIX + "retry": {"attempts": max(retried.values()), "tools": retried},
        }
        return event.model_copy(update={"custom_metadata": metadata})


def _function_responses(event: Any) -> list[Any]:
    content = getattr(event, "content", None)
    return [
        part.function_response
        for part in (getattr(content, "parts", None) or [])
        if getattr(part, "function_response", None) is not None
    ]


def retry(
    max_attempts: int = 3,
    backoff: float = 0.5,
    jitter: float = 0.1,
    on: type[Exception] | Iterable[type[Exception]] = (Exception,),
    max_delay: float = DEFAULT_MAX_DELAY,
    *,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -10,
    sleep: Sleep = asyncio.sleep,
) -> Retry:
    """Retry failed model and tool calls: up to `max_attempts` attempts in all (the first call
    included), waiting `backoff * 2**k` seconds (k = 0, 1, ...; moved by up to `jitter` of
    itself, capped at `max_delay`) through `sleep`, only for errors that are instances of `on`.
    The reply that answered is marked `adk_fluent.retry`; failed attempts leave no event. When
    all fail, ADK raises the original error."""
    return Retry(
        max_attempts,
        backoff,
        jitter,
        on,
        max_delay,
        scope=scope,
        priority=priority,
        sleep=sleep,
    )
