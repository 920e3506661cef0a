"""Mermaid diagrams of an IR tree: control flow solid, data flow dashed and labelled with keys.

Shapes: agents are boxes, state steps parallelograms, routes diamonds, gates hexagons, taps
flags, map_over subroutine boxes, loops a hexagon head with a repeat edge, fan-out / fallback /
race a small circle fork and join (a FanOut's join circle names its first_complete and its
merge), a chunked edge an edge labelled "chunked by sentence".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from adk_fluent.ir import nodes as ir

if TYPE_CHECKING:
    from adk_fluent.analysis.cost.report import CostModel

Ends = tuple[list[str], list[str]]  # the ids control flow enters and leaves a drawing by


def _quote(text: str) -> str:
    return text.replace('"', "'")


def _rule_label(rule: Any) -> str:
    if rule.op == "when":
        return "when(...)"
    return _quote(f"{rule.op} {rule.value!r}")


def _money(usd: float) -> str:
    return f"${usd:.6f}" if usd < 0.01 else f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


def _calls(calls: float) -> str:
    return f"{calls:g} call{'' if calls == 1 else 's'} per run"


class _Drawing(ir.NodeVisitor[None, Ends]):
    """Draws each node type; a case returns the ids control flow enters and leaves by."""

    def __init__(
        self,
        cost: CostModel | None = None,
        actual: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        # an LLM agent's estimated share of one run (and what it did), by path
        self.cost = {n.path: n for n in cost.nodes} if cost is not None else {}
        self.actual = actual
        self.node_paths: dict[int, str] = {}  # id(node) -> its path, when costs are drawn
        self.lines = ["flowchart TD"]
        self.ids: dict[int, str] = {}
        # nodes drawn without a shape of their own: where data-flow edges they write start
        self.data_ids: dict[int, str] = {}

    def node_id(self, node: ir.Node) -> str:
        if id(node) not in self.ids:
            self.ids[id(node)] = f"n{len(self.ids)}"
        return self.ids[id(node)]

    def box(self, node: ir.Node, shape: str, label: str) -> Ends:
        nid = self.node_id(node)
        self.lines.append(f"    {nid}{shape.format(label=_quote(label))}")
        return [nid], [nid]

    def edge(self, sources: list[str], targets: list[str], arrow: str = "-->") -> None:
        for src in sources:
            for dst in targets:
                self.lines.append(f"    {src} {arrow} {dst}")

    def fork(
        self, node: ir.Node, kind: str, arrow: str = "-->", joined: str = " "
    ) -> ir.Walk[None, Ends]:
        nid = self.node_id(node)
        fork, join = f"{nid}_fork", f"{nid}_join"
        shown = f'"{_quote(joined)}"' if joined.strip() else joined
        self.lines += [f"    {fork}(({kind}))", f"    {join}(({shown}))"]
        self.data_ids[id(node)] = join
        for child in node.children:
            c_in, c_out = yield child, None
            self.edge([fork], c_in, arrow)
            self.edge(c_out, [join])
        return [fork], [join]

    def chain(self, children: tuple[ir.Node, ...]) -> ir.Walk[None, Ends]:
        first: list[str] = []
        previous: list[str] = []
        for index, child in enumerate(children):
            c_in, c_out = yield child, None
            if index == 0:
                first = c_in
            self.edge(previous, c_in)
            previous = c_out
        return first, previous

    def visit_llm_agent(self, node: ir.LlmAgentNode, ctx: None) -> ir.Walk[None, Ends]:
        writes = f"<br/>writes: {', '.join(sorted(node.writes_keys))}" if node.writes_keys else ""
        selector = node.model_selector  # .model_select(): the policy that picks each call's model
        model = f"<br/>model: {selector.describe()}" if selector is not None else ""
        entry, exit_ = self.box(
            node, '["{label}"]', f"{node.name}{model}{writes}{self.costs(node)}"
        )
        for child in node.children:  # delegates: LLM-driven transfer
            c_in, _ = yield child, None
            self.edge(entry, c_in, "-. transfer .->")
        for tree in node.attached:  # agent tools: called like a function, answer back
            c_in, _ = yield tree, None
            self.edge(entry, c_in, "-. tool .->")
        return entry, exit_

    def costs(self, node: ir.LlmAgentNode) -> str:
        """The estimate's line for an LLM agent, and the recorded runs' beside it."""
        if not self.cost and self.actual is None:
            return ""
        path = self.path_of(node)
        lines = []
        estimate = self.cost.get(path)
        if estimate is not None:
            price = _money(estimate.cost_usd) if estimate.priced else "no price"
            lines.append(f"est. {price}, {_calls(estimate.expected_calls)}")
        if self.actual is not None:
            done = self.actual.get(path)
            # a branch not taken, or an agent tool read from a stored session (its run's
            # events reach run()'s events, never the store)
            lines.append(
                "actual: none recorded"
                if done is None
                else f"actual {_money(done[1])}, {_calls(done[0])}"
            )
        return "".join(f"<br/>{line}" for line in lines)

    def path_of(self, node: ir.Node) -> str:
        return self.node_paths.get(id(node), node.name)

    def visit_native_agent(self, node: ir.NativeAgentNode, ctx: None) -> Ends:
        kind = node.agent_class.rsplit(".", 1)[-1]
        return self.box(node, '[["{label}"]]', f"{node.name} ({kind})")

    def visit_remote_agent(self, node: ir.RemoteAgentNode, ctx: None) -> Ends:
        crossing = []
        if node.reads_keys:
            crossing.append(f"sends: {', '.join(sorted(node.reads_keys))}")
        if node.writes_keys:
            crossing.append(f"receives: {', '.join(sorted(node.writes_keys))}")
        where = node.card.split("/.well-known/")[0] if node.card else "agent card"
        label = "<br/>".join([f"{node.name} (A2A: {where})", *crossing])
        return self.box(node, '[/"{label}"\\]', label)

    def visit_boundary(self, node: ir.BoundaryNode, ctx: None) -> ir.Walk[None, Ends]:
        nid = self.node_id(node)
        where = f": {node.url}" if node.url else ""
        self.lines.append(f'    subgraph {nid}["service {_quote(node.name)}{_quote(where)}"]')
        ends = yield node.children[0], None
        self.lines.append("    end")
        return ends

    def visit_transform(self, node: ir.TransformNode, ctx: None) -> Ends:
        return self.box(node, '[/"{label}"/]', f"{node.step.kind} {node.name}")

    def visit_tap(self, node: ir.TapNode, ctx: None) -> Ends:
        return self.box(node, '>"{label}"]', f"tap {node.name}")

    def visit_until(self, node: ir.UntilNode, ctx: None) -> Ends:
        return self.box(node, '{{{{"{label}"}}}}', "until?")

    def visit_gate(self, node: ir.GateNode, ctx: None) -> Ends:
        return self.box(node, '{{{{"{label}"}}}}', f"gate: {node.message}")

    def visit_sequential_agent(
        self, node: ir.SequentialAgentNode, ctx: None
    ) -> ir.Walk[None, Ends]:
        return self.chain(node.children)

    def visit_parallel_agent(self, node: ir.ParallelAgentNode, ctx: None) -> ir.Walk[None, Ends]:
        joined = []
        if node.join is not None:
            joined.append(str(node.join))
        if node.merge is not None:
            merge = node.merge
            how = "reducer" if merge.mode == "reducer" else merge.mode
            joined.append(f"merge {how} -> {merge.into}")
        return self.fork(node, "parallel", joined=", ".join(joined) or " ")

    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, ctx: None) -> ir.Walk[None, Ends]:
        from adk_fluent.ir.edges import describe_by

        producer, consumer = node.children
        p_in, p_out = yield producer, None
        c_in, c_out = yield consumer, None
        self.edge(p_out, c_in, f'-- "chunked by {_quote(describe_by(node.by))}" -->')
        if p_out:  # the chunk key is the producer's reply, cut up
            self.data_ids[id(node)] = p_out[0]
        return p_in, c_out

    def visit_race(self, node: ir.RaceNode, ctx: None) -> ir.Walk[None, Ends]:
        return self.fork(node, "race")

    def visit_fallback(self, node: ir.FallbackNode, ctx: None) -> ir.Walk[None, Ends]:
        return self.fork(node, "fallback", "-. try .->")

    def visit_route(self, node: ir.RouteNode, ctx: None) -> ir.Walk[None, Ends]:
        entry, _ = self.box(node, '{{"{label}"}}', f"route {node.key}")
        join = f"{entry[0]}_join"
        self.lines.append(f"    {join}(( ))")
        labels = [_rule_label(rule) for rule in node.rules] + (
            ["otherwise"] if node.has_otherwise else []
        )
        for label, child in zip(labels, node.children, strict=False):
            c_in, c_out = yield child, None
            self.edge(entry, c_in, f'-- "{label}" -->')
            self.edge(c_out, [join])
        return entry, [join]

    def visit_loop_agent(self, node: ir.LoopAgentNode, ctx: None) -> ir.Walk[None, Ends]:
        limit = f" x{node.max_iterations}" if isinstance(node.max_iterations, int) else ""
        head, _ = self.box(node, '{{{{"{label}"}}}}', f"loop{limit}")
        b_in, b_out = yield from self.chain(node.children)
        self.edge(head, b_in)
        self.edge(b_out, head, "-. repeat .->")
        return head, head

    def visit_map_over(self, node: ir.MapOverNode, ctx: None) -> ir.Walk[None, Ends]:
        head, _ = self.box(node, '[["{label}"]]', f"map_over {node.list_key} -> {node.output_key}")
        b_in, b_out = yield node.children[0], None
        self.edge(head, b_in, "-- each item -->")
        self.edge(b_out, head, "-. next .->")
        return head, head

    def visit_timeout(self, node: ir.TimeoutNode, ctx: None) -> ir.Walk[None, Ends]:
        head, _ = self.box(node, '(["{label}"])', f"timeout {node.seconds:g}s")
        b_in, b_out = yield node.children[0], None
        self.edge(head, b_in)
        return head, b_out


def to_mermaid(
    root: ir.Node,
    cost: CostModel | None = None,
    actual: Mapping[str, tuple[float, float]] | None = None,
) -> str:
    """A `flowchart TD` of the tree with data-flow edges from each key's writers to its readers.
    Internal agents (their text is not the answer) are drawn dashed and grey.

    With `cost` (an estimate of this tree), each LLM agent's box says its estimated cost and
    model calls for one run; with `actual` ({agent path: (model calls, USD)} per run, from
    recorded runs), what it did beside it."""
    from adk_fluent.analysis.visibility import infer_visibility

    drawing = _Drawing(cost, actual)
    if cost is not None or actual is not None:
        drawing.node_paths = {id(node): "/".join(path) for path, node in ir.iter_paths(root)}
    if cost is not None:
        known = set(drawing.node_paths.values())
        strangers = [node.path for node in cost.nodes if node.path not in known]
        if strangers:
            from adk_fluent.errors import BuildError

            raise BuildError(
                f"to_mermaid(cost=) was given an estimate of another tree: it prices "
                f"{', '.join(strangers)}, which {root.name!r} does not have",
                agent=root.name,
                field="cost",
                hint="estimate this pipeline itself: estimate_cost(pipeline, assumptions).",
            )
    drawing.visit(root, None)
    visibility = infer_visibility(root)
    internal = [
        drawing.ids[id(node)]
        for node in root.walk()
        if isinstance(node, ir.LlmAgentNode)
        and visibility.get(node.name) == "internal"
        and id(node) in drawing.ids
    ]
    if internal:
        drawing.lines.append("    classDef internal stroke-dasharray: 5 5,color:#666")
        drawing.lines.append(f"    class {','.join(internal)} internal")
    writers: dict[str, list[ir.Node]] = {}
    for node in root.walk():
        for key in node.writes_keys:
            writers.setdefault(key, []).append(node)
        merge = node.merge if isinstance(node, ir.ParallelAgentNode) else None
        if merge is not None:
            writers.setdefault(merge.into, []).append(node)
    for node in root.walk():
        for key in sorted(node.reads_keys):
            for writer in writers.get(key, []):
                source = drawing.data_ids.get(id(writer)) or drawing.ids.get(id(writer))
                if writer is not node and source is not None and id(node) in drawing.ids:
                    drawing.lines.append(f"    {source} -. {key} .-> {drawing.ids[id(node)]}")
    return "\n".join(drawing.lines) + "\n"
