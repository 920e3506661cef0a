"""The IR: frozen node trees. ADK agent nodes are generated; adk-fluent's own control nodes live
here, on the same Node base, each declaring its traits (see adk_fluent_generated.node).

Analyses dispatch over node types with a NodeVisitor (one method per type, generated, walked
without recursion); `walk()` and `iter_paths()` traverse any tree, iteratively too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from adk_fluent_generated.ir_nodes import (
    ADK_NODE_TYPES,
    LlmAgentNode,
    LoopAgentNode,
    ParallelAgentNode,
    SequentialAgentNode,
)
from adk_fluent_generated.node import Children, Node, Speaks
from adk_fluent_generated.sentinel import UNSET
from adk_fluent_generated.visitor import NODE_TYPE_NAMES, NodeVisitor, Walk

__all__ = [
    "ADK_NODE_TYPES",
    "CONTROL_NODE_TYPES",
    "AgentToolSpec",
    "BoundaryNode",
    "ChunkedEdgeNode",
    "DEFAULT_APPROVE_WORDS",
    "DEFAULT_REJECT_WORDS",
    "NODE_TYPE_NAMES",
    "UNSET",
    "FallbackNode",
    "GateNode",
    "LlmAgentNode",
    "LoopAgentNode",
    "MapOverNode",
    "NativeAgentNode",
    "Node",
    "NodeVisitor",
    "ParallelAgentNode",
    "RaceNode",
    "RemoteAgentNode",
    "RouteNode",
    "RouteRule",
    "SequentialAgentNode",
    "TapNode",
    "TimeoutNode",
    "TransformNode",
    "UntilNode",
    "Walk",
    "body_output_key",
    "final_replier",
    "iter_paths",
    "walk",
]


class FallbackNode(Node):
    """Run children in order until one finishes without raising (`a // b`)."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "branches"


class UntilNode(Node):
    """Inside a loop: stop the loop once `predicate(state)` holds. `body * until(pred)` puts one
    at the end of the body; `exit_when(pred)` anywhere in it (ADK's escalation: the loop ends
    after the step of the loop that contains it)."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "none"
    ZERO_COST: ClassVar[bool] = True
    predicate: Callable[[Any], bool]


class TransformNode(Node):
    """A zero-cost state step (S.*, C.capture*, a plain function): `step` says what it does."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "none"
    ZERO_COST: ClassVar[bool] = True
    step: Any  # an adk_fluent.ir.steps.Step record

    @property
    def reads_keys(self) -> frozenset[str]:  # type: ignore[override]
        """Keys the step reads (from its record)."""
        keys: frozenset[str] = self.step.reads_keys
        return keys

    @property
    def writes_keys(self) -> frozenset[str]:  # type: ignore[override]
        """Keys the step writes (from its record)."""
        keys: frozenset[str] = self.step.writes_keys
        return keys


@dataclass(frozen=True)
class RouteRule:
    """One branch condition of a Route: `op` is eq, ne, gt, gte, lt, lte, contains or when."""

    op: str
    value: Any


class RouteNode(Node):
    """Pick one child by a state value: rules[i] leads to children[i]; an `otherwise` child is last."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "branches"
    key: str
    rules: tuple[RouteRule, ...] = ()
    has_otherwise: bool = False
    normalize: Any = True  # True: default label normalisation; False: exact; or a callable


class MapOverNode(Node):
    """Run the body once per item of state[list_key]; store the body's outputs at output_key."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "repeat"
    list_key: str
    item_key: str
    output_key: str
    concurrency: int = 1


# A gate's accepted replies when it is given none (compared case-insensitively); the prompt
# names the first two of each.
DEFAULT_APPROVE_WORDS: tuple[str, ...] = ("approve", "yes", "approved", "y", "ok", "okay")
DEFAULT_APPROVE_WORDS += ("confirm", "go ahead")
DEFAULT_REJECT_WORDS: tuple[str, ...] = ("reject", "no", "rejected", "n", "deny", "cancel", "stop")


class GateNode(Node):
    """Pause the run until a person approves in a later turn, when `predicate(state)` says so."""

    SPEAKS: ClassVar[Speaks] = "always"  # its question must reach whoever approves
    CHILDREN: ClassVar[Children] = "none"
    PAUSES_RUN: ClassVar[bool] = True
    predicate: Callable[[Any], bool]
    message: str
    # the accepted replies as the user spelled them, in order (the prompt names them; replies
    # are compared case-insensitively); empty: DEFAULT_APPROVE_WORDS / DEFAULT_REJECT_WORDS
    approve_words: tuple[str, ...] = ()
    reject_words: tuple[str, ...] = ()


class TapNode(Node):
    """Call `fn` with a read-only view of state; changes nothing."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "none"
    ZERO_COST: ClassVar[bool] = True
    fn: Callable[[Any], Any]


class TimeoutNode(Node):
    """Cancel the body after `seconds` and emit an error event saying so."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "branches"
    seconds: float


class RaceNode(Node):
    """Run children concurrently; keep the first to finish, cancel the rest."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "branches"


class NativeAgentNode(Node):
    """A native ADK agent placed in the tree as it is: an instance of a BaseAgent subclass that
    adk-fluent does not describe field by field (a custom agent). Compiled to a copy of it; the
    checker knows what it reads and writes from `.reads()` / `.writes()` and its source.

    `agent_names` are the names of the agents inside it (its own sub-agents and agents held
    in its fields, itself first), for the tree's name check; `llm_agents` those of them that
    call a model, which scripted models can stand in for."""

    SPEAKS: ClassVar[Speaks] = "by_position"  # a custom agent may yield text like an LLM agent
    CHILDREN: ClassVar[Children] = "none"
    agent: Any
    agent_class: str = ""
    agent_names: tuple[str, ...] = ()
    llm_agents: tuple[str, ...] = ()
    produces_type: Any = None  # a DeclaredState from .writes()
    consumes_type: Any = None  # a DeclaredState from .reads()

    def __eq__(self, other: object) -> bool:  # the agent object compares by identity
        if other is self:
            return True
        if type(other) is not type(self):
            return NotImplemented
        mine = {k: v for k, v in self.__dict__.items() if k != "agent"}
        theirs = {k: v for k, v in other.__dict__.items() if k != "agent"}
        return self.agent is other.agent and mine == theirs  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.name, id(self.agent)))


class RemoteAgentNode(Node):
    """An agent served elsewhere, called over A2A (`RemoteAgent`). It speaks like an LLM agent
    (its reply is the user's when it runs last); `reads_keys` are the state keys sent with each
    request and `writes_keys` the keys the peer sends back, the only state that crosses.

    `card` is where the peer's agent card is read (an http(s) URL or a file path); `card_json`
    holds the card itself when one was given as an object (JSON text, so the node stays a
    hashable value). `service` names the deployment it stands for when an ExecutionBoundary
    was split off (`to_apps()`), else empty. A boundary served by a pool of queue workers has
    the broker's URL as its `card` (`queued`): the call is a job on the queue, not A2A."""

    SPEAKS: ClassVar[Speaks] = "by_position"
    CHILDREN: ClassVar[Children] = "none"
    card: str = ""
    card_json: str | None = None
    timeout: float = 600.0  # seconds for one request (ADK's RemoteA2aAgent default)
    description: str = ""
    service: str = ""
    # headers (credentials), an httpx client factory and a retry policy: a RemoteConnection
    # (ir/a2a_card.py), whose repr hides header values; None: ADK's own client, no retry
    connection: Any = None

    @property
    def queued(self) -> bool:
        """Whether the peer is a pool of queue workers (`card` is the broker's URL)."""
        return is_queue_url(self.card)


# The brokers a queue boundary can use (Redis Streams: adk/custom_agents/queued.py).
QUEUE_SCHEMES = ("redis://", "rediss://")


def is_queue_url(url: Any) -> bool:
    """Whether `url` names a queue broker rather than an A2A service."""
    return isinstance(url, str) and url.startswith(QUEUE_SCHEMES)


class BoundaryNode(Node):
    """`.execution_boundary(...)`: its one child is a service of its own. In one process it
    runs in place (nothing changes); `to_apps()` deploys the child as a separate ADK App and
    puts a RemoteAgentNode at `url` in its place, sending the keys the child reads and
    receiving the keys it writes."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "branches"
    # where the service will be reached: an A2A card URL, or a queue broker's (redis://...)
    # that a pool of `adk-fluent worker` processes serves; `to_apps(urls=...)` may give it later
    url: str = ""
    description: str = ""
    timeout: float = 600.0  # seconds the caller waits for the service's answer


class ChunkedEdgeNode(Node):
    """`producer.then(consumer, edge="chunked")`: children are (producer, consumer). The
    consumer runs once per chunk of the producer's reply, while the producer is still writing:
    each chunk (cut `by` "sentence", "paragraph", "line" or a number of characters) is written
    to state[`key`] before the consumer runs on it. The consumer's output key ends holding its
    per-chunk outputs joined (ir/edges.py `join_outputs`); `key` is cleared when done.

    A sequence of two: the producer has a successor (it is internal), the consumer takes the
    edge's own place."""

    SPEAKS: ClassVar[Speaks] = "never"
    CHILDREN: ClassVar[Children] = "sequence"
    by: Any = "sentence"  # a CHUNK_UNITS name, a positive number of characters, or "token"
    key: str = "chunk"
    # chunks waiting for the consumer, at most: the producer's stream is not read further until
    # one is taken (backpressure); None: no bound (the producer never waits)
    buffer: int | None = None


@dataclass(frozen=True)
class AgentToolSpec:
    """An agent an LLM agent calls as a tool (ADK's AgentTool), in the agent's `tools` field.

    `agent` is the IR of the tree the tool runs: ADK runs it in a sub-run on a copy of the
    caller's session state; the state changes it makes come back to the caller's session, its
    events do not (the caller sees one function call and its response). `options` are
    AgentTool's keyword arguments (skip_summarization, include_plugins, ...), as given."""

    agent: Node
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        """The tool's name as the model sees it: the agent's name."""
        return self.agent.name


# adk-fluent's own node types, in the order defined above (the codegen's CONTROL_NODES must match).
CONTROL_NODE_TYPES: tuple[type[Node], ...] = tuple(
    cls for cls in Node.__subclasses__() if cls.__module__ == __name__
)


def walk(node: Node) -> Iterator[Node]:
    """Every node in the tree, depth first, parents before children."""
    return node.walk()


def iter_paths(node: Node, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Node]]:
    """(path of names from the root, node) for every node, in `walk()`'s order."""
    stack: list[tuple[tuple[str, ...], Node]] = [(prefix, node)]
    while stack:
        parent, item = stack.pop()
        path = (*parent, item.name)
        yield path, item
        stack.extend((path, tree) for tree in reversed(item.attached))  # under their caller
        stack.extend((path, child) for child in reversed(item.children))


class _BodyOutput(NodeVisitor[None, "str | None"]):
    """The key a body's output is collected from (`body_output_key`), one case per node type."""

    def visit_llm_agent(self, node: LlmAgentNode, ctx: None) -> str | None:
        return node.output_key if isinstance(node.output_key, str) else None

    def visit_parallel_agent(
        self, node: ParallelAgentNode, ctx: None
    ) -> str | Walk[None, str | None] | None:
        if node.merge is not None:  # a merged FanOut's output is what it merged
            into: str = node.merge.into
            return into
        return self._last(node, None)

    def visit_sequential_agent(
        self, node: SequentialAgentNode, ctx: None
    ) -> Walk[None, str | None]:
        speaking = [child for child in node.children if not child.ZERO_COST]
        return (yield speaking[-1], None) if speaking else None

    def _last(self, node: Node, ctx: None) -> Walk[None, str | None]:
        """Its last child's (a loop's body, a branch, a step's body), if any."""
        return (yield node.children[-1], None) if node.children else None

    visit_loop_agent = visit_fallback = visit_until = visit_transform = visit_route = _last
    visit_map_over = visit_gate = visit_tap = visit_timeout = visit_race = _last
    visit_native_agent = visit_remote_agent = visit_boundary = visit_chunked_edge = _last


def body_output_key(node: Node) -> str | None:
    """The state key whose value counts as a map_over body's output: the output_key of its last
    agent. Zero-cost steps after it (S.*, tap) are skipped, as `final_replier` skips them, so a
    trailing `S.transform` of that key changes what is collected."""
    return _BodyOutput().visit(node, None)


def final_replier(body: Node) -> str | None:
    """The LLM agent whose final reply a map_over collects from `body` when it has no output key:
    the last of a (nested) sequence that emits text. Zero-cost steps (S.*, tap) emit none, so
    one after the agent leaves its reply the last (MapOverAgent keeps the last final reply)."""
    while isinstance(body, SequentialAgentNode):
        speaking = [child for child in body.children if not child.ZERO_COST]
        if not speaking:
            return None
        body = speaking[-1]
    return body.name if isinstance(body, LlmAgentNode) else None
