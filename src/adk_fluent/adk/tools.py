"""ADK tool objects the builders ask for (the API room never imports google.adk itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def confirmed_tool(fn: Callable[..., Any], require_confirmation: Any) -> Any:
    """A FunctionTool that asks a person to confirm each call (or when `require_confirmation(...)`)."""
    from google.adk.tools.function_tool import FunctionTool

    return FunctionTool(fn, require_confirmation=require_confirmation)
