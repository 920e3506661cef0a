"""A pipeline's tree in a recording's header: what each node is and a fingerprint of the whole,
read from the IR, so a recording shows when the tree it was made with has changed since.

Each node is listed by its path with its kind, model and tools in clear and its instructions
as short digests (the full text is in every model request); the fingerprint is a digest of
that list. Callables (instruction providers, function tools) count by their qualified name.
"""

from __future__ import annotations

import hashlib
from typing import Any

from adk_fluent.analysis.node_facts import kind_of
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.nodes import Node
from adk_fluent.replay.values import canonical

_TEXT_FIELDS = ("instruction", "global_instruction", "static_instruction", "description")
_PLAIN_FIELDS = ("output_key", "include_contents")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _described(value: Any) -> str:
    """A field's value as stable text: callables and classes by name, never a repr."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool | int | float):
        return str(value)
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if callable(value) and isinstance(name, str):
        return f"{getattr(value, '__module__', '')}.{name}"
    model = getattr(value, "model", None)
    if isinstance(model, str):  # a BaseLlm instance
        return model
    named = getattr(value, "name", None)
    if isinstance(named, str):
        return f"{type(value).__name__}:{named}"
    describe = getattr(value, "describe", None)
    if callable(describe):
        return str(describe())
    return type(value).__name__


def _tool_name(tool: Any) -> str:
    name = getattr(tool, "name", None)
    if isinstance(name, str):
        return name
    return str(getattr(tool, "__name__", type(tool).__name__))


def _nodes(root: Node, path: str, found: list[dict[str, Any]]) -> None:
    """Each node's entry, parents first, on a stack of its own (a tree of any depth)."""
    stack = [(root, path)]
    while stack:
        node, path = stack.pop()
        found.append(_entry(node, path))
        below = [(child, f"{path}/{child.name}") for child in node.children]
        # agent tools: their own trees, under the calling agent
        below += [(tree, f"{path}/[tool]{tree.name}") for tree in node.attached]
        stack.extend(reversed(below))


def _entry(node: Node, path: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, "kind": kind_of(node)}
    fields = node.set_fields()
    for field in _TEXT_FIELDS:
        if fields.get(field) is not None:
            entry[f"{field}_sha256"] = _digest(_described(fields[field]))
    for field in _PLAIN_FIELDS:
        if fields.get(field) is not None:
            entry[field] = _described(fields[field])
    if fields.get("model") is not None:
        entry["model"] = _described(fields["model"])
    tools = fields.get("tools")
    if tools:
        entry["tools"] = sorted(_tool_name(tool) for tool in tools)
    return dict(sorted(entry.items()))


def tree_of(tree: Any) -> Node:
    """The IR of a builder, an IR node or a native ADK agent."""
    if isinstance(tree, Node):
        return tree
    to_ir = getattr(tree, "to_ir", None)
    if callable(to_ir) and not isinstance(tree, type):
        ir = to_ir()
        if isinstance(ir, Node):
            return ir
    from adk_fluent.adk.native import is_native_agent, native_ir

    if is_native_agent(tree):
        return native_ir(tree)
    raise BuildError(
        f"tree must be a pipeline (a builder), its IR or a native ADK agent, not "
        f"{describe_value(tree)}",
        agent="Recorder",
        field="tree",
        hint="e.g. Recorder(tree=pipeline) with the expression you run.",
    )


def tree_summary(tree: Any) -> dict[str, Any]:
    """{"root", "nodes": [...], "fingerprint"} for a builder, an IR node or a native agent."""
    root = tree_of(tree)
    nodes: list[dict[str, Any]] = []
    _nodes(root, root.name, nodes)
    return {
        "fingerprint": "sha256:" + _digest(canonical(nodes)),
        "nodes": nodes,
        "root": root.name,
    }


def tree_fingerprint(tree: Any) -> str:
    """A short digest of a tree's agents, instructions, models, tools and structure."""
    return str(tree_summary(tree)["fingerprint"])


def tree_changes(recorded: dict[str, Any] | None, current: dict[str, Any] | None) -> list[str]:
    """What differs between two tree summaries, node by node ('' lines when equal)."""
    if not recorded or not current or recorded.get("fingerprint") == current.get("fingerprint"):
        return []
    before = {entry["path"]: entry for entry in recorded.get("nodes", [])}
    after = {entry["path"]: entry for entry in current.get("nodes", [])}
    changes: list[str] = []
    for path, entry in before.items():
        if path not in after:
            changes.append(f"{entry.get('kind', 'node')} {path} was removed")
            continue
        other = after[path]
        for key in sorted(set(entry) | set(other)):
            if key != "path" and entry.get(key) != other.get(key):
                field = key.removesuffix("_sha256")
                changes.append(f"{path}: {field} changed")
    for path, entry in after.items():
        if path not in before:
            changes.append(f"{entry.get('kind', 'node')} {path} was added")
    return changes or ["the tree's fingerprint changed"]
