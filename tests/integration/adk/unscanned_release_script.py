"""Run in its own process by test_probes_unscanned.py: a user's process with a tracer provider,
a meter provider and INFO logging, on an installed ADK release the scans do not cover (the
scans' table is made to answer nothing). The first run(state=...) and a Workflow-target build
ask the probes; the script prints what reached the user's telemetry, as JSON."""

from __future__ import annotations

import asyncio
import json
import logging

from adk_fluent_generated.behaviours import UnknownBehaviour
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_fluent.adk import compat

spans = InMemorySpanExporter()
tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
trace.set_tracer_provider(tracer_provider)
reader = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))


class Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


logs = Collected()
logging.getLogger().addHandler(logs)
logging.getLogger().setLevel(logging.INFO)


def unscanned(name: str, version: str, **_: object) -> object:
    raise UnknownBehaviour(f"google-adk {version} was not scanned")


compat.behaviour_on = unscanned  # this process plays a release newer than the scans


async def main() -> dict[str, object]:
    from adk_fluent import Agent, available_targets
    from adk_fluent.testing import mock_backend

    backend = mock_backend({"desk": "Noted."})
    events = (
        await Agent("desk")
        .instruct("Note {plan}.")
        .run("hello", state={"plan": "gold"}, backend=backend)
    )
    targets = available_targets()
    if "workflow" in targets:
        (Agent("a") >> Agent("b")).to_app(target="workflow")
    points = []
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    points.append([metric.name, dict(point.attributes or {})])
    return {
        "reply": events[-1].content,
        "system": str(backend.requests["desk"][0].config.system_instruction),
        "targets": list(targets),
        "answers": {name: compat.behaviour(name) for name in sorted(compat._unscanned_answers())},
        "spans": [
            [span.name, {k: str(v) for k, v in (span.attributes or {}).items()}]
            for span in spans.get_finished_spans()
        ],
        "points": points,
        "logs": logs.lines,
    }


print(json.dumps(asyncio.run(main()), default=str))
