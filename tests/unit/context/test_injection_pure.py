"""Prompt injection, as the contract checker sees it: captured user text reaching an instruction
is a warning, the C-based form is silent, and an agent's reply in an instruction is advice.
(What the model is shown runs through the Runner: tests/behaviour/context/test_injection.py.)"""

from __future__ import annotations

from adk_fluent import Agent, C, S, check_contracts
from tests.support.injection import capture_into_a_block, capture_into_instruction

# -- the instruction-template pattern, at run time and in the checker ----------------------------


def test_checker_warns_when_captured_user_text_reaches_an_instruction():
    report = check_contracts(capture_into_instruction())
    (issue,) = [i for i in report if i.code == "user-text-in-instruction"]
    assert issue.severity == "warning" and issue.node == "researcher" and issue.key == "q"
    assert 'S.capture("q")' in issue.message and "system instruction" in issue.message
    assert 'C.from_state("q")' in issue.hint
    assert report.failing(strict=True)


def test_checker_is_silent_on_the_c_based_form():
    report = check_contracts(capture_into_a_block())
    assert not [i for i in report if "instruction" in i.code and "text" in i.code], report.to_text()
    assert not report.failing(strict=True), report.to_text()


def test_checker_warns_for_captured_turns_and_optional_templates():
    pipeline = C.capture_turns("recent", 3) >> Agent("a").instruct("Recent: {recent?}")
    codes = {(i.code, i.severity, i.key) for i in check_contracts(pipeline)}
    assert ("user-text-in-instruction", "warning", "recent") in codes


def test_checker_follows_the_capture_through_branches():
    from adk_fluent import Route

    pipeline = (
        S.capture("q")
        >> Agent("classifier").instruct("Classify.").outputs("intent")
        >> Route("intent").eq("search", Agent("searcher").instruct("Search for {q}."))
    )
    issues = [i for i in check_contracts(pipeline) if i.code == "user-text-in-instruction"]
    assert [(i.node, i.key) for i in issues] == [("searcher", "q")]


def lookup(query: str) -> dict:
    """Look something up."""
    return {"query": query}


def test_a_tool_using_agents_reply_in_an_instruction_is_advice():
    pipeline = Agent("researcher").instruct("Research.").tool(lookup).outputs("notes") >> Agent(
        "writer"
    ).instruct("Write from: {notes}").context(C.user_only())
    report = check_contracts(pipeline)
    (issue,) = [i for i in report if i.code == "agent-text-in-instruction"]
    assert issue.severity == "info" and issue.key == "notes" and issue.node == "writer"
    assert 'C.from_state("notes")' in issue.hint
    assert not report.failing(strict=True)


def test_a_classifier_label_in_an_instruction_is_not_reported():
    pipeline = Agent("classifier").instruct("Classify.").outputs("intent") >> Agent(
        "booker"
    ).instruct("Book it ({intent}).").context(C.user_only())
    assert "instruction" not in " ".join(check_contracts(pipeline).codes())
