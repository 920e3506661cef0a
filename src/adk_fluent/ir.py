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


@dataclass(frozen=True)
class TransformNode:
    """A zero-cost state step (S.*, capture, a plain function): `op` names what it does."""

    name: str
    op: str
    args: tuple[Any, ...] = ()
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = "zero_cost"


@dataclass(frozen=True)
class RouteRule:
    """One branch condition of a Route: `op` is eq, ne, gt, gte, lt, lte, contains or when."""

    op: str
    value: Any


@dataclass(frozen=True)
class RouteNode:
    """Pick one child by a state value: rules[i] leads to children[i]; an `otherwise` child is last."""

    name: str
    key: str
    rules: tuple[RouteRule, ...] = ()
    children: tuple[Any, ...] = ()
    has_otherwise: bool = False
    normalize: Any = True  # True: default label normalisation; False: exact; or a callable
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = "zero_cost"


@dataclass(frozen=True)
class MapOverNode:
    """Run the body once per item of state[list_key]; store the body's outputs at output_key."""

    name: str
    list_key: str
    item_key: str
    output_key: str
    concurrency: int = 1
    children: tuple[Any, ...] = ()  # exactly one: the body
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = None


@dataclass(frozen=True)
class GateNode:
    """Pause the run until a person approves in a later turn, when `predicate(state)` says so."""

    name: str
    predicate: Callable[[Any], bool]
    message: str
    approve_words: frozenset[str] = frozenset()  # empty: the defaults in native_flow
    reject_words: frozenset[str] = frozenset()
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = "user"


@dataclass(frozen=True)
class TapNode:
    """Call `fn` with a read-only view of state; changes nothing."""

    name: str
    fn: Callable[[Any], Any]
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = "zero_cost"


@dataclass(frozen=True)
class TimeoutNode:
    """Cancel the body after `seconds` and emit an error event saying so."""

    name: str
    seconds: float
    children: tuple[Any, ...] = ()
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = None


@dataclass(frozen=True)
class RaceNode:
    """Run children concurrently; keep the first to finish, cancel the rest."""

    name: str
    children: tuple[Any, ...] = ()
    reads_keys: frozenset[str] = frozenset()
    writes_keys: frozenset[str] = frozenset()
    visibility: str | None = None


# Steps that never call a model; their names may repeat in a tree (compile makes them unique).
ZERO_COST_TYPES: tuple[type, ...] = (TransformNode, TapNode, UntilNode)


def gate_state_key(gate_name: str) -> str:
    """The session-state key where a gate keeps its status ('pending' / 'rejected')."""
    return f"adk_fluent_gate__{gate_name}"


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


def body_output_key(node: Any) -> str | None:
    """The state key whose value counts as a map_over body's output (its output_key)."""
    if isinstance(node, LlmAgentNode) and isinstance(node.output_key, str):
        return node.output_key
    children = getattr(node, "children", ())
    return (
        body_output_key(children[-1]) if children and not isinstance(node, LlmAgentNode) else None
    )
