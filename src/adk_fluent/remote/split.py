"""A tree split at its execution boundaries (`to_apps`, boundaries.py): each boundary's sub-tree
kept as a part of its own, a RemoteAgentNode in its place, and the state keys that cross, as
the contract checker's data flow finds them; every part checked with the keys it is sent.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NamedTuple

from adk_fluent.adk.compat import adk_version, behaviour
from adk_fluent.analysis.contracts import ContractReport, check_tree
from adk_fluent.analysis.contracts.dataflow import analyse
from adk_fluent.analysis.contracts.effects import step_effects
from adk_fluent.analysis.contracts.flow_state import YES
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import (
    AgentToolSpec,
    BoundaryNode,
    Node,
    NodeVisitor,
    RemoteAgentNode,
    TransformNode,
    Walk,
    is_queue_url,
)
from adk_fluent.ir.options import BuildOptions
from adk_fluent.ir.state_keys import crosses_a2a
from adk_fluent.remote.cards import first_line
from adk_fluent.remote.directory import WELL_KNOWN_CARD, card_url

# The contract checker's codes for a key that may be missing when it is read: a part with one
# the whole pipeline does not have lost the key at a boundary.
_MISSING = frozenset({"read-before-write", "maybe-unset"})


@dataclass(frozen=True)
class Crossing:
    """One execution boundary after the split: the service, the part that calls it, the card
    URL it is called at (or the queue broker its workers read), and the state keys it is sent
    and sends back."""

    service: str
    caller: str
    url: str
    sends: tuple[str, ...]
    receives: tuple[str, ...]
    description: str = ""

    def to_text(self) -> str:
        """One line: who calls whom, at which URL, with which keys."""
        sent = ", ".join(self.sends) or "nothing"
        back = ", ".join(self.receives) or "nothing"
        return f"{self.caller} -> {self.service} ({self.url}): sends {sent}; receives {back}"


# A temp: key lives for one invocation of one process: one read on one side of a boundary and
# written on the other is refused. (read inside?, where the reader is, where the writer is,
# what the key cannot do, the field, what a session key would do instead.)
_TEMP_ACROSS = (
    (True, "inside", "outside", "cross A2A", "sends", "the service is sent it"),
    (False, "after", "inside", "come back over A2A", "receives", "it is sent back"),
)


class _Where(NamedTuple):
    """Where a node of the split is: its parent's path, and the part it ends up in (the root's
    name or a service's)."""

    parent: tuple[str, ...]
    part: str


class Splitter(NodeVisitor[_Where, Node]):
    """Splits one tree: replaces each boundary by a RemoteAgentNode, keeps each sub-tree (with
    the boundaries inside it replaced in turn) as a part, and works out what crosses."""

    def __init__(self, tree: Node, options: BuildOptions, urls: dict[str, str]) -> None:
        self.tree, self.options, self.urls = tree, options, urls
        self.initial = tuple(options.strict.initial_keys) if options.strict else ()
        self.flow = analyse(tree, frozenset(self.initial))
        self.taken = {node.name for node in tree.walk() if not isinstance(node, BoundaryNode)}
        self.trees: dict[str, Node] = {}
        self.crossings: list[Crossing] = []

    def split(self) -> Node:
        """The tree with every boundary replaced (their sub-trees kept as parts)."""
        return self.visit(self.tree, _Where((), self.tree.name))

    def visit_boundary(self, node: BoundaryNode, where: _Where) -> Walk[_Where, Node]:
        path = (*where.parent, node.name)
        child = node.children[0]
        inner = yield child, _Where(path, node.name)
        return self._remote(node, child, inner, "/".join(path), where.part)

    def _rebuild(self, node: Node, where: _Where) -> Walk[_Where, Node]:
        """`node` with its children and agent tools split in turn (itself when none changed)."""
        inside = _Where((*where.parent, node.name), where.part)
        changes: dict[str, Any] = {}
        children = []
        for child in node.children:
            children.append((yield child, inside))
        if any(new is not old for new, old in zip(children, node.children, strict=True)):
            changes["children"] = tuple(children)
        tools = node.__dict__.get("tools")
        if isinstance(tools, tuple) and node.attached:
            # agent tools run under the agent that calls them (iter_paths says so too)
            new_tools = []
            for tool in tools:
                if isinstance(tool, AgentToolSpec):
                    agent = yield tool.agent, inside
                    tool = tool if agent is tool.agent else dataclasses.replace(tool, agent=agent)
                new_tools.append(tool)
            if any(new is not old for new, old in zip(new_tools, tools, strict=True)):
                changes["tools"] = tuple(new_tools)
        return node.replace(**changes) if changes else node

    # every other node type is kept, with the boundaries under it replaced
    visit_llm_agent = visit_sequential_agent = visit_parallel_agent = visit_loop_agent = _rebuild
    visit_fallback = visit_until = visit_transform = visit_route = visit_map_over = _rebuild
    visit_gate = visit_tap = visit_timeout = visit_race = visit_native_agent = _rebuild
    visit_remote_agent = visit_chunked_edge = _rebuild

    def _remote(
        self, boundary: BoundaryNode, child: Node, inner: Node, path: str, caller: str
    ) -> Node:
        service = boundary.name
        if service in self.trees:
            raise BuildError(
                f"two execution boundaries are named '{service}'",
                agent=service,
                field="service",
                hint="name each service apart: .execution_boundary('heavy_a'), "
                ".execution_boundary('heavy_b').",
            )
        if service in self.taken:
            raise BuildError(
                f"the execution boundary '{service}' has the name of an agent of the pipeline; "
                "split, a RemoteAgent of that name takes the boundary's place",
                agent=service,
                field="service",
                hint=f"name the service apart: .execution_boundary('{service}_service').",
            )
        paused = [n.name for n in child.walk() if n.PAUSES_RUN]
        if paused:
            raise BuildError(
                f"the execution boundary '{service}' holds the gate '{paused[0]}': a run "
                "paused inside a service cannot be resumed by the pipeline that called it",
                agent=service,
                field="execution_boundary",
                hint="put the gate before or after the boundary, in the calling pipeline.",
            )
        url = boundary.url or self.urls.get(service, "")
        if not url:
            raise BuildError(
                f"the execution boundary '{service}' has no URL to call it at",
                agent=service,
                field="url",
                hint=f"to_apps(pipeline, urls={{'{service}': 'http://{service}:8001'}}) or "
                f".execution_boundary('{service}', url='http://{service}:8001/{WELL_KNOWN_CARD}').",
            )
        sends, receives = self._keys(service, child, path)
        description = (
            boundary.description
            or first_line(getattr(child, "description", None))
            or f"the service {service}"
        )
        self.trees[service] = inner
        where = url if is_queue_url(url) else card_url(url)
        self.crossings.append(Crossing(service, caller, where, sends, receives, description))
        return RemoteAgentNode(
            service,
            card=where,
            timeout=boundary.timeout,
            description=description,
            service=service,
            reads_keys=frozenset(sends),
            writes_keys=frozenset(receives),
            visibility=boundary.visibility,
        )

    def _keys(
        self, service: str, child: Node, path: str
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(keys sent, keys received) for the boundary at `path` around `child`."""
        inside = path + "/"
        local = analyse(child)
        outside_writes = {
            key
            for key, writers in self.flow.writers.items()
            if any(not w.path.startswith(inside) for w in writers)
        } | set(self.initial)
        required = {r.read.key for r in local.records if r.fact.status != YES and r.read.required}
        optional = {r.read.key for r in local.records if r.fact.status != YES} - required
        # an optional read ({key?}) of a key nothing outside writes would only add a checker
        # error at the RemoteAgent; a required one is sent (the caller's app may set it)
        needed = required | (optional & outside_writes)
        if local.opaque_readers:  # steps whose reads the checker cannot see: send what it can
            needed |= outside_writes
        writes = set(local.writers) | _deleted(child)
        if any(_keeps_only(node) for node in child.walk()):
            # S.pick deletes every other key: those the caller holds must be there to delete
            needed |= outside_writes
            writes |= outside_writes
        if local.opaque_writers:  # steps whose writes the checker cannot see: take back all
            writes |= {r.read.key for r in self.flow.records if not r.path.startswith(inside)}
        for read_inside, reader, writer, cannot, field, so in _TEMP_ACROSS:
            for record in self.flow.records:
                key = record.read.key
                if record.path.startswith(inside) != read_inside or not key.startswith("temp:"):
                    continue
                other = [
                    w.node for w in record.fact.writers if w.path.startswith(inside) != read_inside
                ]
                if other:
                    raise BuildError(
                        f"'{record.node}' {reader} the execution boundary '{service}' reads "
                        f"'{key}', which '{other[0]}' writes {writer} it; temp: keys live for one "
                        f"invocation of one process and cannot {cannot}",
                        agent=service,
                        field=field,
                        hint=f"store it under a session key (no temp: prefix, e.g. "
                        f"'{key.removeprefix('temp:')}') so {so}.",
                    )
        return (
            tuple(sorted(k for k in needed if crosses_a2a(k))),
            tuple(sorted(k for k in writes if crosses_a2a(k))),
        )

    def check(self, root_tree: Node) -> tuple[ContractReport, dict[str, ContractReport]]:
        """The contract report of the whole pipeline and of each part (the root's under its
        name); a part that may miss a key the whole does not is refused."""

        def report(tree: Node, initial: tuple[str, ...]) -> ContractReport:
            schema = self.options.strict.schema if self.options.strict else None
            return check_tree(
                tree,
                installed_adk=adk_version(),
                schema=schema,
                initial_keys=(*self.initial, *initial),
                installed_behaviour=behaviour,
            )

        whole = report(self.tree, ())
        # by key: a read the whole may miss may be missed in a part under another code
        known = {issue.key for issue in whole if issue.code in _MISSING}
        reports = {root_tree.name: report(root_tree, ())}
        for crossing in self.crossings:
            service_report = report(self.trees[crossing.service], crossing.sends)
            reports[crossing.service] = _read_by_caller(service_report, crossing.receives)
        for part, part_report in reports.items():
            for issue in part_report:
                if issue.code in _MISSING and issue.key not in known:
                    near = [c.service for c in self.crossings if part in (c.caller, c.service)]
                    raise BuildError(
                        f"split, '{issue.node}' in the part '{part}' may not find the state "
                        f"key '{issue.key}' ({issue.code}), which it finds in one process: "
                        f"the key does not cross the execution boundary "
                        f"{' or '.join(repr(n) for n in near)}",
                        agent=near[0] if len(near) == 1 else part,
                        field="execution_boundary",
                        hint="declare it on the step that reads or writes it (.reads(...) / "
                        ".writes(...)) so that it crosses, or move the boundary.",
                    )
        return whole, reports


def _deleted(tree: Node) -> set[str]:
    """Keys the state steps of `tree` delete (S.drop, the old key of S.rename): a deletion is
    a write of None, which must come back like any other write."""
    keys: set[str] = set()
    for node in tree.walk():
        if isinstance(node, TransformNode):
            effects = step_effects(node)
            keys |= {write.key for write in effects.writes if write.delete}
            keys |= {old for old, _ in effects.renames}
    return keys


def _keeps_only(node: Node) -> bool:
    return isinstance(node, TransformNode) and step_effects(node).keep_only is not None


def _read_by_caller(report: ContractReport, receives: tuple[str, ...]) -> ContractReport:
    """A service's report without "never read" notes on the keys it sends back: the caller
    reads them, which the service's own tree cannot show."""
    kept = tuple(
        issue
        for issue in report.issues
        if not (issue.code == "dead-state" and issue.key in receives)
    )
    if len(kept) == len(report.issues):
        return report
    return ContractReport(report.root, kept, report.satisfied, report.adk_version, report.checks)
