"""Suites in files, run through `suite.run` (ADK's LocalEvalService, scripted models):

- adk-fluent's YAML: to_yaml -> from_yaml gives a suite that scores the same and writes the same
  text (tags, targets, matchers, multi-turn cases and the trajectory match survive);
- ADK's `.evalset.json` + `test_config.json` from to_eval_set_file -> from_eval_set scores the same;
- an eval set in the shape `adk web` saves (exact tool arguments, a recorded answer), without a
  test_config.json, is scored by ADK's default metrics; with one, by the metrics it names;
- a file that is not a suite, a missing file, an unknown YAML key and a bad response spec are
  EvalErrors that say where."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from adk_fluent.errors import EvalError
from adk_fluent.evaluation import (
    ANY,
    FluentCase,
    FluentEvalSuite,
    Regex,
    Turn,
    contains,
    exact,
    regex,
    rouge,
    tool,
)
from adk_fluent.evaluation.compile import RESPONSE_METRIC, TRAJECTORY_METRIC
from tests.support.evaluation import booking_backend, booking_pipeline

ADK_TRAJECTORY = "tool_trajectory_avg_score"
ADK_RESPONSE = "response_match_score"


def whole_pipeline_cases() -> list[FluentCase]:
    """Cases on the whole pipeline: passing and failing ones, every kind of expectation."""
    return [
        FluentCase(
            "Book me a trip to Paris",
            response=contains("booked"),
            tools=[tool("book", city="Paris", date=ANY)],
            expect_state={"intent": "booking", "reply": Regex(r"BK-PAR-\d+")},
            tags=["booking"],
            id="paris",
        ),
        FluentCase(
            "Book me a trip to Rome",
            response=regex(r"BK-ROM-\d+"),
            tools=[tool("book", city="Paris", date=ANY)],  # the pipeline books Rome: fails
            tags=["booking", "wrong"],
            id="rome-expects-paris",
        ),
        FluentCase(
            [
                Turn("hi there", response=contains("Which city"), tools=[]),
                Turn(
                    "Oslo, please",
                    response=rouge("Done: BK-OSL-001. Your trip is booked.", threshold=0.9),
                    tools=["book"],
                ),
            ],
            tags=["booking", "multi-turn"],
            id="two-turns",
        ),
        FluentCase(
            "I want a refund",
            response=exact("done: refunded a-17. your trip is booked.", ignore_case=True),
            tools=[tool("refund", order=Regex(r"^A-\d+$"))],
            reference="Done: refunded A-17. Your trip is booked.",
            tags=["refund"],
            id="refund",
        ),
        FluentCase(
            "hello",
            response=contains("booked"),  # the pipeline asks which city: fails
            tools=[],
            id="hello-expects-booking",
        ),
    ]


def booker_case() -> FluentCase:
    """A case on the booker alone, its input seeded (what a target needs)."""
    return FluentCase(
        "Book Paris",
        target="booker",
        state={"intent": "booking"},
        tools=["book"],
        response=contains("BK-PAR"),
        expect_state={"reply": Regex("booked")},
        tags=["booker"],
        id="booker-only",
    )


def outcome(report: Any, *, with_tags: bool = True) -> list[tuple[Any, ...]]:
    """What a run found, case by case: verdict, metric scores, state checks (and tags, target)."""
    rows = []
    for case in report.cases:
        metrics = {name: (m.score, m.status) for name, m in case.metrics.items()}
        state = [(check.key, check.passed) for check in case.state]
        row: tuple[Any, ...] = (case.id, case.status, metrics, state)
        if with_tags:
            row += (tuple(case.tags), case.target)
        rows.append(row)
    return rows


def case_statuses(report: Any) -> dict[str, str]:
    return {case.id: case.status for case in report.cases}


async def test_yaml_round_trip_scores_the_same_and_writes_the_same_text(tmp_path):
    pipeline = booking_pipeline()
    suite = FluentEvalSuite(
        "booking", pipeline, [*whole_pipeline_cases(), booker_case()], trajectory_match="in_order"
    )
    path = tmp_path / "evals" / "booking.yaml"
    text = suite.to_yaml(path)
    loaded = FluentEvalSuite.from_yaml(path, pipeline)

    assert loaded.to_yaml() == text
    assert loaded.trajectory_match == "in_order"
    assert {case.case_id: (case.tags, case.target) for case in loaded.cases} == {
        case.case_id: (case.tags, case.target) for case in suite.cases
    }

    before = await suite.run(backend=booking_backend())
    after = await loaded.run(backend=booking_backend())
    assert outcome(after) == outcome(before)
    # Not a vacuous match: the run holds passes and failures, and the target case ran on its own.
    assert case_statuses(before) == {
        "paris": "passed",
        "rome-expects-paris": "failed",
        "two-turns": "passed",
        "refund": "passed",
        "hello-expects-booking": "failed",
        "booker-only": "passed",
    }
    assert before.case("booker-only").target == "booker"
    assert after.per_tag["wrong"] == before.per_tag["wrong"]
    assert before.per_tag["wrong"].passed == 0


async def test_eval_set_file_round_trip_scores_the_same(tmp_path):
    pipeline = booking_pipeline()
    suite = FluentEvalSuite(
        "booking", pipeline, whole_pipeline_cases(), trajectory_match="in_order"
    )
    evalset, config = suite.to_eval_set_file(tmp_path / "booking.evalset.json")
    assert config == tmp_path / "test_config.json"

    loaded = FluentEvalSuite.from_eval_set(evalset, pipeline)

    assert loaded.trajectory_match == "in_order"  # from the config's criterion
    before = await suite.run(backend=booking_backend())
    after = await loaded.run(backend=booking_backend())
    assert after.metrics == before.metrics == [TRAJECTORY_METRIC, RESPONSE_METRIC]
    assert outcome(after, with_tags=False) == outcome(before, with_tags=False)
    assert case_statuses(after)["rome-expects-paris"] == "failed"
    assert case_statuses(after)["paris"] == "passed"


def _invocation(user: str, answer: str, calls: list[dict[str, Any]], at: float) -> dict[str, Any]:
    """One recorded turn as `adk web` saves it: the user's message, the agent's final answer,
    and the tool calls it made with their exact arguments."""
    return {
        "invocation_id": f"e-{int(at)}",
        "user_content": {"parts": [{"text": user}], "role": "user"},
        "final_response": {"parts": [{"text": answer}], "role": "model"},
        "intermediate_data": {
            "tool_uses": [
                {"id": f"adk-{index}", "args": call["args"], "name": call["name"]}
                for index, call in enumerate(calls)
            ],
            "tool_responses": [],
            "intermediate_responses": [],
        },
        "creation_timestamp": at,
    }


def _recorded_case(case_id: str, *conversation: dict[str, Any]) -> dict[str, Any]:
    return {
        "eval_id": case_id,
        "conversation": list(conversation),
        "session_input": {"app_name": "shop", "user_id": "user", "state": {}},
        "creation_timestamp": 1767225600.0,
    }


NATIVE_EVAL_SET = {
    "eval_set_id": "recorded",
    "name": "recorded",
    "eval_cases": [
        # What the pipeline does: the same call, the same answer.
        _recorded_case(
            "paris",
            _invocation(
                "Book me a trip to Paris",
                "Done: BK-PAR-001. Your trip is booked.",
                [{"name": "book", "args": {"city": "Paris", "date": "2026-12-01"}}],
                1767225601.0,
            ),
        ),
        # The same answer, but the recorded call booked another city.
        _recorded_case(
            "rome-recorded-as-oslo",
            _invocation(
                "Book me a trip to Rome",
                "Done: BK-ROM-001. Your trip is booked.",
                [{"name": "book", "args": {"city": "Oslo", "date": "2026-12-01"}}],
                1767225602.0,
            ),
        ),
        # The same call, but an answer with no word in common.
        _recorded_case(
            "oslo-other-answer",
            _invocation(
                "Book me a trip to Oslo",
                "Sorry, nothing is available there this winter.",
                [{"name": "book", "args": {"city": "Oslo", "date": "2026-12-01"}}],
                1767225603.0,
            ),
        ),
    ],
    "creation_timestamp": 1767225600.0,
}


async def test_a_native_eval_set_is_scored_by_adks_default_metrics_or_its_config(tmp_path):
    path = tmp_path / "recorded.evalset.json"
    path.write_text(json.dumps(NATIVE_EVAL_SET, indent=2), encoding="utf-8")
    pipeline = booking_pipeline()

    # No test_config.json: ADK's default criteria (tool trajectory 1.0, response match 0.8).
    default = await FluentEvalSuite.from_eval_set(path, pipeline).run(backend=booking_backend())
    assert default.metrics == [ADK_TRAJECTORY, ADK_RESPONSE]
    assert case_statuses(default) == {
        "paris": "passed",
        "rome-recorded-as-oslo": "failed",
        "oslo-other-answer": "failed",
    }
    rome = default.case("rome-recorded-as-oslo").metrics
    assert rome[ADK_TRAJECTORY].status == "failed" and rome[ADK_RESPONSE].status == "passed"
    oslo = default.case("oslo-other-answer").metrics
    assert oslo[ADK_TRAJECTORY].status == "passed" and oslo[ADK_RESPONSE].status == "failed"
    assert set(default.case("paris").metrics) == {ADK_TRAJECTORY, ADK_RESPONSE}

    # The same file with a test_config.json beside it naming response_match_score only.
    (tmp_path / "test_config.json").write_text(
        json.dumps({"criteria": {ADK_RESPONSE: 0.8}}), encoding="utf-8"
    )
    configured = await FluentEvalSuite.from_eval_set(path, pipeline).run(backend=booking_backend())
    assert configured.metrics == [ADK_RESPONSE]
    assert case_statuses(configured) == {
        "paris": "passed",
        "rome-recorded-as-oslo": "passed",  # its wrong call is no longer checked
        "oslo-other-answer": "failed",
    }
    assert all(set(case.metrics) == {ADK_RESPONSE} for case in configured.cases)


# ---- files that are not suites ----


def test_a_json_file_that_is_not_an_eval_set_is_an_eval_error(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"suite": "booking", "cases": []}), encoding="utf-8")
    with pytest.raises(EvalError) as caught:
        FluentEvalSuite.from_eval_set(path, booking_pipeline())
    assert str(path) in caught.value.message
    assert "not an ADK eval set" in caught.value.message
    assert caught.value.field == "path"


def test_a_missing_file_is_an_eval_error(tmp_path):
    missing = tmp_path / "nowhere" / "booking.evalset.json"
    with pytest.raises(EvalError) as caught:
        FluentEvalSuite.from_eval_set(missing, booking_pipeline())
    assert str(missing) in caught.value.message and caught.value.field == "path"
    with pytest.raises(EvalError) as caught:
        FluentEvalSuite.from_yaml(missing.with_suffix(".yaml"), booking_pipeline())
    assert str(missing.with_suffix(".yaml")) in caught.value.message


def _yaml_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_an_unknown_key_in_a_yaml_case_is_an_eval_error_naming_it(tmp_path):
    path = _yaml_file(
        tmp_path,
        """\
        name: booking
        cases:
          - id: paris
            input: Book me a trip to Paris
            tool: [book]
        """,
    )
    with pytest.raises(EvalError) as caught:
        FluentEvalSuite.from_yaml(path, booking_pipeline())
    error = caught.value
    assert "cases[0]" in error.message and "'tool'" in error.message
    assert (error.case, error.field) == ("paris", "tool")
    assert "tools" in (error.hint or "")  # did you mean


def test_an_unknown_suite_key_in_yaml_is_an_eval_error_naming_it(tmp_path):
    path = _yaml_file(
        tmp_path,
        """\
        name: booking
        metric: {response_match_score: 0.5}
        cases:
          - {input: Book me a trip to Paris, tools: [book]}
        """,
    )
    with pytest.raises(EvalError) as caught:
        FluentEvalSuite.from_yaml(path, booking_pipeline())
    assert caught.value.field == "metric" and str(path) in caught.value.message


def test_a_bad_response_spec_in_yaml_is_an_eval_error_naming_the_case(tmp_path):
    path = _yaml_file(
        tmp_path,
        """\
        name: booking
        cases:
          - {id: paris, input: Book me a trip to Paris, tools: [book]}
          - id: rome
            input: Book me a trip to Rome
            response: {startswith: Done}
        """,
    )
    with pytest.raises(EvalError) as caught:
        FluentEvalSuite.from_yaml(path, booking_pipeline())
    error = caught.value
    assert "cases[1]" in error.message and "startswith" in error.message
    assert error.field == "response"
