"""Telemetry overhead: the 3-agent pipeline of bench_run through a warm plain Runner with tracing
on (an OpenTelemetry SDK tracer provider whose spans go to an exporter that drops them, and an
SDK meter provider), with and without otel_enrichment + cost_attribution, against raw ADK.

  raw ADK      LlmAgent x3 + SequentialAgent + App + Runner by hand (bench_run.hand_runner)
  none         `p.to_runner(...)`: adk-fluent's App without middleware
  telemetry    the same with otel_enrichment() and cost_attribution(meter_provider=...)
  enrichment, cost   each of the two alone
  config       ExecutionConfig(telemetry=TelemetryConfig(exporters=..., metric_readers=...)):
               the same two, the run metrics, and its span exporter (an info row)

Goals (issue 15): the whole run with enrichment and cost on <= 1.05x of `none`; enrichment's
own cost per span it enriches < 0.5 ms (a trace of a few hundred spans then costs a turn well
under a tenth of a second). The per-span figure is the time
spent in the enrichment's callbacks and its span processor, measured separately (timers around
them), divided by the spans that received adk_fluent.* attributes.

    python -m bench.bench_telemetry [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from bench import Row, budget_row, clock, info_row, quick, ratio_row, repetitions, report
from bench.bench_middleware import measure_stacks, new_turn
from bench.bench_run import APP_NAME, fluent_pipeline, scripts_for


def _tracing_on() -> Any:
    """An SDK tracer provider (set once, globally, as an app would) whose spans are dropped,
    with a counting exporter; returns the exporter."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    class Counting(SpanExporter):
        def __init__(self) -> None:
            self.spans = 0
            self.ours = 0

        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            for span in spans:
                self.spans += 1
                if any(k.startswith("adk_fluent.") for k in span.attributes or {}):
                    self.ours += 1
            return SpanExportResult.SUCCESS

    exporter = Counting()
    provider = trace.get_tracer_provider()
    if not callable(getattr(provider, "add_span_processor", None)):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))  # type: ignore[attr-defined]
    return exporter


def _telemetry(meter_provider: Any) -> tuple[Any, ...]:
    from adk_fluent.telemetry import cost_attribution, otel_enrichment

    return (otel_enrichment(), cost_attribution(meter_provider=meter_provider))


def _config_stack() -> tuple[Any, ...]:
    """The middleware a TelemetryConfig adds (run metrics, enrichment, cost), its span
    processor handing each span to an exporter that drops it."""
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    from adk_fluent import ExecutionConfig, TelemetryConfig
    from adk_fluent.telemetry.runtime import with_telemetry

    class Dropping(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    telemetry = TelemetryConfig(exporters=(Dropping(),), metric_readers=(InMemoryMetricReader(),))
    return with_telemetry(ExecutionConfig(telemetry=telemetry)).middleware


async def measure(repeat: int, warmup: int, meter_provider: Any) -> dict[str, list[float]]:
    telemetry = _telemetry(meter_provider)
    stacks = {"telemetry": telemetry}
    if not quick():  # info rows only: the CI guard (--quick) skips them
        stacks.update(enrichment=telemetry[:1], cost=telemetry[1:], config=_config_stack())
    return await measure_stacks(stacks, repeat, warmup)


async def per_span(turns: int, exporter: Any, meter_provider: Any) -> tuple[float, int]:
    """(seconds spent in enrichment per span it enriched, spans enriched per turn): timers
    around every callback of the enrichment and around its span processor's on_start."""
    from adk_fluent import ExecutionConfig
    from adk_fluent.telemetry import spans as span_helpers
    from adk_fluent.telemetry.enrichment import OtelEnrichment
    from adk_fluent.testing import mock_backend

    spent, now = [0.0], clock()

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = now()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += now() - began

        return wrapper

    enrichment = OtelEnrichment()
    for name in (
        "before_agent_callback",
        "after_agent_callback",
        "before_model_callback",
        "after_model_callback",
        "before_tool_callback",
    ):
        setattr(enrichment, name, timed(getattr(enrichment, name)))
    processor = span_helpers.model_spans()
    assert processor is not None
    processor.on_start = timed(processor.on_start)  # type: ignore[method-assign]
    runner = fluent_pipeline().to_runner(
        ExecutionConfig(app_name=APP_NAME, middleware=(enrichment,)),
        backend=mock_backend(scripts_for(turns + 1)),
    )
    await new_turn(runner)
    spent[0], exporter.ours = 0.0, 0
    for _ in range(turns):
        await new_turn(runner)
    return spent[0] / max(exporter.ours, 1), exporter.ours // turns


def main(argv: list[str] | None = None) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--repeat", type=int, default=repetitions(150, 30), help="turns per measurement"
    )
    args = parser.parse_args(argv)
    warmup = 10
    exporter = _tracing_on()
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    samples = asyncio.run(measure(args.repeat, warmup, meter_provider))
    seconds, enriched = asyncio.run(per_span(repetitions(50, 20), exporter, meter_provider))
    rows: list[Row] = [
        ratio_row(
            "enrichment + cost vs none: one turn", samples["telemetry"], samples["none"], 1.05
        ),
        *(
            [
                info_row(
                    "enrichment alone / none: one turn", samples["enrichment"], samples["none"]
                ),
                info_row("cost alone / none: one turn", samples["cost"], samples["none"]),
                info_row(
                    "TelemetryConfig (exporter, metrics, enrichment, cost) / none: one turn",
                    samples["config"],
                    samples["none"],
                ),
            ]
            if "cost" in samples
            else []
        ),
        info_row("enrichment + cost / raw ADK: one turn", samples["telemetry"], samples["raw"]),
        info_row("none / raw ADK: one turn (tracing on)", samples["none"], samples["raw"]),
        budget_row(f"enrichment per enriched span ({enriched} per turn)", [seconds], 0.0005),
    ]
    report(
        "bench_telemetry: 3-agent pipeline (4 model calls, 1 tool call), warm plain Runner, "
        "scripted model, tracing on",
        rows,
        [
            f"medians of {args.repeat} interleaved turns after {warmup} warm-up turns; spans go "
            "to an exporter that counts and drops them; metrics to an in-memory reader"
        ],
    )


if __name__ == "__main__":
    main()
