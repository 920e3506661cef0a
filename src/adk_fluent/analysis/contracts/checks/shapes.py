"""Declarations and values whose shape cannot hold at run time: a `.writes()` that nothing in
the agent can perform, and a model's text reply handed to `map_over` as its list.

Both are common in code ported from the PyPI project adk-fluent 0.x (docs/from-adk-fluent-0x.md),
where `.writes("k")` set the agent's output key: here it only declares what the agent's tools
and callbacks write, so the checker trusts it and stays silent about later reads of `k`.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.checks.common import consequence, reader_name, ways
from adk_fluent.analysis.contracts.effects import REF_CHANNELS, declared_writes, is_set
from adk_fluent.analysis.contracts.flow_state import NO, ReadRecord, Writer
from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.analysis.contracts.summaries import Summaries
from adk_fluent.ir import nodes as ir


def _may_write_anything(node: ir.Node, nodes: Summaries) -> bool:
    """Whether some code of `node` or under it (agent tools too) may write keys the checker
    cannot name: a function step, a tool or callback it cannot read, a custom agent."""
    return any(
        (isinstance(item, ir.TransformNode) and nodes.step_effects(item).opaque_write)
        or any(unit.effects.opaque_write for unit in nodes.code_of(item))
        for item in node.walk()
    )


def _performed(ctx: Any, nodes: Summaries, node: ir.LlmAgentNode, path: str, key: str) -> bool:
    """Whether something in the agent can write `key`: its output key, a tool or callback of
    its own (the checker cannot see every write code makes, so any of them counts), or a tree
    under it (an agent tool, a delegate) that writes it or runs code the checker cannot read."""
    if node.output_key == key:
        return True
    if any(unit.stage != "instruction" for unit in nodes.code_of(node)):
        return True  # an instruction provider gets a read-only context: it writes nothing
    for writer in ctx.flow.writers.get(key, ()):
        if writer.path.startswith(path + "/"):
            return True
    return any(_may_write_anything(tree, nodes) for tree in (*node.children, *node.attached))


def _readers(ctx: Any, key: str) -> list[ReadRecord]:
    return [
        record
        for record in ctx.flow.records
        if record.read.key == key and record.read.channel not in REF_CHANNELS
    ]


@register_check("declared-writes", codes=("write-never-performed",))
def check_declared_writes(ctx: Any) -> Iterator[Issue]:
    """An LLM agent's `.writes("k")` when nothing in the agent can write `k` (no output key, no
    tool, callback, agent tool or delegate that writes it): the checker trusts the declaration,
    so a later read of `k` looks satisfied and fails at run time."""
    nodes = Summaries(ctx.root)
    for node in ctx.llm_agents():
        path = ctx.path_of(node)
        for write in declared_writes(node):
            if write.kind != "declared" or write.delete:
                continue
            if _performed(ctx, nodes, node, path, write.key):
                continue
            key = write.key
            readers = _readers(ctx, key)
            if readers:
                first = readers[0]
                after = (
                    f"; {reader_name(first)} reads it, so {consequence(first)} (the checker "
                    "took the declaration at its word and said nothing there)"
                )
            else:
                after = ""
            yield ctx.issue(
                "error" if readers else "warning",
                "write-never-performed",
                node,
                key,
                f'{node.name} declares .writes("{key}")',
                f"'{node.name}' declares that it writes \"{key}\", but nothing in it can: it has "
                f'no output key "{key}", and no tool, callback, agent tool or delegate of it '
                f"writes it{after}.",
                f'To store the agent\'s reply in "{key}", use .outputs("{key}") (in adk-fluent '
                f'0.x, .writes("{key}") set the output key; here .writes() declares what the '
                "agent's tools and callbacks write). Otherwise give it the tool or callback that "
                f'writes "{key}", or drop the declaration.',
                path=path,
            )


def _reply_shape(node: ir.LlmAgentNode) -> str | None:
    """What an agent's reply stored by its output key is when it can never be a list: text (no
    output_schema), or a dict (a pydantic model or a dict schema); None when it may be a list
    (an output_schema such as list[str], where the installed google-adk accepts one) or the
    checker cannot tell (a union, say)."""
    schema = node.output_schema
    if not is_set(schema) or schema is None:
        return "text (a str)"
    if isinstance(schema, type) and hasattr(schema, "model_fields"):
        return f"a {schema.__name__} object (stored as a dict)"
    if schema is dict or typing.get_origin(schema) is dict:
        return "a dict"
    return None


def _text_writers(ctx: Any, writers: tuple[Writer, ...]) -> list[tuple[Writer, str]]:
    found = []
    for writer in writers:
        agent = ctx.flow.agents.get(writer.node)
        if writer.kind != "outputs" or agent is None:
            continue
        shape = _reply_shape(agent)
        if shape is not None:
            found.append((writer, shape))
    return found


@register_check("map-over-input", codes=("map-over-text",))
def check_map_over_input(ctx: Any) -> Iterator[Issue]:
    """`a.outputs("k") >> map_over("k", ...)`: an agent's reply is text (or, with a pydantic
    output_schema, a dict), never the list map_over runs over."""
    for record in ctx.flow.records:
        if record.read.channel != "map_over" or record.fact.status == NO:
            continue
        writers = tuple(w for w in record.fact.writers if w.kind != "initial")
        texts = _text_writers(ctx, writers)
        if not texts:
            continue
        key = record.read.key
        every = len(texts) == len(writers) and record.fact.status == "yes"
        shapes = " or ".join(dict.fromkeys(shape for _, shape in texts))
        yield ctx.issue(
            "error" if every else "warning",
            "map-over-text",
            record.node,
            key,
            f'map_over("{key}") reads "{key}"',
            f"map_over '{record.node}' runs its body once per item of the list in \"{key}\", but "
            f"{ways(w for w, _ in texts)} stores an agent's reply there, which is {shapes}, never "
            f"a list: {'' if every else 'when it is the value, '}{consequence(record)}.",
            f'Store a list in "{key}" first: e.g. S.transform("{key}", str.splitlines) after the '
            "agent (one item per line), a tool that writes the list (tool_context.state"
            f'["{key}"] = [...]), or an output_schema that is a list (list[str]) where the '
            "installed google-adk accepts one (1.25 takes only a pydantic model).",
            path=record.path,
        )
