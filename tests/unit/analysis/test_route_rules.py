"""Route's rules as tables, without a Runner: how a label is normalised, which values each rule
kind (eq / ne / contains / gt / gte / lt / lte / when) accepts, and which branch a Route picks
when several rules could (the first in order wins, `.otherwise()` catches the rest).

Everything here goes through the pure functions RouteAgent itself calls
(`adk_fluent.ir.route_rules.normalise_label` and `matches`) on the Route's own IR. A missing or
None value never reaches a rule (RouteAgent sends it to `.otherwise()` or fails); that part runs
through the real Runner in tests/behaviour/primitives/test_control_flow.py.
"""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Route
from adk_fluent.ir.nodes import RouteRule
from adk_fluent.ir.route_rules import matches, normalise_label


def accepts(op, target, value, normalize=True, state=None):
    """Whether one rule accepts a state value, called the way RouteAgent calls it."""
    label = normalise_label(value, normalize)
    return matches(RouteRule(op, target), label, value, normalize, state or {})


def branch_for(route, state):
    """The branch RouteAgent runs for a present (non-None) value: the first rule that matches, in
    the order they were added; else the `.otherwise()` branch; None when nothing takes it."""
    node = route.to_ir()
    value = state[node.key]
    label = normalise_label(value, node.normalize)
    for rule, child in zip(node.rules, node.children, strict=False):
        if matches(rule, label, value, node.normalize, state):
            return child.name
    return node.children[-1].name if node.has_otherwise else None


# -- the default label normalisation ------------------------------------------------------------
NORMALISED = [
    ("newline-and-full-stop", "Booking.\n", "booking"),
    ("bold", "**booking**", "booking"),
    ("shouting", "BOOKING", "booking"),
    ("double-quoted", '"info"', "info"),
    ("single-quoted", "'info'", "info"),
    ("backticks", "`info`", "info"),
    ("underscores-as-emphasis", "_info_", "info"),
    ("tabs-and-carriage-return", "\tinfo\r\n", "info"),
    ("exclamation", "Info!", "info"),
    ("ellipsis", "booking...", "booking"),
    ("question-and-bang", "Refund?!", "refund"),
    ("colon", "intent:", "intent"),
    ("semicolon-and-comma", "info;,", "info"),
    ("punctuation-inside-quotes", '"Booking."', "booking"),
    ("bold-around-punctuation", "**Booking.**", "booking"),
    ("quote-after-punctuation", 'Booking."', "booking"),
    ("inner-space-kept", "  Book A Flight  ", "book a flight"),
    ("inner-punctuation-kept", "a.b", "a.b"),
    ("leading-punctuation-kept", "...booking", "...booking"),
    ("inner-hyphen-kept", "Follow-Up", "follow-up"),
    ("only-punctuation", "...", ""),
    ("empty", "", ""),
    ("casefold-not-lower", "Straße", "strasse"),
]


@pytest.mark.parametrize(
    ("value", "expected"), [c[1:] for c in NORMALISED], ids=[c[0] for c in NORMALISED]
)
def test_default_normalisation_of_a_label(value, expected):
    assert normalise_label(value) == expected


NOT_STRINGS = [
    ("int", 42),
    ("float", 0.5),
    ("bool", True),
    ("list", ["Booking."]),
    ("dict", {"Intent": "Booking."}),
]


@pytest.mark.parametrize("value", [c[1] for c in NOT_STRINGS], ids=[c[0] for c in NOT_STRINGS])
def test_values_that_are_not_text_are_compared_as_they_are(value):
    assert normalise_label(value) == value
    assert normalise_label(value, str.upper) == value  # a normalize function sees text only


def _first_word(text):
    return text.split()[0].lower()


OTHER_NORMALIZE = [
    ("off-keeps-everything", False, " Booking.\n", " Booking.\n"),
    ("function-upper", str.upper, "Booking.", "BOOKING."),
    ("function-first-word", _first_word, "Book a flight", "book"),
    ("function-replaces-default", str.strip, "**Info**", "**Info**"),
]


@pytest.mark.parametrize(
    ("normalize", "value", "expected"),
    [c[1:] for c in OTHER_NORMALIZE],
    ids=[c[0] for c in OTHER_NORMALIZE],
)
def test_normalize_false_or_a_function(normalize, value, expected):
    assert normalise_label(value, normalize) == expected


# -- one rule: (kind, rule argument, state value) -> accepted? ----------------------------------
RULES = [
    # eq: both sides normalised
    ("eq-messy-label", "eq", "booking", "Booking.\n", True),
    ("eq-messy-rule-value", "eq", "Booking!", "booking", True),
    ("eq-plural-is-another-word", "eq", "booking", "bookings", False),
    ("eq-inner-space-differs", "eq", "booking", "book ing", False),
    ("eq-prefix-only", "eq", "book", "booking", False),
    ("eq-int", "eq", 3, 3, True),
    ("eq-int-and-float", "eq", 3, 3.0, True),
    ("eq-other-int", "eq", 3, 4, False),
    ("eq-false", "eq", False, False, True),
    ("eq-text-is-not-a-bool", "eq", "yes", True, False),
    # ne: the negation of eq, normalised the same way
    ("ne-same-after-normalising", "ne", "en", "EN.", False),
    ("ne-other-label", "ne", "en", "fr", True),
    ("ne-number-against-text", "ne", "en", 7, True),
    # contains: a substring of the normalised label (or an item of a list value)
    ("contains-inside-a-sentence", "contains", "refund", "I want a REFUND.", True),
    ("contains-rule-value-normalised", "contains", "Refund!", "refund please", True),
    ("contains-prefix-of-a-word", "contains", "refund", "refunds", True),
    ("contains-broken-word", "contains", "refund", "re-fund", False),
    ("contains-whole-label", "contains", "info", "Info.", True),
    ("contains-number-value", "contains", "4", 42, False),
    ("contains-list-item", "contains", "refund", ["refund", "later"], True),
    ("contains-list-without-item", "contains", "refund", ["billing"], False),
    # gt / gte / lt / lte: numbers, and text that reads as a number
    ("gt-above", "gt", 50, 51, True),
    ("gt-equal", "gt", 50, 50, False),
    ("gte-equal", "gte", 50, 50, True),
    ("gte-below", "gte", 50, 49.9, False),
    ("lt-below", "lt", 0, -0.5, True),
    ("lt-equal", "lt", 0, 0, False),
    ("lte-equal", "lte", 0, 0, True),
    ("lte-above", "lte", 0, 0.01, False),
    ("gt-numeric-text", "gt", 50, "72", True),
    ("gt-padded-numeric-text", "gt", 50, " 72 ", True),
    ("gt-numeric-text-full-stop", "gt", 50, "72.", True),
    ("gte-numeric-text-bang", "gte", 90, "90!", True),
    ("gt-exponent-text", "gt", 99, "1e2", True),
    ("lt-negative-text", "lt", 0, "-2", True),
    ("gt-decimal-text", "gt", 0.5, "0.75", True),
    ("gt-infinity-text", "gt", 1e9, "inf", True),
    ("gt-nan-text", "gt", 0, "nan", False),
    ("lt-nan-text", "lt", 0, "nan", False),
    ("gt-text-with-a-unit", "gt", 50, "72 points", False),
    ("gt-thousands-separator", "gt", 0, "1,000", False),
    ("gt-empty-text", "gt", -1, "", False),
    ("gt-word", "gt", 0, "high", False),
    ("gt-true-is-not-one", "gt", 0, True, False),
    ("lt-false-is-not-zero", "lt", 1, False, False),
    ("gt-list", "gt", 0, [5], False),
]


@pytest.mark.parametrize(
    ("op", "target", "value", "expected"), [c[1:] for c in RULES], ids=[c[0] for c in RULES]
)
def test_one_rule_against_one_value(op, target, value, expected):
    assert accepts(op, target, value) is expected


EXACT_OR_CUSTOM = [
    ("off-case-differs", "eq", "booking", "Booking", False, False),
    ("off-identical", "eq", "Booking", "Booking", False, True),
    ("off-trailing-newline", "eq", "booking", "booking\n", False, False),
    ("off-contains-case-sensitive", "contains", "refund", "REFUND", False, False),
    ("off-ne-case-differs", "ne", "booking", "Booking", False, True),
    ("function-both-sides", "eq", "BOOK now", "Book a flight", _first_word, True),
    ("function-other-word", "eq", "book", "Cancel my booking", _first_word, False),
    ("function-numbers-untouched", "eq", 5, 5, str.upper, True),
    ("function-upper-contains", "contains", "ref", "a Refund", str.upper, True),
]


@pytest.mark.parametrize(
    ("op", "target", "value", "normalize", "expected"),
    [c[1:] for c in EXACT_OR_CUSTOM],
    ids=[c[0] for c in EXACT_OR_CUSTOM],
)
def test_one_rule_with_normalize_off_or_a_function(op, target, value, normalize, expected):
    assert accepts(op, target, value, normalize) is expected


def _vip(state):
    return state.get("vip")


WHEN = [
    ("predicate-true", {"k": "x", "vip": True}, True),
    ("predicate-none", {"k": "x"}, False),
    ("truthy-text", {"k": "x", "vip": "yes"}, True),
    ("falsy-zero", {"k": "x", "vip": 0}, False),
    ("falsy-empty-list", {"k": "x", "vip": []}, False),
]


@pytest.mark.parametrize(("state", "expected"), [c[1:] for c in WHEN], ids=[c[0] for c in WHEN])
def test_when_asks_the_predicate_about_the_whole_state(state, expected):
    # the routed value itself plays no part in a when() rule
    assert accepts("when", _vip, state["k"], state=state) is expected


def test_a_raising_when_predicate_or_normalize_function_propagates():
    """RouteAgent turns these exceptions into one error event, so the pure layer must not
    swallow them (or a broken predicate would silently mean 'no match')."""
    with pytest.raises(ZeroDivisionError):
        accepts("when", lambda state: 1 / 0, "x")
    with pytest.raises(IndexError):
        normalise_label("   ", _first_word)  # ''.split()[0]


# -- a whole Route: which branch, when several rules could take the value ------------------------
def _router():
    return (
        Route("intent")
        .eq("booking", Agent("booker"))
        .eq("info", Agent("info"))
        .otherwise(Agent("helper"))
    )


ROUTER = [
    ("backticks", "`booking`", "booker"),
    ("shouting-with-bangs", "BOOKING!!!", "booker"),
    ("question", "booking?", "booker"),
    ("quoted-with-full-stop", "'Info.'", "info"),
    ("emphasis", "_info_", "info"),
    ("prefix-only", "book", "helper"),
    ("two-labels", "booking info", "helper"),
    ("plural", "bookings", "helper"),
    ("empty", "", "helper"),
    ("not-text", 42, "helper"),
]


@pytest.mark.parametrize(("value", "branch"), [c[1:] for c in ROUTER], ids=[c[0] for c in ROUTER])
def test_a_label_router(value, branch):
    assert branch_for(_router(), {"intent": value}) == branch


def _ladder():
    return (
        Route("score")
        .gte(90, Agent("vip"))
        .gt(50, Agent("regular"))
        .lte(50, Agent("low"))
        .otherwise(Agent("unscored"))
    )


LADDER = [
    ("exactly-90", 90, "vip"),
    ("just-below-90", 89.99, "regular"),
    ("text-90", "90", "vip"),
    ("padded-text", " 72 ", "regular"),
    ("exactly-50-text", "50", "low"),
    ("exactly-50-text-full-stop", "50.", "low"),
    ("negative-text", "-3", "low"),
    ("exponent-text", "1e2", "vip"),
    ("zero", 0, "low"),
    ("a-word", "high", "unscored"),
    ("a-bool", True, "unscored"),
    ("text-with-unit", "72 points", "unscored"),
]


@pytest.mark.parametrize(("value", "branch"), [c[1:] for c in LADDER], ids=[c[0] for c in LADDER])
def test_a_numeric_ladder(value, branch):
    assert branch_for(_ladder(), {"score": value}) == branch


ORDER = [
    (
        "contains-before-eq-wins",
        Route("k").contains("book", Agent("a")).eq("booking", Agent("b")),
        {"k": "booking"},
        "a",
    ),
    (
        "eq-before-contains-wins",
        Route("k").eq("booking", Agent("b")).contains("book", Agent("a")),
        {"k": "booking"},
        "b",
    ),
    (
        "eq-misses-then-contains",
        Route("k").eq("booking", Agent("b")).contains("book", Agent("a")),
        {"k": "book it"},
        "a",
    ),
    (
        "looser-comparison-first-wins",
        Route("n").gt(10, Agent("a")).gt(50, Agent("b")),
        {"n": 60},
        "a",
    ),
    (
        "same-label-twice-first-wins",
        Route("k").eq("x", Agent("a")).eq("X.", Agent("b")),
        {"k": "x"},
        "a",
    ),
    (
        "when-first-wins",
        Route("k").when(_vip, Agent("v")).eq("booking", Agent("b")),
        {"k": "booking", "vip": True},
        "v",
    ),
    (
        "when-false-falls-through",
        Route("k").when(_vip, Agent("v")).eq("booking", Agent("b")),
        {"k": "booking", "vip": False},
        "b",
    ),
    (
        "otherwise-only-after-every-rule",
        Route("k").otherwise(Agent("o")).eq("x", Agent("a")),
        {"k": "x"},
        "a",
    ),
    (
        "ne-catches-everything-else",
        Route("lang").eq("en", Agent("direct")).ne("en", Agent("translator")),
        {"lang": "FR"},
        "translator",
    ),
    (
        "no-match-no-otherwise",
        Route("k").eq("x", Agent("a")).contains("y", Agent("b")),
        {"k": "zzz"},
        None,
    ),
    (
        "exact-route-misses-messy-label",
        Route("k", normalize=False).eq("booking", Agent("a")).otherwise(Agent("o")),
        {"k": "booking."},
        "o",
    ),
]


@pytest.mark.parametrize(
    ("route", "state", "branch"), [c[1:] for c in ORDER], ids=[c[0] for c in ORDER]
)
def test_rules_are_tried_in_the_order_they_were_added(route, state, branch):
    assert branch_for(route, state) == branch


# -- what the Route's IR records for RouteAgent ----------------------------------------------
def _always(state):
    return True


IR = [
    (
        "otherwise-is-last-whatever-the-call-order",
        Route("k").otherwise(Agent("o")).eq("x", Agent("a")).gt(3, Agent("b")),
        [("eq", "x", "a"), ("gt", 3, "b")],
        "o",
    ),
    (
        "no-otherwise",
        Route("k").contains("x", Agent("a")).lte(0, Agent("b")),
        [("contains", "x", "a"), ("lte", 0, "b")],
        None,
    ),
    (
        "when-keeps-its-predicate",
        Route("k").when(_always, Agent("a")).ne("y", Agent("b")),
        [("when", _always, "a"), ("ne", "y", "b")],
        None,
    ),
    ("only-otherwise", Route("k").otherwise(Agent("o")), [], "o"),
    (
        "a-later-otherwise-replaces-the-first",
        Route("k").eq("x", Agent("a")).otherwise(Agent("o1")).otherwise(Agent("o2")),
        [("eq", "x", "a")],
        "o2",
    ),
]


@pytest.mark.parametrize(
    ("route", "rules", "otherwise"), [c[1:] for c in IR], ids=[c[0] for c in IR]
)
def test_the_ir_pairs_each_rule_with_its_branch_and_puts_otherwise_last(route, rules, otherwise):
    node = route.to_ir()
    branches = [child.name for child in node.children]
    assert [(r.op, r.value) for r in node.rules] == [(op, value) for op, value, _ in rules]
    assert branches[: len(rules)] == [name for _, _, name in rules]
    assert node.has_otherwise is (otherwise is not None)
    assert branches[len(rules) :] == ([otherwise] if otherwise else [])


@pytest.mark.parametrize(
    ("normalize", "expected"),
    [(True, True), (False, False), (str.lower, str.lower)],
    ids=["default", "off", "function"],
)
def test_the_ir_carries_the_normalize_setting(normalize, expected):
    node = Route("k", normalize=normalize).eq("x", Agent("a")).to_ir()
    assert node.normalize is expected
