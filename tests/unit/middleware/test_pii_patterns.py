"""pii_filter's detection, pure: each built-in pattern (and what it must not take), the Luhn and
IBAN checks, overlapping findings, custom patterns and a detector, the placeholder."""

from __future__ import annotations

import re

import pytest

from adk_fluent.errors import AdkFluentError
from adk_fluent.middleware.pii import BUILTIN_NAMES, iban_valid, luhn_valid, pii_filter


def kinds(text: str, **options) -> list[tuple[str, str]]:
    """(kind, matched text) of every finding."""
    return [(s.kind, text[s.start : s.end]) for s in pii_filter(**options).find(text)]


def test_the_built_ins_are_named():
    assert BUILTIN_NAMES == ("email", "credit_card", "iban", "us_ssn", "phone")


@pytest.mark.parametrize(
    "text, found",
    [
        ("write to alice.smith+news@mail.example.co.uk now", "alice.smith+news@mail.example.co.uk"),
        ("bob@example.com.", "bob@example.com"),
    ],
)
def test_email(text, found):
    assert kinds(text) == [("email", found)]


def test_not_an_email():
    assert kinds("meet @ noon, user@localhost, a@b") == []


@pytest.mark.parametrize(
    "card",
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111111111111111",
        "378282246310005",
        "6011 0009 9013 9424",
    ],
)
def test_card_numbers_that_pass_luhn(card):
    assert kinds(f"card {card} please") == [("credit_card", card)]


def test_a_card_number_that_fails_luhn_is_not_a_card():
    assert kinds("ref 4111 1111 1111 1112") == []


def test_luhn():
    assert luhn_valid("4111111111111111")
    assert luhn_valid("79927398713")
    assert not luhn_valid("79927398710")
    assert not luhn_valid("4111-1111")  # digits only
    assert not luhn_valid("")


@pytest.mark.parametrize(
    "iban",
    ["DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "FR14 2004 1010 0505 0001 3M02 606"],
)
def test_iban(iban):
    assert iban_valid(iban)
    assert kinds(f"pay to {iban} today") == [("iban", iban)]


def test_an_iban_with_a_wrong_checksum_is_not_taken():
    assert not iban_valid("DE88 3704 0044 0532 0130 00")
    assert kinds("pay to DE88 3704 0044 0532 0130 00") == []


@pytest.mark.parametrize("ssn", ["123-45-6789", "123 45 6789"])
def test_us_ssn(ssn):
    assert kinds(f"ssn {ssn}.") == [("us_ssn", ssn)]


@pytest.mark.parametrize(
    "not_ssn",
    ["000-12-3456", "666-12-3456", "900-12-3456", "123-00-4567", "123-45-0000", "123-45 6789"],
)
def test_not_an_ssn(not_ssn):
    assert [k for k, _ in kinds(not_ssn)] != ["us_ssn"]


@pytest.mark.parametrize(
    "phone", ["+44 20 7946 0958", "(555) 123-4567", "555-123-4567", "+15551234567", "555.123.4567"]
)
def test_phone(phone):
    assert kinds(f"call {phone} now") == [("phone", phone)]


@pytest.mark.parametrize(
    "text", ["on 2024-01-15", "at 192.168.100.200", "version 1.2.3", "12-34-56"]
)
def test_dates_addresses_and_versions_are_not_phones(text):
    assert kinds(text) == []


def test_overlapping_findings_are_merged_so_nothing_of_either_shows():
    def overlapping(text):
        start = text.index("Smith")
        return [
            (start - 6, start + 5, "name"),
            (start, start + 12, "name"),
        ]  # "Alice Smith" + "Smith street"

    text = "ask Alice Smith street 5"
    found = pii_filter(patterns=(), detector=overlapping).find(text)
    assert [(s.start, s.end, s.kind) for s in found] == [(4, 22, "name")]
    assert pii_filter(patterns=(), detector=overlapping).redact(text) == "ask [name] 5"


def test_an_email_holding_digits_is_one_email_not_a_card():
    text = "mail 4111111111111111@cards.example now"
    assert kinds(text) == [("email", "4111111111111111@cards.example")]


def test_the_more_specific_built_in_names_a_shared_span():
    # a custom 'ticket' pattern covering the same digits as an SSN: the built-in ranks first
    text = "id 123-45-6789"
    assert kinds(text, patterns={"ticket": r"\d{3}-\d{2}-\d{4}"}) == [("us_ssn", "123-45-6789")]


def test_a_dict_adds_and_replaces_patterns():
    text = "order ORD-123456 from bob@example.com"
    assert kinds(text, patterns={"order_id": r"ORD-\d{6}"}) == [
        ("order_id", "ORD-123456"),
        ("email", "bob@example.com"),
    ]
    assert kinds(text, patterns={"email": re.compile(r"bob@\S+")}) == [("email", "bob@example.com")]
    assert kinds(text, patterns={"email": None}) == []  # None removes a built-in


def test_a_tuple_chooses_built_ins():
    text = "bob@example.com 555-123-4567"
    assert kinds(text, patterns=("phone",)) == [("phone", "555-123-4567")]


def test_a_detector_adds_to_the_patterns():
    def names(text):
        return [(m.start(), m.end(), "name") for m in re.finditer(r"\bAlice\b", text)]

    text = "Alice wrote from alice@example.com"
    assert pii_filter(detector=names).redact(text) == "[name] wrote from [email]"
    assert (
        pii_filter(patterns=(), detector=names).redact(text)
        == "[name] wrote from alice@example.com"
    )


def test_a_detector_returning_nonsense_fails_clearly():
    broken = pii_filter(detector=lambda text: [(5, 2, "x")])
    with pytest.raises(AdkFluentError, match="detector returned"):
        broken.redact("hello world")


def test_replacement_and_counts():
    f = pii_filter(replacement="<{kind} removed>")
    text, counts = f.redactor.redact("a@example.com, b@example.com, 4111 1111 1111 1111")
    assert text == "<email removed>, <email removed>, <credit_card removed>"
    assert dict(counts) == {"email": 2, "credit_card": 1}


def test_values_are_redacted_inside_dicts_lists_and_long_numbers():
    from collections import Counter

    counts = Counter()
    value = {"to": ["x@example.com", 7], "card": 4111111111111111, "ok": True, "n": 12}
    redacted = pii_filter().redactor.redact_value(value, counts)
    assert redacted == {"to": ["[email]", 7], "card": "[credit_card]", "ok": True, "n": 12}
    assert value["to"][0] == "x@example.com"  # the original is not changed
    assert dict(counts) == {"email": 1, "credit_card": 1}


def test_text_without_personal_data_is_unchanged():
    text = "Refund order 42 for 19.99 EUR on 2024-01-15."
    assert pii_filter().redact(text) == text
