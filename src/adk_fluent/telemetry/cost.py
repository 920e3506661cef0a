"""cost_attribution: tokens and cost of every model call, per agent and per invocation.

For each model response with usage (ADK puts `usage_metadata` on every model response, never on
partial chunks), the middleware

* writes a usage record into the response's `custom_metadata["adk_fluent.telemetry.usage"]`, so the event
  the session store keeps carries it (`usage(events)` sums them into a report, per agent and per
  invocation; `adk-fluent report` reads them from a store);
* adds the cost to the OpenTelemetry counter `adk_fluent.llm.cost` (USD), labelled by agent,
  node path, pipeline and model. Tokens go to `adk_fluent.llm.tokens` only where the installed
  ADK does not count them itself (ADK 2.x records `gen_ai.client.token.usage` on its own meter,
  so adk-fluent adds cost only and never counts tokens twice);
* sets `adk_fluent.cost.usd` and `adk_fluent.cost.model` on the model call's span
  (telemetry/spans.py says how it is found);
* with `budget_key`, spends the cost from `state[budget_key]` (USD left), in the reply's own
  state delta, for `.model_select("budget_bounded", ..., budget_key=...)`.

A reply is priced as the model that produced it (`_model_of`): the version the reply names
when the table knows it (real Gemini replies name theirs), else the model that answered in place
of a failed call (fallback_model's mark), else the model the request named, else the version.
A call whose model the price table does not know is recorded with its tokens and no cost, and
listed as unpriced in the report; a warning names the model once.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import adk_records_token_metrics
from adk_fluent.adk.plugins.middleware import agent_facts, model_call
from adk_fluent.arguments import checked_text
from adk_fluent.errors import AdkFluentWarning, BuildError, describe_value
from adk_fluent.ir.middleware import Middleware, answering_model
from adk_fluent.ir.prices import Prices, checked_prices
from adk_fluent.telemetry.spans import model_call_span

USAGE_KEY = "adk_fluent.telemetry.usage"  # event custom_metadata key of a call's usage record
_CALLS_REMEMBERED = 4096


@dataclass(frozen=True)
class UsageRecord:
    """One model call's tokens, cost (None: the model has no price) and latency."""

    agent: str
    path: str
    model: str
    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    thinking_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        # by hand: dataclasses.asdict deep-copies, and this runs on every model call (every
        # field, in their order: tests/unit/telemetry holds it to the dataclass's fields)
        return {
            "agent": self.agent,
            "path": self.path,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens,
            "thinking_tokens": self.thinking_tokens,
            "cost_usd": self.cost_usd,
            "latency_ms": self.latency_ms,
        }

    @classmethod
    def from_dict(cls, value: dict[str, Any]) -> UsageRecord:
        return cls(**{k: value[k] for k in cls.__dataclass_fields__ if k in value})


def _count(usage: Any, field: str) -> int:
    value = getattr(usage, field, None)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else 0


def record_for(
    agent: str,
    path: str,
    model: str,
    usage: Any,
    prices: Prices,
    latency_ms: float | None = None,
) -> UsageRecord:
    """The usage record of one call from ADK's `usage_metadata` (google.genai's field names)."""
    input_tokens = _count(usage, "prompt_token_count")
    output_tokens = _count(usage, "candidates_token_count")
    cached = _count(usage, "cached_content_token_count")
    thinking = _count(usage, "thoughts_token_count")
    cost = prices.cost(model, input_tokens, output_tokens, cached, thinking)
    return UsageRecord(
        agent, path, model, input_tokens, output_tokens, cached, thinking, cost, latency_ms
    )


class RunningTotals:
    """Running sums per attribute set, reported to an observable counter when it collects."""

    def __init__(self) -> None:
        self._sums: dict[tuple[tuple[str, str], ...], float] = {}
        self._lock = threading.Lock()  # meters collect from their own thread

    def add(self, labels: tuple[tuple[str, str], ...], value: float) -> None:
        with self._lock:
            self._sums[labels] = self._sums.get(labels, 0) + value

    def observe(self, options: Any) -> list[Any]:
        from opentelemetry.metrics import Observation

        with self._lock:
            sums = list(self._sums.items())
        return [Observation(value, {k: v for k, v in labels if v}) for labels, value in sums]


class CostAttribution(Middleware):
    """Records each model call's tokens and cost (the module says where). `cost_attribution()`
    makes one."""

    def __init__(
        self,
        *,
        prices: Prices,
        meter_provider: Any = None,
        budget_key: str | None = None,
        clock: Callable[[], float] = time.perf_counter,
        scope: Any = None,
        priority: int = -45,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.prices = prices
        self.budget_key = budget_key
        self._clock = clock
        self._meter_provider = meter_provider
        self._instruments: tuple[Any, Any] | None = None
        self._cost_totals = RunningTotals()
        self._token_totals = RunningTotals()
        self._started: OrderedDict[tuple[Any, ...], tuple[Any, float]] = OrderedDict()
        self._warned: set[str] = set()

    # -- metrics --------------------------------------------------------------------------------
    # Sums are kept here and reported through observable counters when the meter collects:
    # a plain counter's add() costs the SDK's aggregation on every model call, this a dict update.
    def _instruments_made(self) -> None:
        """Register the counters on first use, on the meter provider given, else the global one
        (so an app that sets its provider after building still gets them)."""
        if self._instruments is not None:
            return
        from opentelemetry import metrics

        provider = self._meter_provider or metrics.get_meter_provider()
        meter = provider.get_meter("adk_fluent")
        cost = meter.create_observable_counter(
            "adk_fluent.llm.cost",
            callbacks=[self._cost_totals.observe],
            unit="USD",
            description="Cost of model calls",
        )
        tokens = None
        if not adk_records_token_metrics():  # ADK 2.x counts tokens itself: never twice
            tokens = meter.create_observable_counter(
                "adk_fluent.llm.tokens",
                callbacks=[self._token_totals.observe],
                unit="{token}",
                description="Tokens of model calls",
            )
        self._instruments = (cost, tokens)

    def _record_metrics(self, record: UsageRecord, pipeline: str | None) -> None:
        if self._instruments is None:
            self._instruments_made()
        labels = (
            ("gen_ai.agent.name", record.agent),
            ("gen_ai.request.model", record.model),
            ("adk_fluent.node.path", record.path),
            ("adk_fluent.pipeline", pipeline or ""),
        )
        if record.cost_usd is not None:
            self._cost_totals.add(labels, record.cost_usd)
        if self._instruments is not None and self._instruments[1] is not None:
            for kind, count in (
                ("input", record.input_tokens),
                ("output", record.output_tokens),
                ("cached", record.cached_tokens),
                ("thinking", record.thinking_tokens),
            ):
                if count:
                    self._token_totals.add((*labels, ("gen_ai.token.type", kind)), count)

    # -- callbacks ------------------------------------------------------------------------------
    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        remember(
            self._started,
            model_call(callback_context),
            (llm_request, self._clock()),
            _CALLS_REMEMBERED,
        )
        return None

    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        if getattr(llm_response, "partial", False):
            return None
        started = self._started.pop(model_call(callback_context), None)
        usage = getattr(llm_response, "usage_metadata", None)
        if usage is None:
            return None
        request, began = started if started is not None else (None, None)
        model = self._model_of(llm_response, request)
        agent = callback_context.agent_name
        facts = agent_facts(agent)
        latency = (self._clock() - began) * 1000 if began is not None else None
        record = record_for(
            agent, facts.path if facts else agent, model, usage, self.prices, latency
        )
        if record.cost_usd is None:
            self._warn_unpriced(model)
        llm_response.custom_metadata = {
            **(llm_response.custom_metadata or {}),
            USAGE_KEY: record.to_dict(),
        }
        self._record_metrics(record, facts.pipeline if facts else None)
        span = model_call_span()
        if span is not None:
            span.set_attribute("adk_fluent.cost.model", record.model)  # the model priced
            if record.cost_usd is not None:
                span.set_attribute("adk_fluent.cost.usd", record.cost_usd)
        if self.budget_key and record.cost_usd:
            left = callback_context.state.get(self.budget_key)
            if isinstance(left, int | float) and not isinstance(left, bool):
                callback_context.state[self.budget_key] = left - record.cost_usd
        return None

    def _model_of(self, llm_response: Any, request: Any) -> str:
        """The model that produced the reply: the response's own version when it is priced (a
        real Gemini reply names it); else the model that answered in place of the failed call
        (fallback_model's mark: the request named the model that failed); else the request's
        (after any `.model_select` pick); else the version, unpriced."""
        version = getattr(llm_response, "model_version", None)
        if isinstance(version, str) and self.prices.price_of(version) is not None:
            return version
        answered = answering_model(llm_response)
        if answered is not None:
            return answered
        requested = getattr(request, "model", None)
        if isinstance(requested, str) and requested:
            return requested
        return version if isinstance(version, str) and version else "unknown"

    def _warn_unpriced(self, model: str) -> None:
        if model in self._warned:
            return
        self._warned.add(model)
        warnings.warn(
            f"cost_attribution: no price for model {model!r}; its calls are recorded with tokens "
            "and no cost. Hint: cost_attribution(prices={"
            f"{model!r}: ModelPrice(input=..., output=...)}}) (USD per million tokens).",
            AdkFluentWarning,
            stacklevel=2,
        )

    def __repr__(self) -> str:
        return f"cost_attribution({self.prices!r}, budget_key={self.budget_key!r})"


def cost_attribution(
    *,
    prices: Any = None,
    budget_key: str | None = None,
    meter_provider: Any = None,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -45,
) -> CostAttribution:
    """Middleware recording every model call's tokens and cost per agent and invocation
    (docs/telemetry.md): in the stored events, as OpenTelemetry metrics, on the model span.

    `prices`: a Prices table, or a dict of model -> ModelPrice added to the defaults.
    `budget_key`: a state key holding the USD left, which each call's cost is taken from.
    `meter_provider`: where the metrics go (default: the global one). It runs after a cache
    (priority -50), so an answer from the cache costs nothing."""
    table = checked_prices(prices, "cost_attribution")
    if budget_key is not None:
        checked_text(
            budget_key,
            "cost_attribution",
            "budget_key",
            what="a state key",
            hint="e.g. cost_attribution(budget_key='budget_usd') with state['budget_usd'] = 0.50.",
        )
    if meter_provider is not None and not callable(getattr(meter_provider, "get_meter", None)):
        raise BuildError(
            f"meter_provider must be an OpenTelemetry MeterProvider, not "
            f"{describe_value(meter_provider)}",
            agent="cost_attribution",
            field="meter_provider",
            hint="e.g. opentelemetry.sdk.metrics.MeterProvider(metric_readers=[reader]), or leave "
            "it out to use the global provider.",
        )
    return CostAttribution(
        prices=table,
        meter_provider=meter_provider,
        budget_key=budget_key,
        scope=scope,
        priority=priority,
    )
