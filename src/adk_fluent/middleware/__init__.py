"""adk-fluent middleware: cross-cutting behaviour compiled into one ADK plugin (docs/middleware.md).

`Middleware` is the protocol (any object implementing ADK's plugin callbacks by their ADK names);
the built-ins are real behaviours, each proven through the real Runner on both ADK ends.

The names are bound here, not looked up lazily: two modules share their function's name
(`cache`, `retry`), and once such a module is imported Python would set the package attribute to
the module, shadowing the function a lazy lookup would have returned.
"""

from __future__ import annotations

from adk_fluent.adk.plugins.middleware import agent_path
from adk_fluent.ir.middleware import PLUGIN_CALLBACKS, Middleware
from adk_fluent.middleware.approval import ToolApproval, tool_approval
from adk_fluent.middleware.breaker import CircuitBreaker, circuit_breaker
from adk_fluent.middleware.cache import CacheStore, InMemoryCacheStore, ResponseCache, cache
from adk_fluent.middleware.call_log import CallLog, StructuredLog, log, structured_log
from adk_fluent.middleware.fallback import FallbackModel, fallback_model
from adk_fluent.middleware.limits import RateLimiter, TokenBudget, rate_limiter, token_budget
from adk_fluent.middleware.pii import PiiFilter, original_message, pii_filter
from adk_fluent.middleware.retry import Retry, retry

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
