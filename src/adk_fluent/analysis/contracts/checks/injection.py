"""Prompt injection: the user's words (or another model's) substituted into a system instruction.

ADK replaces `{key}` in an instruction with state[key] as it is, so text written by
`S.capture` / `C.capture_turns` (what the user typed) becomes part of the agent's own
instructions: "ignore the above and ..." reads as an order, not as data. A C block
(`C.from_state`, `C.template`) carries the same value as data instead: in the conversation,
between delimiters, escaped so it cannot close its block (adk/context_view).

The output of an agent with tools, read the same way, is reported as advice: its reply can
carry what a tool fetched (a web page, a document, an email), the usual road for an injection
that the user never typed. A tool-less agent's output (a classifier's label) is not reported:
it is the ordinary way to pass a label on, and its text is steered by its own instruction.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.effects import is_set
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.ir.nodes import TransformNode
from adk_fluent.ir.steps import Capture, CaptureTurns

_INSTRUCTION_CHANNELS = ("instruction", "global instruction")


def _captures(ctx: Any) -> set[str]:
    """Names of the steps that store what the user typed."""
    return {
        node.name
        for node in ctx.root.walk()
        if isinstance(node, TransformNode) and isinstance(node.step, Capture | CaptureTurns)
    }


def _fix(key: str) -> str:
    return (
        f'Hand it over as data, not as instructions: .context(C.from_state("{key}")) puts it in a '
        f"delimited, escaped <state> block of the conversation (add C.user_only() + ... to keep "
        f'the history), and keep the instruction to your own words, e.g. "Answer the question in '
        f'the <state> block." C.template("... {{{key}}} ...") works the same way.'
    )


@register_check(
    "injection",
    codes=("user-text-in-instruction", "agent-text-in-instruction"),
)
def check_injection(ctx: Any) -> Iterator[Issue]:
    """Captured user text (or an agent's output) substituted into an instruction `{key}`."""
    captures = _captures(ctx)
    for record in ctx.flow.records:
        read = record.read
        if record.kind != "agent" or read.channel not in _INSTRUCTION_CHANNELS:
            continue
        brace = f"{{{read.key}}}" if read.required else f"{{{read.key}?}}"
        user = [w for w in record.fact.writers if w.kind == "step" and w.node in captures]
        agents = [
            w
            for w in record.fact.writers
            if w.kind == "outputs"
            and w.node in ctx.flow.agents
            and is_set(ctx.flow.agents[w.node].tools)
        ]
        if user:
            via = " and ".join(dict.fromkeys(w.via for w in user))
            yield ctx.issue(
                "warning",
                "user-text-in-instruction",
                record.node,
                read.key,
                f"{record.node} puts the user's text in its {read.channel} via {brace}",
                f'"{read.key}" holds what the user typed ({via}), and ADK substitutes {brace} '
                f'into the system instruction as it is: a message such as "Ignore the above '
                f"and ...\" becomes part of {record.node}'s instructions.",
                _fix(read.key),
                path=record.path,
            )
        elif agents:
            via = " and ".join(dict.fromkeys(w.via for w in agents))
            yield ctx.issue(
                "info",
                "agent-text-in-instruction",
                record.node,
                read.key,
                f"{record.node} puts a tool-using agent's reply in its {read.channel} via {brace}",
                f'"{read.key}" is the reply of an agent with tools ({via}): it can repeat what a '
                f"tool returned (a page, a document), and ADK substitutes {brace} into the system "
                "instruction as it is.",
                _fix(read.key),
                path=record.path,
            )
