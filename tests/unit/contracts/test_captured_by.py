"""StateSchema's CapturedBy: the checker holds the tree to the producer a field names (a capture
step, any S step, or an agent), and says which write or which missing producer breaks it."""

from __future__ import annotations

from typing import Annotated

import pytest

from adk_fluent import Agent, C, CapturedBy, S, StateSchema, check_contracts
from adk_fluent.errors import SchemaCompositionError

PRODUCER_CODES = {"captured-by-other", "captured-by-missing"}


class Desk(StateSchema):
    user_message: Annotated[str, CapturedBy(C.capture)]
    recent: Annotated[str, CapturedBy(C.capture_turns)]
    total: Annotated[int, CapturedBy(S.compute)]
    intent: Annotated[str, CapturedBy("classifier")]
    unused: Annotated[str, CapturedBy(Agent("nobody"))]


def producer_issues(pipeline):
    report = check_contracts(pipeline, schema=Desk)
    return [(i.code, i.node, i.key) for i in report.issues if i.code in PRODUCER_CODES]


def reply():
    return Agent("reply").instruct("{user_message} {recent} {total} {intent}")


def test_a_tree_whose_writers_are_the_declared_producers_has_no_issue():
    agrees = (
        C.capture("user_message")
        >> C.capture_turns("recent", 3)
        >> S.compute(total=lambda state: 1)
        >> Agent("classifier").instruct("Classify.").outputs("intent")
        >> reply()
    )
    assert producer_issues(agrees) == []


def test_another_writer_and_a_missing_producer_are_both_named():
    drifted = (
        S.set(user_message="hi")
        >> C.capture_turns("recent")
        >> S.set(total=3)  # S.set, not S.compute
        >> Agent("triage").outputs("intent")  # not the classifier
        >> reply()
    )
    issues = producer_issues(drifted)
    assert ("captured-by-other", "set_user_message", "user_message") in issues
    assert ("captured-by-other", "set_total", "total") in issues
    assert ("captured-by-other", "triage", "intent") in issues
    assert ("captured-by-missing", "reply", "intent") in issues
    assert ("captured-by-missing", "reply", "user_message") in issues
    assert not [i for i in issues if i[2] == "recent"]  # C.capture_turns wrote it


def test_s_capture_counts_as_c_capture_and_an_agent_builder_names_its_agent():
    class Small(StateSchema):
        msg: Annotated[str, CapturedBy(C.capture)]
        answer: Annotated[str, CapturedBy(Agent("solver"))]

    tree = S.capture("msg") >> Agent("solver").instruct("{msg}").outputs("answer")
    tree = tree >> Agent("after").instruct("{answer}")
    codes = check_contracts(tree, schema=Small).codes()
    assert not PRODUCER_CODES & set(codes)


def test_a_field_the_tree_never_uses_is_not_judged():
    only_intent = Agent("classifier").outputs("intent") >> Agent("r").instruct("{intent}")
    assert producer_issues(only_intent) == []


def test_the_field_keeps_its_scope_and_type_and_shows_its_producer():
    class Scoped(StateSchema):
        note: Annotated[str, CapturedBy(C.capture)]

    assert Scoped.note.type is str and Scoped.note.key == "note"
    assert Scoped.note.captured_by.shown == "C.capture"
    assert repr(CapturedBy("classifier")) == "CapturedBy(agent 'classifier')"


def test_two_producers_on_one_field_are_refused_when_the_class_is_made():
    with pytest.raises(SchemaCompositionError, match="2 CapturedBy markers"):

        class Twice(StateSchema):
            note: Annotated[str, CapturedBy(C.capture), CapturedBy("a")]
