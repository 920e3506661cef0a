"""usage(): the tokens, cost and model latency of a run, per agent and per invocation, from the
usage records cost_attribution leaves in the events (telemetry/cost.py), with a text view.

    events = await pipeline.run("Hello", config=ExecutionConfig(middleware=[cost_attribution()]))
    print(usage(events).table())

It reads what the events carry, so it works on adk-fluent's AgentEvents, on ADK's own Events
(a Runner's stream, `session.events` reloaded from any store) and on a Session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from adk_fluent.ir.names import below_root
from adk_fluent.telemetry.cost import USAGE_KEY, UsageRecord

BAR_WIDTH = 24


@dataclass(frozen=True)
class Call:
    """One recorded model call: its record and the invocation it belongs to."""

    record: UsageRecord
    invocation_id: str


@dataclass
class AgentUsage:
    """Totals of one agent's calls."""

    agent: str
    path: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    thinking_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    models: list[str] = field(default_factory=list)
    unpriced_calls: int = 0

    def add(self, record: UsageRecord) -> None:
        self.calls += 1
        self.input_tokens += record.input_tokens
        self.output_tokens += record.output_tokens
        self.cached_tokens += record.cached_tokens
        self.thinking_tokens += record.thinking_tokens
        if record.cost_usd is None:
            self.unpriced_calls += 1
        else:
            self.cost_usd += record.cost_usd
        self.latency_ms += record.latency_ms or 0.0
        if record.model not in self.models:
            self.models.append(record.model)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.thinking_tokens


def _metadata_of(event: Any) -> tuple[dict[str, Any], str, bool]:
    """(custom metadata, invocation id, whether ADK reported usage) of an AgentEvent or an ADK
    Event."""
    raw = getattr(event, "raw", None)
    source = raw if raw is not None else event
    metadata = getattr(event, "metadata", None)
    if not isinstance(metadata, dict):
        metadata = getattr(source, "custom_metadata", None) or {}
    reported = getattr(source, "usage_metadata", None) is not None and not getattr(
        source, "partial", False
    )
    return (
        metadata,
        str(getattr(event, "invocation_id", "") or ""),
        reported,
    )


class UsageReport:
    """The recorded calls of some events, with totals per agent and per invocation."""

    def __init__(self, calls: Iterable[Call], unattributed: int = 0) -> None:
        self.calls: tuple[Call, ...] = tuple(calls)
        # model responses that reported usage but carry no record (no cost_attribution there)
        self.unattributed_calls = unattributed

    # -- totals ---------------------------------------------------------------------------------
    @property
    def cost_usd(self) -> float:
        """USD of every priced call."""
        return sum(call.record.cost_usd or 0.0 for call in self.calls)

    @property
    def input_tokens(self) -> int:
        return sum(call.record.input_tokens for call in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(call.record.output_tokens for call in self.calls)

    @property
    def unpriced_models(self) -> tuple[str, ...]:
        """Models whose calls have no cost (no price in the table), sorted."""
        return tuple(sorted({c.record.model for c in self.calls if c.record.cost_usd is None}))

    def by_agent(self) -> dict[str, AgentUsage]:
        """Totals per agent path, in the order agents first called a model."""
        totals: dict[str, AgentUsage] = {}
        for call in self.calls:
            record = call.record
            totals.setdefault(record.path, AgentUsage(record.agent, record.path)).add(record)
        return totals

    def by_invocation(self) -> dict[str, UsageReport]:
        """A report per invocation (one turn of a session), in order."""
        grouped: dict[str, list[Call]] = {}
        for call in self.calls:
            grouped.setdefault(call.invocation_id, []).append(call)
        return {key: UsageReport(calls) for key, calls in grouped.items()}

    def last_invocation(self) -> UsageReport:
        """The report of the last invocation (the last turn), empty when nothing was recorded."""
        invocations = self.by_invocation()
        return list(invocations.values())[-1] if invocations else UsageReport(())

    # -- views ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-able: totals, per agent and per invocation."""
        return {
            "cost_usd": self.cost_usd,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": len(self.calls),
            "unpriced_models": list(self.unpriced_models),
            "unattributed_calls": self.unattributed_calls,
            "agents": [
                {key: value for key, value in asdict(a).items() if key != "unpriced_calls"}
                for a in self.by_agent().values()
            ],
            "invocations": [
                {"invocation_id": key, "calls": len(report.calls), "cost_usd": report.cost_usd}
                for key, report in self.by_invocation().items()
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def table(self) -> str:
        """Per-agent tokens, cost and model latency, with a bar of each agent's share of the
        cost (of the tokens when nothing is priced)."""
        agents = list(self.by_agent().values())
        if not agents:
            text = "no model calls recorded"
            if self.unattributed_calls:
                text += (
                    f" ({self.unattributed_calls} model response(s) reported usage: add "
                    "cost_attribution() to the middleware to record them)"
                )
            return text + "\n"
        by_cost = self.cost_usd > 0
        weight = [(a.cost_usd if by_cost else float(a.tokens)) for a in agents]
        top = max(weight) or 1.0
        root, paths = below_root([a.path for a in agents])
        title = f"agent in {root}" if root else "agent"
        name_width = max(len(title), *(len(path) for path in paths))
        header = (
            f"{title:<{name_width}}  {'calls':>5}  {'in':>8}  {'out':>7}  "
            f"{'cost USD':>11}  {'model ms':>9}  share of {'cost' if by_cost else 'tokens'}"
        )
        lines = [header, "-" * len(header)]
        for agent, path, value in zip(agents, paths, weight, strict=True):
            bar = "█" * max(1 if value else 0, round(BAR_WIDTH * value / top))
            cost = f"{agent.cost_usd:.6f}" if agent.unpriced_calls < agent.calls else "—"
            lines.append(
                f"{path:<{name_width}}  {agent.calls:>5}  {agent.input_tokens:>8}  "
                f"{agent.output_tokens:>7}  {cost:>11}  {agent.latency_ms:>9.1f}  {bar}"
            )
        lines.append("-" * len(header))
        lines.append(
            f"{'total':<{name_width}}  {len(self.calls):>5}  {self.input_tokens:>8}  "
            f"{self.output_tokens:>7}  {self.cost_usd:>11.6f}"
        )
        if self.unpriced_models:
            lines.append(
                f"no price for: {', '.join(self.unpriced_models)} (cost_attribution(prices=...))"
            )
        if self.unattributed_calls:
            lines.append(
                f"{self.unattributed_calls} model call(s) not recorded (no cost_attribution)"
            )
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"UsageReport({len(self.calls)} calls, {self.cost_usd:.6f} USD)"


def usage(events: Any) -> UsageReport:
    """The usage report of some events: a list of AgentEvents (what `run()` returns), ADK
    Events, or an ADK Session (its stored events)."""
    if hasattr(events, "events") and not isinstance(events, list | tuple):
        events = events.events  # an ADK Session
    calls: list[Call] = []
    unattributed = 0
    for event in events or ():
        metadata, invocation_id, reported = _metadata_of(event)
        record = metadata.get(USAGE_KEY)
        if isinstance(record, dict):
            calls.append(Call(UsageRecord.from_dict(record), invocation_id))
        elif reported:
            unattributed += 1
    return UsageReport(calls, unattributed)
