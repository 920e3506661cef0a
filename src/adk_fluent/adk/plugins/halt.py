"""HaltPlugin: stops every agent of an invocation that a failed step or a waiting gate ended
(see adk/custom_agents/halt.py for why this cannot be ADK's `end_invocation` alone)."""

from __future__ import annotations

from typing import Any

from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.custom_agents.halt import halted, release


class HaltPlugin(BasePlugin):
    """Ends each agent's invocation context before it runs once the invocation was halted."""

    def __init__(self) -> None:
        super().__init__(name="adk_fluent_halt")

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        ctx = invocation_of(callback_context)
        if ctx is not None and halted(ctx):
            ctx.end_invocation = True  # ADK checks it right after the before-agent callbacks
        return None

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        release(invocation_context.invocation_id)
        return None
