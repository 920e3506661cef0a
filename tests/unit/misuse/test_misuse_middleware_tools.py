"""Misuse of tool_approval and pii_filter: each wrong argument is refused when the factory is
called, naming the middleware, the parameter and what to write instead."""

from __future__ import annotations

import pytest

from adk_fluent.middleware.approval import tool_approval
from adk_fluent.middleware.pii import original_message, pii_filter
from tests.support.misuse import case, check, ids


def refund(amount: int) -> dict:
    return {"refunded": amount}


def _stored_user_event():
    from google.adk.events.event import Event
    from google.genai import types

    return Event(
        author="user",
        invocation_id="i1",
        content=types.Content(role="user", parts=[types.Part(text="I am [email]")]),
    )


CASES = [
    # tool_approval
    case(
        "mw-approval-tools-empty",
        lambda: tool_approval([]),
        "tool_approval",
        "tools",
        "at least one",
    ),
    case("mw-approval-tools-number", lambda: tool_approval([refund, 42]), "tools", "42"),
    case("mw-approval-tools-lambda", lambda: tool_approval([lambda x: x]), "tools", "lambda"),
    case("mw-approval-tools-empty-name", lambda: tool_approval([""]), "tools", "''"),
    case("mw-approval-policy-bool", lambda: tool_approval(policy=True), "policy", "True"),
    case("mw-approval-policy-class", lambda: tool_approval(policy=dict), "policy", "dict"),
    case("mw-approval-hint-empty", lambda: tool_approval(hint="  "), "hint", "empty"),
    case(
        "mw-approval-hint-number", lambda: tool_approval(hint=3), "hint", "text or a function", "3"
    ),
    case("mw-approval-priority-bool", lambda: tool_approval(priority=False), "priority", "int"),
    case("mw-approval-scope-empty", lambda: tool_approval(scope=()), "scope", "agent name"),
    # pii_filter: patterns and detector
    case(
        "mw-pii-original-message-without-the-artifact-service",
        lambda: original_message(_stored_user_event(), artifact_service=None, session=None),
        "original_message",
        "artifact service",
        "runner.artifact_service",
    ),
    case(
        "mw-pii-patterns-unknown-name",
        lambda: pii_filter(patterns=("emial",)),
        "pii_filter",
        "emial",
        "did you mean 'email'",
    ),
    case("mw-pii-patterns-a-string", lambda: pii_filter(patterns="email"), "patterns", "dict"),
    case(
        "mw-pii-patterns-bad-regex",
        lambda: pii_filter(patterns={"order": "ORD-(\\d+"}),
        "order",
        "not a valid regular expression",
    ),
    case(
        "mw-pii-patterns-matches-empty",
        lambda: pii_filter(patterns={"digits": r"\d*"}),
        "digits",
        "empty string",
    ),
    case("mw-pii-patterns-regex-number", lambda: pii_filter(patterns={"n": 5}), "'n'", "5"),
    case("mw-pii-patterns-name-empty", lambda: pii_filter(patterns={"": r"x+"}), "name"),
    case(
        "mw-pii-patterns-remove-unknown",
        lambda: pii_filter(patterns={"phon": None}),
        "phon",
        "did you mean 'phone'",
    ),
    case("mw-pii-nothing-to-find", lambda: pii_filter(patterns=()), "no pattern", "detector"),
    case("mw-pii-detector-text", lambda: pii_filter(detector="presidio"), "detector", "presidio"),
    case(
        "mw-pii-detector-bad-findings",
        lambda: pii_filter(detector=lambda text: ["email"]).redact("hello"),
        "detector returned",
        "(start, end, kind)",
    ),
    # pii_filter: replacement, keep_original, scope, priority
    case("mw-pii-replacement-none", lambda: pii_filter(replacement=None), "replacement", "None"),
    case(
        "mw-pii-replacement-unknown-field",
        lambda: pii_filter(replacement="[{name}]"),
        "replacement",
        "{kind}",
    ),
    case(
        "mw-pii-keep-original-typo",
        lambda: pii_filter(keep_original="stor"),
        "keep_original",
        "did you mean 'store'",
    ),
    case("mw-pii-keep-original-bool", lambda: pii_filter(keep_original=True), "keep_original"),
    case(
        "mw-pii-scope-cannot-redact-the-message",
        lambda: pii_filter(scope="desk"),
        "scope",
        "keep_original='store'",
    ),
    case("mw-pii-priority-text", lambda: pii_filter(priority="first"), "priority", "int"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
