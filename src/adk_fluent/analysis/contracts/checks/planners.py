"""Planners (`Agent(...).planner(...)`): what one changes that the rest of the tree depends on.

ADK's PlanReActPlanner asks the model to write its plan and reasoning in the reply, between
tags, and keeps only the final answer as the reply (the rest is stored as thought parts, which
no output key, later agent or client text sees). A reply constrained to JSON (`output_schema`,
or `response_mime_type="application/json"` / a `response_schema` in generate_content_config)
has no room for those tags: the model answers with the JSON alone, so no plan is made and the
planner's long instruction is paid for on every call. BuiltInPlanner's thinking config replaces
the one in generate_content_config (ADK keeps the planner's). The planner objects are ADK's; the
checker knows them by class name, so it needs no google-adk.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.effects import is_set
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue


def _kind(planner: Any) -> str | None:
    names = {klass.__name__ for klass in type(planner).__mro__}
    if "PlanReActPlanner" in names:
        return "react"
    if "BuiltInPlanner" in names:
        return "builtin"
    return None


def _json_reply(node: Any) -> str | None:
    """What makes the agent's reply JSON, or None."""
    if is_set(node.output_schema) and node.output_schema is not None:
        name = getattr(node.output_schema, "__name__", "an output_schema")
        return f"output_schema {name}"
    config = node.generate_content_config
    if not is_set(config) or config is None:
        return None
    if getattr(config, "response_schema", None) is not None:
        return "generate_content_config.response_schema"
    if getattr(config, "response_json_schema", None) is not None:
        return "generate_content_config.response_json_schema"
    if getattr(config, "response_mime_type", None) == "application/json":
        return 'generate_content_config.response_mime_type="application/json"'
    return None


@register_check("planners", codes=("planner-without-effect", "planner-thinking-replaced"))
def check_planners(ctx: Any) -> Iterator[Issue]:
    """A PlanReActPlanner on an agent whose reply must be JSON, and a BuiltInPlanner whose
    thinking config replaces the one the agent's generate_content_config sets."""
    for node in ctx.llm_agents():
        planner = node.planner
        if not is_set(planner) or planner is None:
            continue
        kind = _kind(planner)
        if kind == "react":
            constrained = _json_reply(node)
            if constrained is not None:
                yield ctx.issue(
                    "warning",
                    "planner-without-effect",
                    node,
                    None,
                    f"{node.name} has PlanReActPlanner and {constrained}",
                    f"PlanReActPlanner asks {node.name}'s model to write its plan and reasoning "
                    f"in the reply, between tags, but {constrained} makes the reply JSON only: "
                    "the model answers with the JSON alone, no plan is made, and the planner's "
                    "instruction is sent with every call.",
                    "Use BuiltInPlanner(thinking_config=...) (the model thinks before its "
                    "JSON), or plan in an agent of its own (.outputs('plan')) that this one "
                    "reads.",
                )
        elif kind == "builtin":
            config = node.generate_content_config
            own = getattr(planner, "thinking_config", None)
            theirs = getattr(config, "thinking_config", None) if is_set(config) else None
            if own is not None and theirs is not None:
                yield ctx.issue(
                    "info",
                    "planner-thinking-replaced",
                    node,
                    None,
                    f"{node.name} sets thinking_config twice",
                    f"{node.name}'s BuiltInPlanner and its generate_content_config both set "
                    "thinking_config; ADK sends the planner's, so the one in "
                    "generate_content_config is ignored.",
                    "Set thinking_config in one place: BuiltInPlanner(thinking_config=...).",
                )
