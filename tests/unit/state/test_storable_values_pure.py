"""Values the session store cannot hold, at build: a constant is refused with a hint, and tuples
and str enums become what every store gives back (the run-time side is in
tests/behaviour/state/test_storable_values.py)."""

from __future__ import annotations

import datetime
import decimal

import pytest

from adk_fluent import BuildError, S


class Point:
    pass


@pytest.mark.parametrize(
    ("value", "fragment", "hint"),
    [
        (datetime.datetime(2026, 1, 1), "a datetime", "isoformat()"),
        (datetime.date(2026, 1, 1), "a date", "isoformat()"),
        ({1, 2}, "a set", "sorted(value)"),
        (b"\x00", "bytes", "base64"),
        (decimal.Decimal("1.5"), "a Decimal", "str(value)"),
        (Point(), "a Point object", "model_dump"),
        (float("nan"), "nan", "None"),
        ({"when": [datetime.time(9)]}, "state['slot']['when'][0] is a time", "isoformat()"),
        ({1: "one"}, "key 1 (int)", "str keys"),
    ],
)
def test_a_constant_the_store_cannot_hold_is_refused_at_build(value, fragment, hint):
    with pytest.raises(BuildError) as caught:
        S.set(slot=value)
    text = str(caught.value)
    assert "agent 'set_slot', field 'slot'" in text
    assert fragment in text and hint in text


def test_tuples_and_str_enums_become_what_every_store_gives_back():
    import enum

    class Tier(enum.StrEnum):
        GOLD = "gold"

    step = S.set(pair=(1, (2, 3)), tier=Tier.GOLD).step
    assert step.values == (("pair", [1, [2, 3]]), ("tier", "gold"))
    assert type(step.values[1][1]) is str
