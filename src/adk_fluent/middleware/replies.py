"""What built-in middleware hand back to ADK: an error reply in place of a model call, a mark in
an event's metadata, a run stopped before the agents after it."""

from __future__ import annotations

from typing import Any

from google.adk.models.llm_response import LlmResponse

from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.custom_agents.halt import halt

METADATA_PREFIX = "adk_fluent."  # custom_metadata keys of middleware: adk_fluent.<middleware>


def error_reply(code: str, message: str, **metadata: Any) -> LlmResponse:
    """A model reply that is an error event (`error_code`, `error_message`), as ADK makes for a
    failed model call; `metadata` goes to its custom_metadata under `adk_fluent.<key>`."""
    return LlmResponse(
        error_code=code,
        error_message=message,
        custom_metadata={METADATA_PREFIX + key: value for key, value in metadata.items()} or None,
    )


def mark(response: Any, key: str, value: Any) -> Any:
    """Put `adk_fluent.<key>: value` in a model reply's custom_metadata (in place; returned)."""
    response.custom_metadata = {**(response.custom_metadata or {}), METADATA_PREFIX + key: value}
    return response


def stop_run(callback_context: Any) -> None:
    """No agent that has not started yet runs in this invocation (adk/custom_agents/halt.py)."""
    ctx = invocation_of(callback_context)
    if ctx is not None:
        halt(ctx, "failed")
