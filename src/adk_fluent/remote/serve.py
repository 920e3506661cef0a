"""A pipeline served over A2A, on ADK's own server: `to_a2a` with an adk-fluent App.

    serve(pipeline, host="127.0.0.1", port=8001)             # blocks (uvicorn)
    app = a2a_app(pipeline, host=..., port=...)              # the Starlette app, to mount or test

The App is the one `pipeline.to_app(config)` gives (visibility, middleware, the config's
plugins), under a root that stores the state keys a caller sent and sends back those of the keys
the pipeline writes that the caller asked for (adk/custom_agents/remote.py). The card is made
from the IR (remote/cards.py); `skills`, `provider`, `capabilities` and `streaming` amend it.
The server answers `message/send`, `message/stream` (partial replies as working status updates),
`tasks/get` and `tasks/cancel` on every supported release, and puts nothing of the run in a
response but the replies a client may see and the keys it asked for. Sessions live in
`session_store` ("memory", "sqlite:///file.db", "postgresql+asyncpg://..."); several replicas
over one PostgreSQL serve the same sessions.
"""

from __future__ import annotations

import warnings
from typing import Any

from adk_fluent.arguments import checked_count, checked_text
from adk_fluent.errors import BuildError, describe_value, install_extra
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions, ExecutionConfig, telemetry_applied
from adk_fluent.remote.cards import CARD_VERSION, StateInterface, agent_card, state_interface
from adk_fluent.run.engine import ENGINE
from adk_fluent.run.stores import session_service_for

# ADK marks its A2A support experimental and warns at every construction and conversion.
_EXPERIMENTAL = r"\[EXPERIMENTAL\]"


def tree_of(pipeline: Any, taker: str = "serve()") -> tuple[Node, BuildOptions]:
    """A pipeline's IR and BuildOptions (an IR tree has the default options); `taker` names the
    function that refused anything else."""
    if isinstance(pipeline, Node):
        return pipeline, BuildOptions()
    to_ir = getattr(pipeline, "to_ir", None)
    if to_ir is None:
        raise BuildError(
            f"{taker} takes an adk-fluent pipeline, not {describe_value(pipeline)}",
            field="pipeline",
            hint=f"{taker.rstrip('()')}(Agent(...) >> Agent(...)); for a native ADK agent use "
            "ADK's own tools, or wrap it: Native(agent).",
        )
    return to_ir(), getattr(pipeline, "options", BuildOptions())


def check_telemetry_applied(config: Any, taker: str) -> None:
    """Refuse a TelemetryConfig that would be ignored: it is made real by the builders'
    methods (`pipeline.serve(config=...)`, `pipeline.to_app(config)`), which this room sits
    below."""
    if isinstance(config, ExecutionConfig) and not telemetry_applied(config):
        raise BuildError(
            f"{taker} does not apply ExecutionConfig.telemetry (a TelemetryConfig), so its "
            "exporters and metrics would record nothing",
            field="telemetry",
            hint="serve with pipeline.serve(config=...) or build with pipeline.to_app(config), "
            "which apply it; elsewhere give ExecutionConfig(middleware=[otel_enrichment(), "
            "cost_attribution()]) and set the exporters on your tracer provider.",
        )


def served_app(
    pipeline: Any,
    config: ExecutionConfig | None = None,
    *,
    backend: Any = None,
    interface: StateInterface | None = None,
) -> Any:
    """The ADK App a served pipeline runs: the pipeline's App under the root that carries
    declared state across the A2A boundary: the keys of `interface` (by default the
    pipeline's own, `state_interface`; `to_apps()` gives a boundary's)."""
    try:
        from adk_fluent.adk.custom_agents.remote import ServedRootAgent
    except ImportError as error:
        raise BuildError(
            f"serving over A2A needs ADK's A2A support, which failed to import ({error})",
            field="pipeline",
            hint=f"install the a2a extra: {install_extra('a2a')}.",
        ) from None
    ir, options = tree_of(pipeline)
    check_telemetry_applied(config, "served_app()")
    if config is not None and config.target == "workflow":
        raise BuildError(
            "a served pipeline compiles to the classic target: the A2A root that carries state "
            "across the boundary is an agent, and an ADK Workflow cannot be an agent's sub-agent",
            agent=ir.name,
            field="target",
            hint="leave ExecutionConfig.target unset for served pipelines (docs/workflow.md).",
        )
    app = ENGINE.to_app(ir, options, config, backend, target="classic")
    interface = interface or state_interface(ir)
    taken = {node.name for node in ir.walk()}
    name = f"{ir.name}_a2a"
    while name in taken:
        name += "_"
    root = ServedRootAgent(
        name=name,
        description=app.root_agent.description,
        sub_agents=[app.root_agent],
        accepts=interface.reads,
        returns=interface.writes,
        accept_any=interface.reads_any,
    )
    return app.model_copy(update={"root_agent": root})


def a2a_app(
    pipeline: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    config: ExecutionConfig | None = None,
    session_store: Any = None,
    backend: Any = None,
    public_url: str | None = None,
    description: str | None = None,
    version: str | None = None,
    interface: StateInterface | None = None,
    name: str | None = None,
    streaming: bool = True,
    skills: Any = None,
    provider: Any = None,
    capabilities: Any = None,
) -> Any:
    """The Starlette app serving `pipeline` over A2A (ADK's `to_a2a`): its card at
    `/.well-known/agent-card.json`, JSON-RPC at `/`. `public_url` is the URL the card advertises
    when callers reach the server by another name than host:port (a load balancer); `name`
    the name on the card (by default the pipeline's); `streaming`, `skills`, `provider` and
    `capabilities` as for `agent_card`."""
    _check_address(host, port)
    from google.adk.runners import Runner

    from adk_fluent.adk.custom_agents.remote import served_starlette

    app = served_app(pipeline, config, backend=backend, interface=interface)
    url = public_url or f"http://{host}:{port}/"
    ir, _ = tree_of(pipeline)
    card = agent_card(
        ir,
        url,
        description=description,
        interface=interface,
        name=name,
        version=version or CARD_VERSION,
        streaming=streaming,
        skills=skills,
        provider=provider,
        capabilities=capabilities,
    )
    runner = Runner(app=app, session_service=session_service_for(session_store))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_EXPERIMENTAL, category=UserWarning)
        return served_starlette(app.root_agent, runner, card, host=host, port=port)


def serve(
    pipeline: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    log_level: str = "warning",
    **options: Any,
) -> None:
    """Serve `pipeline` over A2A until interrupted (uvicorn). Options as for `a2a_app`."""
    import uvicorn

    uvicorn.run(
        a2a_app(pipeline, host=host, port=port, **options),
        host=host,
        port=port,
        log_level=log_level,
    )


def _check_address(host: Any, port: Any) -> None:
    checked_text(
        host,
        None,
        "host",
        hint="e.g. host='127.0.0.1' (this machine only) or '0.0.0.0' (every interface).",
    )
    checked_count(port, None, "port", least=1, most=65535, hint="e.g. port=8001.")
