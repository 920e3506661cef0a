"""TelemetryConfig(exporters=("otlp",), otlp_endpoint=...) sends a run's spans and metrics over
OTLP/HTTP to that endpoint: a local HTTP server stands in for the collector and records what it
is sent (paths, content type, and that the protobuf bodies name adk-fluent's metrics and ADK's
spans)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from adk_fluent import Agent, ExecutionConfig, TelemetryConfig
from adk_fluent.telemetry.runtime import telemetry_for
from adk_fluent.testing import mock_backend
from tests.support.otel import span_exporter


class _Collector(BaseHTTPRequestHandler):
    received: list[tuple[str, str, bytes]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.received.append((self.path, self.headers.get("Content-Type", ""), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


async def test_spans_and_metrics_reach_the_otlp_endpoint():
    span_exporter()  # an SDK tracer provider for ADK to trace through
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        telemetry = TelemetryConfig(exporters=("otlp",), otlp_endpoint=endpoint)
        agent = Agent("solo").instruct("Hi.")
        await agent.run(
            "hi",
            backend=mock_backend({"solo": ["hello"]}),
            config=ExecutionConfig(telemetry=telemetry),
        )
        made = telemetry_for(telemetry)
        assert made.spans is not None and made.spans.force_flush()
        assert made.meter_provider is not None and made.meter_provider.force_flush()
        # while the collector still answers: nothing is left to send at the process's exit
        made.meter_provider.shutdown()
        made.spans.shutdown()
    finally:
        server.shutdown()
    by_path = {path: body for path, _, body in _Collector.received}
    assert set(by_path) == {"/v1/traces", "/v1/metrics"}
    assert all(kind == "application/x-protobuf" for _, kind, _ in _Collector.received)
    assert b"invoke_agent solo" in by_path["/v1/traces"]
    assert b"adk_fluent.pipeline.duration" in by_path["/v1/metrics"]
    assert b"adk_fluent.llm.cost" in by_path["/v1/metrics"]
