"""Channel coherence (docs/contracts.md): text that reaches an agent twice, or never."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.flow_state import NO
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue

_TEXT_CHANNELS = ("instruction", "global instruction", "C.template", "C.from_state")


@register_check("channel-duplication", codes=("channel-duplication",))
def check_duplication(ctx: Any) -> Iterator[Issue]:
    """An agent reads {key} from state while the producer's reply also reaches it via history."""
    for record in ctx.flow.records:
        if record.view is None or record.read.channel not in _TEXT_CHANNELS:
            continue
        if record.fact.status == NO:
            continue
        for writer in record.fact.writers:
            if not writer.text or writer.node == record.node:
                continue
            if not record.view.shows(writer.node, record.speakers):
                continue
            label = "C.default()" if record.view.history == "default" else record.view.label
            key = record.read.key
            yield ctx.issue(
                "info",
                "channel-duplication",
                record.node,
                key,
                f"{record.node} has {label} with predecessor {writer.via}",
                f"{record.node} sees {writer.node}'s reply in its conversation AND its value via "
                f'"{key}" from state: the same text twice.',
                f'Consider .context(C.user_only()) (the user\'s messages; "{key}" from state '
                f'only), or .context(C.exclude_agents("{writer.node}")).',
                path=record.path,
            )


@register_check("data-loss", codes=("data-loss", "internal-no-output"))
def check_data_loss(ctx: Any) -> Iterator[Issue]:
    """Replies that reach no later agent: no .outputs() and every later view leaves them out."""
    for name, unseen in ctx.flow.unseen.items():
        if not unseen.hidden_by or ctx.visibility.get(name) != "internal":
            continue
        views = " and ".join(f"'{agent}' ({label})" for agent, label in unseen.hidden_by)
        yield ctx.issue(
            "warning",
            "data-loss",
            name,
            None,
            f"{name}'s reply reaches no later agent",
            f"{name} writes no state (no .outputs()), so its reply lives only in the "
            "conversation, and "
            f"{views} leave{'s' if len(unseen.hidden_by) == 1 else ''} it out of view: the "
            "reply is lost to the rest of the pipeline.",
            f'Add .outputs("{name}_reply") and read it where needed (e.g. C.from_state('
            f'"{name}_reply")), or let the next agent see it, e.g. C.from_agents("{name}").',
            path=unseen.path,
        )
    if ctx.visibility_mode != "filtered":
        return
    from adk_fluent.analysis.visibility import silent_internal_agents

    for name in silent_internal_agents(ctx.root):
        yield ctx.issue(
            "warning",
            "internal-no-output",
            name,
            None,
            f"{name} is internal and has no .outputs()",
            "In filtered mode no client sees its reply, and with no .outputs() key the reply is "
            "not in state either (only in history).",
            "Add .outputs('<key>') so later steps can use it, or .show() it.",
        )
