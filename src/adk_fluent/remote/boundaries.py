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

from adk_fluent.analysis.contracts import ContractReport
from adk_fluent.arguments import checked_instance
from adk_fluent.errors import BuildError, describe_value, did_you_mean, redacted
from adk_fluent.ir.nodes import BoundaryNode, Node, is_queue_url
from adk_fluent.ir.options import BuildOptions, ExecutionConfig, StrictOptions
from adk_fluent.remote.cards import StateInterface
from adk_fluent.remote.directory import WELL_KNOWN_CARD
from adk_fluent.remote.serve import a2a_app, check_telemetry_applied, served_app, tree_of
from adk_fluent.remote.split import Crossing, Splitter
from adk_fluent.run.engine import ENGINE


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
        if is_queue_url(crossing.url):
            raise BuildError(
                f"the service '{service}' is served by queue workers "
                f"({redacted(crossing.url)}), not over A2A",
                agent=service,
                field="service",
                hint=f"run its workers: adk-fluent worker module:pipeline --boundary {service} "
                f"(or split.worker('{service}', session_store=...)).",
            )
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

    def worker(
        self,
        service: str,
        *,
        session_store: Any = None,
        url: str | None = None,
        **options: Any,
    ) -> Any:
        """A QueueWorker for a service served by queue workers (`remote.worker`): it runs the
        service's part for each job on the broker at the boundary's URL (`url` overrides
        it), in sessions of `session_store` (PostgreSQL, shared with the caller, for workers
        on several machines). `options`: concurrency, visibility_timeout, max_tries, name."""
        from adk_fluent.remote.worker import QueueWorker

        crossing = self.crossing(service)
        broker_url = url or crossing.url
        if not is_queue_url(broker_url):
            raise BuildError(
                f"the service '{service}' is called over A2A at {crossing.url}; workers serve a "
                "queue",
                agent=service,
                field="url",
                hint="give the boundary a queue broker's URL: to_apps(pipeline, urls={"
                f"'{service}': 'redis://queue:6379/0'}}), or serve it: split.serve('{service}').",
            )
        return QueueWorker(
            self.services[service], service, broker_url, session_store=session_store, **options
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
    check_telemetry_applied(config, "to_apps()")
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
    splitter = Splitter(tree, options, given)
    root_tree = splitter.split()
    whole, reports = splitter.check(root_tree)
    services: dict[str, Any] = {}
    for crossing in splitter.crossings:
        interface = StateInterface(crossing.sends, crossing.receives)
        part = _Part(splitter.trees[crossing.service], _part_options(options, crossing.sends))
        if is_queue_url(crossing.url):
            # its workers create each job's session with the keys; named after the service,
            # so the jobs' sessions stand apart from the caller's in a store they share
            app = ENGINE.to_app(part.to_ir(), part.options, config, part_backend, target="classic")
            services[crossing.service] = app.model_copy(update={"name": crossing.service})
        else:
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


# -- inputs ------------------------------------------------------------------------------------
def _checked_urls(urls: Any, tree: Node, boundaries: Sequence[Node]) -> dict[str, str]:
    if urls is None:
        return {}
    hint = "e.g. to_apps(pipeline, urls={'heavy': 'http://heavy:8001'})."
    what = "a mapping of service names to URLs"
    checked_instance(urls, tree.name, "urls", Mapping, what=what, hint=hint)
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
        if not isinstance(url, str) or not (
            url.startswith(("http://", "https://")) or is_queue_url(url)
        ):
            raise BuildError(
                f"the URL of the service '{service}' must be an http(s) URL or a queue URL, "
                f"got {describe_value(url)}",
                agent=service,
                field="urls",
                hint=f"its card URL (http://host:port/{WELL_KNOWN_CARD}) or its base URL; for "
                "a pool of queue workers, the broker's URL (redis://host:6379/0).",
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
