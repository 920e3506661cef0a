"""Prices: what one call costs from its token counts, and which table entry prices a model."""

from __future__ import annotations

import pytest

from adk_fluent import ModelPrice, Prices
from adk_fluent.ir.prices import DEFAULT_PRICES, checked_prices


def test_cost_splits_cached_and_thinking_tokens():
    price = ModelPrice(input=1.0, output=10.0, cached=0.1, thinking=5.0)
    # 1000 prompt tokens of which 400 cached, 50 output, 20 thinking
    assert price.cost(1000, 50, cached_tokens=400, thinking_tokens=20) == pytest.approx(
        (600 * 1.0 + 400 * 0.1 + 50 * 10.0 + 20 * 5.0) / 1e6
    )


def test_cached_and_thinking_default_to_input_and_output_rates():
    price = ModelPrice(2.0, 8.0)
    assert price.cost(100, 10, cached_tokens=100, thinking_tokens=10) == pytest.approx(
        (100 * 2.0 + 20 * 8.0) / 1e6
    )


def test_long_context_tier_applies_above_its_threshold_only():
    pro = DEFAULT_PRICES["gemini-2.5-pro"]
    assert pro.cost(200_000, 0) == pytest.approx(200_000 * 1.25 / 1e6)
    assert pro.cost(200_001, 1000) == pytest.approx((200_001 * 2.50 + 1000 * 15.0) / 1e6)


def test_more_cached_tokens_than_the_prompt_never_go_negative():
    assert ModelPrice(1.0, 1.0, cached=0.5).cost(10, 0, cached_tokens=50) == pytest.approx(5e-6)


@pytest.mark.parametrize(
    ("model", "entry"),
    [
        ("gemini-2.5-flash", "gemini-2.5-flash"),
        ("gemini-2.5-flash-scripted", "gemini-2.5-flash"),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash-lite"),
        ("gemini-2.5-flash-lite-preview-06-17", "gemini-2.5-flash-lite"),
        ("models/gemini-2.5-pro", "gemini-2.5-pro"),
        (
            "projects/p/locations/l/publishers/google/models/gemini-2.0-flash-001",
            "gemini-2.0-flash",
        ),
        ("gpt-4o", None),
        ("", None),
        (None, None),
    ],
)
def test_the_longest_prefix_prices_a_model(model, entry):
    assert Prices().matched_name(model) == entry


def test_overrides_add_to_the_defaults_or_replace_them():
    table = Prices({"my-model": (1.0, 2.0), "gemini-2.5-flash": ModelPrice(9.0, 9.0)})
    assert table.cost("my-model", 1_000_000, 0) == pytest.approx(1.0)
    assert table.price_of("gemini-2.5-flash-001") == ModelPrice(9.0, 9.0)
    assert table.price_of("gemini-2.5-pro") == DEFAULT_PRICES["gemini-2.5-pro"]
    only = Prices({"my-model": (1.0, 2.0)}, defaults=False)
    assert only.models == ("my-model",) and only.cost("gemini-2.5-pro", 10, 10) is None


def test_tables_compare_by_value():
    assert Prices() == Prices() and hash(Prices()) == hash(Prices())
    assert Prices({"m": (1, 2)}) != Prices()


def test_checked_prices_takes_none_a_table_or_a_dict():
    assert checked_prices(None, "x") == Prices()
    table = Prices({"m": (1, 2)})
    assert checked_prices(table, "x") is table
    assert checked_prices({"m": ModelPrice(1, 2)}, "x") == table
