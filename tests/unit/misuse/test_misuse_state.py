"""Misuse of S steps, map_over and the other state-touching steps: each is refused at build with
the step, the field and a hint."""

from __future__ import annotations

import datetime
import decimal
import enum

import pytest

from adk_fluent import Agent, C, CapturedBy, S, map_over
from tests.support.misuse import case, check, ids


class _Color(enum.Enum):
    RED = 1


class _Thing:
    pass


def _two(a, b):
    return a


def _none():
    return None


def _kw_only(*, state):
    return state


CASES = [
    # S.set / S.default: constants every store can hold, under usable key names
    case("state-set-empty", lambda: S.set(), "S.set()", "at least one"),
    case("state-default-empty", lambda: S.default(), "S.default()", "at least one"),
    case(
        "state-set-datetime",
        lambda: S.set(when=datetime.datetime(2026, 1, 1)),
        "set_when",
        "field 'when'",
        "datetime",
        "isoformat",
    ),
    case("state-set-date", lambda: S.set(day=datetime.date(2026, 1, 1)), "a date", "isoformat"),
    case("state-set-time", lambda: S.set(at=datetime.time(9)), "a time", "isoformat"),
    case("state-set-set", lambda: S.set(tags={"a", "b"}), "field 'tags'", "a set", "sorted"),
    case("state-set-frozenset", lambda: S.set(tags=frozenset({"a"})), "frozenset", "list"),
    case("state-set-bytes", lambda: S.set(blob=b"\x00"), "bytes", "base64"),
    case("state-set-bytearray", lambda: S.set(blob=bytearray(2)), "bytearray", "base64"),
    case("state-set-decimal", lambda: S.set(price=decimal.Decimal("9.99")), "Decimal", "str("),
    case("state-set-object", lambda: S.set(thing=_Thing()), "_Thing object", "model_dump"),
    case("state-set-function", lambda: S.set(fn=len), "builtin_function_or_method", "plain data"),
    case("state-set-enum", lambda: S.set(color=_Color.RED), "Enum member", ".value"),
    case("state-set-nan", lambda: S.set(score=float("nan")), "nan", "None"),
    case("state-set-inf", lambda: S.set(score=float("-inf")), "-inf", "None"),
    case("state-set-int-keys", lambda: S.set(counts={1: "one"}), "key 1 (int)", "str keys"),
    case(
        "state-set-nested-datetime",
        lambda: S.set(cart=[{"added": datetime.datetime(2026, 1, 1)}]),
        "state['cart'][0]['added']",
        "datetime",
    ),
    case("state-set-cycle", lambda: (lambda x: (x.append(x), S.set(loop=x)))([]), "holds itself"),
    case("state-default-set", lambda: S.default(tags={"a"}), "default_tags", "a set"),
    case("state-set-empty-key", lambda: S.set(**{"": 1}), "must not be empty"),
    case("state-set-braces-key", lambda: S.set(**{"{x}": 1}), "braces"),
    case("state-set-bare-scope", lambda: S.set(**{"user:": 1}), "scope prefix"),
    case("state-set-padded-key", lambda: S.set(**{" tier": 1}), "spaces"),
    # S.rename / S.pick / S.drop
    case(
        "state-rename-value",
        lambda: S.rename(a=1),
        "rename_a",
        "field 'a'",
        "new key name",
        "S.set(a=",
    ),
    case("state-rename-empty", lambda: S.rename(), "S.rename()", "old='new'"),
    case("state-rename-to-itself", lambda: S.rename(a="a"), "to itself"),
    case("state-rename-collide", lambda: S.rename(a="c", b="c"), "two keys to 'c'"),
    case("state-rename-empty-name", lambda: S.rename(a=""), "must not be empty"),
    case("state-pick-nothing", lambda: S.pick(), "S.pick()", "at least one key"),
    case("state-pick-int", lambda: S.pick(1), "must be a str"),
    case("state-drop-nothing", lambda: S.drop(), "S.drop()", "at least one key"),
    case("state-drop-none", lambda: S.drop(None), "must be a str"),
    # S.transform / S.compute / S.guard / S.merge: functions of the right shape
    case(
        "state-transform-not-callable",
        lambda: S.transform("n", 5),
        "transform_n",
        "field 'fn'",
        "needs a function",
    ),
    case("state-transform-two-args", lambda: S.transform("n", _two), "_two(a, b)", "1 argument"),
    case("state-transform-no-args", lambda: S.transform("n", _none), "_none(nothing)"),
    case("state-transform-bad-key", lambda: S.transform("", str), "must not be empty"),
    case("state-compute-empty", lambda: S.compute(), "S.compute()", "at least one"),
    case(
        "state-compute-not-callable",
        lambda: S.compute(total=3),
        "compute_total",
        "field 'total'",
        "needs a function",
    ),
    case(
        "state-compute-two-args", lambda: S.compute(total=_two), "S.compute(total=fn)", "_two(a, b)"
    ),
    case("state-compute-kw-only", lambda: S.compute(total=_kw_only), "_kw_only(state)"),
    case(
        "state-guard-not-callable",
        lambda: S.guard(True),
        "guard",
        "field 'predicate'",
        "needs a function",
    ),
    case("state-guard-two-args", lambda: S.guard(_two), "_two(a, b)"),
    case(
        "state-guard-message-none",
        lambda: S.guard(bool, None),
        "field 'message'",
        "must be a str saying what failed",
    ),
    case("state-merge-no-into", lambda: S.merge("a", "b"), "field 'into'", "into="),
    case("state-merge-one-key", lambda: S.merge("a", into="b"), "at least two keys"),
    case("state-merge-same-key-twice", lambda: S.merge("a", "a", into="b"), "twice"),
    case(
        "state-merge-fn-arity",
        lambda: S.merge("a", "b", "c", into="d", fn=_two),
        "over 3 keys",
        "_two(a, b)",
    ),
    case(
        "state-merge-fn-not-callable",
        lambda: S.merge("a", "b", into="c", fn="sum"),
        "field 'fn'",
        "needs a function",
    ),
    case("state-log-bad-level", lambda: S.log("a", level="debug"), "field 'level'"),
    case("state-capture-no-key", lambda: S.capture(""), "must not be empty"),
    # map_over: keys that collide, bodies that are not steps, concurrency
    case(
        "state-map-over-item-is-output",
        lambda: map_over("docs", Agent("b"), item_key="x", output_key="x"),
        "map_docs",
        "'x'",
        "item_key and output_key",
        "cleared",
    ),
    case(
        "state-map-over-item-is-list",
        lambda: map_over("docs", Agent("b"), item_key="docs"),
        "'docs'",
        "list_key and item_key",
        "deleted",
    ),
    case(
        "state-map-over-output-is-list",
        lambda: map_over("docs", Agent("b"), item_key="doc", output_key="docs"),
        "list_key and output_key",
        "replace the input list",
    ),
    case("state-map-over-body-not-a-step", lambda: map_over("docs", 42), "int", "map_over"),
    case("state-map-over-body-a-class", lambda: map_over("docs", Agent), "map_over"),
    case(
        "state-map-over-concurrency-zero",
        lambda: map_over("docs", Agent("b"), concurrency=0),
        "field 'concurrency'",
        "0",
    ),
    case(
        "state-map-over-concurrency-bool",
        lambda: map_over("docs", Agent("b"), concurrency=True),
        "field 'concurrency'",
        "True",
    ),
    case(
        "state-map-over-concurrency-float",
        lambda: map_over("docs", Agent("b"), concurrency=1.5),
        "field 'concurrency'",
        "1.5",
    ),
    case(
        "state-map-over-empty-list-key",
        lambda: map_over("", Agent("b")),
        "list_key",
    ),
    # StateSchema's CapturedBy(producer)
    case(
        "captured-by-a-lambda",
        lambda: CapturedBy(lambda state: state["x"]),
        "CapturedBy",
        "producer",
        "<lambda>",
    ),
    case(
        "captured-by-a-context-spec-function",
        lambda: CapturedBy(C.user_only),
        "CapturedBy",
        "C.user_only",
        "writes state",
    ),
    case("captured-by-empty-name", lambda: CapturedBy(""), "CapturedBy", "agent's name"),
    case("captured-by-a-number", lambda: CapturedBy(3), "CapturedBy", "producer", "3"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
