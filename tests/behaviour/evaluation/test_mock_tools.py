"""FluentCase(mock_tools=...) through ADK's eval stack with scripted models, on both ADK ends:
a mocked tool never runs (the world is untouched) while the model's call is still checked and
the mocked reply is what the model is sent; cases with other mocks, or none, in one suite each
get their own; exported eval sets and YAML files say what was mocked, and read back the same."""

from __future__ import annotations

import json
from typing import Any

from adk_fluent import Agent
from adk_fluent.evaluation import FluentCase, FluentEvalSuite, contains, tool
from adk_fluent.testing import call, mock_backend

CHARGES: list[dict[str, Any]] = []  # the world a real charge touches


def charge_card(amount: float, card: str) -> dict:
    """Charge the customer's card."""
    CHARGES.append({"amount": amount, "card": card})
    return {"status": "charged", "id": f"ch_{len(CHARGES)}"}


def shop() -> Any:
    return Agent("cashier").instruct("Take the payment.").tool(charge_card)


def backend() -> Any:
    return mock_backend(
        {
            "cashier": [
                call("charge_card", amount=20.0, card="4242"),
                "Paid.",
                call("charge_card", amount=5.0, card="4242"),
                "Paid again.",
                call("charge_card", amount=7.0, card="4242"),
                "Paid for real.",
            ]
        }
    )


def cases() -> list[FluentCase]:
    return [
        FluentCase(
            "Pay 20",
            response=contains("Paid"),
            tools=[tool("charge_card", amount=20.0, card="4242")],
            mock_tools={"charge_card": {"status": "charged", "id": "ch_mock"}},
            id="mocked",
        ),
        FluentCase(
            "Pay 5",
            tools=[tool("charge_card", amount=5.0, card="4242")],
            mock_tools={"charge_card": {"status": "declined"}},
            id="declined",
        ),
        FluentCase("Pay 7", tools=["charge_card"], id="real"),
    ]


async def test_a_mocked_tool_never_runs_and_its_reply_is_what_the_model_sees():
    CHARGES.clear()
    scripted = backend()
    suite = FluentEvalSuite("payments", shop(), cases(), parallelism=1)
    report = await suite.run(backend=scripted)
    assert {case.id: case.status for case in report.cases} == {
        "mocked": "passed",
        "declined": "passed",
        "real": "passed",
    }
    assert CHARGES == [{"amount": 7.0, "card": "4242"}]  # only the unmocked case charged
    replies = [
        part.function_response.response
        for request in scripted.requests["cashier"]
        for content in request.contents or []
        for part in content.parts or []
        if part.function_response is not None
    ]
    assert {"status": "charged", "id": "ch_mock"} in replies
    assert {"status": "declined"} in replies
    assert {"status": "charged", "id": "ch_1"} in replies  # the real one, once
    assert report.config.startswith("none")  # the mocks are the evaluation's, not a config


def test_exported_sets_and_yaml_files_say_what_was_mocked(tmp_path):
    suite = FluentEvalSuite("payments", shop(), cases())
    evalset, _ = suite.to_eval_set_file(tmp_path / "payments.evalset.json")
    written = json.loads(evalset.read_text(encoding="utf-8"))
    first = written["eval_cases"][0]["conversation"][0]["user_content"]["parts"][0]
    assert first["part_metadata"] == {
        "adk_fluent": {"mock_tools": {"charge_card": {"status": "charged", "id": "ch_mock"}}}
    }
    back = FluentEvalSuite.from_eval_set(evalset, shop())
    assert [dict(case.mock_tools or {}) for case in back.cases] == [
        {"charge_card": {"status": "charged", "id": "ch_mock"}},
        {"charge_card": {"status": "declined"}},
        {},
    ]
    suite.to_yaml(tmp_path / "payments.yaml")
    again = FluentEvalSuite.from_yaml(tmp_path / "payments.yaml", shop())
    assert [case.mock_tools for case in again.cases] == [case.mock_tools for case in suite.cases]
