"""The checker across turns, against the real ADK Runner (scripted models, both ADK ends).

A coordinator whose reply is stored in `seminal_paper` and whose agent tools read
`{seminal_paper}` (the shape of Google's academic-research sample) gets `unset-on-first-turn`
warnings, not errors. Both halves of the warning's claim hold: a first turn that calls a tool
fails as ADK says, and from the second turn on the tool's model request carries the reply the
coordinator gave the turn before, read back from a SQLite store.
"""

from __future__ import annotations

import pytest

from adk_fluent import Agent, check_contracts
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service, system_instruction

FIRST_REPLY = "We are studying 'Attention Is All You Need' (2017)."


def coordinator() -> Agent:
    citations = Agent("citation_finder").instruct("Find recent papers that cite {seminal_paper}.")
    directions = Agent("direction_finder").instruct("Suggest directions from {seminal_paper}.")
    return (
        Agent("paper_coordinator")
        .instruct("Help the user study the paper they name; use your tools when asked.")
        .tool(citations)
        .tool(directions)
        .outputs("seminal_paper")
    )


def test_the_checker_warns_about_the_first_turn_only():
    report = check_contracts(coordinator())
    assert not report.errors, report.to_text()
    assert [(i.code, i.node, i.severity) for i in report] == [
        ("unset-on-first-turn", "citation_finder", "warning"),
        ("unset-on-first-turn", "direction_finder", "warning"),
    ]


async def test_a_first_turn_that_calls_the_tool_fails_as_the_warning_says():
    backend = mock_backend(
        {"paper_coordinator": [call("citation_finder", request="Who cites it?")]}
    )
    issue = check_contracts(coordinator()).warnings[0]
    assert 'ADK fails the turn with "Context variable not found: `seminal_paper`"' in issue.message
    with pytest.raises(KeyError, match="Context variable not found: `seminal_paper`"):
        await coordinator().run("Who cites the transformer paper?", backend=backend)
    assert "citation_finder" not in backend.requests  # its model was never reached


async def test_from_the_second_turn_on_the_tool_sees_the_previous_reply(sqlite_url):
    pipeline = coordinator()
    backend = mock_backend(
        {
            "paper_coordinator": [
                FIRST_REPLY,
                call("citation_finder", request="Who cites it?"),
                "Three recent papers cite it.",
            ],
            "citation_finder": ["Papers A, B and C cite it."],
        }
    )
    await pipeline.run(
        "Let's study the transformer paper.",
        backend=backend,
        session_id="p1",
        session_store=sqlite_url,
    )
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="p1"
    )
    assert stored.state["seminal_paper"] == FIRST_REPLY  # what turn 2 starts from

    answer = await pipeline.ask(
        "Who cites it?", backend=backend, session_id="p1", session_store=sqlite_url
    )
    assert answer == "Three recent papers cite it."
    (request,) = backend.requests["citation_finder"]
    assert f"Find recent papers that cite {FIRST_REPLY}." in system_instruction(request)
    backend.assert_consumed()
