"""adk-fluent telemetry: adk-fluent's view of the tree on ADK's own OpenTelemetry spans, the
tokens and cost of every model call per agent and invocation, a report (docs/telemetry.md), and
the estimate of what a tree will cost before it runs (analysis/cost/).

Both are middleware (the protocol in ir/middleware.py), compiled into the one middleware plugin.
"""

from __future__ import annotations

from adk_fluent.analysis.cost import CostModel, NodeCost, TrafficAssumptions, estimate_cost
from adk_fluent.ir.options import TelemetryConfig
from adk_fluent.ir.prices import DEFAULT_PRICES, ModelPrice, Prices
from adk_fluent.telemetry.cost import USAGE_KEY, CostAttribution, UsageRecord, cost_attribution
from adk_fluent.telemetry.enrichment import OtelEnrichment, otel_enrichment
from adk_fluent.telemetry.usage import AgentUsage, UsageReport, usage

__all__ = [
    "DEFAULT_PRICES",
    "USAGE_KEY",
    "AgentUsage",
    "CostAttribution",
    "CostModel",
    "ModelPrice",
    "NodeCost",
    "OtelEnrichment",
    "Prices",
    "TelemetryConfig",
    "TrafficAssumptions",
    "UsageRecord",
    "UsageReport",
    "cost_attribution",
    "estimate_cost",
    "otel_enrichment",
    "usage",
]
