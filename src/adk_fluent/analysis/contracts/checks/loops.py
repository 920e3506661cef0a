"""Loops that cannot end: no maximum and no step that can stop them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue


@register_check("loops", codes=("loop-never-ends",))
def check_loops(ctx: Any) -> Iterator[Issue]:
    """A loop with no max_iterations whose body has no until / exit_when step, no custom
    agent, no agent tool, and no tool or callback that escalates (or that the checker cannot
    read)."""
    for loop in ctx.flow.endless_loops:
        yield ctx.issue(
            "warning",
            "loop-never-ends",
            loop.node,
            None,
            f"loop '{loop.node}' has no maximum and nothing that ends it",
            f"Loop '{loop.node}' sets no max_iterations, and no step of its body can stop it: "
            "no until / exit_when step, no custom agent, no tool or callback that escalates. It "
            "repeats until the run is cancelled, calling a model on every iteration.",
            "Give it a maximum (Loop(..., max_iterations=5) or body * 5), add a step that ends "
            "it (exit_when(lambda s: ...), or until(...)), or give an agent in it a tool that "
            "escalates (ADK's exit_loop, or tool_context.actions.escalate = True).",
            path=loop.path,
        )
