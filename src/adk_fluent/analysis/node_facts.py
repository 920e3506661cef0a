"""What telemetry says about each agent of a tree, read from the IR once, at build time.

A NodeFacts record per compiled agent name: its path from the root, its kind (agent, pipeline,
fanout, loop, route, ...), visibility and depth (analysis/visibility.py), the state keys it
declares it reads and writes, its context spec, the enclosing loop and route, and the model
policy it carries. The middleware plugin hands these to middleware by agent name
(adk/plugins/middleware.py `agent_facts`), so a span attribute costs a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adk_fluent.analysis.visibility import NodeVisibility, infer_visibility_table
from adk_fluent.ir.nodes import NativeAgentNode, Node, RouteNode

# node type -> the kind telemetry reports (other types: their class name, snake case)
KINDS: dict[str, str] = {
    "LlmAgentNode": "agent",
    "SequentialAgentNode": "pipeline",
    "ParallelAgentNode": "fanout",
    "LoopAgentNode": "loop",
    "RouteNode": "route",
    "MapOverNode": "map_over",
    "FallbackNode": "fallback",
    "RaceNode": "race",
    "TimeoutNode": "timeout",
    "GateNode": "gate",
    "TransformNode": "state_step",
    "TapNode": "tap",
    "UntilNode": "until",
    "NativeAgentNode": "native",
    "RemoteAgentNode": "remote_agent",
    "BoundaryNode": "boundary",
    "ChunkedEdgeNode": "chunked_edge",
}


def kind_of(node: Node) -> str:
    """The kind of a node as telemetry names it ('agent', 'pipeline', 'loop', ...)."""
    name = type(node).__name__
    if name in KINDS:
        return KINDS[name]
    stem = name.removesuffix("Node")
    return "".join("_" + c.lower() if c.isupper() else c for c in stem).lstrip("_")


@dataclass(frozen=True)
class NodeFacts:
    """One agent's facts for telemetry (every field is safe to export: names, never content)."""

    name: str
    path: str
    kind: str
    visibility: str
    depth: int
    pipeline: str  # the root's name
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    context: str | None = None  # the context spec (C), described
    loop: str | None = None  # the nearest enclosing loop or map_over (its name)
    starts_iteration: bool = False  # its start begins an iteration of `loop`
    route: str | None = None  # the route this node is a branch of (its name)
    model_policy: str | None = None  # ModelSelectorNode.describe()


def _facts(
    node: Node,
    table: dict[str, NodeVisibility],
    root: str,
    loop: str | None,
    starts: bool,
    route: str | None,
) -> Iterator[NodeFacts]:
    seen = table[node.name]
    context: Any = getattr(node, "context", None)
    selector: Any = getattr(node, "model_selector", None)
    yield NodeFacts(
        name=node.name,
        path=seen.path,
        kind=kind_of(node),
        visibility=seen.visibility,
        depth=seen.depth,
        pipeline=root,
        reads=tuple(sorted(node.reads_keys)),
        writes=tuple(sorted(node.writes_keys)),
        context=context.describe() if hasattr(context, "describe") else None,
        loop=loop,
        starts_iteration=starts,
        route=route,
        model_policy=selector.describe() if hasattr(selector, "describe") else None,
    )
    repeats = node.CHILDREN == "repeat"
    for index, child in enumerate(node.children):
        inner_loop = node.name if repeats else loop
        # the first child of a loop's body begins each iteration (a body that is a sequence:
        # its first step; nested composites pass the flag down to their first child)
        child_starts = (repeats and index == 0) or (starts and index == 0)
        yield from _facts(
            child,
            table,
            root,
            inner_loop,
            child_starts,
            node.name if isinstance(node, RouteNode) else None,
        )
    for tree in node.attached:  # agent tools run in sub-runs of their own
        yield from _facts(tree, table, root, None, False, None)
    if isinstance(node, NativeAgentNode):
        for name in node.agent_names[1:]:
            inner = table.get(name)
            if inner is not None:
                yield NodeFacts(
                    name,
                    inner.path,
                    "native",
                    inner.visibility,
                    inner.depth,
                    root,
                    loop=loop,
                )


def node_facts(root: Node, renamed: dict[str, str] | None = None) -> dict[str, NodeFacts]:
    """Facts of every node by compiled agent name (`renamed`: compiled name -> IR name, for the
    zero-cost steps the compiler renames to keep names unique)."""
    table = infer_visibility_table(root)
    facts: dict[str, NodeFacts] = {}
    for fact in _facts(root, table, root.name, None, False, None):
        facts.setdefault(fact.name, fact)
    for compiled, original in (renamed or {}).items():
        if original in facts:
            facts[compiled] = facts[original]
    return facts
