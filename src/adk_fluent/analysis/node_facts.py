"""What telemetry says about each agent of a tree, read from the IR once, at build time.

A NodeFacts record per compiled agent name: its path from the root, its kind (agent, pipeline,
fanout, loop, route, ...), visibility and depth (analysis/visibility.py), the state keys it
declares it reads and writes, its context spec, the enclosing loop and route, and the model
policy it carries. The middleware plugin hands these to middleware by agent name
(adk/plugins/middleware.py `agent_facts`), so a span attribute costs a dictionary lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from adk_fluent.analysis.visibility import NodeVisibility, infer_visibility_table
from adk_fluent.ir.nodes import NativeAgentNode, Node, NodeVisitor, RouteNode, Walk

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


class _Around(NamedTuple):
    """What encloses a node: the nearest loop or map_over, whether its start begins an
    iteration of that loop, and the route it is a branch of."""

    loop: str | None = None
    starts: bool = False
    route: str | None = None


class _Facts(NodeVisitor[_Around, None]):
    """Each node's facts (the first of a name is kept); a node type with more to say has a
    case of its own."""

    def __init__(self, table: dict[str, NodeVisibility], root: str) -> None:
        self.table, self.root = table, root
        self.facts: dict[str, NodeFacts] = {}

    def _node(self, node: Node, around: _Around, route: str | None = None) -> Walk[_Around, None]:
        """`route`: the route its children are branches of."""
        seen = self.table[node.name]
        context: Any = getattr(node, "context", None)
        selector: Any = getattr(node, "model_selector", None)
        fact = NodeFacts(
            name=node.name,
            path=seen.path,
            kind=kind_of(node),
            visibility=seen.visibility,
            depth=seen.depth,
            pipeline=self.root,
            reads=tuple(sorted(node.reads_keys)),
            writes=tuple(sorted(node.writes_keys)),
            context=context.describe() if hasattr(context, "describe") else None,
            loop=around.loop,
            starts_iteration=around.starts,
            route=around.route,
            model_policy=selector.describe() if hasattr(selector, "describe") else None,
        )
        self.facts.setdefault(node.name, fact)
        repeats = node.CHILDREN == "repeat"
        for index, child in enumerate(node.children):
            # the first child of a loop's body begins each iteration (a body that is a sequence:
            # its first step; nested composites pass the flag down to their first child)
            starts = index == 0 and (repeats or around.starts)
            yield child, _Around(node.name if repeats else around.loop, starts, route)
        for tree in node.attached:  # agent tools run in sub-runs of their own
            yield tree, _Around()

    visit_llm_agent = visit_sequential_agent = visit_parallel_agent = visit_loop_agent = _node
    visit_fallback = visit_until = visit_transform = visit_map_over = visit_gate = _node
    visit_tap = visit_timeout = visit_race = visit_remote_agent = visit_boundary = _node
    visit_chunked_edge = _node

    def visit_route(self, node: RouteNode, around: _Around) -> Walk[_Around, None]:
        return self._node(node, around, route=node.name)

    def visit_native_agent(self, node: NativeAgentNode, around: _Around) -> Walk[_Around, None]:
        """The agents inside a custom agent, as 'native' in its place."""
        yield from self._node(node, around)
        for name in node.agent_names[1:]:
            inner = self.table.get(name)
            if inner is not None:
                self.facts.setdefault(
                    name,
                    NodeFacts(
                        name,
                        inner.path,
                        "native",
                        inner.visibility,
                        inner.depth,
                        self.root,
                        loop=around.loop,
                    ),
                )


def node_facts(root: Node, renamed: dict[str, str] | None = None) -> dict[str, NodeFacts]:
    """Facts of every node by compiled agent name (`renamed`: compiled name -> IR name, for the
    zero-cost steps the compiler renames to keep names unique)."""
    walk = _Facts(infer_visibility_table(root), root.name)
    walk.visit(root, _Around())
    facts = walk.facts
    for compiled, original in (renamed or {}).items():
        if original in facts:
            facts[compiled] = facts[original]
    return facts
