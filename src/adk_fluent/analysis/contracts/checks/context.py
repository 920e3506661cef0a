"""Context contracts (channel 1): C specs that name real agents and keep what the agent needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.effects import is_set
from adk_fluent.analysis.contracts.flow_state import view_of
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.errors import did_you_mean


@register_check("context", codes=("context-unknown-agent", "tools-history-hidden"))
def check_context(ctx: Any) -> Iterator[Issue]:
    """C.from_agents / C.exclude_agents naming unknown agents; tools under C.none()."""
    agents = ctx.llm_agents()
    names = {node.name for node in agents}
    for node in agents:
        spec = node.context
        if spec is None:
            continue
        view = view_of(node)
        if view.history in ("from_agents", "exclude_agents"):
            effect = (
                "shows none of its replies (only the user's messages and the agent's own)"
                if view.history == "from_agents"
                else "excludes nothing"
            )
            for name in view.agents:
                if name in names:
                    continue
                suggestion = did_you_mean(name, names - {node.name})
                yield ctx.issue(
                    "error",
                    "context-unknown-agent",
                    node,
                    None,
                    f"{node.name} has {view.label}",
                    f'No agent named "{name}" is in this pipeline, so the view {effect}.',
                    (suggestion[0].upper() + suggestion[1:])
                    if suggestion
                    else f"Agents in this pipeline: {', '.join(sorted(names))}.",
                )
        if view.history == "none" and is_set(node.tools):
            yield ctx.issue(
                "warning",
                "tools-history-hidden",
                node,
                None,
                f"{node.name} has tools and {view.label}",
                f"With {view.label}, {node.name} sees its own tool calls only while it runs; "
                "tool results from earlier turns or loop iterations are not in its view.",
                "Use C.user_only() (the user's messages and this agent's own history, tool calls "
                "included), or keep results in state (.outputs(), tool_context.state) and read "
                "them with C.from_state(...).",
            )
