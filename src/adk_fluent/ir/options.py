"""Plain records of how an expression is built and run: BuildOptions (what a builder hands the
engine beside its IR), ExecutionConfig and CompactionConfig (how it becomes an ADK App)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Literal

from adk_fluent.arguments import (
    checked_choice,
    checked_count,
    checked_instance,
    checked_number,
    checked_seconds,
    checked_text,
)
from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.middleware import check_middleware, config_places

VisibilityMode = Literal["annotated", "filtered"]
# "classic": ADK's agent classes (Sequential/Parallel/LoopAgent and adk-fluent's own agents);
# "workflow": an ADK 2.x Workflow graph (docs/workflow.md). None: the default for the installed
# ADK, or the ADK_FLUENT_TARGET environment variable (adk/targets.py).
CompileTarget = Literal["classic", "workflow"]
COMPILE_TARGETS: tuple[CompileTarget, ...] = ("classic", "workflow")
TARGET_VARIABLE = "ADK_FLUENT_TARGET"
DEFAULT_APP_NAME = "adk_fluent_app"


@dataclass(frozen=True)
class StrictOptions:
    """`.strict()`: refuse to build while the contract check finds errors."""

    schema: Any = None  # a StateSchema the state must follow
    initial_keys: tuple[str, ...] = ()  # keys the app guarantees at the start of a run


@dataclass(frozen=True)
class BuildOptions:
    """What an expression asks of the whole build, beside its IR tree.

    Per-node choices (a visibility override, a context spec, produces / consumes) live on the IR
    nodes; these apply to the expression as a root. Frozen and hashable, so the engine can key
    compiled Apps by value.
    """

    visibility_mode: VisibilityMode | None = None  # None: ExecutionConfig's, else "annotated"
    strict: StrictOptions | None = None


@dataclass(frozen=True)
class CompactionConfig:
    """ADK's events compaction (EventsCompactionConfig): summarise old events every `interval`
    turns (keeping `overlap` turns of the last summary's range), and/or after a turn whose
    prompt reached `token_threshold` tokens (keeping the last `event_retention_size` events as
    they are). Each pair is set together; `interval=None` leaves only the token trigger (where
    the installed ADK allows it: adk/app.py asks its EventsCompactionConfig)."""

    interval: int | None = 10
    overlap: int | None = 2
    token_threshold: int | None = None
    event_retention_size: int | None = None

    def __post_init__(self) -> None:
        where = "CompactionConfig"
        for name, least in (
            ("interval", 1),
            ("overlap", 0),
            ("token_threshold", 1),
            ("event_retention_size", 0),
        ):
            value = getattr(self, name)
            if value is not None:
                checked_count(value, None, name, least=least, hint=_COMPACTION_HINT, where=where)
        for first, second in (("interval", "overlap"), ("token_threshold", "event_retention_size")):
            if (getattr(self, first) is None) != (getattr(self, second) is None):
                given, missing = (
                    (first, second) if getattr(self, first) is not None else (second, first)
                )
                raise BuildError(
                    f"{given} is set without {missing}: ADK takes them as a pair",
                    where=where,
                    field=missing,
                    hint=_COMPACTION_HINT,
                )
        if self.interval is None and self.token_threshold is None:
            raise BuildError(
                "no compaction trigger: give interval (and overlap), or token_threshold (and "
                "event_retention_size), or both",
                where=where,
                field="interval",
                hint=_COMPACTION_HINT,
            )


_COMPACTION_HINT = (
    "CompactionConfig(interval=10, overlap=2) summarises every 10 turns; "
    "CompactionConfig(token_threshold=50_000, event_retention_size=20) after a turn whose prompt "
    "reached 50,000 tokens, keeping the last 20 events."
)


SPAN_EXPORTER_NAMES = ("console", "otlp")
_TELEMETRY = "TelemetryConfig"


@dataclass(frozen=True)
class TelemetryConfig:
    """Where an app's traces and metrics go, and what they hold (docs/telemetry.md).

    A plain record: the telemetry room turns it into its span processor, meter provider and
    middleware (telemetry/runtime.py) when a builder's run, to_app, ... method is given the
    config. Nothing is installed globally unless `set_global`.
    """

    # span exporters: "console", "otlp" (to `otlp_endpoint`, else OTEL_EXPORTER_OTLP_ENDPOINT),
    # a SpanExporter (exported as each span ends) or a SpanProcessor (used as it is, e.g.
    # BatchSpanProcessor(...)); they receive this app's runs only
    exporters: tuple[Any, ...] = ()
    otlp_endpoint: str | None = None  # with "otlp": http(s)://host:4318, traces and metrics
    # MetricReaders of this app's own MeterProvider; none (and no "otlp"): the global provider
    metric_readers: tuple[Any, ...] = ()
    # message text (prompts, replies, tool arguments and results) on the spans: off by default
    capture_content: bool = False
    cost_metrics: bool = True  # cost_attribution(): adk_fluent.llm.cost (and tokens on 1.x)
    sampling: float = 1.0  # the share of runs whose spans reach `exporters` (by trace id)
    # True: make a TracerProvider (and a MeterProvider for `metric_readers`) OpenTelemetry's
    # global one when none is set, so ADK's spans and metrics reach these exporters
    set_global: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "exporters", _checked_exporters(self.exporters))
        object.__setattr__(self, "metric_readers", _checked_readers(self.metric_readers))
        if self.otlp_endpoint is not None:
            checked_text(
                self.otlp_endpoint,
                None,
                "otlp_endpoint",
                what="an http(s):// URL",
                hint="e.g. TelemetryConfig(exporters=('otlp',), "
                "otlp_endpoint='http://127.0.0.1:4318').",
                where=_TELEMETRY,
            )
            if not self.otlp_endpoint.startswith(("http://", "https://")):
                raise BuildError(
                    f"otlp_endpoint must be an http(s):// URL, not {self.otlp_endpoint!r}",
                    where=_TELEMETRY,
                    field="otlp_endpoint",
                    hint="OTLP over HTTP listens on port 4318: 'http://127.0.0.1:4318'.",
                )
            if "otlp" not in self.exporters:
                raise BuildError(
                    "otlp_endpoint is set, but exporters has no 'otlp', so nothing is sent there",
                    where=_TELEMETRY,
                    field="otlp_endpoint",
                    hint="TelemetryConfig(exporters=('otlp',), otlp_endpoint=...).",
                )
        for name in ("capture_content", "cost_metrics", "set_global"):
            checked_instance(
                getattr(self, name),
                None,
                name,
                bool,
                what="True or False",
                hint=f"TelemetryConfig({name}=True).",
                where=_TELEMETRY,
            )
        checked_number(
            self.sampling,
            None,
            "sampling",
            positive=False,
            what="a share of runs from 0 to 1",
            most=1,
            hint="sampling=0.1 traces one run in ten; 1.0 (the default) every run.",
            where=_TELEMETRY,
        )


def _checked_exporters(exporters: Any) -> tuple[Any, ...]:
    """`exporters` as a tuple: names from SPAN_EXPORTER_NAMES, SpanExporters, SpanProcessors."""
    hint = (
        "exporters=('console',), ('otlp',), or OpenTelemetry objects: "
        "(InMemorySpanExporter(),) or (BatchSpanProcessor(OTLPSpanExporter()),)."
    )
    if isinstance(exporters, str) or not isinstance(exporters, list | tuple):
        if isinstance(exporters, str) or _is_span_exporter(exporters):
            exporters = (exporters,)  # one alone, as middleware is taken
        else:
            raise BuildError(
                f"exporters must be a tuple of span exporters, got {describe_value(exporters)}",
                where=_TELEMETRY,
                field="exporters",
                hint=hint,
            )
    for index, item in enumerate(exporters):
        if isinstance(item, str):
            checked_choice(
                item, None, f"exporters[{index}]", SPAN_EXPORTER_NAMES, hint=hint, where=_TELEMETRY
            )
        elif isinstance(item, type):
            raise BuildError(
                f"exporters[{index}] is the class {item.__name__}, not an exporter",
                where=_TELEMETRY,
                field="exporters",
                hint=f"pass an instance: exporters=({item.__name__}(),).",
            )
        elif not _is_span_exporter(item):
            raise BuildError(
                f"exporters[{index}] is {describe_value(item)}, which is neither a span exporter "
                "(export, shutdown) nor a span processor (on_start, on_end)",
                where=_TELEMETRY,
                field="exporters",
                hint=hint,
            )
    return tuple(exporters)


def _is_span_exporter(item: Any) -> bool:
    """A SpanExporter (export) or a SpanProcessor (on_end), the class not accepted."""
    if isinstance(item, type):
        return False
    return callable(getattr(item, "export", None)) or callable(getattr(item, "on_end", None))


def _checked_readers(readers: Any) -> tuple[Any, ...]:
    """`metric_readers` as a tuple of MetricReaders (objects with collect and shutdown)."""
    hint = "metric_readers=(InMemoryMetricReader(),) or (PeriodicExportingMetricReader(...),)."
    if not isinstance(readers, list | tuple):
        readers = (readers,)
    for index, item in enumerate(readers):
        if isinstance(item, type) or not (
            callable(getattr(item, "collect", None)) and callable(getattr(item, "shutdown", None))
        ):  # a class too: its methods are there, unbound
            raise BuildError(
                f"metric_readers[{index}] is {describe_value(item)}, not an OpenTelemetry "
                "MetricReader",
                where=_TELEMETRY,
                field="metric_readers",
                hint=hint,
            )
    return tuple(readers)


@dataclass(frozen=True)
class ExecutionConfig:
    """App-level settings: name, plugins, resumability, compaction, run metadata, limits."""

    # None: named after the agent folder when `to_app()` is called from one (`<folder>/agent.py`
    # or `<folder>/__init__.py`, as `adk web` / `adk api_server` load it, and as they look its
    # sessions up), else DEFAULT_APP_NAME. adk-fluent's own run()/stream() use DEFAULT_APP_NAME.
    app_name: str | None = None
    max_llm_calls: int | None = None  # None: ADK's default (500; ADK 2.x reads ADK_MAX_LLM_CALLS)
    # seconds a turn of run() / stream() / ask() may take: past it the turn is stopped after its
    # last complete event and ends with a TIMEOUT error event (run/engine.py); None: no limit
    timeout_seconds: float | None = None
    streaming_mode: Literal["none", "sse", "bidi"] = "none"
    resumable: bool = False
    compaction: CompactionConfig | None = None
    custom_metadata: dict[str, Any] | None = None
    plugins: tuple[Any, ...] = field(default_factory=tuple)
    # adk-fluent middleware for the whole app (or the scope each one names), compiled with the
    # tree's own `.middleware(...)` into one plugin that runs before `plugins` (docs/middleware.md)
    middleware: tuple[Any, ...] = field(default_factory=tuple)
    # "annotated" (the default: code moved from raw ADK keeps receiving every event it did):
    # every event reaches the client annotated; "filtered": internal agents' text is kept from
    # the client (docs/visibility.md). None: the expression's own `.filtered()` /
    # `.annotated()`; a value here wins over the expression's.
    visibility: VisibilityMode | None = None
    # the compile target (CompileTarget); None: the default for the installed ADK
    target: CompileTarget | None = None
    # a StateSchema: the Workflow target hands its plain keys to ADK's `state_schema`, which
    # checks every write through a context's state (docs/workflow.md); the classic target
    # has no such check, so it is refused there
    state_schema: Any = None
    # a TelemetryConfig: exporters, content capture, cost metrics, sampling, and the metrics
    # adk_fluent.pipeline.duration / .errors and adk_fluent.contracts.violations (docs/telemetry.md)
    telemetry: TelemetryConfig | None = None

    def __post_init__(self) -> None:
        # one middleware alone, or a list, is taken as a tuple (the config stays hashable);
        # each is checked here, where the mistake is made
        middleware = self.middleware
        if not isinstance(middleware, tuple):
            middleware = tuple(middleware) if isinstance(middleware, list) else (middleware,)
            object.__setattr__(self, "middleware", middleware)
        if isinstance(self.plugins, list):
            object.__setattr__(self, "plugins", tuple(self.plugins))
        for item, place in zip(middleware, config_places(middleware), strict=True):
            check_middleware(item, place)
        if self.streaming_mode not in ("none", "sse", "bidi"):  # "SSE" would not stream
            raise BuildError(
                f"ExecutionConfig.streaming_mode must be 'sse', 'bidi' or 'none', not "
                f"{self.streaming_mode!r}",
                field="streaming_mode",
                hint=did_you_mean(str(self.streaming_mode).lower(), ("none", "sse", "bidi"))
                or "'sse' streams partial replies; 'bidi' is for live sessions "
                "(pipeline.live(...)).",
            )

        if self.timeout_seconds is not None:
            checked_seconds(
                self.timeout_seconds,
                None,
                "timeout_seconds",
                positive=True,
                hint="ExecutionConfig(timeout_seconds=30) stops a turn that runs longer than 30 s.",
                where="ExecutionConfig",
            )
        if self.target is not None:
            check_target(self.target, "ExecutionConfig.target")
        if self.telemetry is not None:
            checked_instance(
                self.telemetry,
                None,
                "telemetry",
                TelemetryConfig,
                what="a TelemetryConfig",
                hint="ExecutionConfig(telemetry=TelemetryConfig(exporters=('console',))).",
                where="ExecutionConfig",
            )

    def __hash__(self) -> int:  # custom_metadata is a dict: its keys (equal dicts hash equal)
        return hash((_hashed_fields(self), tuple(sorted(self.custom_metadata or {}))))


# every field of ExecutionConfig but its dict, read at once (hashed on every turn: the engine
# keys its compiled Apps by the config)
_hashed_fields = attrgetter(
    *(item.name for item in fields(ExecutionConfig) if item.name != "custom_metadata")
)


def telemetry_applied(config: ExecutionConfig) -> bool:
    """Whether a config's TelemetryConfig was made real (telemetry/runtime.py puts its run
    metrics, marked `applies_telemetry_config`, first in the middleware), or it has none. The
    builders' execution methods do it; an entry point below them refuses a config they did not
    pass through, instead of ignoring its telemetry."""
    return config.telemetry is None or any(
        getattr(item, "applies_telemetry_config", False) is True for item in config.middleware
    )


def visibility_mode(options: BuildOptions, config: ExecutionConfig | None) -> VisibilityMode:
    """The mode a build uses: the config's, else the expression's, else annotated."""
    return (config.visibility if config else None) or options.visibility_mode or "annotated"


def check_target(target: Any, field: str = "target") -> CompileTarget:
    """A compile target's name, checked: 'classic' or 'workflow'."""
    if target not in COMPILE_TARGETS:
        raise BuildError(
            f"{field} must be 'classic' or 'workflow', not {target!r}",
            field=field.rsplit(".", 1)[-1],
            hint=did_you_mean(str(target).lower(), COMPILE_TARGETS)
            or "'workflow' compiles to an ADK 2.x Workflow graph, 'classic' to ADK's agent "
            "classes (docs/workflow.md).",
        )
    return target  # type: ignore[no-any-return]
