"""StateSchema declarations: typed, scoped fields, composition, `.reads()` / `.writes()`, and
typed reads of stored values (Schema.bind in a real tool on the Runner is in
tests/behaviour/contracts/test_contracts_state_schema_run.py)."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel

from adk_fluent import Agent, BuildError, C, StateSchema, Temp, UserScoped, check_contracts
from adk_fluent.errors import SchemaCompositionError, StateTypeError
from tests.support.schemas import Profile, Ticketing, open_ticket


# -- the declaration ----------------------------------------------------------------------------
def test_fields_are_refs_with_scoped_keys_and_types():
    assert Ticketing.intent.key == "intent" and Ticketing.intent.type is str
    assert Ticketing.tier.key == "user:tier" and Ticketing.tier.scope == "user"
    assert Ticketing.release.key == "app:release"
    assert Ticketing.scratch.key == "temp:scratch" and Ticketing.scratch.type is dict
    assert Ticketing.attempts.has_default and Ticketing.attempts.default == 0
    assert repr(Ticketing.intent) == "Ticketing.intent"
    assert Ticketing.keys() == {
        "intent",
        "ticket_id",
        "attempts",
        "profile",
        "user:tier",
        "app:release",
        "temp:scratch",
    }
    assert Ticketing.field_for_key("user:tier") == Ticketing.tier


def test_composition_by_inheritance():
    class Classifier(StateSchema):
        intent: str
        confidence: float

    class Resolver(StateSchema):
        intent: str
        ticket_id: str

    class Billing(Classifier, Resolver):
        note: str = ""

    assert Billing.keys() == {"intent", "confidence", "ticket_id", "note"}
    assert Billing.intent == Classifier.intent  # same declaration, whoever holds it


def test_colliding_fields_are_refused_at_class_definition():
    class A(StateSchema):
        score: float

    class B(StateSchema):
        score: str

    with pytest.raises(
        SchemaCompositionError, match=r"'score' is declared twice.*A.score.*B.score"
    ):

        class AB(A, B):
            pass

    class UserTier(StateSchema):
        tier: Annotated[str, UserScoped]

    with pytest.raises(SchemaCompositionError, match="session-scoped"):

        class Mixed(UserTier):
            tier: str

    with pytest.raises(SchemaCompositionError, match="reserved"):

        class Reserved(StateSchema):
            bind: str

    with pytest.raises(SchemaCompositionError, match="2 scopes"):

        class Twice(StateSchema):
            x: Annotated[str, UserScoped, Temp]


def test_a_schema_is_not_instantiated_directly():
    with pytest.raises(TypeError, match="Ticketing.bind"):
        Ticketing()


def test_reads_and_writes_declare_keys_on_agents():
    agent = Agent("t").writes(Ticketing.ticket_id, "audit").reads(Ticketing.tier)
    node = agent.to_ir()
    assert {"ticket_id", "audit"} <= node.writes_keys and "user:tier" in node.reads_keys
    # .reads() adds to a .consumes() model instead of replacing it
    both = Agent("t").consumes(Profile).reads("intent").to_ir()
    assert both.reads_keys == {"name", "vip", "intent"}
    with pytest.raises(BuildError) as info:
        Agent("t").reads(42)
    assert "agent 't', field 'reads'" in str(info.value) and "Schema.intent" in str(info.value)
    with pytest.raises(BuildError, match="at least one"):
        Agent("t").writes()


def test_declared_writes_satisfy_reads_and_types_are_checked():
    pipeline = Agent("ticketer").tool(open_ticket).writes(Ticketing.ticket_id) >> Agent(
        "confirmer"
    ).instruct("Ticket {ticket_id} is open.").context(C.user_only())
    assert not check_contracts(pipeline, Ticketing).issues
    wrong = Agent("a").writes(Ticketing.attempts) >> Agent("b").reads("attempts").consumes(Ticket)
    assert "type-mismatch" in check_contracts(wrong, Ticketing).codes()


class Ticket(BaseModel):
    attempts: str


def test_bind_refuses_contexts_that_would_write_session_state_directly():
    class InvocationLike:
        session = object()

    with pytest.raises(BuildError, match="lost on reload"):
        Ticketing.bind(InvocationLike())
    with pytest.raises(BuildError, match="needs a ToolContext"):
        Ticketing.bind(42)


def test_typed_reads_validate_stored_values():
    with pytest.raises(StateTypeError, match=r"state\['attempts'\] holds str 'lots', not int"):
        _ = Ticketing.bind({"attempts": "lots"}).attempts
    assert Ticketing.bind({"attempts": "3"}).attempts == 3  # JSON-ish values are coerced on read
