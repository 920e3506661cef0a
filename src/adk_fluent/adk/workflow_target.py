"""IR -> an ADK 2.x Workflow graph: the 'workflow' compile target (docs/workflow.md).

ADK 2.x deprecates SequentialAgent, ParallelAgent and LoopAgent in favour of `Workflow`. This
target builds the same tree as a graph, and constructs none of the three:

- a pipeline is a chain of edges, a FanOut parallel edges, a Route a routing map chosen by a
  RouteChoice node, a loop a cycle: a LoopStart node, then a LoopCheck after each item of its
  body that can escalate and after the last (ADK's LoopAgent checks for an escalation after
  each sub-agent, so an escalation skips the rest of the body);
- an LLM agent runs in chat mode, alone in a one-node Workflow of its own name (a FanOut's
  branch needs none). A Workflow runs a chat agent only right after START (it rejects one after
  another node), and a chat agent ends its graph's branch; in chat mode the agent sees the
  conversation exactly as in the classic target (ADK's own history rules), where a single-turn
  node would see only the previous node's output;
- adk-fluent's own steps (S, tap, exit_when, gates) and every construct the graph model cannot
  express with the same behaviour run as agent nodes: map_over, race, timeout, fallback,
  chunked edges, a merging or first_complete FanOut, a composite with a gate inside (its turns
  pause and resume inside it), a composite with agent callbacks, an agent with transfer targets
  or agent tools, native and remote agents. Inside an agent node, composites compile to
  adk-fluent's own sequence, parallel and loop agents, never to the deprecated ones.
"""

from __future__ import annotations

from typing import Any

from adk_fluent.adk.compile import Around, Compiler, ModelFor, gates_in
from adk_fluent.errors import BuildError, EmptyCompositeError
from adk_fluent.ir import nodes as ir

# the fields a composite may set and still be a graph (a Workflow has no agent callbacks)
_GRAPH_FIELDS = frozenset({"name", "sub_agents", "description"})


def _may_escalate(node: ir.Node) -> bool:
    """Whether a loop item can end its loop (an event with `escalate`): an exit_when, a tool
    (ADK's exit_loop, or any tool setting `tool_context.actions.escalate`), a callback, or an
    agent adk-fluent cannot see into. A plain LLM agent's reply never escalates."""
    for inner in ir.walk(node):
        if isinstance(inner, ir.TransformNode | ir.TapNode):
            continue
        if isinstance(inner, ir.SequentialAgentNode | ir.ParallelAgentNode | ir.RouteNode):
            if any(field.endswith("_callback") for field in vars(inner)):
                return True
            continue
        if isinstance(inner, ir.LlmAgentNode):
            if (
                inner.children
                or inner.attached
                or "tools" in vars(inner)
                or any(field.endswith("_callback") for field in vars(inner))
            ):
                return True
            continue
        return True  # exit_when, a loop, a gate, map_over, race, a native agent, ...
    return False


def _graph_end() -> None:
    """The node a loop's DONE edge and a Route's STOP edge lead to: it does nothing."""
    return None


class WorkflowCompiler(Compiler):
    """Compiles a tree to a Workflow graph; see the module docstring for what becomes what."""

    def __init__(self, root: ir.Node, model_for: ModelFor | None, state_schema: Any = None) -> None:
        super().__init__(root, model_for)
        self.state_schema = state_schema

    def compile(self, node: ir.Node) -> Any:
        from google.adk.workflow import START, Workflow

        if isinstance(node, ir.LlmAgentNode) and self.state_schema is None:
            # one agent (with its transfer targets) is the same agent on both targets: ADK's
            # Runner resumes a conversation at the agent a transfer reached only under an
            # agent root, and the agent is no deprecated class
            return self.visit(node, Around(inside=True))
        top = self.visit(node, Around())
        if isinstance(top, Workflow) and self.state_schema is None:
            return top
        edges = top.edges if isinstance(top, Workflow) else [(START, top)]
        fields: dict[str, Any] = {"name": node.name, "edges": edges}
        if isinstance(top, Workflow) and top.description:
            fields["description"] = top.description
        if self.state_schema is not None:
            fields["state_schema"] = self.state_schema
        try:
            return Workflow(**fields)
        except ValueError as error:  # ADK checks function nodes' parameters against the schema
            raise BuildError(
                str(error).splitlines()[0],
                agent=node.name,
                field="state_schema",
                hint="declare the key in the StateSchema, or leave state_schema unset.",
            ) from None

    # -- helpers -------------------------------------------------------------------------------
    def _graph(self, node: ir.Node, edges: list[Any]) -> Any:
        from google.adk.workflow import Workflow

        description = getattr(node, "description", None)
        fields: dict[str, Any] = {"name": node.name, "edges": edges}
        if isinstance(description, str) and description:
            fields["description"] = description
        return Workflow(**fields)

    @staticmethod
    def _graph_shaped(node: ir.Node, around: Around, *allowed: str) -> bool:
        """Whether a composite can be a graph: not inside an agent node, no gate inside, and no
        field a Workflow cannot carry (its agent callbacks, above all)."""
        if around.inside or gates_in(node):
            return False
        known: frozenset[str] = getattr(node, "ADK_FIELDS", frozenset())
        fields = {field for field in vars(node) if field in known}
        return fields <= _GRAPH_FIELDS | set(allowed)

    def _end_node(self, owner: str) -> Any:
        from google.adk.workflow import FunctionNode

        name = self.unique(f"{owner}_end")
        del self.renamed[name]  # a function node: no agent, no event
        return FunctionNode(func=_graph_end, name=name)

    def _nodes(
        self, node: ir.Node, around: Around, chat: bool = False
    ) -> ir.Walk[Around, list[Any]]:
        """The composite's children as graph nodes (`chat`: an LLM agent as a chat agent, with
        no Workflow of its own)."""
        if not node.children:
            kind = getattr(node, "ADK_CLASS", type(node).__name__)
            raise EmptyCompositeError(f"{kind} has no sub-agents", agent=node.name)
        nodes = []
        for child in node.children:
            if chat and isinstance(child, ir.LlmAgentNode):
                nodes.append((yield from self._chat_agent(child, around)))
            else:
                nodes.append((yield child, around))
        return nodes

    # -- leaves ---------------------------------------------------------------------------------
    def visit_llm_agent(self, node: ir.LlmAgentNode, around: Around) -> ir.Walk[Around, Any]:
        if around.inside:  # the classic case, always as a walk (this case is a generator)
            return (yield from self._adk_agent(node, around))
        from google.adk.workflow import START, Workflow

        agent = yield from self._chat_agent(node, around)
        return Workflow(name=node.name, edges=[(START, agent)])

    def _chat_agent(self, node: ir.LlmAgentNode, around: Around) -> ir.Walk[Around, Any]:
        """The LlmAgent in chat mode; its transfer targets and agent tools run inside it, so
        they compile as agents."""
        return self._adk_agent(node, around._replace(inside=True), extra={"mode": "chat"})

    # -- composites -----------------------------------------------------------------------------
    def visit_sequential_agent(
        self, node: ir.SequentialAgentNode, around: Around
    ) -> ir.Walk[Around, Any]:
        if not self._graph_shaped(node, around):
            from adk_fluent.adk.custom_agents.gates import GatedSequenceAgent

            inside = around._replace(inside=True)
            return (yield from self._adk_agent(node, inside, GatedSequenceAgent))
        from google.adk.workflow import START

        return self._graph(node, [(START, *(yield from self._nodes(node, around)))])

    def visit_parallel_agent(
        self, node: ir.ParallelAgentNode, around: Around
    ) -> ir.Walk[Around, Any]:
        inside = around._replace(inside=True)
        if node.join is not None or node.merge is not None:
            return (yield from self._fanout(node, inside))
        if not self._graph_shaped(node, around):
            from adk_fluent.adk.custom_agents.gates import GatedParallelAgent

            return (yield from self._adk_agent(node, inside, GatedParallelAgent))
        from google.adk.workflow import START

        # each branch follows START and ends its own branch: a chat agent needs no Workflow
        # of its own there
        branches = yield from self._nodes(node, around, chat=True)
        return self._graph(node, [(START, tuple(branches))])

    def visit_loop_agent(self, node: ir.LoopAgentNode, around: Around) -> ir.Walk[Around, Any]:
        around = around._replace(in_loop=True)
        inside = around._replace(inside=True)
        if node.visibility == "final":  # Loop(...).show("final"): it presents its last round
            from adk_fluent.adk.custom_agents.flow import final_round_loop_agent

            return self._adk_agent(node, inside, final_round_loop_agent())
        if self._graph_shaped(node, around, "max_iterations"):
            return self._loop_graph(node, around)
        from adk_fluent.adk.custom_agents.gates import GatedLoopAgent

        gated = inside._replace(loops=(*around.loops, node.name))
        return self._adk_agent(node, gated, GatedLoopAgent)

    def _loop_graph(self, node: ir.LoopAgentNode, around: Around) -> ir.Walk[Around, Any]:
        from google.adk.workflow import START

        from adk_fluent.adk.custom_agents.graph import AGAIN, DONE, NEXT, LoopCheck, LoopStart

        items = yield from self._nodes(node, around)
        start = LoopStart(name=self.unique(f"{node.name}_start"), loop=node.name)
        self.renamed[start.name] = node.name  # seen as the loop (visibility, telemetry)
        limit = node.max_iterations if isinstance(node.max_iterations, int) else None
        end = self._end_node(node.name)
        edges: list[Any] = [(START, start, items[0])]
        for index, (item, child) in enumerate(zip(items, node.children, strict=True)):
            if index == len(items) - 1:
                # the last check runs once per iteration: it has the loop's name, so a trace
                # shows an agent span of the loop's name per iteration (telemetry/enrichment.py)
                check = LoopCheck(name=node.name, loop=node.name, last=True, max_iterations=limit)
                edges += [(item, check), (check, {AGAIN: items[0], DONE: end})]
            elif not _may_escalate(child):  # nothing to check: straight on
                edges.append((item, items[index + 1]))
            else:
                name = self.unique(f"{node.name}_check")
                self.renamed[name] = node.name
                check = LoopCheck(name=name, loop=node.name)
                edges += [(item, check), (check, {NEXT: items[index + 1], DONE: end})]
        return self._graph(node, edges)

    def visit_route(self, node: ir.RouteNode, around: Around) -> ir.Walk[Around, Any]:
        if not self._graph_shaped(node, around):
            return (yield from super().visit_route(node, around._replace(inside=True)))
        from google.adk.workflow import START

        from adk_fluent.adk.custom_agents.graph import STOP, RouteChoice, branch_route

        branches = yield from self._nodes(node, around)
        choice = RouteChoice(
            name=node.name,
            key=node.key,
            rules=node.rules,
            has_otherwise=node.has_otherwise,
            normalize=node.normalize,
            branch_names=tuple(child.name for child in node.children),
        )
        routes: dict[str, Any] = {
            branch_route(index): branches[index] for index in range(len(node.rules))
        }
        if node.has_otherwise:
            routes[branch_route(-1)] = branches[-1]
        routes[STOP] = self._end_node(node.name)
        return self._graph(node, [(START, choice, routes)])

    # -- agent nodes: each runs its children itself ------------------------------------------------
    def _agent_node(self, node: ir.Node, around: Around) -> ir.Walk[Around, Any]:
        """The classic target's agent for the node, its children compiled inside it."""
        classic: Any = getattr(Compiler, node.VISIT)
        return classic(self, node, around._replace(inside=True))  # type: ignore[no-any-return]

    visit_chunked_edge = visit_fallback = visit_map_over = visit_timeout = visit_race = _agent_node
