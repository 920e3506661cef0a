"""What the PII filter finds in text: the built-in patterns (with their validity checks), the
Redactor that replaces each finding by a placeholder, and a user's patterns compiled."""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from adk_fluent.arguments import checked_text
from adk_fluent.errors import AdkFluentError, BuildError, describe_value, did_you_mean
from adk_fluent.middleware.pii.names import NAME


# -- detection (pure) ----------------------------------------------------------------------------
def luhn_valid(number: str) -> bool:
    """Whether a string of digits passes the Luhn check (card numbers)."""
    if not number.isdigit():
        return False
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """Whether a string (spaces allowed) is an IBAN with a valid ISO 13616 mod-97 checksum."""
    compact = iban.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", compact):
        return False
    rearranged = compact[4:] + compact[:4]
    digits = "".join(str(int(char, 36)) for char in rearranged)
    return int(digits) % 97 == 1


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _card(match: str) -> bool:
    digits = _digits(match)
    return 13 <= len(digits) <= 19 and luhn_valid(digits)


_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def _phone(match: str) -> bool:
    digits = _digits(match)
    if not 7 <= len(digits) <= 15 or _IPV4.fullmatch(match):
        return False
    # Ten digits or more, or an explicit country code / area code in parentheses: a bare
    # "2024-01-15" or "12-34-56" is not taken for a phone number.
    return len(digits) >= 10 or match.startswith("+") or "(" in match


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    valid: Callable[[str], bool] | None = None


# The built-ins, in the order they win an overlap (most specific first).
BUILTIN_PATTERNS: dict[str, _Pattern] = {
    "email": _Pattern(
        "email", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
    ),
    "credit_card": _Pattern(
        "credit_card", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?!\d)"), _card
    ),
    "iban": _Pattern(
        "iban",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
        iban_valid,
    ),
    "us_ssn": _Pattern(
        "us_ssn",
        re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])"),
    ),
    "phone": _Pattern(
        "phone",
        re.compile(
            r"(?<![\w+])(?:\+\d{7,15}(?!\d)|(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?"
            r"\d{2,4}(?:[ .-]\d{2,4}){1,4})(?!\w)"
        ),
        _phone,
    ),
}
BUILTIN_NAMES: tuple[str, ...] = tuple(BUILTIN_PATTERNS)


_MEMO_TEXTS = 4096  # texts whose redaction is remembered (least recently used out)
_MEMO_TEXT_CHARS = 20_000  # longer texts are redacted afresh each time, never remembered


@dataclass(frozen=True, order=True)
class Span:
    """One finding: text[start:end] is personal data of `kind`."""

    start: int
    end: int
    kind: str


Detector = Callable[[str], Iterable[tuple[int, int, str]]]


class Redactor:
    """Finds personal data in text and replaces it (pure: no ADK)."""

    def __init__(
        self,
        patterns: Iterable[_Pattern],
        detector: Detector | None = None,
        replacement: str = "[{kind}]",
    ) -> None:
        self.patterns = tuple(patterns)
        self.detector = detector
        self.replacement = replacement
        # text -> (redacted, counts): every model call re-reads the whole history, so the same
        # texts come back call after call; a detector is expected to be a pure function too
        self._memo: OrderedDict[str, tuple[str, Counter[str]]] = OrderedDict()

    def find(self, text: str) -> list[Span]:
        """Every finding, overlapping ones merged into one span (which the earliest, longest,
        highest-ranked finding names), so no part of an overlapping finding stays visible."""
        found: list[tuple[int, int, int, str]] = []  # start, -end, rank, kind
        for rank, pattern in enumerate(self.patterns):
            for match in pattern.regex.finditer(text):
                if match.end() > match.start() and (
                    pattern.valid is None or pattern.valid(match.group())
                ):
                    found.append((match.start(), -match.end(), rank, pattern.kind))
        if self.detector is not None:
            rank = len(self.patterns)
            for start, end, kind in _detected(self.detector, text):
                found.append((start, -end, rank, kind))
        found.sort()
        merged: list[Span] = []
        for start, negative_end, _rank, kind in found:
            end = -negative_end
            if merged and start < merged[-1].end:
                last = merged[-1]
                merged[-1] = Span(last.start, max(last.end, end), last.kind)
            else:
                merged.append(Span(start, end, kind))
        return merged

    def redact(self, text: str) -> tuple[str, Counter[str]]:
        """The text with each finding replaced, and the counts by kind."""
        redacted, counts = self.remembered(text)
        return redacted, Counter(counts)

    def remembered(self, text: str) -> tuple[str, Counter[str]]:
        """`redact(text)` as remembered: the counts are the memo's own, to be read, never
        changed (no copy per call: every model call re-reads the whole history)."""
        known = self._memo.get(text)
        if known is not None:
            self._memo.move_to_end(text)
            return known
        redacted, counts = self._redact(text)
        if len(text) <= _MEMO_TEXT_CHARS:
            self._memo[text] = (redacted, counts)
            if len(self._memo) > _MEMO_TEXTS:
                self._memo.popitem(last=False)
        return redacted, counts

    def _redact(self, text: str) -> tuple[str, Counter[str]]:
        spans = self.find(text)
        if not spans:
            return text, Counter()
        pieces: list[str] = []
        cursor = 0
        for span in spans:
            pieces.append(text[cursor : span.start])
            pieces.append(self.replacement.format(kind=span.kind))
            cursor = span.end
        pieces.append(text[cursor:])
        return "".join(pieces), Counter(span.kind for span in spans)

    def finds_in(self, value: Any) -> bool:
        """Whether `redact_value(value, ...)` would find anything (the same strings and numbers
        read, in the same order, up to the first finding), without making the new value."""
        if isinstance(value, str):
            return bool(self.remembered(value)[1])
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
            return bool(self.remembered(str(value))[1])
        if isinstance(value, dict | Mapping):  # (a dict without the ABC check)
            return any(self.finds_in(item) for item in value.values())
        if isinstance(value, list | tuple):
            return any(self.finds_in(item) for item in value)
        return False

    def redact_value(self, value: Any, counts: Counter[str]) -> Any:
        """A JSON-like value (dicts, lists, strings, numbers) with its strings redacted (a new
        value; keys are left alone). An integer of 13 digits or more is read as digits, so a
        card number returned as an int is caught too."""
        if isinstance(value, str):
            redacted, found = self.remembered(value)
            if found:
                counts.update(found)
            return redacted
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
            redacted, found = self.remembered(str(value))
            if found:
                counts.update(found)
                return redacted
            return value
        if isinstance(value, Mapping):
            return {key: self.redact_value(item, counts) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact_value(item, counts) for item in value]
        if isinstance(value, tuple):
            return tuple(self.redact_value(item, counts) for item in value)
        return value


def _detected(detector: Detector, text: str) -> list[tuple[int, int, str]]:
    spans = detector(text)
    checked: list[tuple[int, int, str]] = []
    for item in spans or ():
        ok = (
            isinstance(item, tuple | list)
            and len(item) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item[:2])
            and isinstance(item[2], str)
            and item[2]
        )
        if not ok or not 0 <= item[0] < item[1] <= len(text):
            raise AdkFluentError(
                f"pii_filter: the detector returned {describe_value(item)}, which is not a "
                f"(start, end, kind) finding inside the text (length {len(text)})."
                "\n  hint: return a list of (start, end, kind) with 0 <= start < end <= "
                "len(text) and kind a non-empty string, e.g. [(4, 21, 'email')]."
            )
        checked.append((item[0], item[1], item[2]))
    return checked


# -- a user's patterns ---------------------------------------------------------------------------------
def _compiled(name: str, regex: Any) -> re.Pattern[str]:
    if isinstance(regex, re.Pattern):
        return regex
    if not isinstance(regex, str) or not regex:
        raise BuildError(
            f"pattern '{name}' must be a regular expression, not {describe_value(regex)}",
            agent=NAME,
            field="patterns",
            hint=r"e.g. patterns={'order_id': r'ORD-\d{6}'}.",
        )
    try:
        compiled = re.compile(regex)
    except re.error as error:
        raise BuildError(
            f"pattern '{name}' is not a valid regular expression: {error}",
            agent=NAME,
            field="patterns",
            hint="check the brackets and escapes; write it as a raw string r'...'.",
        ) from None
    if compiled.fullmatch(""):
        raise BuildError(
            f"pattern '{name}' matches the empty string, so it would find nothing useful",
            agent=NAME,
            field="patterns",
            hint=r"make it require at least one character, e.g. r'ORD-\d+' not r'\d*'.",
        )
    return compiled


def user_patterns(patterns: Any) -> list[_Pattern]:
    if patterns is None:
        return list(BUILTIN_PATTERNS.values())
    if isinstance(patterns, Mapping):
        chosen = dict(BUILTIN_PATTERNS)
        for name, regex in patterns.items():
            checked_text(
                name,
                NAME,
                "patterns",
                shown="a pattern's name",
                hint="the name is the kind shown in the placeholder, e.g. 'order_id'.",
            )
            if regex is None:  # removes a built-in
                if name not in BUILTIN_PATTERNS:
                    raise BuildError(
                        f"'{name}': None removes a built-in pattern, and there is none by "
                        "that name",
                        agent=NAME,
                        field="patterns",
                        hint=did_you_mean(name, BUILTIN_NAMES)
                        or f"the built-ins are: {', '.join(BUILTIN_NAMES)}.",
                    )
                chosen.pop(name)
                continue
            chosen[name] = _Pattern(name, _compiled(name, regex))
        return list(chosen.values())
    if isinstance(patterns, str) or not isinstance(patterns, Iterable):
        raise BuildError(
            f"patterns must be built-in names or a dict of name -> regex, not "
            f"{describe_value(patterns)}",
            agent=NAME,
            field="patterns",
            hint="e.g. patterns=('email', 'credit_card'), or patterns={'order_id': r'ORD-\\d+'} "
            "to add to the built-ins.",
        )
    chosen_list: list[_Pattern] = []
    for name in patterns:
        if name not in BUILTIN_PATTERNS:
            raise BuildError(
                f"{describe_value(name)} is not a built-in pattern",
                agent=NAME,
                field="patterns",
                hint=(did_you_mean(name, BUILTIN_NAMES) if isinstance(name, str) else None)
                or f"the built-ins are: {', '.join(BUILTIN_NAMES)}; use a dict to add your own.",
            )
        chosen_list.append(BUILTIN_PATTERNS[name])
    return chosen_list
