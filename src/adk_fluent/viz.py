"""Mermaid diagrams of an IR tree, with data-flow edges from writers to readers."""

from __future__ import annotations

from .ir import (
    FallbackNode,
    LlmAgentNode,
    LoopAgentNode,
    Node,
    ParallelAgentNode,
    SequentialAgentNode,
    UntilNode,
    walk,
)

_SHAPES = {
    LlmAgentNode: ('["{label}"]', "agent"),
    UntilNode: ('{{"{label}"}}', "zero_cost"),
}


def _label(node: Node) -> str:
    if isinstance(node, LlmAgentNode):
        extra = f"<br/>writes: {', '.join(sorted(node.writes_keys))}" if node.writes_keys else ""
        return f"{node.name}{extra}"
    if isinstance(node, LoopAgentNode):
        limit = "" if not isinstance(node.max_iterations, int) else f" x{node.max_iterations}"
        return f"loop{limit}"
    if isinstance(node, UntilNode):
        return "until?"
    return node.name


def to_mermaid(root: Node) -> str:
    """A `flowchart TD` of the tree: control flow solid, data flow dashed and labelled with keys."""
    lines = ["flowchart TD"]
    ids: dict[int, str] = {}

    def node_id(node: Node) -> str:
        if id(node) not in ids:
            ids[id(node)] = f"n{len(ids)}"
        return ids[id(node)]

    def entry_exit(node: Node) -> tuple[list[str], list[str]]:
        """Draw `node`; return the ids flow enters and leaves by."""
        nid = node_id(node)
        if isinstance(node, LlmAgentNode | UntilNode):
            shape = '["{label}"]' if isinstance(node, LlmAgentNode) else '{{"{label}"}}'
            lines.append(f"    {nid}{shape.format(label=_label(node))}")
            for child in getattr(node, "children", ()):  # delegates: LLM transfer
                c_in, _ = entry_exit(child)
                for target in c_in:
                    lines.append(f"    {nid} -. transfer .-> {target}")
            return [nid], [nid]
        children = list(node.children)
        if isinstance(node, SequentialAgentNode):
            first_in: list[str] = []
            prev_out: list[str] = []
            for index, child in enumerate(children):
                c_in, c_out = entry_exit(child)
                if index == 0:
                    first_in = c_in
                for src in prev_out:
                    for dst in c_in:
                        lines.append(f"    {src} --> {dst}")
                prev_out = c_out
            return first_in, prev_out
        if isinstance(node, ParallelAgentNode | FallbackNode):
            fork, join = f"{nid}_fork", f"{nid}_join"
            kind = "parallel" if isinstance(node, ParallelAgentNode) else "fallback"
            lines.append(f"    {fork}(({kind}))")
            lines.append(f"    {join}(( ))")
            arrow = "-->" if kind == "parallel" else "-. on error .->"
            previous = None
            for child in children:
                c_in, c_out = entry_exit(child)
                source = fork if kind == "parallel" or previous is None else previous
                for dst in c_in:
                    lines.append(f"    {source} {arrow if source != fork else '-->'} {dst}")
                for src in c_out:
                    lines.append(f"    {src} --> {join}")
                previous = c_out[0] if c_out else previous
            return [fork], [join]
        if isinstance(node, LoopAgentNode):
            head = f"{nid}_loop"
            lines.append(f'    {head}{{{{"{_label(node)}"}}}}')
            body = SequentialAgentNode(name=node.name, children=node.children)
            b_in, b_out = entry_exit(body)
            for dst in b_in:
                lines.append(f"    {head} --> {dst}")
            for src in b_out:
                lines.append(f"    {src} -. repeat .-> {head}")
            return [head], [head]
        lines.append(f'    {nid}["{node.name}"]')
        return [nid], [nid]

    entry_exit(root)
    # data flow: every writer of a key to every agent that reads it
    writers: dict[str, list[Node]] = {}
    for node in walk(root):
        for key in getattr(node, "writes_keys", ()):
            writers.setdefault(key, []).append(node)
    for node in walk(root):
        for key in sorted(getattr(node, "reads_keys", ())):
            for writer in writers.get(key, []):
                if writer is not node and id(writer) in ids and id(node) in ids:
                    lines.append(f"    {ids[id(writer)]} -. {key} .-> {ids[id(node)]}")
    return "\n".join(lines) + "\n"
