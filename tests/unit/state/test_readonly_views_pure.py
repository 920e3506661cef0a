"""What taps, steps and predicates receive is read-only at every depth: a nested write raises
StateWriteError, while reading works as on plain values (the run-time side is in
tests/behaviour/state/test_readonly_views.py)."""

from __future__ import annotations

import copy
import json

import pytest

from adk_fluent import ReadOnlyState
from adk_fluent.errors import StateWriteError

NESTED_WRITES = {
    "append": lambda s: s["cart"].append(1),
    "setitem": lambda s: s["profile"].__setitem__("tier", "gold"),
    "deep": lambda s: s["profile"]["tags"].extend(["b"]),
    "iadd": lambda s: s["cart"].__iadd__([2]),
    "pop": lambda s: s["profile"].pop("tier"),
    "via_get": lambda s: s.get("cart").insert(0, "x"),
    "via_values": lambda s: next(iter(dict(s).values())).clear(),
}


@pytest.mark.parametrize("write", list(NESTED_WRITES))
def test_a_nested_write_raises_a_clear_error(write):
    state = ReadOnlyState({"cart": ["seed"], "profile": {"tier": "basic", "tags": ["a"]}}, "t")
    with pytest.raises(StateWriteError, match="tap 't' tried to change a value inside state"):
        NESTED_WRITES[write](state)


def test_reading_works_as_on_plain_values():
    data = {"cart": ["seed", {"n": 1}], "profile": {"tier": "basic"}}
    state = ReadOnlyState(data, "t")
    assert state["cart"] == ["seed", {"n": 1}] and isinstance(state["cart"], list)
    assert json.loads(json.dumps(dict(state))) == data
    mine = copy.deepcopy(state["cart"])
    mine.append("mine")  # a copy is the reader's own
    assert list(state["cart"]) + ["x"] == ["seed", {"n": 1}, "x"]
    assert state["cart"].copy() == ["seed", {"n": 1}] and type(state["cart"].copy()) is list
    assert data == {"cart": ["seed", {"n": 1}], "profile": {"tier": "basic"}}
