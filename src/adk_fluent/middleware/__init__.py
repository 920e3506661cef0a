"""adk-fluent middleware: cross-cutting behaviour compiled into one ADK plugin (docs/middleware.md).

`Middleware` is the protocol (any object implementing ADK's plugin callbacks by their ADK names);
the built-ins are real behaviours, each proven through the real Runner on both ADK ends. Names
are imported on first use (PEP 562), so `import adk_fluent.middleware` loads none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> the module (under adk_fluent) that defines it
_EXPORTS = {
    "Middleware": "ir.middleware",
    "PLUGIN_CALLBACKS": "ir.middleware",
    "agent_path": "adk.plugins.middleware",
    "retry": "middleware.retry",
    "Retry": "middleware.retry",
    "fallback_model": "middleware.fallback",
    "FallbackModel": "middleware.fallback",
    "circuit_breaker": "middleware.breaker",
    "CircuitBreaker": "middleware.breaker",
    "rate_limiter": "middleware.limits",
    "RateLimiter": "middleware.limits",
    "token_budget": "middleware.limits",
    "TokenBudget": "middleware.limits",
    "cache": "middleware.cache",
    "ResponseCache": "middleware.cache",
    "CacheStore": "middleware.cache",
    "InMemoryCacheStore": "middleware.cache",
    "tool_approval": "middleware.approval",
    "ToolApproval": "middleware.approval",
    "pii_filter": "middleware.pii",
    "PiiFilter": "middleware.pii",
    "original_message": "middleware.pii",
    "log": "middleware.call_log",
    "structured_log": "middleware.call_log",
    "CallLog": "middleware.call_log",
    "StructuredLog": "middleware.call_log",
}

__all__ = [
    "PLUGIN_CALLBACKS",
    "CacheStore",
    "CallLog",
    "CircuitBreaker",
    "FallbackModel",
    "InMemoryCacheStore",
    "Middleware",
    "PiiFilter",
    "RateLimiter",
    "ResponseCache",
    "Retry",
    "StructuredLog",
    "TokenBudget",
    "ToolApproval",
    "agent_path",
    "cache",
    "circuit_breaker",
    "fallback_model",
    "log",
    "original_message",
    "pii_filter",
    "rate_limiter",
    "retry",
    "structured_log",
    "token_budget",
    "tool_approval",
]

if TYPE_CHECKING:
    from adk_fluent.adk.plugins.middleware import agent_path
    from adk_fluent.ir.middleware import PLUGIN_CALLBACKS, Middleware
    from adk_fluent.middleware.approval import ToolApproval, tool_approval
    from adk_fluent.middleware.breaker import CircuitBreaker, circuit_breaker
    from adk_fluent.middleware.cache import (
        CacheStore,
        InMemoryCacheStore,
        ResponseCache,
        cache,
    )
    from adk_fluent.middleware.call_log import CallLog, StructuredLog, log, structured_log
    from adk_fluent.middleware.fallback import FallbackModel, fallback_model
    from adk_fluent.middleware.limits import RateLimiter, TokenBudget, rate_limiter, token_budget
    from adk_fluent.middleware.pii import PiiFilter, original_message, pii_filter
    from adk_fluent.middleware.retry import Retry, retry


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'adk_fluent.middleware' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"adk_fluent.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
