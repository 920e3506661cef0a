"""Misuse of the contract checker and of what it checks against: `check_contracts` given
something that is not a pipeline or options of the wrong kind, `register_check` used wrongly,
StateSchema declarations and bindings used wrongly, and pipelines whose `.strict()` build (or
`check_contracts(strict=True)`) must refuse them. Each is refused with the node, field or key
named and a hint.

Cases marked xfail are library bugs: the misuse is accepted silently or fails with a raw Python
error (see each reason). The register_check cases put the registry back as it was, whatever
happens, so no other test sees a check they added or replaced."""

from __future__ import annotations

from typing import Annotated

import pytest
from google.adk.sessions.state import State
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    FanOut,
    Route,
    S,
    StateSchema,
    UserScoped,
    check_contracts,
    map_over,
    register_check,
)
from adk_fluent.analysis.contracts import registered_checks, unregister_check
from adk_fluent.errors import (
    ContractError,
    SchemaCompositionError,
    StateFieldError,
    StateKeyError,
    StateTypeError,
    StateWriteError,
)
from tests.support.misuse import case, check, ids


class Profile(BaseModel):
    name: str
    vip: bool = False


class Billing(StateSchema):
    intent: str
    tier: Annotated[str, UserScoped]
    profile: Profile | None = None


class Counted(StateSchema):
    attempts: int


class Intent(BaseModel):
    category: str


class IntentLabel(BaseModel):
    category: int


class Ticket(BaseModel):
    ticket_id: str


def pipeline():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct("Book {intent}.")


def greeter():
    return Agent("greeter").instruct("Hello {tenant}.")


def _writable(schema):
    """A binding that may write: ADK's own State object, as a tool's context holds it."""
    return schema.bind(State({}, {}))


def _write(binding, field, value):
    setattr(binding, field, value)


# -- register_check: each attempt runs with the registry restored afterwards ---------------------
def no_shouting(ctx):
    """Instructions in capitals."""
    return ()


def _restoring_registry(attempt):
    def run():
        before = {spec.name: spec for spec in registered_checks()}
        try:
            return attempt()
        finally:
            for spec in registered_checks():
                if spec.name not in before:
                    unregister_check(spec.name)
                elif spec != before[spec.name]:  # replaced: put the original back, in place
                    old = before[spec.name]
                    register_check(old.name, codes=old.codes, description=old.description)(old.fn)

    return run


# -- StateSchema declarations that are refused when the class is defined ---------------------------
def _subclass_retypes_a_field():
    class Retried(Counted):
        attempts: str


def _default_of_the_wrong_type():
    class Limits(StateSchema):
        retries: int = "three"


CASES = [
    # -- check_contracts given something that is not an expression ---------------------------------
    case(
        "contract-check-a-built-agent",
        lambda: check_contracts(Agent("a").build()),
        "field 'pipeline'",
        "not LlmAgent",
    ),
    case(
        "contract-check-an-app",
        lambda: check_contracts(Agent("a").to_app()),
        "check_contracts()",
        "not App",
    ),
    case(
        "contract-check-a-list",
        lambda: check_contracts([Agent("a"), Agent("b")]),
        "check_contracts()",
        "not list",
    ),
    case(
        "contract-check-schema-first",
        lambda: check_contracts(Billing, pipeline()),
        "field 'pipeline'",
        "not type",
    ),
    # an issue code is not a check's name: the hint lists the registered names
    case(
        "contract-checks-given-an-issue-code",
        lambda: check_contracts(pipeline(), checks=["read-before-write"]),
        "field 'checks'",
        "'read-before-write'",
        "registered:",
    ),
    # -- StateSchema: declarations ------------------------------------------------------------------
    case(
        "contract-schema-subclass-retypes-field",
        _subclass_retypes_a_field,
        "Counted.attempts (int",
        "Retried.attempts (str",
        error=SchemaCompositionError,
    ),
    # -- StateSchema: bound views -------------------------------------------------------------------
    case(
        "contract-schema-bound-read-typo",
        lambda: Billing.bind({"intent": "refund"}).intnet,
        "'intnet'",
        "did you mean 'intent'",
        error=StateFieldError,
    ),
    case(
        "contract-schema-bound-read-unset",
        lambda: Billing.bind({}).intent,
        "Billing.intent",
        "state['intent'] is not set",
        error=StateKeyError,
    ),
    case(
        "contract-schema-write-through-mapping",
        lambda: _write(Billing.bind({"intent": "refund"}), "intent", "upgrade"),
        "Billing.intent",
        "read-only",
        "ToolContext",
        error=StateWriteError,
    ),
    # -- .strict() builds and check_contracts(strict=True) refuse broken pipelines -------------------
    case(
        "contract-strict-route-key-unwritten",
        lambda: (Agent("a") >> Route("intent").eq("refund", Agent("b"))).strict().build(),
        'Route("intent") reads "intent"',
        "ROUTE_KEY_MISSING",
        "drop .strict()",
        error=ContractError,
    ),
    case(
        "contract-strict-fanout-branches-write-one-key",
        lambda: (
            (FanOut(Agent("x").outputs("k"), Agent("y").outputs("k")) >> Agent("b"))
            .strict()
            .build()
        ),
        'branches all write "k"',
        "S.merge",
        error=ContractError,
    ),
    case(
        "contract-strict-fanout-sibling-read",
        lambda: (
            ((Agent("x").outputs("k") | Agent("y").instruct("Use {k}.")) >> Agent("b"))
            .strict()
            .build()
        ),
        "runs concurrently with 'x'",
        "after the FanOut",
        error=ContractError,
    ),
    case(
        "contract-strict-read-after-drop",
        lambda: (
            (Agent("a").outputs("k") >> S.drop("k") >> Agent("b").instruct("Use {k}."))
            .strict()
            .build()
        ),
        'deleted by S.drop("k")',
        "read-after-delete",
        error=ContractError,
    ),
    case(
        "contract-strict-consumes-other-type",
        lambda: (Agent("x").produces(IntentLabel) >> Agent("y").consumes(Intent)).strict().build(),
        'expects "category" as str',
        "IntentLabel",
        error=ContractError,
    ),
    case(
        "contract-strict-consumes-unproduced-field",
        lambda: (Agent("x").produces(Intent) >> Agent("y").consumes(Ticket)).strict().build(),
        "y consumes Ticket.ticket_id",
        "consumes-missing-field",
        error=ContractError,
    ),
    case(
        "contract-strict-map-over-list-unwritten",
        lambda: map_over("docs", Agent("b")).strict().build(),
        'map_over("docs") reads "docs"',
        "MAP_OVER_NOT_A_LIST",
        error=ContractError,
    ),
    case(
        "contract-strict-transform-unwritten",
        lambda: (S.transform("score", float) >> Agent("b")).strict().build(),
        "S.transform step 'transform_score'",
        "STATE_KEY_MISSING",
        error=ContractError,
    ),
    # a warning fails check_contracts(strict=True) (a .strict() build refuses errors only)
    case(
        "contract-strict-key-on-one-branch-only",
        lambda: check_contracts(
            Route("r").eq("a", Agent("x").outputs("k")).otherwise(Agent("y"))
            >> Agent("b").instruct("Use {k}."),
            strict=True,
            initial_keys=["r"],
        ),
        '"k" may be unset',
        "S.default(k=...)",
        error=ContractError,
    ),
    case(
        "contract-strict-temp-key-for-adk-1",
        lambda: check_contracts(
            Agent("w").outputs("temp:y") >> Agent("r").instruct("Use {temp:y}."),
            strict=True,
            target_adk="1.25.0",
        ),
        "On google-adk 1.25.0",
        'w.outputs("temp:y")',
        error=ContractError,
    ),
    # -- check_contracts options -----------------------------------------------------------------------
    case(
        "contract-checks-a-single-name",
        lambda: check_contracts(pipeline(), checks="context"),
        "field 'checks'",
        "'context'",
    ),
    case(
        "contract-schema-pydantic-model",
        lambda: check_contracts(pipeline(), schema=Intent),
        "schema",
        "StateSchema",
    ),
    case(
        "contract-strict-builder-schema-pydantic-model",
        lambda: Agent("a").strict(schema=Intent).build(),
        "schema",
        "StateSchema",
    ),
    case(
        "contract-initial-keys-a-single-str",
        lambda: check_contracts(greeter(), initial_keys="tenant"),
        "initial_keys",
        "'tenant'",
    ),
    case(
        "contract-initial-keys-none",
        lambda: check_contracts(greeter(), initial_keys=None),
        "initial_keys",
    ),
    case(
        "contract-target-adk-not-a-version",
        lambda: check_contracts(pipeline(), target_adk="latest"),
        "target_adk",
        "'latest'",
    ),
    case(
        "contract-target-adk-int",
        lambda: check_contracts(pipeline(), target_adk=2),
        "target_adk",
        "2",
    ),
    case(
        "contract-target-adk-older-than-supported",
        lambda: check_contracts(pipeline(), target_adk="1.2.0"),
        "target_adk",
        "1.25.0",
    ),
    case(
        "contract-target-adk-major-only",
        lambda: check_contracts(pipeline(), target_adk="2"),
        "target_adk",
        "'2.0.0'",
    ),
    case(
        "contract-visibility-mode-unknown",
        lambda: check_contracts(pipeline(), visibility_mode="hidden"),
        "visibility_mode",
        "'hidden'",
    ),
    # -- register_check validates nothing --------------------------------------------------------------
    case(
        "contract-register-check-without-parentheses",
        _restoring_registry(lambda: register_check(no_shouting)),
        "register_check",
        "@register_check(",
    ),
    case(
        "contract-register-check-not-callable",
        _restoring_registry(lambda: register_check("shouting")(42)),
        "'shouting'",
        "42",
    ),
    case(
        "contract-register-check-takes-no-context",
        _restoring_registry(lambda: register_check("shouting")(lambda: ())),
        "'shouting'",
        "ctx",
    ),
    case(
        "contract-register-check-name-taken",
        _restoring_registry(lambda: register_check("context")(no_shouting)),
        "'context'",
        "unregister_check",
    ),
    case(
        "contract-register-check-codes-a-single-str",
        _restoring_registry(lambda: register_check("shouting", codes="shouting")(no_shouting)),
        "codes",
        "'shouting'",
    ),
    # -- StateSchema -----------------------------------------------------------------------------------
    case(
        "contract-schema-default-of-wrong-type",
        _default_of_the_wrong_type,
        "Limits.retries",
        "'three'",
        error=SchemaCompositionError,
    ),
    case(
        "contract-schema-class-field-typo",
        lambda: Agent("a").reads(Billing.intnet),
        "'intnet'",
        "did you mean 'intent'",
    ),
    case("contract-schema-bind-none", lambda: Billing.bind(None), "Billing.bind()", "None"),
    case(
        "contract-schema-write-dict-that-does-not-fit",
        lambda: _write(_writable(Billing), "profile", {"name": "Ada", "vip": "maybe"}),
        "Billing.profile",
        "does not fit",
        error=StateTypeError,
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
