"""OpenTelemetry in tests: an in-memory span exporter on the process's tracer provider, and an
in-memory metric reader on a meter provider of the test's own.

The global tracer provider can be set once per process, and ADK traces through it, so the first
test that needs spans sets an SDK provider (or, when one is set already, adds its exporter to it)
and every later test clears the exporter before it runs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_exporter: InMemorySpanExporter | None = None


def span_exporter() -> InMemorySpanExporter:
    """The process's in-memory span exporter, emptied (installed on first use)."""
    global _exporter
    if _exporter is None:
        exporter = InMemorySpanExporter()
        provider = trace.get_tracer_provider()
        if not callable(getattr(provider, "add_span_processor", None)):
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
            provider = trace.get_tracer_provider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))  # type: ignore[attr-defined]
        _exporter = exporter
    _exporter.clear()
    return _exporter


def names(spans: Any) -> Counter[str]:
    """How many spans of each name."""
    return Counter(span.name for span in spans)


def ours(span: Any) -> dict[str, Any]:
    """A span's adk_fluent.* attributes."""
    return {k: v for k, v in (span.attributes or {}).items() if k.startswith("adk_fluent.")}


def agent_span(spans: Any, agent: str) -> Any:
    """The (first) `invoke_agent {agent}` span."""
    found = [s for s in spans if s.name == f"invoke_agent {agent}"]
    assert found, f"no invoke_agent span for {agent}: {sorted(names(spans))}"
    return found[0]


def model_spans(spans: Any) -> list[Any]:
    """The `generate_content {model}` spans (the model calls), in end order."""
    return [s for s in spans if s.name.startswith("generate_content")]


def model_call_spans(spans: Any) -> list[Any]:
    """Every span of a model call: `generate_content` and, on releases that wrap it, `call_llm`
    (a per-call attribute lands on the innermost one still open when after_model runs)."""
    return [s for s in spans if s.name.startswith("generate_content") or s.name == "call_llm"]


def with_attribute(spans: Any, key: str) -> list[Any]:
    """The spans carrying adk-fluent attribute `key`."""
    return [s for s in spans if key in (s.attributes or {})]


def metric_reader() -> tuple[MeterProvider, InMemoryMetricReader]:
    """A meter provider of the test's own and its in-memory reader."""
    reader = InMemoryMetricReader()
    return MeterProvider(metric_readers=[reader]), reader


def metric_points(reader: InMemoryMetricReader, name: str) -> list[Any]:
    """The data points of one metric."""
    data = reader.get_metrics_data()
    points: list[Any] = []
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    points.extend(metric.data.data_points)
    return points
