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

from adk_fluent.adk.compile import Compiler, ModelFor, gates_in
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
        self.inside = 0  # > 0: compiling inside an agent node, which runs its children itself
        self.state_schema = state_schema

    def compile(self, node: ir.Node) -> Any:
        from google.adk.workflow import START, Workflow

        if isinstance(node, ir.LlmAgentNode) and self.state_schema is None:
            # one agent (with its transfer targets) is the same agent on both targets: ADK's
            # Runner resumes a conversation at the agent a transfer reached only under an
            # agent root, and the agent is no deprecated class
            return self._agent_node(node, lambda: self.visit(node, None))
        top = self.visit(node, None)
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

    def _agent_node(self, node: ir.Node, compile_it: Any) -> Any:
        """Compile `node` as one agent that runs its children itself."""
        self.inside += 1
        try:
            return compile_it()
        finally:
            self.inside -= 1

    def _graph_shaped(self, node: ir.Node, *allowed: str) -> bool:
        """Whether a composite can be a graph: not inside an agent node, no gate inside, and no
        field a Workflow cannot carry (its agent callbacks, above all)."""
        if self.inside or gates_in(node):
            return False
        known: frozenset[str] = getattr(node, "ADK_FIELDS", frozenset())
        fields = {field for field in vars(node) if field in known}
        return fields <= _GRAPH_FIELDS | set(allowed)

    def _end_node(self, owner: str) -> Any:
        from google.adk.workflow import FunctionNode

        name = self.unique(f"{owner}_end")
        del self.renamed[name]  # a function node: no agent, no event
        return FunctionNode(func=_graph_end, name=name)

    def _nodes(self, node: ir.Node, visit: Any = None) -> list[Any]:
        """The composite's children as graph nodes (`visit`: how; by default `self.visit`)."""
        if not node.children:
            kind = getattr(node, "ADK_CLASS", type(node).__name__)
            raise EmptyCompositeError(f"{kind} has no sub-agents", agent=node.name)
        return [visit(child) if visit else self.visit(child, None) for child in node.children]

    # -- leaves ---------------------------------------------------------------------------------
    def visit_llm_agent(self, node: ir.LlmAgentNode, ctx: None) -> Any:
        if self.inside:
            return super().visit_llm_agent(node, None)
        from google.adk.workflow import START, Workflow

        return Workflow(name=node.name, edges=[(START, self._chat_agent(node))])

    def _chat_agent(self, node: ir.LlmAgentNode) -> Any:
        """The LlmAgent in chat mode; its transfer targets and agent tools run inside it, so
        they compile as agents."""
        return self._agent_node(node, lambda: self._adk_agent(node, extra={"mode": "chat"}))

    # -- composites -----------------------------------------------------------------------------
    def visit_sequential_agent(self, node: ir.SequentialAgentNode, ctx: None) -> Any:
        if not self._graph_shaped(node):
            from adk_fluent.adk.custom_agents.gates import GatedSequenceAgent

            return self._agent_node(node, lambda: self._adk_agent(node, GatedSequenceAgent))
        from google.adk.workflow import START

        return self._graph(node, [(START, *self._nodes(node))])

    def visit_parallel_agent(self, node: ir.ParallelAgentNode, ctx: None) -> Any:
        if node.join is not None or node.merge is not None:
            return self._agent_node(node, lambda: self._fanout(node))
        if not self._graph_shaped(node):
            from adk_fluent.adk.custom_agents.gates import GatedParallelAgent

            return self._agent_node(node, lambda: self._adk_agent(node, GatedParallelAgent))
        from google.adk.workflow import START

        # each branch follows START and ends its own branch: a chat agent needs no Workflow
        # of its own there
        branches = self._nodes(
            node,
            lambda child: (
                self._chat_agent(child)
                if isinstance(child, ir.LlmAgentNode)
                else self.visit(child, None)
            ),
        )
        return self._graph(node, [(START, tuple(branches))])

    def visit_loop_agent(self, node: ir.LoopAgentNode, ctx: None) -> Any:
        self.loop_depth += 1
        try:
            if node.visibility == "final":  # Loop(...).show("final"): it presents its last round
                from adk_fluent.adk.custom_agents.flow import final_round_loop_agent

                loop = final_round_loop_agent()
                return self._agent_node(node, lambda: self._adk_agent(node, loop))
            if self._graph_shaped(node, "max_iterations"):
                return self._loop_graph(node)
            from adk_fluent.adk.custom_agents.gates import GatedLoopAgent

            self.loops.append(node.name)
            try:
                return self._agent_node(node, lambda: self._adk_agent(node, GatedLoopAgent))
            finally:
                self.loops.pop()
        finally:
            self.loop_depth -= 1

    def _loop_graph(self, node: ir.LoopAgentNode) -> Any:
        from google.adk.workflow import START

        from adk_fluent.adk.custom_agents.graph import AGAIN, DONE, NEXT, LoopCheck, LoopStart

        items = self._nodes(node)
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

    def visit_route(self, node: ir.RouteNode, ctx: None) -> Any:
        if not self._graph_shaped(node):
            return self._agent_node(
                node, lambda: super(WorkflowCompiler, self).visit_route(node, None)
            )
        from google.adk.workflow import START

        from adk_fluent.adk.custom_agents.graph import STOP, RouteChoice, branch_route

        branches = self._nodes(node)
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
    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, ctx: None) -> Any:
        return self._agent_node(
            node, lambda: super(WorkflowCompiler, self).visit_chunked_edge(node, None)
        )

    def visit_fallback(self, node: ir.FallbackNode, ctx: None) -> Any:
        return self._agent_node(
            node, lambda: super(WorkflowCompiler, self).visit_fallback(node, None)
        )

    def visit_map_over(self, node: ir.MapOverNode, ctx: None) -> Any:
        return self._agent_node(
            node, lambda: super(WorkflowCompiler, self).visit_map_over(node, None)
        )

    def visit_timeout(self, node: ir.TimeoutNode, ctx: None) -> Any:
        return self._agent_node(
            node, lambda: super(WorkflowCompiler, self).visit_timeout(node, None)
        )

    def visit_race(self, node: ir.RaceNode, ctx: None) -> Any:
        return self._agent_node(node, lambda: super(WorkflowCompiler, self).visit_race(node, None))

    def visit_native_agent(self, node: ir.NativeAgentNode, ctx: None) -> Any:
        return self._agent_node(
            node, lambda: super(WorkflowCompiler, self).visit_native_agent(node, None)
        )


def compile_workflow(
    root: ir.Node, model_for: ModelFor | None = None, state_schema: Any = None
) -> Any:
    """Check the tree, then compile it to an ADK Workflow (ADK 2.x)."""
    return WorkflowCompiler(root, model_for, state_schema).compile(root)
