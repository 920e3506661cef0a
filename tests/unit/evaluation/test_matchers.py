"""Value matchers: ANY, Regex, predicates, nested mappings and lists, and their file encoding."""

from __future__ import annotations

import json
import pickle

import pytest

from adk_fluent.errors import EvalError
from adk_fluent.evaluation import ANY, Regex
from adk_fluent.evaluation.matchers import (
    check_value,
    decode,
    encode,
    is_matcher,
    serializable,
    show,
)


def test_any_accepts_every_value_and_a_missing_key():
    assert check_value(ANY, None) is None
    assert check_value(ANY, {"x": [1]}) is None
    assert check_value(ANY, None, present=False) is None
    assert check_value({"date": ANY}, {}) is None


def test_only_any_accepts_a_missing_key():
    assert check_value("Paris", None, present=False) == "missing"
    assert check_value({"city": "Paris"}, {}) == "['city']: missing"
    assert check_value({"ref": Regex("^BK")}, {}) == "['ref']: missing"


def test_any_is_one_object_that_survives_pickling():
    assert pickle.loads(pickle.dumps(ANY)) is ANY
    assert repr(ANY) == "ANY"


def test_regex_searches_strings():
    assert check_value(Regex(r"BK-\d+"), "ref BK-17 ok") is None
    assert check_value(Regex(r"^BK-\d+$"), "ref BK-17") == "'ref BK-17' does not match /^BK-\\d+$/"


@pytest.mark.parametrize("value", [17, None, ["BK-1"], {"ref": "BK-1"}])
def test_regex_refuses_a_value_that_is_not_a_string(value):
    reason = check_value(Regex("BK"), value)
    assert reason is not None and "not a string" in reason


def test_plain_values_compare_with_equality_and_int_equals_float():
    assert check_value(1, 1.0) is None
    assert check_value("Paris", "Paris") is None
    assert check_value("Paris", "Rome") == "'Rome' != 'Paris'"


@pytest.mark.parametrize(("expected", "actual"), [(True, 1), (1, True), (False, 0), (0, False)])
def test_bool_is_not_an_int(expected, actual):
    assert check_value(expected, actual) is not None


def test_bool_equals_bool():
    assert check_value(True, True) is None
    assert check_value(False, True) is not None


def test_nested_mappings_check_every_key_and_refuse_extra_keys():
    expected = {"trip": {"city": "Paris", "ref": Regex("^BK"), "date": ANY}}
    assert check_value(expected, {"trip": {"city": "Paris", "ref": "BK-1"}}) is None
    assert (
        check_value(expected, {"trip": {"city": "Rome", "ref": "BK-1"}})
        == "['trip']: ['city']: 'Rome' != 'Paris'"
    )
    assert (
        check_value(expected, {"trip": {"city": "Paris", "ref": "BK-1", "seat": "1A"}})
        == "['trip']: unexpected key 'seat'"
    )


def test_lists_match_item_by_item_and_by_length():
    assert check_value([1, Regex("a"), ANY], [1, "cat", None]) is None
    assert check_value([1, 2], [1, 2, 3]) == "3 items, expected 2"
    assert check_value([1, {"k": 2}], [1, {"k": 3}]) == "[1]: ['k']: 3 != 2"
    assert check_value((1, 2), [1, 2]) is None  # a tuple expectation checks a JSON list


def test_a_mapping_against_a_non_mapping_is_a_mismatch():
    assert check_value({"a": 1}, [("a", 1)]) is not None
    assert check_value([1], "1") is not None


def test_a_predicate_decides_and_is_named_in_the_reason():
    def positive(value):
        return value > 0

    assert check_value(positive, 3) is None
    assert check_value(positive, -1) == "-1 fails positive()"
    assert check_value(lambda v: v > 0, -1) == "-1 fails the check"


def test_a_predicate_that_raises_is_a_failed_check_with_its_reason():
    reason = check_value(lambda v: v > 0, "high")
    assert reason is not None
    assert reason.startswith("the check raised TypeError")


def test_encode_writes_matchers_as_match_objects():
    encoded = encode({"city": "Paris", "date": ANY, "ref": Regex("^BK"), "legs": [ANY, 2]})
    assert encoded == {
        "city": "Paris",
        "date": {"$match": "any"},
        "ref": {"$match": "regex", "pattern": "^BK"},
        "legs": [{"$match": "any"}, 2],
    }
    json.dumps(encoded)  # plain JSON


def test_decode_inverts_encode_through_json():
    value = {"city": "Paris", "date": ANY, "ref": Regex(r"^BK-\d+$"), "legs": [ANY, {"n": 2}]}
    back = decode(json.loads(json.dumps(encode(value))))
    assert back == value
    assert back["date"] is ANY


@pytest.mark.parametrize(
    "raw",
    [
        {"$match": "glob", "pattern": "*"},
        {"$match": "any", "extra": 1},
        {"$match": "regex"},
        {"outer": {"$match": "fuzzy"}},
    ],
)
def test_decode_refuses_an_unknown_matcher(raw):
    with pytest.raises(EvalError) as caught:
        decode(raw, where="book args")
    assert "unknown matcher" in str(caught.value)
    assert "book args" in str(caught.value)
    assert "hint" in str(caught.value)


def test_decode_checks_the_regex_pattern_it_reads():
    with pytest.raises(EvalError, match="not a valid regular expression"):
        decode({"$match": "regex", "pattern": "("})


def test_serializable_is_false_only_for_predicates():
    assert serializable({"a": ANY, "b": [Regex("x"), 1]})
    assert not serializable({"a": [lambda v: True]})


def test_is_matcher_and_show():
    assert is_matcher(ANY) and is_matcher(Regex("x"))
    assert not is_matcher("x") and not is_matcher(len)

    def positive(value):
        return value > 0

    assert show(Regex("^BK")) == "Regex('^BK')"
    assert show(positive) == "positive()"
    assert show(lambda v: v) == "the check"
    assert show("Paris") == "'Paris'"
