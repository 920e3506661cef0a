"""ExecutionConfig(telemetry=TelemetryConfig(...)) made real: the exporters that receive an app's
spans, the meter its metrics go to, and the middleware that records them (docs/telemetry.md).

One `Telemetry` per TelemetryConfig value holds

* `RunSpans`, a span processor on the tracer provider ADK traces through (OpenTelemetry's
  global one; adk-fluent sets it only when the config says `set_global`). It hands the
  config's exporters the spans of this app's runs only, each run kept or left whole by its
  trace id (`sampling`, OpenTelemetry's ratio rule), and without message content unless
  `capture_content` (ADK 2.x is also told per run, run/turn_inputs.py; ADK 1.x only has a
  process-wide switch, which adk-fluent leaves alone);
* the meter provider of `metric_readers` (and "otlp"), or None for the global one;
* `RunMetrics`, the middleware recording `adk_fluent.pipeline.duration` (a histogram per
  pipeline and node path, in ms: the run, labelled with the root's path, and each agent),
  `adk_fluent.pipeline.errors` (by error code: error events, and exceptions of models and
  tools by their type) and `adk_fluent.contracts.violations` (the run-time contract breaches
  among them: a key a step needs is missing, a state value or a model's structured reply that
  does not fit its schema).

`with_telemetry(config)` is the config with that middleware first, then `otel_enrichment()`
when spans are exported and `cost_attribution()` when `cost_metrics` (unless the config's own
middleware has one already), made once per config so equal configs share one compiled App.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_of
from adk_fluent.adk.plugins.middleware import agent_facts, root_facts
from adk_fluent.errors import (
    AdkFluentWarning,
    BuildError,
    StateFieldError,
    StateKeyError,
    StateTypeError,
)
from adk_fluent.ir import steps
from adk_fluent.ir.middleware import Middleware
from adk_fluent.ir.options import ExecutionConfig, TelemetryConfig
from adk_fluent.telemetry.cost import CostAttribution, RunningTotals, cost_attribution
from adk_fluent.telemetry.enrichment import OtelEnrichment, otel_enrichment

# Attributes of ADK's spans that hold message content (prompts, replies, tool arguments and
# results): 1.x's own (gcp.vertex.agent.*) and the GenAI semantic conventions' (2.x).
CONTENT_ATTRIBUTES = frozenset(
    {
        "gcp.vertex.agent.llm_request",
        "gcp.vertex.agent.llm_response",
        "gcp.vertex.agent.tool_call_args",
        "gcp.vertex.agent.tool_response",
        "gcp.vertex.agent.data",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.prompt",
        "gen_ai.completion",
    }
)

# The error codes of a run-time breach of the state contract (docs/errors.md): a key a step
# reads is missing, or a value is not what the step or the stores can take.
CONTRACT_CODES = frozenset(
    {
        "OUTPUT_SCHEMA_MISMATCH",
        steps.KEY_MISSING,
        steps.BAD_RESULT,
        steps.NOT_STORABLE,
        "ROUTE_KEY_MISSING",
        "MAP_OVER_NOT_A_LIST",
    }
)
# Typed state (StateSchema.bind) refusing a read or write in a tool or callback, by the code the
# metrics give it.
_CONTRACT_ERRORS: dict[type[BaseException], str] = {
    StateKeyError: steps.KEY_MISSING,
    StateTypeError: "STATE_TYPE_MISMATCH",
    StateFieldError: "STATE_FIELD_UNKNOWN",
}

# the code a model reply that does not fit its agent's output_schema is counted under
OUTPUT_SCHEMA_MISMATCH = "OUTPUT_SCHEMA_MISMATCH"
_ADAPTERS: dict[Any, Any] = {}  # output_schema -> its pydantic TypeAdapter

_TRACES_KEPT = 4096  # runs in flight at once whose spans are being handed over
_STARTS_KEPT = 4096  # agent runs in flight at once whose start time is kept
_TRACE_ID_LIMIT = (1 << 64) - 1


def sampled(trace_id: int, ratio: float) -> bool:
    """OpenTelemetry's TraceIdRatioBased rule: a run is kept when the low 64 bits of its trace
    id fall under ratio x 2^64 (so every process decides the same for one trace)."""
    if ratio >= 1.0:
        return True
    return (trace_id & _TRACE_ID_LIMIT) < round(ratio * (_TRACE_ID_LIMIT + 1))


def _without_content(span: Any) -> Any:
    """The span as exported without content attributes (the span itself when it has none)."""
    attributes = span.attributes or {}
    if CONTENT_ATTRIBUTES.isdisjoint(attributes):
        return span
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes={k: v for k, v in attributes.items() if k not in CONTENT_ATTRIBUTES},
        events=span.events,
        links=span.links,
        kind=span.kind,
        status=span.status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


class RunSpans(SpanProcessor):
    """Hands the spans of the runs it was told of (`begin`) to its own processors, content left
    out unless asked for; other spans (other apps, unsampled runs) never reach them."""

    def __init__(self, processors: list[Any], capture_content: bool, ratio: float) -> None:
        self._processors = processors
        self._capture = capture_content
        self._ratio = ratio
        # trace id -> the span id of the run's root span (the trace is let go when it ends)
        self._runs: OrderedDict[int, int] = OrderedDict()
        self._lock = threading.Lock()

    def begin(self, span: Any) -> None:
        """A run of this app starts under `span` (its root, current in before_run)."""
        context = span.get_span_context()
        if context.is_valid and sampled(context.trace_id, self._ratio):
            with self._lock:
                if context.trace_id not in self._runs:  # a run inside another keeps its root
                    remember(self._runs, context.trace_id, context.span_id, _TRACES_KEPT)

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if span.context.trace_id in self._runs:
            for processor in self._processors:
                processor.on_start(span, parent_context=parent_context)

    def on_end(self, span: Any) -> None:
        context = span.context
        root = self._runs.get(context.trace_id)
        if root is None:
            return
        if root == context.span_id:
            with self._lock:
                self._runs.pop(context.trace_id, None)
        shown = span if self._capture else _without_content(span)
        for processor in self._processors:
            processor.on_end(shown)

    def shutdown(self) -> None:
        for processor in self._processors:
            processor.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return all(processor.force_flush(timeout_millis) for processor in self._processors)


def _otlp(kind: str, endpoint: str | None) -> Any:
    """The OTLP-over-HTTP exporter of `kind` ("trace" or "metric"), to `endpoint` (else the
    OTEL_EXPORTER_OTLP_* environment variables)."""
    try:
        if kind == "trace":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            return OTLPSpanExporter(
                endpoint=f"{endpoint.rstrip('/')}/v1/traces" if endpoint else None
            )
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        return OTLPMetricExporter(
            endpoint=f"{endpoint.rstrip('/')}/v1/metrics" if endpoint else None
        )
    except ImportError:
        raise BuildError(
            "exporters names 'otlp', but the OTLP exporter is not installed",
            where="TelemetryConfig",
            field="exporters",
            hint="pip install -e 'path/to/adk-fluent[otel]' (opentelemetry-exporter-otlp-proto-http).",
        ) from None


def _span_processors(config: TelemetryConfig) -> list[Any]:
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
    )

    processors: list[Any] = []
    for item in config.exporters:
        if item == "console":
            processors.append(SimpleSpanProcessor(ConsoleSpanExporter()))
        elif item == "otlp":
            processors.append(BatchSpanProcessor(_otlp("trace", config.otlp_endpoint)))
        elif callable(getattr(item, "on_end", None)):
            processors.append(item)  # a SpanProcessor, as the user made it
        else:
            processors.append(SimpleSpanProcessor(item))  # a SpanExporter: each span as it ends
    return processors


def _meter_provider(config: TelemetryConfig) -> Any:
    """The config's own MeterProvider (its readers, and OTLP), or None for the global one."""
    readers = list(config.metric_readers)
    if "otlp" in config.exporters:
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        readers.append(PeriodicExportingMetricReader(_otlp("metric", config.otlp_endpoint)))
    if not readers:
        return None
    from opentelemetry import metrics
    from opentelemetry.sdk.metrics import MeterProvider

    try:
        provider = MeterProvider(metric_readers=readers)  # flushed and shut down at exit
    except Exception as error:  # a reader already registered with another provider
        raise BuildError(
            f"a metric reader could not be registered: {error}",
            where="TelemetryConfig",
            field="metric_readers",
            hint="a MetricReader belongs to one MeterProvider: give each TelemetryConfig "
            "readers of its own, and reuse that TelemetryConfig for every run of the app.",
        ) from None
    if config.set_global and not callable(
        getattr(metrics.get_meter_provider(), "force_flush", None)
    ):
        metrics.set_meter_provider(provider)  # asked for, and no SDK provider is set yet
    return provider


class RunMetrics(Middleware):
    """Records adk_fluent.pipeline.duration, adk_fluent.pipeline.errors and
    adk_fluent.contracts.violations (the module says what), and tells `RunSpans` of each run."""

    needs_whole_run = True  # the run's own duration comes from before_run / after_run
    applies_telemetry_config = True  # ir/options.py telemetry_applied

    def __init__(
        self,
        telemetry: Telemetry,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(priority=-120)  # first: every later middleware's work is timed
        self._telemetry = telemetry
        self._clock = clock
        self._histogram: Any = None
        self._errors = RunningTotals()
        self._violations = RunningTotals()
        # (invocation id, agent, branch) -> when it started
        self._started: OrderedDict[tuple[Any, ...], float] = OrderedDict()
        # invocation -> the type names of exceptions counted in it (ADK 2.x also yields an
        # error event with that code for one that ends the run: it is not counted twice)
        self._raised_in: OrderedDict[tuple[Any, ...], set[str]] = OrderedDict()

    def _made(self) -> Any:
        """The duration histogram, and the two counters (observable: errors are summed here and
        reported when the meter collects, as cost_attribution does), on the config's meter
        provider, else the global one (made at the first run, so an app that sets its provider
        after building still gets them)."""
        if self._histogram is None:
            from opentelemetry import metrics

            provider = self._telemetry.meter_provider or metrics.get_meter_provider()
            meter = provider.get_meter("adk_fluent")
            meter.create_observable_counter(
                "adk_fluent.pipeline.errors",
                callbacks=[self._errors.observe],
                unit="{error}",
                description="Errors of runs, by error code",
            )
            meter.create_observable_counter(
                "adk_fluent.contracts.violations",
                callbacks=[self._violations.observe],
                unit="{violation}",
                description="Run-time breaches of the state and output contracts, by error code",
            )
            self._histogram = meter.create_histogram(
                "adk_fluent.pipeline.duration",
                unit="ms",
                description="Duration of a run (the root's path) and of each agent in it",
            )
        return self._histogram

    # -- the run --------------------------------------------------------------------------------
    def before_run_callback(self, *, invocation_context: Any) -> None:
        if not _top_run(invocation_context):
            return None  # an agent tool's run: its agent is timed, and its spans are the run's
        self._telemetry.attach()
        spans = self._telemetry.spans
        if spans is not None:
            spans.begin(trace.get_current_span())
        remember(self._started, _run_key(invocation_context), self._clock(), _STARTS_KEPT)
        return None

    def after_run_callback(self, *, invocation_context: Any) -> None:
        self._raised_in.pop(_run_key(invocation_context), None)
        began = self._started.pop(_run_key(invocation_context), None)
        facts = root_facts()
        if began is not None and facts is not None:
            self._duration(facts.pipeline, facts.path, began)
        return None

    # -- each agent (the root's time is the run's) ---------------------------------------------
    def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        facts = agent_facts(callback_context.agent_name)
        if facts is not None and facts.path != facts.pipeline:
            remember(self._started, _agent_key(callback_context), self._clock(), _STARTS_KEPT)
        return None

    def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        facts = agent_facts(callback_context.agent_name)
        if facts is None or facts.path == facts.pipeline:
            return None
        began = self._started.pop(_agent_key(callback_context), None)
        if began is not None:
            self._duration(facts.pipeline, facts.path, began)
        return None

    def _duration(self, pipeline: str, path: str, began: float) -> None:
        histogram = self._made()
        histogram.record(
            (self._clock() - began) * 1000,
            {"adk_fluent.pipeline": pipeline, "adk_fluent.node.path": path},
        )

    # -- errors and contract violations ---------------------------------------------------------
    def on_event_callback(self, *, invocation_context: Any, event: Any) -> None:
        code = getattr(event, "error_code", None)
        if code and not getattr(event, "partial", False):
            counted = self._raised_in.get(_run_key(invocation_context))
            if counted is not None and code in counted:
                # ADK 2.x's error event for an exception counted when it was raised
                counted.discard(code)
                return None
            self._error(str(code), getattr(event, "author", "") or "", str(code) in CONTRACT_CODES)
        return None

    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        # ADK checks an agent's final reply against its output_schema when it keeps it under an
        # output_key, and raises when it does not fit (1.x in no callback's sight): the same
        # check here counts it, once (ADK 2.x's error event for it is not counted again)
        if getattr(llm_response, "partial", False):
            return None
        invocation = invocation_of(callback_context)
        agent = getattr(invocation, "agent", None)
        schema = getattr(agent, "output_schema", None)
        if schema is None or not getattr(agent, "output_key", None):
            return None
        text = _reply_text(llm_response)
        if text is not None and text.strip() and not _fits(schema, text):
            counted = self._raised_in.get(_run_key(invocation))
            if counted is None:
                counted = set()
                remember(self._raised_in, _run_key(invocation), counted, _STARTS_KEPT)
            counted.add("ValidationError")
            self._error(OUTPUT_SCHEMA_MISMATCH, callback_context.agent_name, True)
        return None

    def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: Any
    ) -> None:
        self._raised(callback_context, error)
        return None

    def on_tool_error_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, error: Any
    ) -> None:
        self._raised(tool_context, error)
        return None

    def _raised(self, context: Any, error: BaseException) -> None:
        key = _run_key(invocation_of(context))
        counted = self._raised_in.get(key)
        if counted is None:
            counted = set()
            remember(self._raised_in, key, counted, _STARTS_KEPT)
        counted.add(type(error).__name__)
        for kind, code in _CONTRACT_ERRORS.items():
            if isinstance(error, kind):
                self._error(code, context.agent_name, True)
                return
        self._error(type(error).__name__, context.agent_name, False)

    def _error(self, code: str, agent: str, violation: bool) -> None:
        facts = agent_facts(agent)
        labels = (
            ("error.code", code),
            ("adk_fluent.pipeline", facts.pipeline if facts is not None else ""),
            ("adk_fluent.node.path", facts.path if facts is not None else ""),
        )
        self._made()
        self._errors.add(labels, 1)
        if violation:
            self._violations.add(labels, 1)

    def __repr__(self) -> str:
        return "TelemetryConfig's run metrics"


def _reply_text(llm_response: Any) -> str | None:
    """A final reply's text (thoughts left out), as ADK validates it; None for a reply that
    calls a function or has no text."""
    content = getattr(llm_response, "content", None)
    parts = getattr(content, "parts", None) or ()
    if any(getattr(part, "function_call", None) for part in parts):
        return None
    texts = [part.text for part in parts if part.text and not getattr(part, "thought", None)]
    return "".join(texts) if texts else None


def _fits(schema: Any, text: str) -> bool:
    """Whether `text` is JSON of `schema` (a pydantic model, or any type pydantic reads); a
    schema pydantic cannot read counts as fitting (ADK decides then)."""
    from pydantic import TypeAdapter, ValidationError

    try:
        adapter = _ADAPTERS.get(schema)
        if adapter is None:
            adapter = _ADAPTERS[schema] = TypeAdapter(schema)
        adapter.validate_json(text)
    except ValidationError:
        return False
    except Exception:  # an unhashable or unreadable schema: not ours to judge
        return True
    return True


def _top_run(invocation_context: Any) -> bool:
    """Whether a run is the tree's own, not the run ADK starts for an agent tool (with the
    same plugins): its agent is the root (a Workflow root is none)."""
    agent = getattr(invocation_context, "agent", None)
    if agent is None:
        return True
    root = root_facts()
    return root is None or getattr(agent, "name", None) == root.name


def _run_key(invocation_context: Any) -> tuple[Any, ...]:
    return (getattr(invocation_context, "invocation_id", None),)


def _agent_key(callback_context: Any) -> tuple[Any, ...]:
    invocation = invocation_of(callback_context)
    return (
        getattr(invocation, "invocation_id", None),
        callback_context.agent_name,
        getattr(invocation, "branch", None),
        id(getattr(invocation, "session", None)),  # map_over / race items: a copy each
    )


class Telemetry:
    """What one TelemetryConfig becomes (the module says what each part does)."""

    def __init__(self, config: TelemetryConfig) -> None:
        self.config = config
        self.meter_provider = _meter_provider(config)
        processors = _span_processors(config) if config.exporters else []
        self.spans = (
            RunSpans(processors, config.capture_content, config.sampling) if processors else None
        )
        self._attached_to: Any = None
        self._lock = threading.Lock()
        self.metrics = RunMetrics(self)
        if config.set_global and self.spans is not None:
            self.attach()  # asked for: the provider is set now, not at the first run
        middleware: list[Any] = [self.metrics]
        if self.spans is not None:
            middleware.append(otel_enrichment())
        if config.cost_metrics:
            middleware.append(cost_attribution(meter_provider=self.meter_provider))
        self.middleware = tuple(middleware)

    def attach(self) -> None:
        """Put `RunSpans` on the tracer provider ADK traces through, once per provider; with
        `set_global`, make an SDK provider the global one when none is set."""
        if self.spans is None:
            return
        provider = trace.get_tracer_provider()
        if provider is self._attached_to:
            return
        with self._lock:
            provider = trace.get_tracer_provider()
            if provider is self._attached_to:
                return
            if not callable(getattr(provider, "add_span_processor", None)):
                if not self.config.set_global:
                    self._attached_to = provider  # warned once per provider
                    warnings.warn(
                        "TelemetryConfig(exporters=...) receives no spans: ADK traces through "
                        "OpenTelemetry's global tracer provider, and none is set. Hint: "
                        "TelemetryConfig(..., set_global=True) to let adk-fluent set one, or "
                        "trace.set_tracer_provider(TracerProvider()) in your app.",
                        AdkFluentWarning,
                        stacklevel=2,
                    )
                    return
                from opentelemetry.sdk.trace import TracerProvider

                trace.set_tracer_provider(TracerProvider())
                provider = trace.get_tracer_provider()
            provider.add_span_processor(self.spans)  # type: ignore[attr-defined]
            self._attached_to = provider


# Kept for the process: each one's span processor stays on the tracer provider and its meter
# provider is shut down at exit, so neither can be let go when a config is. One per app is what
# a user makes; past _TELEMETRIES_WARNED distinct ones, a config made anew per run is likely.
_telemetries: dict[TelemetryConfig, Telemetry] = {}
_TELEMETRIES_WARNED = 64
_expanded: OrderedDict[ExecutionConfig, ExecutionConfig] = OrderedDict()
_EXPANSIONS_KEPT = 256
_made_lock = threading.Lock()


def telemetry_for(config: TelemetryConfig) -> Telemetry:
    """The one Telemetry of a TelemetryConfig value (its readers belong to one provider)."""
    telemetry = _telemetries.get(config)
    if telemetry is None:
        with _made_lock:
            telemetry = _telemetries.get(config)
            if telemetry is None:
                telemetry = _telemetries[config] = Telemetry(config)
                if len(_telemetries) == _TELEMETRIES_WARNED + 1:
                    warnings.warn(
                        f"more than {_TELEMETRIES_WARNED} different TelemetryConfig values were "
                        "used in this process; each keeps its span processor and meter provider "
                        "until exit, so one made per run grows memory and slows every span. "
                        "Hint: make the TelemetryConfig (and its exporters) once per app and "
                        "reuse it.",
                        AdkFluentWarning,
                        stacklevel=3,
                    )
    return telemetry


def with_telemetry(config: ExecutionConfig) -> ExecutionConfig:
    """The config with its TelemetryConfig's middleware first (the module says which); the same
    object for equal configs, so the engine's compiled App is found again on the next turn."""
    expanded = _expanded.get(config)
    if expanded is not None:
        return expanded
    assert config.telemetry is not None
    telemetry = telemetry_for(config.telemetry)
    if telemetry.metrics in config.middleware:
        return config  # expanded already
    given = config.middleware
    extra = [
        item
        for item in telemetry.middleware
        if not (isinstance(item, OtelEnrichment) and _has(given, OtelEnrichment))
        and not (isinstance(item, CostAttribution) and _has(given, CostAttribution))
    ]
    expanded = replace(config, middleware=(*extra, *given))
    with _made_lock:
        remember(_expanded, config, expanded, _EXPANSIONS_KEPT)
    return expanded


def _has(middleware: tuple[Any, ...], kind: type) -> bool:
    return any(isinstance(item, kind) for item in middleware)
