"""Misuse of telemetry and prices: otel_enrichment, cost_attribution, ModelPrice / Prices and the
scripted `with_usage` step refuse wrong arguments when they are made, naming the field and a
hint; a cost middleware attached where it cannot see its agents is refused at build."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_fluent import Agent, ExecutionConfig, ModelCandidate, ModelPrice, Prices, TelemetryConfig
from adk_fluent.ir.model_selection import model_selector
from adk_fluent.remote import to_apps
from adk_fluent.telemetry import cost_attribution, otel_enrichment
from adk_fluent.testing import call, repeat, with_usage
from tests.support.misuse import case, check, ids


def _scoped_to_a_missing_agent():
    config = ExecutionConfig(middleware=(cost_attribution(scope="nobody"),))
    return Agent("solo").instruct("Go.").to_app(config)


def _one_reader_in_two_configs():
    from adk_fluent.telemetry.runtime import telemetry_for

    reader = InMemoryMetricReader()
    telemetry_for(TelemetryConfig(metric_readers=(reader,)))
    telemetry_for(TelemetryConfig(metric_readers=(reader,), cost_metrics=False))


CASES = [
    # otel_enrichment
    case("telemetry-enrich-pipeline-int", lambda: otel_enrichment(pipeline=3), "pipeline", "int"),
    case("telemetry-enrich-pipeline-empty", lambda: otel_enrichment(pipeline=""), "pipeline"),
    case("telemetry-enrich-priority-text", lambda: otel_enrichment(priority="high"), "priority"),
    case("telemetry-enrich-scope-int", lambda: otel_enrichment(scope=5), "scope"),
    # cost_attribution
    case("telemetry-cost-prices-int", lambda: cost_attribution(prices=5), "prices", "int"),
    case("telemetry-cost-prices-list", lambda: cost_attribution(prices=[1, 2]), "prices", "list"),
    case(
        "telemetry-cost-prices-bad-entry",
        lambda: cost_attribution(prices={"m": "cheap"}),
        "prices['m']",
        "ModelPrice",
    ),
    case(
        "telemetry-cost-prices-bad-key",
        lambda: cost_attribution(prices={3: ModelPrice(1, 2)}),
        "model name",
    ),
    case("telemetry-cost-budget-key-int", lambda: cost_attribution(budget_key=1), "budget_key"),
    case("telemetry-cost-budget-key-empty", lambda: cost_attribution(budget_key=""), "budget_key"),
    case(
        "telemetry-cost-meter-provider-text",
        lambda: cost_attribution(meter_provider="otel"),
        "meter_provider",
        "MeterProvider",
    ),
    case("telemetry-cost-scope-missing", _scoped_to_a_missing_agent, "nobody", "scope"),
    # TelemetryConfig
    case(
        "telemetry-config-exporter-misspelt",
        lambda: TelemetryConfig(exporters=("consol",)),
        "exporters[0]",
        "console",
    ),
    case(
        "telemetry-config-exporter-class",
        lambda: TelemetryConfig(exporters=(InMemorySpanExporter,)),
        "exporters[0]",
        "class",
    ),
    case("telemetry-config-exporters-int", lambda: TelemetryConfig(exporters=3), "exporters"),
    case(
        "telemetry-config-reader-not-one",
        lambda: TelemetryConfig(metric_readers=(InMemorySpanExporter(),)),
        "metric_readers[0]",
        "MetricReader",
    ),
    case(
        "telemetry-config-endpoint-no-scheme",
        lambda: TelemetryConfig(exporters=("otlp",), otlp_endpoint="collector:4318"),
        "otlp_endpoint",
        "http",
    ),
    case(
        "telemetry-config-endpoint-without-otlp",
        lambda: TelemetryConfig(otlp_endpoint="http://127.0.0.1:4318"),
        "otlp_endpoint",
        "'otlp'",
    ),
    case("telemetry-config-sampling-above-one", lambda: TelemetryConfig(sampling=5), "sampling"),
    case("telemetry-config-sampling-negative", lambda: TelemetryConfig(sampling=-0.1), "sampling"),
    case("telemetry-config-sampling-text", lambda: TelemetryConfig(sampling="all"), "sampling"),
    case(
        "telemetry-config-capture-text",
        lambda: TelemetryConfig(capture_content="no"),
        "capture_content",
        "True or False",
    ),
    case("telemetry-config-cost-int", lambda: TelemetryConfig(cost_metrics=1), "cost_metrics"),
    case(
        "telemetry-config-not-a-config",
        lambda: ExecutionConfig(telemetry={"exporters": ["console"]}),
        "telemetry",
        "TelemetryConfig",
    ),
    case(
        "telemetry-config-split-apps",
        lambda: to_apps(
            Agent("a").instruct("Go.") >> Agent("b").instruct("Go.").execution_boundary("heavy"),
            config=ExecutionConfig(telemetry=TelemetryConfig()),
        ),
        "to_apps()",
        "telemetry",
    ),
    case(
        "telemetry-config-reader-shared",
        _one_reader_in_two_configs,
        "metric_readers",
        "one MeterProvider",
    ),
    # prices
    case("telemetry-price-negative", lambda: ModelPrice(-1, 2), "input", "at least 0"),
    case("telemetry-price-text", lambda: ModelPrice("0.3", 2.5), "input", "str"),
    case("telemetry-price-nan", lambda: ModelPrice(0.3, float("nan")), "output"),
    case("telemetry-price-bool", lambda: ModelPrice(True, 1), "input", "True"),
    case("telemetry-price-cached-negative", lambda: ModelPrice(1, 2, cached=-0.1), "cached"),
    case(
        "telemetry-price-long-context-zero",
        lambda: ModelPrice(1, 2, long_context=0),
        "long_context",
    ),
    case(
        "telemetry-price-long-context-float",
        lambda: ModelPrice(1, 2, long_context=2e5),
        "long_context",
    ),
    case("telemetry-prices-empty-name", lambda: Prices({"": (1, 2)}), "model name"),
    case("telemetry-prices-triple", lambda: Prices({"m": (1, 2, 3)}), "prices['m']"),
    # model selection records made directly
    case(
        "telemetry-candidate-capabilities-int",
        lambda: ModelCandidate("gemini-2.5-flash", capabilities=5),
        "capabilities",
    ),
    case(
        "telemetry-candidate-capabilities-not-names",
        lambda: ModelCandidate("gemini-2.5-flash", capabilities={1, 2}),
        "capabilities",
    ),
    case(
        "telemetry-selector-candidates-int",
        lambda: model_selector("a", "cost_optimized", 5),
        "candidates",
        "'a'",
    ),
    case(
        "telemetry-selector-requires-int",
        lambda: model_selector("a", "cost_optimized", ["gemini-2.5-flash"], requires=3),
        "requires",
    ),
    # with_usage (scripted token counts)
    case("telemetry-usage-negative", lambda: with_usage("ok", input=-1, output=1), "input"),
    case("telemetry-usage-float", lambda: with_usage("ok", input=1.5, output=1), "input", "1.5"),
    case(
        "telemetry-usage-cached-above-input",
        lambda: with_usage("ok", input=10, output=1, cached=20),
        "cached",
        "exceed",
    ),
    case(
        "telemetry-usage-thinking-text",
        lambda: with_usage("ok", input=1, output=1, thinking="3"),
        "thinking",
    ),
    case(
        "telemetry-usage-wraps-repeat",
        lambda: with_usage(repeat("ok"), input=1, output=1),
        "repeat",
    ),
    case(
        "telemetry-usage-wraps-itself",
        lambda: with_usage(with_usage(call("t"), input=1, output=1), input=1, output=1),
        "with_usage",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
