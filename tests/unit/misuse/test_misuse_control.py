"""Misuse of the control steps (gate, tap, race, and gates where a pause cannot resume): each
fails at build time with a message naming the step, the field and a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Loop, gate, map_over, race, tap, timeout
from tests.support.misuse import case, check, ids


def _gated():
    return gate(True, "Go on?", name="check") >> Agent("worker")


CASES = [
    # gate: the question and the words the person can answer with
    case("control-gate-message-none", lambda: gate(message=None), "message", "gate"),
    case("control-gate-message-blank", lambda: gate(True, "   "), "message", "question"),
    case("control-gate-message-not-text", lambda: gate(True, 42), "message", "42"),
    case("control-gate-approve-empty", lambda: gate(approve=()), "approve", "no reply"),
    case("control-gate-reject-empty", lambda: gate(reject=[]), "reject", "no reply"),
    case("control-gate-approve-bare-string", lambda: gate(approve="yes"), "approve", "tuple"),
    case("control-gate-word-blank", lambda: gate(approve=("yes", "  ")), "approve", "no reply can"),
    case("control-gate-word-not-text", lambda: gate(reject=("no", 3)), "reject", "3"),
    case(
        "control-gate-words-overlap",
        lambda: gate(approve=("ok", "go"), reject=("OK",)),
        "'ok'",
        "both approve and reject",
    ),
    case(
        "control-gate-reject-word-is-a-default-approve-word",
        lambda: gate(reject=("yes",)),
        "'yes'",
        "both approve and reject",
    ),
    case(
        "control-gate-predicate-two-params",
        lambda: gate(lambda state, extra: True, "?"),
        "predicate",
        "(state, extra)",
    ),
    case(
        "control-gate-predicate-no-params",
        lambda: gate(lambda: True, "?"),
        "predicate",
        "(nothing) cannot take",
    ),
    case("control-gate-predicate-not-callable", lambda: gate("yes", "?"), "predicate", "str"),
    case("control-gate-name-not-identifier", lambda: gate(name="my gate"), "name", "my gate"),
    case("control-gate-hidden", lambda: gate(True, "?", name="check").hide(), "check", "hidden"),
    case(
        "control-gate-two-unnamed-gates",
        lambda: (Agent("a") >> gate(True, "a?") >> gate(True, "b?")).build(),
        "approval_gate",
        "name='approval_gate_2'",  # a gate has no .clone(): it takes its name when made
    ),
    # gates where a pause cannot be resumed: refused at build with where to put it instead
    case(
        "control-gate-inside-map-over",
        lambda: map_over("docs", _gated(), item_key="doc").to_app(),
        "check",
        "map_over",
        "move the gate out",
    ),
    case(
        "control-gate-inside-race",
        lambda: race(_gated(), Agent("fast")),
        "check",
        "race",
        "move the gate out",
    ),
    case(
        "control-gate-inside-timeout",
        lambda: timeout(_gated(), 5).to_app(),
        "check",
        "timeout",
        "move the gate out",
    ),
    case(
        "control-gate-inside-fallback",
        lambda: (_gated() // Agent("backup")).to_app(),
        "check",
        "fallback",
        "move the gate out",
    ),
    case(
        "control-gate-as-a-transfer-target",
        lambda: Agent("coordinator").delegate(_gated().named("approval_flow")).to_app(),
        "check",
        "transfer",
        "move the gate out",
    ),
    case(
        "control-gate-gate-key",
        lambda: gate(lambda s: True, message="Approve?", gate_key="approved"),
        "gate_key",
        "name='refund_approval'",
    ),
    case(
        "control-gate-option-misspelt",
        lambda: gate(True, "Go?", aprove=("y",)),
        "aprove",
        "approve",
    ),
    # a loop's final round: .show("final") is for loops, and a loop that shows it ends in one turn
    case(
        "control-loop-show-unknown-round",
        lambda: Loop(Agent("drafter"), max_iterations=3).show("last"),
        "loop_",
        "'last'",
        "show('final')",
    ),
    case(
        "control-agent-show-final",
        lambda: Agent("drafter").show("final"),
        "agent 'drafter'",
        "applies to a loop",
        ".show('final') on the Loop",
    ),
    case(
        "control-gate-inside-a-loop-that-shows-its-final-round",
        lambda: Loop(_gated(), max_iterations=2, name="rounds").show("final").to_ir(),
        "gate 'check'",
        "loop 'rounds'",
        "move the gate after the loop",
    ),
    # tap and race
    case("control-tap-not-callable", lambda: tap(42), "tap(fn)", "int"),
    case("control-tap-two-params", lambda: tap(lambda state, log: None), "tap", "(state, log)"),
    case("control-tap-name-not-identifier", lambda: tap(print, name="log it"), "name", "log it"),
    case("control-race-one-alternative", lambda: race(Agent("only")), "race", "two"),
    case(
        "control-race-name-not-identifier",
        lambda: race(Agent("a"), Agent("b"), name="a-b"),
        "race",
        "a-b",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
