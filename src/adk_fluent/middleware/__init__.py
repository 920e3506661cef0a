"""adk-fluent middleware: cross-cutting behaviour compiled into one ADK plugin (docs/middleware.md).

`Middleware` is the protocol (any object implementing ADK's plugin callbacks by their ADK names);
the built-ins are real behaviours, each proven through the real Runner on both ADK ends.
"""

from __future__ import annotations

from adk_fluent.adk.plugins.middleware import agent_path
from adk_fluent.ir.middleware import PLUGIN_CALLBACKS, Middleware

__all__ = ["PLUGIN_CALLBACKS", "Middleware", "agent_path"]
