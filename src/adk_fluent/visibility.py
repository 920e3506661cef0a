"""Who speaks to the user: visibility inferred from the topology, with developer overrides.

Rules (spec v5.1 section 4.3; where the two spec documents differ on route branches, v5.1 wins):
a node with a successor is `internal`, a node without one is `user`; a sequence gives every
child but the last a successor; parallel, fallback, race, timeout and route branches inherit their
parent's; loop and map_over bodies always have one (an iteration is never the answer); state
steps, taps, routes and loop checks are `zero_cost` (they never speak); a gate speaks to the
user. `.show()` / `.hide()` / `.transparent()` override, for a whole subtree when set on a
composite. An LLM agent's delegates (transfer targets) take its place, so they inherit its
visibility.

Depth follows the event-system convention: depth 0 is what speaks to the user; internal work
is one level deeper; a transfer keeps the caller's depth. The simplest UI shows depth 0 only.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from .ir import (
    FallbackNode,
    GateNode,
    LlmAgentNode,
    LoopAgentNode,
    MapOverNode,
    Node,
    ParallelAgentNode,
    RaceNode,
    RouteNode,
    SequentialAgentNode,
    TapNode,
    TimeoutNode,
    TransformNode,
    UntilNode,
    child_nodes,
)

Visibility = Literal["user", "internal", "zero_cost"]
Mode = Literal["annotated", "filtered"]
_SILENT = (TransformNode, TapNode, UntilNode, RouteNode)
_INHERITING = (ParallelAgentNode, FallbackNode, RaceNode, TimeoutNode)


@dataclass(frozen=True)
class NodeVisibility:
    """One node's visibility, depth and path from the root (names joined by '/')."""

    visibility: Visibility
    depth: int
    path: str


def _override(node: Node) -> Visibility | None:
    value = getattr(node, "visibility", None)
    return value if value in ("user", "internal") else None


def _walk(
    node: Node, has_successor: bool, forced: Visibility | None, path: tuple[str, ...]
) -> Iterator[tuple[str, NodeVisibility]]:
    path = (*path, node.name)
    own = _override(node)

    def entry(visibility: Visibility) -> tuple[str, NodeVisibility]:
        return node.name, NodeVisibility(
            visibility, 0 if visibility == "user" else 1, "/".join(path)
        )

    if isinstance(node, _SILENT):
        yield entry("zero_cost")
        for child in child_nodes(node):  # route branches take the route's place
            yield from _walk(child, has_successor, own or forced, path)
        return
    if isinstance(node, LlmAgentNode):
        visibility: Visibility = own or forced or ("internal" if has_successor else "user")
        yield entry(visibility)
        for delegate in node.children:
            yield from _walk(delegate, has_successor, own or forced or visibility, path)
        return
    if isinstance(node, GateNode):
        yield entry(own or forced or "user")
        return
    forced = own or forced
    yield entry("zero_cost")  # composites emit only control events of their own
    children = child_nodes(node)
    if isinstance(node, SequentialAgentNode):
        for index, child in enumerate(children):
            yield from _walk(child, has_successor or index < len(children) - 1, forced, path)
    elif isinstance(node, LoopAgentNode | MapOverNode):
        for child in children:
            yield from _walk(child, True, forced, path)
    elif isinstance(node, _INHERITING):
        for child in children:
            yield from _walk(child, has_successor, forced, path)
    else:
        for child in children:
            yield from _walk(child, has_successor, forced, path)


def infer_visibility_table(root: Node) -> dict[str, NodeVisibility]:
    """Visibility, depth and path of every node, by name."""
    return dict(_walk(root, False, None, ()))


def infer_visibility(root: Node) -> dict[str, Visibility]:
    """`user`, `internal` or `zero_cost` for every node of the IR tree, by name."""
    return {name: info.visibility for name, info in infer_visibility_table(root).items()}


def silent_internal_agents(root: Node) -> list[str]:
    """Internal LLM agents whose reply lands nowhere but history: no output key, and not the
    agent whose final text a map_over collects. In filtered mode no client sees their text."""
    from .ir import walk

    table = infer_visibility_table(root)
    collected = set()
    for node in walk(root):
        if isinstance(node, MapOverNode):
            body = node.children[0]
            while isinstance(body, SequentialAgentNode) and body.children:
                body = body.children[-1]
            collected.add(body.name)
    return [
        node.name
        for node in walk(root)
        if isinstance(node, LlmAgentNode)
        and table[node.name].visibility == "internal"
        and not isinstance(node.output_key, str)
        and node.name not in collected
    ]


HIDDEN_CONTENT = "adk_fluent.hidden_content"

# Set by adk-fluent's runtime while it consumes a Runner: it filters itself, after storage.
client_filters: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "adk_fluent_client_filters", default=False
)


def visibility_metadata(info: NodeVisibility) -> dict[str, Any]:
    return {
        "adk_fluent.visibility": info.visibility,
        "adk_fluent.is_user_facing": info.visibility == "user",
        "adk_fluent.depth": info.depth,
        "adk_fluent.path": info.path,
    }


def is_chat_text(event: Any) -> bool:
    """Text a chat UI would show: not errors, tool traffic, confirmations or auth requests."""
    content = event.content
    if content is None or not content.parts:
        return False
    if getattr(event, "error_code", None) or getattr(event, "error_message", None):
        return False
    actions = event.actions
    if actions is not None and (
        actions.requested_tool_confirmations or actions.requested_auth_configs
    ):
        return False
    if event.get_function_calls() or event.get_function_responses():
        return False
    return any(getattr(part, "text", None) for part in content.parts)


def should_hide(event: Any, visibility: str, mode: str) -> bool:
    return mode == "filtered" and visibility != "user" and is_chat_text(event)
