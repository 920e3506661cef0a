"""ADK objects the builders ask for or check (the API room never imports google.adk itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def confirmed_tool(fn: Callable[..., Any], require_confirmation: Any) -> Any:
    """A FunctionTool that asks a person to confirm each call (or when `require_confirmation(...)`)."""
    from google.adk.tools.function_tool import FunctionTool

    return FunctionTool(fn, require_confirmation=require_confirmation)


def is_model_object(value: Any) -> bool:
    """Whether `value` is an ADK model object (a BaseLlm instance such as LiteLlm(...))."""
    from google.adk.models.base_llm import BaseLlm

    return isinstance(value, BaseLlm)
