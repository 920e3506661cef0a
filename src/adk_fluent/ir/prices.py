"""Model prices: what one call costs from its token counts (USD per million tokens).

Plain data, used by cost attribution (telemetry/), the cost estimate (analysis/cost/) and
cost-aware model selection (ir/model_selection.py). The defaults are Google's published
paid-tier prices for the Gemini API as of 2026-11 (https://ai.google.dev/gemini-api/docs/pricing);
prices change, so a deployment that bills on them should pass its own table:
`Prices({"gemini-2.5-flash": ModelPrice(0.30, 2.50, cached=0.03)})`.

How a call is priced, from ADK's `usage_metadata` (google.genai's usage fields):

* `prompt_token_count` includes the tokens served from a context cache
  (`cached_content_token_count`): those are billed at `cached`, the rest at `input`;
* `candidates_token_count` is billed at `output`, and `thoughts_token_count` (thinking) at
  `thinking` (Gemini bills thinking as output, so it defaults to `output`);
* a prompt longer than `long_context` tokens is billed at `input_long` / `output_long` where the
  model has such a tier (Gemini 2.5 Pro above 200k tokens).

A model name is matched exactly, else by the longest known prefix, so a dated or suffixed name
("gemini-2.5-flash-001", the scripted "gemini-2.5-flash-scripted") gets its family's price and
"gemini-2.5-flash-lite" never gets "gemini-2.5-flash"'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adk_fluent.arguments import checked_count, checked_instance, checked_number, checked_text

PER_TOKENS = 1_000_000  # prices are USD per this many tokens
_EXAMPLE = "USD per million tokens, e.g. ModelPrice(input=0.30, output=2.50)."


@dataclass(frozen=True)
class ModelPrice:
    """One model's prices, USD per million tokens (`cached` and `thinking` default to the input
    and output prices; `input_long` / `output_long` apply above `long_context` prompt tokens)."""

    input: float
    output: float
    cached: float | None = None
    thinking: float | None = None
    long_context: int | None = None
    input_long: float | None = None
    output_long: float | None = None

    def __post_init__(self) -> None:
        for name in ("input", "output", "cached", "thinking", "input_long", "output_long"):
            value = getattr(self, name)
            if value is not None or name in ("input", "output"):
                price = checked_number(value, None, name, positive=False, hint=_EXAMPLE)
                object.__setattr__(self, name, price)
        if self.long_context is not None:
            checked_count(
                self.long_context,
                None,
                "long_context",
                least=1,
                hint="prompt tokens, e.g. long_context=200_000 with input_long= and output_long=.",
            )

    def cost(
        self,
        input_tokens: int,
        output_tokens: int,
        cached_tokens: int = 0,
        thinking_tokens: int = 0,
    ) -> float:
        """USD for one call: `input_tokens` is the whole prompt (cached tokens included, as
        Gemini's prompt_token_count counts them)."""
        long = self.long_context is not None and input_tokens > self.long_context
        input_rate = self.input_long if long and self.input_long is not None else self.input
        output_rate = self.output_long if long and self.output_long is not None else self.output
        cached_rate = self.cached if self.cached is not None else input_rate
        thinking_rate = self.thinking if self.thinking is not None else output_rate
        cached = min(max(cached_tokens, 0), max(input_tokens, 0))
        fresh = max(input_tokens, 0) - cached
        total = (
            fresh * input_rate
            + cached * cached_rate
            + max(output_tokens, 0) * output_rate
            + max(thinking_tokens, 0) * thinking_rate
        )
        return total / PER_TOKENS


# Gemini API paid tier, text, as published (see the module docstring); the longest prefix wins.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gemini-2.5-pro": ModelPrice(
        1.25, 10.00, cached=0.125, long_context=200_000, input_long=2.50, output_long=15.00
    ),
    "gemini-2.5-flash": ModelPrice(0.30, 2.50, cached=0.03),
    "gemini-2.5-flash-lite": ModelPrice(0.10, 0.40, cached=0.01),
    "gemini-2.0-flash": ModelPrice(0.10, 0.40, cached=0.025),
    "gemini-2.0-flash-lite": ModelPrice(0.075, 0.30),
}


class Prices:
    """A price table: `Prices()` is the defaults; `Prices({"my-model": ModelPrice(1, 2)})` adds
    or replaces entries; `Prices({...}, defaults=False)` holds only the given ones."""

    def __init__(
        self,
        table: Mapping[str, ModelPrice | tuple[float, float]] | None = None,
        *,
        defaults: bool = True,
    ) -> None:
        merged: dict[str, ModelPrice] = dict(DEFAULT_PRICES) if defaults else {}
        for model, price in (table or {}).items():
            hint = 'e.g. Prices({"gemini-2.5-flash": ModelPrice(0.30, 2.50)}).'
            checked_text(model, None, "prices", what="keyed by model name", hint=hint)
            if isinstance(price, tuple) and len(price) == 2:
                price = ModelPrice(*price)
            merged[model] = checked_instance(
                price,
                None,
                f"prices[{model!r}]",
                ModelPrice,
                what="a ModelPrice or an (input, output) pair",
                hint=hint,
            )
        self._table = merged
        # longest names first, so a prefix match finds the most specific family
        self._by_length = sorted(merged, key=len, reverse=True)
        self._found: dict[str, str | None] = {}

    @property
    def models(self) -> tuple[str, ...]:
        """The model names priced, sorted."""
        return tuple(sorted(self._table))

    def matched_name(self, model: str | None) -> str | None:
        """The table entry that prices `model` (exact, else the longest prefix), or None."""
        if not model:
            return None
        if model in self._found:
            return self._found[model]
        # "models/gemini-2.5-flash" and "projects/.../gemini-2.5-flash" name the same model
        bare = model.rsplit("/", 1)[-1]
        found = bare if bare in self._table else None
        if found is None:
            found = next((name for name in self._by_length if bare.startswith(name)), None)
        self._found[model] = found
        return found

    def price_of(self, model: str | None) -> ModelPrice | None:
        """The price of `model`, or None when the table does not know it."""
        name = self.matched_name(model)
        return self._table[name] if name is not None else None

    def cost(
        self,
        model: str | None,
        input_tokens: int,
        output_tokens: int,
        cached_tokens: int = 0,
        thinking_tokens: int = 0,
    ) -> float | None:
        """USD for one call of `model`, or None when it has no price."""
        price = self.price_of(model)
        if price is None:
            return None
        return price.cost(input_tokens, output_tokens, cached_tokens, thinking_tokens)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Prices) and other._table == self._table

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._table.items())))

    def __repr__(self) -> str:
        return f"Prices({len(self._table)} models)"


def checked_prices(prices: Any, where: str) -> Prices:
    """`prices` as a Prices table (None: the defaults; a dict: added to the defaults)."""
    if prices is None:
        return Prices()
    if isinstance(prices, Prices):
        return prices
    checked_instance(
        prices,
        where,
        "prices",
        Mapping,
        what="a Prices table or a dict of model name -> ModelPrice",
        hint='e.g. prices={"gemini-2.5-flash": ModelPrice(0.30, 2.50)}.',
    )
    return Prices(prices)
