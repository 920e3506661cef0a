"""Who speaks to the user: visibility inferred from the topology, with developer overrides.

Rules (docs/visibility.md shows them with examples), read from each node type's traits:
a node with a successor is `internal`, a node without one is `user`; a sequence (a chunked
edge too: its producer has a successor) gives every child but the last a successor; parallel, fallback, race, timeout and route branches inherit their
parent's; loop and map_over bodies always have one (an iteration is never the answer); state
steps, taps, routes and loop checks are `zero_cost` (they never speak); a gate speaks to the
user. `.show()` / `.hide()` / `.transparent()` override, for a whole subtree when set on a
composite; a loop's `.show("final")` keeps its rounds internal and makes the loop itself speak
(it presents its final round when it ends). An LLM agent's delegates (transfer targets) take its
place, so they inherit its visibility.

Depth is where an event comes from in the call tree, whatever its visibility (the event-system
design): 0 is the agent the user talks to; a hand-off keeps the depth (a sequence's steps, a
loop's or map_over's body, the branches of a FanOut, route, fallback, race or timeout, which all
run in their node's own place); an LLM agent's delegates (its sub-agents, transfer targets) are
one level deeper than it; an agent tool's tree runs one level deeper than the agent that calls
it. So in `a >> b >> c` all three are depth 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

from adk_fluent.ir.nodes import (
    ChunkedEdgeNode,
    LlmAgentNode,
    MapOverNode,
    NativeAgentNode,
    Node,
    NodeVisitor,
    Walk,
    final_replier,
)

Visibility = Literal["user", "internal", "zero_cost"]
Mode = Literal["annotated", "filtered"]
# A loop's `.show("final")`: its rounds stay internal, and when it ends the loop itself presents
# each body agent's latest reply (adk/custom_agents/flow.py), so the loop node is user-facing.
FINAL_ROUND = "final"


@dataclass(frozen=True)
class NodeVisibility:
    """One node's visibility, call-tree depth and path from the root (names joined by '/')."""

    visibility: Visibility
    depth: int
    path: str
    # inside an agent tool's tree: the tool's answer is the last event's text, so nothing is
    # filtered in its sub-run; its events reach run()'s caller as the tool's (run/lifecycle.py)
    in_tool: bool = False
    # set by `.show()` / `.hide()` on the node or on a composite around it, not inferred
    forced: bool = False

    @property
    def in_caller_stream(self) -> Visibility:
        """The visibility of its events in the caller's stream: an agent tool's run answers
        the agent that calls it, never the user, so its agents are `internal` there unless
        `.show()` made them user-facing; everywhere else, `visibility`."""
        if self.in_tool and not self.forced and self.visibility == "user":
            return "internal"
        return self.visibility


def _override(node: Node) -> Visibility | None:
    value = node.visibility
    return value if value in ("user", "internal") else None  # type: ignore[return-value]


class _Place(NamedTuple):
    """Where a node is: whether something runs after it, the visibility a `.show()` /
    `.hide()` above it (or the agent a delegate takes the place of) forces, its parent's path,
    whether it is in an agent tool's tree, its depth in the call tree, and whether a `.show()`
    / `.hide()` above it was set."""

    has_successor: bool
    forced: Visibility | None
    parent: tuple[str, ...]
    in_tool: bool = False
    depth: int = 0
    overridden: bool = False


class _Visibility(NodeVisitor[_Place, None]):
    """The one rule, read from each node's traits (SPEAKS, CHILDREN); a node type with more to
    say has a case of its own."""

    def __init__(self) -> None:
        self.table: dict[str, NodeVisibility] = {}

    def _node(self, node: Node, place: _Place) -> Walk[_Place, None]:
        path = (*place.parent, node.name)
        forced = _override(node) or place.forced
        overridden = place.overridden or _override(node) is not None
        decided = False  # whether a `.show()` / `.hide()` decided this node's visibility
        if node.SPEAKS == "always":  # a gate: its question reaches the user even inside .hide()
            visibility: Visibility = "user"
        elif node.SPEAKS == "by_position":
            visibility = forced or ("internal" if place.has_successor else "user")
            decided = overridden
            forced = visibility  # delegates take this agent's place
        elif node.visibility == FINAL_ROUND:  # a loop that presents its final round: it speaks
            visibility = "internal" if forced == "internal" else "user"
        else:
            visibility = "zero_cost"  # composites and steps emit no text of their own
        depth = place.depth
        self.table[node.name] = NodeVisibility(
            visibility, depth, "/".join(path), place.in_tool, decided
        )
        last = len(node.children) - 1
        # delegates are the agent's sub-agents: one level down; every other child runs in the
        # node's own place (a hand-off), at its depth
        below = depth + 1 if node.CHILDREN == "delegates" else depth
        for index, child in enumerate(node.children):
            if node.CHILDREN == "sequence":
                successor = place.has_successor or index < last
            else:  # an iteration is never the answer; branches and delegates take the node's place
                successor = node.CHILDREN == "repeat" or place.has_successor
            yield child, _Place(successor, forced, path, place.in_tool, below, overridden)
        for tree in node.attached:
            # an agent tool's tree runs in a sub-run of its own, one level below the agent that
            # calls it, whose answer goes to that agent (never to the user): within that run its
            # visibility is inferred as for a root
            yield tree, _Place(False, None, path, True, depth + 1)

    visit_llm_agent = visit_sequential_agent = visit_parallel_agent = visit_loop_agent = _node
    visit_fallback = visit_until = visit_transform = visit_route = visit_map_over = _node
    visit_gate = visit_tap = visit_timeout = visit_race = visit_remote_agent = _node
    visit_boundary = visit_chunked_edge = _node

    def visit_native_agent(self, node: NativeAgentNode, place: _Place) -> Walk[_Place, None]:
        """The agents inside a custom agent: the custom agent's visibility."""
        yield from self._node(node, place)
        own = self.table[node.name]
        for name in node.agent_names[1:]:
            self.table[name] = replace(own, path=f"{own.path}/{name}")


def infer_visibility_table(root: Node) -> dict[str, NodeVisibility]:
    """Visibility, call-tree depth and path of every node, by name."""
    visibility = _Visibility()
    visibility.visit(root, _Place(False, None, ()))
    return visibility.table


def infer_visibility(root: Node) -> dict[str, Visibility]:
    """`user`, `internal` or `zero_cost` for every node of the IR tree, by name."""
    return {name: info.visibility for name, info in infer_visibility_table(root).items()}


def silent_internal_agents(root: Node) -> list[str]:
    """Internal LLM agents whose reply lands nowhere but history: no output key, not the
    agent whose final text a map_over collects, and not the producer of a chunked edge (its
    reply reaches the consumer chunk by chunk). In filtered mode no client sees their text."""
    table = infer_visibility_table(root)
    collected = {
        final_replier(node.children[0])
        for node in root.walk()
        if isinstance(node, MapOverNode) and node.children
    }
    collected |= {
        node.children[0].name
        for node in root.walk()
        if isinstance(node, ChunkedEdgeNode) and node.children
    }
    return [
        node.name
        for node in root.walk()
        if isinstance(node, LlmAgentNode)
        and table[node.name].visibility == "internal"
        and not isinstance(node.output_key, str)
        and node.name not in collected
    ]
