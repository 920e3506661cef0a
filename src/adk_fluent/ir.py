"""The IR: frozen node trees. ADK agent nodes are generated; adk-fluent's own nodes live here.

`walk()` and `child_nodes()` are the one way analyses traverse any node kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from adk_fluent_generated.ir_nodes import (
    ADK_NODE_TYPES,
    LlmAgentNode,
    LoopAgentNode,
    ParallelAgentNode,
    SequentialAgentNode,
)
from adk_fluent_generated.sentinel import UNSET

__all__ = [
    "ADK_NODE_TYPES",
    "UNSET",
    "LlmAgentNode",
    "LoopAgentNode",
    "ParallelAgentNode",
    "SequentialAgentNode",
    "FallbackNode",
    "UntilNode",
    "Node",
    "walk",
    "child_nodes",
    "iter_paths",
]


@dataclass(frozen=True)
class FallbackNode:
    """Run children in order until one finishes without raising (`a // b`)."""

    name: str
    children: tuple[Any, ...] = ()
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = None


@dataclass(frozen=True)
class UntilNode:
    """Inside a loop: stop the loop once `predicate(state)` holds (`body * until(pred)`)."""

    name: str
    predicate: Callable[[Any], bool] = field(compare=True)
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = "zero_cost"


Node = Any  # any generated ADK node or one of adk-fluent's own nodes


def child_nodes(node: Node) -> tuple[Node, ...]:
    """The direct children of any node kind."""
    return tuple(getattr(node, "children", ()) or ())


def walk(node: Node) -> Iterator[Node]:
    """Every node in the tree, depth first, parents before children."""
    yield node
    for child in child_nodes(node):
        yield from walk(child)


def iter_paths(node: Node, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Node]]:
    """(path of names from the root, node) for every node."""
    path = (*prefix, node.name)
    yield path, node
    for child in child_nodes(node):
        yield from iter_paths(child, path)
