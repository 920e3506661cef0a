"""The traffic a cost estimate assumes: TrafficAssumptions, checked when it is made (each
per-name map against the tree when it is used)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

from adk_fluent.arguments import checked_text
from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.prices import Prices, checked_prices

DEFAULT_ESTIMATE_MODEL = "gemini-2.5-flash"  # for agents that name no model
_TOLERANCE = 1e-9  # probabilities that add up to 1 in floating point may exceed it slightly

# the per-name maps of the assumptions, with what each is keyed by (for messages)
_NAMED_MAPS: dict[str, str] = {
    "tokens": "LLM agent",
    "calls": "LLM agent",
    "branch_probabilities": "route branch",
    "loop_iterations": "loop",
    "items": "map_over",
    "failure_rates": "fallback child",
    "tool_calls": "agent tool",
    "chunks": "chunked edge",
}
_EXAMPLES: dict[str, str] = {
    "invocations": "invocations=10_000 (runs to price, e.g. a day's)",
    "avg_input_tokens": "avg_input_tokens=500 (prompt tokens per model call)",
    "avg_output_tokens": "avg_output_tokens=200 (reply tokens per model call)",
    "tokens": "tokens={'writer': (1200, 400)} (input, output tokens per call)",
    "calls": "calls={'booker': 2} (a tool call takes two model calls)",
    "branch_probabilities": "branch_probabilities={'billing': 0.6, 'technical': 0.3}",
    "loop_iterations": "loop_iterations={'refine': 2.5}",
    "items": "items={'map_docs': 12}",
    "failure_rates": "failure_rates={'primary': 0.05}",
    "tool_calls": "tool_calls={'researcher': 1.5}",
    "chunks": "chunks={'chunked__writer__speaker': 8} (consumer runs per producer run)",
}
# tokens of one chunk, by what a chunked edge cuts at (a number n of characters: n / 4)
# (a token edge: one streamed piece, which models send a few tokens at a time)
_TOKENS_PER_CHUNK = {"sentence": 25.0, "line": 15.0, "paragraph": 120.0, "token": 4.0}


# -- the assumptions ----------------------------------------------------------------------------
def _count(
    value: Any, field_name: str, key: str | None = None, *, at_most: float | None = None
) -> float:
    """A non-negative finite number (or a probability when at_most=1), else a BuildError."""
    shown = f"{field_name}[{key!r}]" if key is not None else field_name
    what = "a probability between 0 and 1" if at_most == 1 else "a number, 0 or more"
    number = not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
    if not number or value < 0 or (at_most is not None and value > at_most):
        raise BuildError(
            f"{shown} must be {what}, not {describe_value(value)}",
            agent=_agent_label(field_name, key),
            field=field_name,
            hint=f"e.g. {_EXAMPLES[field_name]}.",
        )
    return cast(float, value)


def _agent_label(field_name: str, key: str | None) -> str | None:
    """The name a message is about: a branch key may be a route value, not a step's name."""
    return None if field_name == "branch_probabilities" else key


def _named(
    value: Any, field_name: str, *, pair: bool = False, at_most: float | None = None
) -> Mapping[str, Any]:
    """A read-only copy of a name -> number map (name -> (input, output) when pair)."""
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, Mapping):
        raise BuildError(
            f"{field_name} must be a dict keyed by {_NAMED_MAPS[field_name]} name, not "
            f"{describe_value(value)}",
            field=field_name,
            hint=f"e.g. {_EXAMPLES[field_name]}.",
        )
    checked: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise BuildError(
                f"{field_name} is keyed by {_NAMED_MAPS[field_name]} name, not "
                f"{describe_value(key)}",
                field=field_name,
                hint=f"e.g. {_EXAMPLES[field_name]}.",
            )
        if pair:
            if not isinstance(item, tuple | list) or len(item) != 2:
                raise BuildError(
                    f"{field_name}[{key!r}] must be an (input, output) pair of tokens per "
                    f"call, not {describe_value(item)}",
                    agent=_agent_label(field_name, key),
                    field=field_name,
                    hint=f"e.g. {_EXAMPLES[field_name]}.",
                )
            checked[key] = (_count(item[0], field_name, key), _count(item[1], field_name, key))
        else:
            checked[key] = _count(item, field_name, key, at_most=at_most)
    return MappingProxyType(checked)


@dataclass(frozen=True, init=False)
class TrafficAssumptions:
    """What the estimate assumes about traffic; every field is checked when it is made.

    `invocations`: runs to price (e.g. per day); `avg_input_tokens` / `avg_output_tokens`: per
    model call; `tokens`: {agent: (input, output)} per call, for some agents; `calls`: {agent:
    model calls per run of it} (default 1); `branch_probabilities`: {branch: p} for routes
    and delegates; `loop_iterations`: {loop: expected iterations} (default its max_iterations);
    `items`: {map_over: expected items} (required for each map_over); `failure_rates`:
    {fallback child: p}; `tool_calls`: {agent tool: calls per run of its caller} (default 1);
    `chunks`: {chunked edge: consumer runs per producer run} (default: from the producer's
    output tokens);
    `default_model`: for agents without a model name; `prices`: a Prices table or a dict added
    to the defaults; `initial_state`: the state a model selection sees."""

    invocations: float = 1
    avg_input_tokens: float = 500
    avg_output_tokens: float = 200
    tokens: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    calls: Mapping[str, float] = field(default_factory=dict)
    branch_probabilities: Mapping[str, float] = field(default_factory=dict)
    loop_iterations: Mapping[str, float] = field(default_factory=dict)
    items: Mapping[str, float] = field(default_factory=dict)
    failure_rates: Mapping[str, float] = field(default_factory=dict)
    tool_calls: Mapping[str, float] = field(default_factory=dict)
    chunks: Mapping[str, float] = field(default_factory=dict)
    default_model: str = DEFAULT_ESTIMATE_MODEL
    prices: Prices = field(default_factory=Prices)
    initial_state: Mapping[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        *,
        invocations: float = 1,
        avg_input_tokens: float = 500,
        avg_output_tokens: float = 200,
        tokens: Mapping[str, tuple[float, float]] | None = None,
        calls: Mapping[str, float] | None = None,
        branch_probabilities: Mapping[str, float] | None = None,
        loop_iterations: Mapping[str, float] | None = None,
        items: Mapping[str, float] | None = None,
        failure_rates: Mapping[str, float] | None = None,
        tool_calls: Mapping[str, float] | None = None,
        chunks: Mapping[str, float] | None = None,
        default_model: str = DEFAULT_ESTIMATE_MODEL,
        prices: Prices | Mapping[str, Any] | None = None,
        initial_state: Mapping[str, Any] | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:  # a dataclass would raise a bare TypeError for a misspelt field
            name = sorted(unknown)[0]
            fields = [f for f in self.__dataclass_fields__ if not f.startswith("_")]
            raise BuildError(
                f"TrafficAssumptions has no field {name!r}",
                field=name,
                hint=did_you_mean(name, fields) or f"its fields are {', '.join(fields)}.",
            )
        values: dict[str, Any] = {
            "invocations": _count(invocations, "invocations"),
            "avg_input_tokens": _count(avg_input_tokens, "avg_input_tokens"),
            "avg_output_tokens": _count(avg_output_tokens, "avg_output_tokens"),
            "tokens": _named(tokens, "tokens", pair=True),
            "calls": _named(calls, "calls"),
            "branch_probabilities": _named(branch_probabilities, "branch_probabilities", at_most=1),
            "loop_iterations": _named(loop_iterations, "loop_iterations"),
            "items": _named(items, "items"),
            "failure_rates": _named(failure_rates, "failure_rates", at_most=1),
            "tool_calls": _named(tool_calls, "tool_calls"),
            "chunks": _named(chunks, "chunks"),
        }
        values["default_model"] = checked_text(
            default_model,
            None,
            "default_model",
            what="a model name",
            hint="the model of agents that name none, e.g. default_model='gemini-2.5-flash'.",
        )
        if prices is not None and not isinstance(prices, Prices | Mapping):
            raise BuildError(
                f"prices must be a Prices table or a dict of model name -> ModelPrice, not "
                f"{describe_value(prices)}",
                field="prices",
                hint='e.g. prices={"my-model": ModelPrice(input=0.30, output=2.50)} (USD per '
                "million tokens), added to the default table.",
            )
        values["prices"] = checked_prices(prices, "TrafficAssumptions")
        if initial_state is not None and not isinstance(initial_state, Mapping):
            raise BuildError(
                f"initial_state must be a dict of state values, not {describe_value(initial_state)}",
                field="initial_state",
                hint="the state a model selection sees, e.g. initial_state={'budget_usd': 0.5}.",
            )
        values["initial_state"] = MappingProxyType(dict(initial_state or {}))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def tokens_of(self, agent: str) -> tuple[float, float]:
        """(input, output) tokens per model call of `agent`."""
        return self.tokens.get(agent, (self.avg_input_tokens, self.avg_output_tokens))


# -- the result ---------------------------------------------------------------------------------
