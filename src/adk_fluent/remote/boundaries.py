"""A pipeline split at its execution boundaries into ADK Apps joined over A2A.

    pipeline = (
        Agent("classifier").outputs("intent")
        >> Agent("worker").instruct("... {intent}").outputs("result").execution_boundary("heavy")
        >> Agent("responder").instruct("Tell the user {result}.")
    )
    split = to_apps(pipeline, urls={"heavy": "http://heavy:8001"})
    split.root                   # the entry App: a RemoteAgent step named "heavy" in its place
    split.services["heavy"]      # the App the service runs (a served root that carries state)
    split.serve("heavy", host="0.0.0.0", port=8001)       # or split.a2a_app(...) to mount
    print(split.report.to_text())

Run in one process, a boundary changes nothing. Split, each boundary's sub-tree becomes a
service of its own and the tree around it calls it with a RemoteAgent that sends the keys the
sub-tree reads and receives the keys it writes (ADK carries no state over A2A by itself). The
keys are what the contract checker finds: `sends` are the keys the sub-tree reads before it
writes them; when it holds steps whose reads the checker cannot see (a function, an S.compute
lambda), every key the tree outside writes is sent, and likewise every key read outside comes
back from a sub-tree with steps whose writes it cannot see. A key the sub-tree deletes
(S.drop, S.rename) comes back deleted. Keys that cannot cross are refused here, naming the
boundary and the key: a `temp:` key (it lives for one invocation of one process), a gate inside
a boundary (a paused remote run cannot be resumed by its caller). The report checks every part
with the keys it is sent as its initial state, and the split is refused when a part would miss
a key the single-process pipeline has.

`write_agent_folders` writes the parts as ADK agent folders (each builds its part from the
pipeline's module when ADK loads it, `load_part`), for `adk api_server` and ADK's deploy
commands; a service's folder has the `agent.json` card `adk api_server --a2a` serves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adk_fluent.adk.compat import adk_version, behaviour
from adk_fluent.analysis.contracts import ContractReport, check_tree
from adk_fluent.analysis.contracts.dataflow import YES, analyse
from adk_fluent.analysis.contracts.effects import step_effects
from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.depth import recursion_room, tree_depth
from adk_fluent.ir.nodes import AgentToolSpec, BoundaryNode, Node, RemoteAgentNode, TransformNode
from adk_fluent.ir.options import BuildOptions, ExecutionConfig, StrictOptions
from adk_fluent.ir.state_keys import crosses_a2a
from adk_fluent.remote.cards import StateInterface
from adk_fluent.remote.directory import WELL_KNOWN_CARD, card_url
from adk_fluent.remote.serve import a2a_app, served_app, tree_of
from adk_fluent.run.engine import ENGINE

# The contract checker's codes for a key that may be missing when it is read: a part with one
# the whole pipeline does not have lost the key at a boundary.
_MISSING = frozenset({"read-before-write", "maybe-unset"})


@dataclass(frozen=True)
class Crossing:
    """One execution boundary after the split: the service, the part that calls it, the card
    URL it is called at, and the state keys it is sent and sends back."""

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


@dataclass(frozen=True)
class SplitReport:
    """The contract checker on every part of a split pipeline. `whole` is the pipeline in one
    process; `root` the entry part; `services` each service, checked with the keys it is sent
    as its initial state. No part misses a key the whole pipeline has (`to_apps` refuses
    that), so what `whole` reports is what the split pipeline has."""

    crossings: tuple[Crossing, ...]
    whole: ContractReport
    root: ContractReport
    services: dict[str, ContractReport]

    @property
    def ok(self) -> bool:
        """True when no part has a contract error."""
        return all(report.ok for report in (self.root, *self.services.values()))

    def to_text(self) -> str:
        """The crossings, then each part's report."""
        lines = ["Execution boundaries:"]
        lines += [f"  {crossing.to_text()}" for crossing in self.crossings]
        for name, report in (("root", self.root), *self.services.items()):
            lines.append(f"Part {name} ({report.root}):")
            text = report.to_text().strip()
            lines += [f"  {line}" for line in text.splitlines()] if text else ["  ✓ no issues"]
        return "\n".join(lines)


class _Part:
    """A part of a split pipeline, as the engine and `serve` take a pipeline: its IR and its
    build options."""

    def __init__(self, tree: Node, options: BuildOptions) -> None:
        self._tree, self.options = tree, options

    def to_ir(self) -> Node:
        """The part's IR tree."""
        return self._tree


class _PartBackend:
    """A model backend for one part: the whole pipeline was checked against the backend once
    (a mock backend refuses scripts for agents a tree lacks, and each part lacks some)."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def model_for(self, name: str) -> Any:
        """The backend's model for the agent `name`."""
        return self._backend.model_for(name)


@dataclass(frozen=True)
class SplitApps:
    """A pipeline split at its execution boundaries (`to_apps`): the entry App, one App per
    service, the IR of each part, the card URL of each service and the contract report."""

    root: Any
    services: dict[str, Any]
    root_tree: Node
    trees: dict[str, Node]
    urls: dict[str, str]
    report: SplitReport
    options: BuildOptions = BuildOptions()
    config: ExecutionConfig | None = None
    backend: Any = field(default=None, repr=False)

    def crossing(self, service: str) -> Crossing:
        """The crossing of one service (a BuildError with a did-you-mean for an unknown one)."""
        for crossing in self.report.crossings:
            if crossing.service == service:
                return crossing
        raise BuildError(
            f"the pipeline has no execution boundary named {service!r}",
            agent=service if isinstance(service, str) else None,
            field="service",
            hint=(did_you_mean(service, self.services) if isinstance(service, str) else None)
            or f"its services: {', '.join(self.services)}.",
        )

    def a2a_app(
        self,
        service: str,
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        session_store: Any = None,
        public_url: str | None = None,
        **options: Any,
    ) -> Any:
        """The Starlette app serving one service over A2A (`remote.serve.a2a_app`). Its card
        advertises the service's URL from the split (`public_url` overrides it) and declares
        the keys the split sends it and expects back."""
        crossing = self.crossing(service)
        options.setdefault("name", service)
        options.setdefault("description", crossing.description)
        return a2a_app(
            _Part(self.trees[service], _part_options(self.options, crossing.sends)),
            host=host,
            port=port,
            config=self.config,
            session_store=session_store,
            backend=self.backend,
            public_url=public_url or endpoint(crossing.url),
            interface=StateInterface(crossing.sends, crossing.receives),
            **options,
        )

    def serve(
        self,
        service: str,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        log_level: str = "warning",
        **options: Any,
    ) -> None:
        """Serve one service over A2A until interrupted (uvicorn); options as for `a2a_app`."""
        import uvicorn

        app = self.a2a_app(service, host=host, port=port, **options)
        uvicorn.run(app, host=host, port=port, log_level=log_level)


def to_apps(
    pipeline: Any,
    urls: Mapping[str, str] | None = None,
    *,
    config: ExecutionConfig | None = None,
    backend: Any = None,
) -> SplitApps:
    """Split `pipeline` at its execution boundaries into separate ADK Apps.

    Each boundary's sub-tree becomes a service App (served over A2A, carrying state); in the
    tree that calls it, a RemoteAgent named after the service takes its place, at the card URL
    the boundary was given (`.execution_boundary(url=...)`) or `urls[service]` (a card URL or
    the service's base URL). A boundary inside another is split off from that one's service.
    `config` and `backend` apply to every part (a mock backend scripts the agents of each)."""
    tree, options = tree_of(pipeline, "to_apps()")
    boundaries = [node for node in tree.walk() if isinstance(node, BoundaryNode)]
    if not boundaries:
        raise BuildError(
            "the pipeline has no execution boundary to split it at",
            agent=tree.name,
            field="execution_boundary",
            hint="mark a step as a service: step.execution_boundary('heavy'); without one, "
            "deploy the pipeline's own App (pipeline.to_app()).",
        )
    given = _checked_urls(urls, tree, boundaries)
    if backend is not None and hasattr(backend, "check_tree"):
        backend.check_tree(tree)  # once, on the whole: each part lacks some scripted agents
    part_backend = None if backend is None else _PartBackend(backend)
    splitter = _Splitter(tree, options, given)
    with recursion_room(tree_depth(tree)):  # the split, the checker and compile recurse
        root_tree = splitter.split(tree, (), tree.name)
        whole, reports = splitter.check(root_tree)
        services: dict[str, Any] = {}
        for crossing in splitter.crossings:
            interface = StateInterface(crossing.sends, crossing.receives)
            part = _Part(splitter.trees[crossing.service], _part_options(options, crossing.sends))
            services[crossing.service] = served_app(
                part, config, backend=part_backend, interface=interface
            )
        root = ENGINE.to_app(root_tree, options, config, part_backend)
    return SplitApps(
        root=root,
        services=services,
        root_tree=root_tree,
        trees=dict(splitter.trees),
        urls={c.service: c.url for c in splitter.crossings},
        report=SplitReport(
            tuple(splitter.crossings),
            whole,
            reports.pop(root_tree.name),
            reports,
        ),
        options=options,
        config=config,
        backend=part_backend,
    )


# -- the split ---------------------------------------------------------------------------------
class _Splitter:
    """Splits one tree: replaces each boundary by a RemoteAgentNode, keeps each sub-tree (with
    the boundaries inside it replaced in turn) as a part, and works out what crosses."""

    def __init__(self, tree: Node, options: BuildOptions, urls: dict[str, str]) -> None:
        self.tree, self.options, self.urls = tree, options, urls
        self.initial = tuple(options.strict.initial_keys) if options.strict else ()
        self.flow = analyse(tree, frozenset(self.initial))
        self.taken = {node.name for node in tree.walk() if not isinstance(node, BoundaryNode)}
        self.trees: dict[str, Node] = {}
        self.crossings: list[Crossing] = []

    def split(self, node: Node, prefix: tuple[str, ...], part: str) -> Node:
        """`node` with every boundary under it replaced (their sub-trees kept as parts)."""
        path = (*prefix, node.name)
        if isinstance(node, BoundaryNode):
            child = node.children[0]
            inner = self.split(child, path, node.name)
            return self._remote(node, child, inner, "/".join(path), part)
        children = tuple(self.split(child, path, part) for child in node.children)
        changes: dict[str, Any] = {}
        if children != node.children:
            changes["children"] = children
        tools = node.__dict__.get("tools")
        if isinstance(tools, tuple) and node.attached:
            # agent tools run under the agent that calls them (iter_paths says so too)
            new_tools = tuple(
                dataclasses.replace(tool, agent=self.split(tool.agent, path, part))
                if isinstance(tool, AgentToolSpec)
                else tool
                for tool in tools
            )
            if new_tools != tools:
                changes["tools"] = new_tools
        return node.replace(**changes) if changes else node

    def _remote(self, boundary: Node, child: Node, inner: Node, path: str, caller: str) -> Node:
        assert isinstance(boundary, BoundaryNode)
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
            or _text(getattr(child, "description", None))
            or f"the service {service}"
        )
        self.trees[service] = inner
        self.crossings.append(
            Crossing(service, caller, card_url(url), sends, receives, description)
        )
        return RemoteAgentNode(
            service,
            card=card_url(url),
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
        for record in self.flow.records:  # a temp: key written outside, read inside
            key = record.read.key
            if not record.path.startswith(inside) or not key.startswith("temp:"):
                continue
            outer = [w.node for w in record.fact.writers if not w.path.startswith(inside)]
            if outer:
                raise BuildError(
                    f"'{record.node}' inside the execution boundary '{service}' reads "
                    f"'{key}', which '{outer[0]}' writes outside it; temp: keys live for one "
                    "invocation of one process and cannot cross A2A",
                    agent=service,
                    field="sends",
                    hint=f"store it under a session key (no temp: prefix, e.g. "
                    f"'{key.removeprefix('temp:')}') so the service is sent it.",
                )
        writes = set(local.writers) | _deleted(child)
        if any(_keeps_only(node) for node in child.walk()):
            # S.pick deletes every other key: those the caller holds must be there to delete
            needed |= outside_writes
            writes |= outside_writes
        if local.opaque_writers:  # steps whose writes the checker cannot see: take back all
            writes |= {r.read.key for r in self.flow.records if not r.path.startswith(inside)}
        for record in self.flow.records:  # a temp: key written inside, read outside
            key = record.read.key
            if record.path.startswith(inside) or not key.startswith("temp:"):
                continue
            inner = [w.node for w in record.fact.writers if w.path.startswith(inside)]
            if inner:
                raise BuildError(
                    f"'{record.node}' after the execution boundary '{service}' reads '{key}', "
                    f"which '{inner[0]}' writes inside it; temp: keys live for one invocation "
                    "of one process and cannot come back over A2A",
                    agent=service,
                    field="receives",
                    hint=f"store it under a session key (no temp: prefix, e.g. "
                    f"'{key.removeprefix('temp:')}') so it is sent back.",
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


# -- inputs ------------------------------------------------------------------------------------
def _checked_urls(urls: Any, tree: Node, boundaries: Sequence[Node]) -> dict[str, str]:
    if urls is None:
        return {}
    if not isinstance(urls, Mapping):
        raise BuildError(
            f"urls must map service names to URLs, not {describe_value(urls)}",
            agent=tree.name,
            field="urls",
            hint="e.g. to_apps(pipeline, urls={'heavy': 'http://heavy:8001'}).",
        )
    names = [node.name for node in boundaries]
    for service, url in urls.items():
        if service not in names:
            raise BuildError(
                f"urls names the service {service!r}, but the pipeline has no execution "
                "boundary of that name",
                agent=tree.name,
                field="urls",
                hint=did_you_mean(str(service), names) or f"its services: {', '.join(names)}.",
            )
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise BuildError(
                f"the URL of the service '{service}' must be an http(s) URL, got "
                f"{describe_value(url)}",
                agent=service,
                field="urls",
                hint=f"its card URL (http://host:port/{WELL_KNOWN_CARD}) or its base URL.",
            )
    return dict(urls)


def _part_options(options: BuildOptions, sends: tuple[str, ...]) -> BuildOptions:
    """A service's build options: under `.strict()`, the keys it is sent hold when it starts."""
    if options.strict is None:
        return options
    strict = StrictOptions(
        options.strict.schema, tuple(dict.fromkeys((*options.strict.initial_keys, *sends)))
    )
    return dataclasses.replace(options, strict=strict)


def endpoint(url: str) -> str:
    """The A2A endpoint a card URL belongs to (the URL the card advertises): the server's root
    (`http://host:port/`), or the path ADK's api_server mounts an agent at (`.../a2a/<app>`,
    which answers without a trailing slash)."""
    base = url.split("/.well-known/", 1)[0]
    return base + "/" if base.count("/") <= 2 else base


def _text(value: Any) -> str:
    return value.strip().splitlines()[0] if isinstance(value, str) and value.strip() else ""
