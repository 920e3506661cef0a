"""What each node and each subtree of one tree may do to state, for the data flow (dataflow.py),
worked out once per node: an agent's reads and writes, a step's effects, the code the checker
reads (tools, callbacks, a custom agent's own), every key a subtree may write, whether a loop
item can end its loop, and what an agent's delegates may write.
"""

from __future__ import annotations

from typing import NamedTuple

from adk_fluent.analysis.contracts.effects import (
    CodeUnit,
    Read,
    StepEffects,
    Write,
    agent_code,
    agent_reads,
    agent_writes,
    callback_code,
    declared_reads,
    declared_writes,
    native_code,
    step_effects,
)
from adk_fluent.analysis.contracts.flow_state import View, Way, Writer, view_of
from adk_fluent.ir import nodes as ir


class Own(NamedTuple):
    """What a node does itself (not its children): the code the checker reads, its writes
    other than its code's, as (key, how), and whether it can end the loop it runs in."""

    code: tuple[CodeUnit, ...] = ()
    writes: tuple[tuple[str, Way], ...] = ()
    ends_loop: bool = False


def chunk_via(node: ir.ChunkedEdgeNode) -> str:
    """How a chunked edge's chunk key is written (for messages)."""
    producer, consumer = node.children
    return f'{producer.name}.then({consumer.name}, edge="chunked", key="{node.key}")'


def merge_via(node: ir.ParallelAgentNode) -> str:
    """How a merging FanOut's `into` key is written (for messages)."""
    return f"FanOut '{node.name}'.{node.merge.describe()}"


class Summaries(ir.NodeVisitor[None, Own]):
    """The summaries of one tree's nodes, each computed on first use; a case gives what a
    node of its type does itself."""

    def __init__(self, root: ir.Node) -> None:
        self.root = root
        # by id(node), each filled on first use
        self._own: dict[int, Own] = {}
        self._agents: dict[int, tuple[View, list[Read], list[Write]]] = {}
        self._steps: dict[int, StepEffects] = {}
        self._declared_by: dict[int, tuple[list[Read], list[Write]]] = {}
        self._subtrees: dict[int, dict[str, list[Way]]] = {}
        self._escalates: dict[int, bool] = {}
        self._delegates: dict[int, dict[str, list[tuple[ir.Node, Writer, bool]]]] = {}

    # -- one node ------------------------------------------------------------------------------
    def agent_effects(self, node: ir.LlmAgentNode) -> tuple[View, list[Read], list[Write]]:
        """An LLM agent's history view, reads and writes."""
        found = self._agents.get(id(node))
        if found is None:
            reads = agent_reads(node, is_root=node is self.root)
            found = self._agents[id(node)] = (view_of(node), reads, agent_writes(node))
        return found

    def step_effects(self, node: ir.TransformNode) -> StepEffects:
        """What a state step reads and writes."""
        found = self._steps.get(id(node))
        if found is None:
            found = self._steps[id(node)] = step_effects(node)
        return found

    def declarations(self, node: ir.Node) -> tuple[list[Read], list[Write]]:
        """A composite's or custom agent's `.reads()` / `.writes()`."""
        found = self._declared_by.get(id(node))
        if found is None:
            found = self._declared_by[id(node)] = (declared_reads(node), declared_writes(node))
        return found

    def code_of(self, node: ir.Node) -> tuple[CodeUnit, ...]:
        """The tools, callbacks and own code of a node, read from their source."""
        return self._own_of(node).code

    def _own_of(self, node: ir.Node) -> Own:
        own = self._own.get(id(node))
        if own is None:
            own = self._own[id(node)] = self.visit(node, None)
        return own

    # -- subtrees ------------------------------------------------------------------------------
    def subtree_writes(self, node: ir.Node) -> dict[str, list[Way]]:
        """Every key a subtree may write or delete, and how; writes of tools and of agent
        tools' trees are `maybe`."""
        found = self._subtrees.get(id(node))
        if found is None:
            found = self._subtrees[id(node)] = self._subtree_writes(node)
        return found

    def _subtree_writes(self, node: ir.Node) -> dict[str, list[Way]]:
        found: dict[str, list[Way]] = {}
        stack: list[tuple[ir.Node, bool]] = [(node, False)]
        while stack:
            item, maybe = stack.pop()
            own = self._own_of(item)
            for key, way in own.writes:
                found.setdefault(key, []).append(Way(way.via, way.delete, maybe, way.kind))
            for unit in own.code:
                for write in unit.writes(item.name):
                    way = Way(write.via, write.delete, maybe or unit.maybe, "code")
                    found.setdefault(write.key, []).append(way)
            stack.extend((tree, True) for tree in reversed(item.attached))
            stack.extend((child, maybe) for child in reversed(item.children))
        return found

    def may_escalate(self, node: ir.Node) -> bool:
        """Whether a subtree may end the loop around it: an until / exit_when step, a custom
        agent, an agent tool, a gate (it stops the run), or a tool or callback that escalates
        or cannot be read."""
        found = self._escalates.get(id(node))
        if found is None:
            found = self._escalates[id(node)] = any(
                self._own_of(item).ends_loop
                or item.attached
                or item.PAUSES_RUN
                or any(u.effects.escalates or u.effects.opaque_write for u in self.code_of(item))
                for item in node.walk()
            )
        return found

    def delegate_writes(
        self, node: ir.LlmAgentNode, p: str
    ) -> dict[str, list[tuple[ir.Node, Writer, bool]]]:
        """Every key an agent's delegates may write: {key: [(delegate, writer, is_delete)]}."""
        found = self._delegates.get(id(node))
        if found is None:
            found = self._delegates[id(node)] = self._delegate_writes(node, p)
        return found

    def _delegate_writes(
        self, node: ir.LlmAgentNode, p: str
    ) -> dict[str, list[tuple[ir.Node, Writer, bool]]]:
        by_key: dict[str, list[tuple[ir.Node, Writer, bool]]] = {}
        if len(node.children) > 1:
            for delegate in node.children:
                where = f"{p}/{delegate.name}"
                for key, ways in self.subtree_writes(delegate).items():
                    for way in ways:
                        writer = Writer(delegate.name, where, way.via, way.kind)
                        by_key.setdefault(key, []).append((delegate, writer, way.delete))
        return by_key

    # -- what each node type does itself ---------------------------------------------------------
    def _declared(self, node: ir.Node) -> tuple[tuple[str, Way], ...]:
        """A composite's or a custom agent's `.writes()`."""
        return tuple((w.key, Way(w.via, w.delete, kind=w.kind)) for w in self.declarations(node)[1])

    def _nothing(self, node: ir.Node, ctx: None) -> Own:
        return Own()

    def visit_llm_agent(self, node: ir.LlmAgentNode, ctx: None) -> Own:
        writes = tuple(
            (w.key, Way(w.via, w.delete, kind=w.kind)) for w in self.agent_effects(node)[2]
        )
        return Own(agent_code(node, is_root=node is self.root), writes)

    def visit_native_agent(self, node: ir.NativeAgentNode, ctx: None) -> Own:
        """Code the checker may not see through: it may end a loop."""
        return Own(native_code(node), self._declared(node), ends_loop=True)

    def _composite(self, node: ir.Node, ctx: None) -> Own:
        """Its agent callbacks and `.writes()`."""
        return Own(callback_code(node), self._declared(node))

    visit_sequential_agent = visit_loop_agent = _composite

    def visit_parallel_agent(self, node: ir.ParallelAgentNode, ctx: None) -> Own:
        own = self._composite(node, None)
        if node.merge is None:
            return own
        return own._replace(
            writes=(*own.writes, (node.merge.into, Way(merge_via(node), kind="merge")))
        )

    def visit_transform(self, node: ir.TransformNode, ctx: None) -> Own:
        effects = self.step_effects(node)
        writes = [(w.key, Way(w.via, w.delete)) for w in effects.writes]
        for old, new in effects.renames:
            via = f'S.rename({old}="{new}")'
            writes += [(new, Way(via)), (old, Way(via, delete=True))]
        return Own(writes=tuple(writes))

    def visit_until(self, node: ir.UntilNode, ctx: None) -> Own:
        """An exit_when / until check: it ends its loop."""
        return Own(ends_loop=True)

    def visit_map_over(self, node: ir.MapOverNode, ctx: None) -> Own:
        output = Way(f'map_over("{node.list_key}") output')
        item = Way(f'map_over("{node.list_key}") item')
        return Own(writes=((node.output_key, output), (node.item_key, item)))

    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, ctx: None) -> Own:
        return Own(writes=((node.key, Way(chunk_via(node), kind="chunk")),))

    # no code of their own the checker reads, and no writes but their children's
    visit_fallback = visit_route = visit_gate = visit_tap = visit_timeout = _nothing
    visit_race = visit_remote_agent = visit_boundary = _nothing
