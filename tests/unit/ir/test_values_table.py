"""What a state value may be, as tables (ir/values.py): which Python values every session store
can hold (and the plain copy that is stored), which it cannot (and the path of the bad part, e.g.
`['a'][2]`, with the fix), that `fresh()` copies are independent at every depth, and that the
read-only views steps and taps receive refuse every mutating method of a list and a dict.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import enum
import operator
import pickle
import types
from collections import OrderedDict

import pytest

from adk_fluent import ReadOnlyState
from adk_fluent.errors import StateWriteError
from adk_fluent.ir.values import FrozenDict, FrozenList, Unstorable, fresh, frozen, storable_copy


class Level(enum.IntEnum):
    HIGH = 3


class Color(enum.Enum):
    RED = 1


class Label(str):
    pass


class Ratio(float):
    pass


class Point:
    pass


def assert_same_plain(actual, expected):
    """Equal, and of exactly the same builtin types at every depth (no subclass survives)."""
    assert type(actual) is type(expected), (actual, expected)
    assert actual == expected
    if isinstance(expected, dict):
        for (key, value), (want_key, want_value) in zip(
            actual.items(), expected.items(), strict=True
        ):
            assert type(key) is type(want_key) and key == want_key
            assert_same_plain(value, want_value)
    elif isinstance(expected, list):
        for value, want in zip(actual, expected, strict=True):
            assert_same_plain(value, want)


def _cycle_list():
    items: list = []
    items.append(items)
    return items


def _cycle_dict():
    node: dict = {}
    node["me"] = node
    return node


def _deep(depth):
    root: list = []
    current = root
    for _ in range(depth):
        current.append([])
        current = current[0]
    return root


STORABLE = [
    ("none", None, None),
    ("true", True, True),
    ("false", False, False),
    ("zero", 0, 0),
    ("big-int", -(2**70), -(2**70)),
    ("float", 1.5, 1.5),
    ("empty-str", "", ""),
    ("unicode-str", "héllo ✓", "héllo ✓"),
    ("empty-list", [], []),
    ("empty-dict", {}, {}),
    ("tuple-becomes-list", (1, "a"), [1, "a"]),
    ("nested-tuples-in-dict", {"a": (1, (2,))}, {"a": [1, [2]]}),
    ("json-tree", [{"k": [None, True, 2.5]}], [{"k": [None, True, 2.5]}]),
    ("int-enum-becomes-int", Level.HIGH, 3),
    ("str-subclass-becomes-str", Label("x"), "x"),
    ("float-subclass-becomes-float", Ratio(2.5), 2.5),
    ("str-subclass-key-becomes-str", {Label("k"): Label("v")}, {"k": "v"}),
    ("ordered-dict-becomes-dict", OrderedDict([("b", 1), ("a", 2)]), {"b": 1, "a": 2}),
    ("mapping-proxy-becomes-dict", types.MappingProxyType({"a": [1]}), {"a": [1]}),
    ("frozen-view-becomes-plain", frozen({"a": [1, {"b": 2}]}, "t"), {"a": [1, {"b": 2}]}),
    ("shared-sublist-is-not-a-cycle", [[1], [1]], [[1], [1]]),
]


@pytest.mark.parametrize(
    ("value", "expected"), [pytest.param(*case[1:], id=case[0]) for case in STORABLE]
)
def test_a_storable_value_is_copied_as_every_store_gives_it_back(value, expected):
    stored, problem = storable_copy(value)
    assert problem is None
    assert_same_plain(stored, expected)


UNSTORABLE = [
    ("datetime", datetime.datetime(2026, 1, 1), "", "a datetime", "isoformat()"),
    ("date", datetime.date(2026, 1, 1), "", "a date", "isoformat()"),
    ("time", datetime.time(9), "", "a time", "isoformat()"),
    ("set", {1, 2}, "", "a set", "sorted(value)"),
    ("frozenset", frozenset({1}), "", "a frozenset", "list(value)"),
    ("bytes", b"x", "", "bytes", "base64"),
    ("bytearray", bytearray(b"x"), "", "bytearray", "base64"),
    ("memoryview", memoryview(b"x"), "", "memoryview", "base64"),
    ("decimal", decimal.Decimal("1.5"), "", "a Decimal", "str(value)"),
    ("plain-enum", Color.RED, "", "an Enum member", "value.value"),
    ("object", Point(), "", "a Point object", "model_dump"),
    ("builtin-function", len, "", "a builtin_function_or_method object", "plain data"),
    ("class", int, "", "a type object", "plain data"),
    ("complex", 1 + 2j, "", "a complex object", "plain data"),
    ("nan", float("nan"), "", "nan", "store None or a string"),
    ("inf", float("inf"), "", "inf", "unbounded"),
    ("minus-inf", float("-inf"), "", "-inf", "unbounded"),
    ("float-subclass-inf", Ratio("inf"), "", "inf", "unbounded"),
    ("int-key", {1: "one"}, "", "a dict with the key 1 (int)", "str keys"),
    ("tuple-key", {(1, 2): "x"}, "", "a dict with the key (1, 2) (tuple)", "str keys"),
    ("none-key", {None: 1}, "", "a dict with the key None (NoneType)", "str keys"),
    ("nested-int-key", {"a": {2: "x"}}, "['a']", "a dict with the key 2 (int)", "str keys"),
    (
        "deep-in-list",
        [1, 2, {"a": [0, 0, datetime.datetime(2026, 1, 1)]}],
        "[2]['a'][2]",
        "a datetime",
        "isoformat()",
    ),
    ("deep-in-dict", {"cart": [{"added": {1}}]}, "['cart'][0]['added']", "a set", "sorted"),
    ("quoted-key", {"it's": [1, {"b": b"x"}]}, "[\"it's\"][1]['b']", "bytes", "base64"),
    ("inside-tuples", ((1, {2}),), "[0][1]", "a set", "sorted"),
    ("list-holds-itself", _cycle_list(), "[0]", "a container that holds itself", "not a cycle"),
    ("dict-holds-itself", _cycle_dict(), "['me']", "a container that holds itself", "not a cycle"),
    ("nested-too-deeply", _deep(3000), "", "nested too deeply", "flatten"),
]


@pytest.mark.parametrize(
    ("value", "path", "what", "hint"), [pytest.param(*case[1:], id=case[0]) for case in UNSTORABLE]
)
def test_an_unstorable_value_is_refused_naming_where_and_what(value, path, what, hint):
    stored, problem = storable_copy(value)
    assert stored is None
    assert (problem.path, problem.what) == (path, what)
    assert hint in problem.hint


DESCRIBED = [
    (
        "top-level",
        "when",
        datetime.datetime(2026, 1, 1),
        "state['when'] is a datetime, which a session store cannot hold",
    ),
    (
        "nested",
        "cart",
        [{"sku": "a"}, {"tags": {"x"}}],
        "state['cart'][1]['tags'] is a set, which a session store cannot hold",
    ),
    (
        "scoped-key",
        "user:prefs",
        {"x": float("inf")},
        "state['user:prefs']['x'] is inf, which a session store cannot hold",
    ),
]


@pytest.mark.parametrize(
    ("key", "value", "sentence"), [pytest.param(*case[1:], id=case[0]) for case in DESCRIBED]
)
def test_describe_names_the_state_key_and_the_path(key, value, sentence):
    _, problem = storable_copy(value)
    assert problem.describe(key) == sentence


def test_an_unstorable_record_is_a_frozen_value():
    problem = Unstorable("[0]", "a set", "store a list")
    assert problem == Unstorable("[0]", "a set", "store a list")
    with pytest.raises(AttributeError):
        problem.path = ""  # type: ignore[misc]


def test_a_storable_copy_shares_no_container_with_the_original():
    shared = [1]
    original = {"a": [shared, shared], "b": {"c": ["x"]}}
    stored, _ = storable_copy(original)
    stored["a"][0].append(2)  # the two copies of `shared` are separate lists
    stored["b"]["c"].append("y")
    assert stored == {"a": [[1, 2], [1]], "b": {"c": ["x", "y"]}}
    assert original == {"a": [[1], [1]], "b": {"c": ["x"]}}


def test_a_storable_copy_of_a_frozen_view_can_be_changed():
    stored, _ = storable_copy(frozen({"cart": ["a"]}, "t"))
    stored["cart"].append("b")
    stored["new"] = 1
    assert stored == {"cart": ["a", "b"], "new": 1}


# -- fresh -------------------------------------------------------------------------------------


def _append_nested(c):
    c["a"].append(9)


def _set_in_list_item(c):
    c[0]["k"] = 2


def _append_in_tuple(c):
    c[0].append("z")


def _deepest(c):
    c["a"][0]["b"].append(2)


def _top_level(c):
    c.append("z")


FRESH = [
    ("dict-of-list", lambda: {"a": [1]}, _append_nested, {"a": [1]}),
    ("list-of-dicts", lambda: [{"k": 1}], _set_in_list_item, [{"k": 1}]),
    ("tuple-of-list", lambda: (["a"],), _append_in_tuple, (["a"],)),
    ("four-levels", lambda: {"a": [{"b": [1]}]}, _deepest, {"a": [{"b": [1]}]}),
    ("top-level-list", lambda: ["a"], _top_level, ["a"]),
]


@pytest.mark.parametrize(
    ("make", "mutate", "snapshot"), [pytest.param(*case[1:], id=case[0]) for case in FRESH]
)
def test_mutating_a_fresh_copy_leaves_the_original(make, mutate, snapshot):
    original = make()
    copied = fresh(original)
    assert copied == snapshot and copied is not original
    mutate(copied)
    assert original == snapshot
    assert copied != snapshot


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        pytest.param(frozen(["a", ["b"]], "t"), ["a", ["b"]], id="frozen-list"),
        pytest.param(
            frozen({"a": ["b"], "c": {"d": 1}}, "t"), {"a": ["b"], "c": {"d": 1}}, id="frozen-dict"
        ),
    ],
)
def test_fresh_turns_a_frozen_view_into_plain_mutable_values(view, expected):
    copied = fresh(view)
    assert_same_plain(copied, expected)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("text", id="str"),
        pytest.param(7, id="int"),
        pytest.param(None, id="none"),
        pytest.param(Point(), id="object"),
    ],
)
def test_fresh_returns_a_non_container_as_it_is(value):
    assert fresh(value) is value


# -- frozen views ------------------------------------------------------------------------------

LIST_WRITES = {
    "append": lambda v: v.append("z"),
    "extend": lambda v: v.extend(["z"]),
    "insert": lambda v: v.insert(0, "z"),
    "remove": lambda v: v.remove("a"),
    "pop": lambda v: v.pop(),
    "clear": lambda v: v.clear(),
    "sort": lambda v: v.sort(key=str),
    "reverse": lambda v: v.reverse(),
    "setitem": lambda v: operator.setitem(v, 0, "z"),
    "setitem-slice": lambda v: operator.setitem(v, slice(0, 1), []),
    "delitem": lambda v: operator.delitem(v, 0),
    "iadd": lambda v: operator.iadd(v, ["z"]),
    "imul": lambda v: operator.imul(v, 2),
}


@pytest.mark.parametrize("write", list(LIST_WRITES))
def test_a_frozen_list_refuses_every_mutating_method(write):
    view = frozen(["b", "a", ["c"]], "step 'x'")
    with pytest.raises(StateWriteError, match="^step 'x' tried to change a value inside state"):
        LIST_WRITES[write](view)
    assert view == ["b", "a", ["c"]]


DICT_WRITES = {
    "update": lambda v: v.update(z=1),
    "pop": lambda v: v.pop("a"),
    "popitem": lambda v: v.popitem(),
    "setdefault": lambda v: v.setdefault("z", 1),
    "clear": lambda v: v.clear(),
    "setitem": lambda v: operator.setitem(v, "a", 2),
    "delitem": lambda v: operator.delitem(v, "a"),
    "ior": lambda v: operator.ior(v, {"z": 1}),
}


@pytest.mark.parametrize("write", list(DICT_WRITES))
def test_a_frozen_dict_refuses_every_mutating_method(write):
    view = frozen({"a": 1, "b": [2]}, "tap 'y'")
    with pytest.raises(StateWriteError, match="^tap 'y' tried to change a value inside state"):
        DICT_WRITES[write](view)
    assert view == {"a": 1, "b": [2]}


NESTED_WRITES = {
    "list-in-dict": ({"a": {"b": [1]}}, lambda v: v["a"]["b"].append(2)),
    "dict-in-list": ([{"k": 1}], lambda v: v[0].update(k=2)),
    "list-in-tuple": (([1],), lambda v: v[0].append(2)),
}


@pytest.mark.parametrize("case", list(NESTED_WRITES))
def test_a_frozen_view_refuses_writes_at_any_depth(case):
    value, write = NESTED_WRITES[case]
    snapshot = copy.deepcopy(value)
    view = frozen(value, "o")
    with pytest.raises(StateWriteError, match="^o tried to change"):
        write(view)
    assert value == snapshot and view == snapshot


@pytest.mark.parametrize(
    ("value", "view_type"),
    [
        pytest.param(["a"], FrozenList, id="list"),
        pytest.param({"a": 1}, FrozenDict, id="dict"),
    ],
)
def test_a_frozen_view_reads_like_the_plain_value(value, view_type):
    view = frozen(value, "o")
    assert type(view) is view_type and isinstance(view, type(value))
    assert view == value and len(view) == 1


@pytest.mark.parametrize(
    "value", [pytest.param(5, id="int"), pytest.param("s", id="str"), pytest.param(None, id="none")]
)
def test_frozen_returns_a_scalar_as_it_is(value):
    assert frozen(value, "o") is value


COPIES = [
    ("copy-list", ["a", ["b"]], copy.copy, list),
    ("copy-dict", {"a": ["b"]}, copy.copy, dict),
    ("deepcopy-dict", {"a": ["b"]}, copy.deepcopy, dict),
    ("pickle-list", ["a", ["b"]], lambda v: pickle.loads(pickle.dumps(v)), list),
    ("pickle-dict", {"a": ["b"]}, lambda v: pickle.loads(pickle.dumps(v)), dict),
    ("dict-copy-method", {"a": ["b"]}, lambda v: v.copy(), dict),
]


@pytest.mark.parametrize(
    ("value", "make_copy", "plain"), [pytest.param(*case[1:], id=case[0]) for case in COPIES]
)
def test_a_copy_of_a_frozen_view_is_a_plain_value_the_reader_owns(value, make_copy, plain):
    view = frozen(value, "o")
    mine = make_copy(view)
    assert type(mine) is plain and mine == value
    if plain is list:
        mine.append("mine")
    else:
        mine["mine"] = 1
    assert view == value  # the view is unchanged by the reader's own copy


STATE_WRITES = {
    "setitem": lambda s: operator.setitem(s, "a", 2),
    "delitem": lambda s: operator.delitem(s, "a"),
    "update": lambda s: s.update(a=2),
    "pop": lambda s: s.pop("a"),
    "popitem": lambda s: s.popitem(),
    "setdefault": lambda s: s.setdefault("z", 1),
    "clear": lambda s: s.clear(),
}


@pytest.mark.parametrize("write", list(STATE_WRITES))
def test_read_only_state_refuses_every_top_level_write(write):
    data = {"a": 1}
    state = ReadOnlyState(data, "t")
    with pytest.raises(StateWriteError, match="^tap 't' tried to change state; .* S.set"):
        STATE_WRITES[write](state)
    assert data == {"a": 1}


def test_read_only_state_names_its_owner_and_reads_like_a_mapping():
    state = ReadOnlyState({"a": 1, "cart": ["x"]}, "s", "step 's'")
    with pytest.raises(StateWriteError, match="^step 's' tried to change state"):
        state["a"] = 2
    with pytest.raises(StateWriteError, match="^step 's' tried to change a value inside state"):
        state["cart"].append("y")
    assert ("a" in state, "b" in state, len(state), sorted(state)) == (
        True,
        False,
        2,
        ["a", "cart"],
    )
    assert state.get("b", "none") == "none"
