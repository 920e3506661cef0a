"""Mermaid diagrams of an IR tree: control flow solid, data flow dashed and labelled with keys.

Shapes: agents are boxes, state steps parallelograms, routes diamonds, gates hexagons, taps
flags, map_over subroutine boxes, loops a hexagon head with a repeat edge, fan-out / fallback /
race a small circle fork and join.
"""

from __future__ import annotations

from typing import Any

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
    walk,
)


def _quote(text: str) -> str:
    return text.replace('"', "'")


def _rule_label(rule: Any) -> str:
    if rule.op == "when":
        return "when(...)"
    return _quote(f"{rule.op} {rule.value!r}")


class _Drawing:
    def __init__(self) -> None:
        self.lines = ["flowchart TD"]
        self.ids: dict[int, str] = {}

    def node_id(self, node: Node) -> str:
        if id(node) not in self.ids:
            self.ids[id(node)] = f"n{len(self.ids)}"
        return self.ids[id(node)]

    def box(self, node: Node, shape: str, label: str) -> tuple[list[str], list[str]]:
        nid = self.node_id(node)
        self.lines.append(f"    {nid}{shape.format(label=_quote(label))}")
        return [nid], [nid]

    def edge(self, sources: list[str], targets: list[str], arrow: str = "-->") -> None:
        for src in sources:
            for dst in targets:
                self.lines.append(f"    {src} {arrow} {dst}")

    def fork(self, node: Node, kind: str, arrow: str = "-->") -> tuple[list[str], list[str]]:
        nid = self.node_id(node)
        fork, join = f"{nid}_fork", f"{nid}_join"
        self.lines += [f"    {fork}(({kind}))", f"    {join}(( ))"]
        for child in node.children:
            c_in, c_out = self.draw(child)
            self.edge([fork], c_in, arrow)
            self.edge(c_out, [join])
        return [fork], [join]

    def draw(self, node: Node) -> tuple[list[str], list[str]]:
        """Draw `node`; return the ids control flow enters and leaves by."""
        if isinstance(node, LlmAgentNode):
            writes = (
                f"<br/>writes: {', '.join(sorted(node.writes_keys))}" if node.writes_keys else ""
            )
            entry, exit_ = self.box(node, '["{label}"]', f"{node.name}{writes}")
            for child in node.children:  # delegates: LLM-driven transfer
                c_in, _ = self.draw(child)
                self.edge(entry, c_in, "-. transfer .->")
            return entry, exit_
        if isinstance(node, TransformNode):
            return self.box(node, '[/"{label}"/]', f"{node.op} {node.name}")
        if isinstance(node, TapNode):
            return self.box(node, '>"{label}"]', f"tap {node.name}")
        if isinstance(node, UntilNode):
            return self.box(node, '{{{{"{label}"}}}}', "until?")
        if isinstance(node, GateNode):
            return self.box(node, '{{{{"{label}"}}}}', f"gate: {node.message}")
        if isinstance(node, SequentialAgentNode):
            first: list[str] = []
            previous: list[str] = []
            for index, child in enumerate(node.children):
                c_in, c_out = self.draw(child)
                if index == 0:
                    first = c_in
                self.edge(previous, c_in)
                previous = c_out
            return first, previous
        if isinstance(node, ParallelAgentNode):
            return self.fork(node, "parallel")
        if isinstance(node, RaceNode):
            return self.fork(node, "race")
        if isinstance(node, FallbackNode):
            return self.fork(node, "fallback", "-. try .->")
        if isinstance(node, RouteNode):
            entry, _ = self.box(node, '{{"{label}"}}', f"route {node.key}")
            join = f"{entry[0]}_join"
            self.lines.append(f"    {join}(( ))")
            labels = [_rule_label(rule) for rule in node.rules] + (
                ["otherwise"] if node.has_otherwise else []
            )
            for label, child in zip(labels, node.children, strict=False):
                c_in, c_out = self.draw(child)
                self.edge(entry, c_in, f'-- "{label}" -->')
                self.edge(c_out, [join])
            return entry, [join]
        if isinstance(node, LoopAgentNode):
            limit = f" x{node.max_iterations}" if isinstance(node.max_iterations, int) else ""
            head, _ = self.box(node, '{{{{"{label}"}}}}', f"loop{limit}")
            b_in, b_out = self.draw(SequentialAgentNode(name=node.name, children=node.children))
            self.edge(head, b_in)
            self.edge(b_out, head, "-. repeat .->")
            return head, head
        if isinstance(node, MapOverNode):
            head, _ = self.box(
                node, '[["{label}"]]', f"map_over {node.list_key} -> {node.output_key}"
            )
            b_in, b_out = self.draw(node.children[0])
            self.edge(head, b_in, "-- each item -->")
            self.edge(b_out, head, "-. next .->")
            return head, head
        if isinstance(node, TimeoutNode):
            head, _ = self.box(node, '(["{label}"])', f"timeout {node.seconds:g}s")
            b_in, b_out = self.draw(node.children[0])
            self.edge(head, b_in)
            return head, b_out
        return self.box(node, '["{label}"]', node.name)


def to_mermaid(root: Node) -> str:
    """A `flowchart TD` of the tree with data-flow edges from each key's writers to its readers.
    Internal agents (their text is not the answer) are drawn dashed and grey."""
    from .visibility import infer_visibility

    drawing = _Drawing()
    drawing.draw(root)
    visibility = infer_visibility(root)
    internal = [
        drawing.ids[id(node)]
        for node in walk(root)
        if isinstance(node, LlmAgentNode)
        and visibility.get(node.name) == "internal"
        and id(node) in drawing.ids
    ]
    if internal:
        drawing.lines.append("    classDef internal stroke-dasharray: 5 5,color:#666")
        drawing.lines.append(f"    class {','.join(internal)} internal")
    writers: dict[str, list[Node]] = {}
    for node in walk(root):
        for key in getattr(node, "writes_keys", ()):
            writers.setdefault(key, []).append(node)
    for node in walk(root):
        for key in sorted(getattr(node, "reads_keys", ())):
            for writer in writers.get(key, []):
                if writer is not node and id(writer) in drawing.ids and id(node) in drawing.ids:
                    drawing.lines.append(
                        f"    {drawing.ids[id(writer)]} -. {key} .-> {drawing.ids[id(node)]}"
                    )
    return "\n".join(drawing.lines) + "\n"
