"""TelemetryConfig and OpenTelemetry's global providers, in a fresh process (the global providers
are the process's and are set once): a config without `set_global` sets none and warns that its
exporters receive nothing; one with it sets an SDK tracer and meter provider, and its exporter
receives the run's spans."""

from __future__ import annotations

import os
import subprocess
import sys

_GLOBALS = r"""
import asyncio, warnings
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from adk_fluent import Agent, ExecutionConfig, TelemetryConfig
from adk_fluent.errors import AdkFluentWarning
from adk_fluent.testing import mock_backend

agent = Agent("solo").instruct("Hi.")
async def main():
    exporter = InMemorySpanExporter()
    quiet = ExecutionConfig(telemetry=TelemetryConfig(exporters=(exporter,)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await agent.run("hi", backend=mock_backend({"solo": ["a"]}), config=quiet)
    print("warned", any(issubclass(w.category, AdkFluentWarning) and "set_global" in str(w.message)
                        for w in caught))
    print("tracer set", type(trace.get_tracer_provider()).__name__)
    print("spans", len(exporter.get_finished_spans()))
    exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
    loud = ExecutionConfig(
        telemetry=TelemetryConfig(exporters=(exporter,), metric_readers=(reader,), set_global=True)
    )
    await agent.run("hi", backend=mock_backend({"solo": ["b"]}), config=loud)
    print("tracer set", type(trace.get_tracer_provider()).__name__)
    print("meter set", type(metrics.get_meter_provider()).__name__)
    print("spans", sorted({s.name.split()[0] for s in exporter.get_finished_spans()}))

asyncio.run(main())
"""


def test_providers_are_set_globally_only_when_the_config_asks(tmp_path):
    script = tmp_path / "globals.py"
    script.write_text(_GLOBALS)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[:3] == ["warned True", "tracer set ProxyTracerProvider", "spans 0"]
    assert lines[3:5] == ["tracer set TracerProvider", "meter set MeterProvider"]
    assert "invoke_agent" in lines[5] and "generate_content" in lines[5]
