"""Misuse of the evaluation room: FluentCase, the response checks, the matchers, FluentJudge,
UserSimulation, FluentEvalSuite, FluentEvalReport and a run's case / tag selection refuse wrong
arguments when they are written (or when the run starts, before any model is called), naming
the case and the field and giving a hint.

The run-time cases return `suite.run(...)`'s coroutine; `check` drives it. They fail while
selecting cases or resolving metric names, before a Runner or a session service exists.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from adk_fluent import ExecutionConfig, StateSchema
from adk_fluent.evaluation import (
    ANY,
    CaseResult,
    FluentCase,
    FluentEvalReport,
    FluentEvalSuite,
    FluentJudge,
    Regex,
    ToolCall,
    Turn,
    UserSimulation,
    contains,
    exact,
    regex,
    rouge,
    tool,
)
from tests.support.evaluation import booking_pipeline
from tests.support.misuse import case, check, ids


class Booking(StateSchema):
    intent: str
    reply: str


def polite(turn: Any) -> float:
    """A module-level judge (exportable)."""
    return 1.0


def _paris() -> FluentCase:
    return FluentCase("Book Paris", response=contains("booked"), id="paris", tags=["booking"])


def _suite(*cases: FluentCase, **options: Any) -> FluentEvalSuite:
    return FluentEvalSuite("booking", booking_pipeline(), list(cases) or [_paris()], **options)


def _native_app() -> Any:
    from google.adk.agents.llm_agent import LlmAgent
    from google.adk.apps.app import App

    return App(name="shop", root_agent=LlmAgent(name="clerk", model="gemini-2.5-flash"))


def _load_text(text: str, name: str = "report.json") -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        return FluentEvalReport.load(path)


def _load_folder() -> Any:
    with tempfile.TemporaryDirectory() as folder:
        return FluentEvalReport.load(folder)


def _load_missing() -> Any:
    with tempfile.TemporaryDirectory() as folder:
        return FluentEvalReport.load(Path(folder) / "baseline.json")


def _eval_set() -> Any:
    from google.adk.evaluation.eval_set import EvalSet

    return EvalSet(eval_set_id="shop", eval_cases=[])


def _read(text: str) -> Any:
    """from_eval_set on a file holding `text`."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.test.json"
        path.write_text(text, encoding="utf-8")
        return FluentEvalSuite.from_eval_set(path, booking_pipeline())


def _report() -> FluentEvalReport:
    return FluentEvalReport(
        "booking", [CaseResult("paris", "passed"), CaseResult("rome", "failed")]
    )


CASES = [
    # FluentCase: the input
    case("eval-case-input-empty", lambda: FluentCase("", response="x"), "input", "message"),
    case("eval-case-input-none", lambda: FluentCase(None, response="x"), "input", "None"),
    case("eval-case-input-empty-list", lambda: FluentCase([], response="x"), "input", "list"),
    case("eval-case-input-dict", lambda: FluentCase({"text": "hi"}, response="x"), "input", "dict"),
    case("eval-case-turn-int", lambda: FluentCase(["hi", 3], response="x"), "input", "turn", "3"),
    # FluentCase: id, target, tags, user_id
    case(
        "eval-case-id-newline", lambda: FluentCase("hi", response="x", id="a\nb"), "id", "one line"
    ),
    case("eval-case-id-blank", lambda: FluentCase("hi", response="x", id="  "), "id", "'  '"),
    case("eval-case-id-int", lambda: FluentCase("hi", response="x", id=3), "id", "3"),
    case("eval-case-target-int", lambda: FluentCase("hi", response="x", target=3), "target", "hi"),
    case(
        "eval-case-target-dashed",
        lambda: FluentCase("hi", response="x", target="my-agent"),
        "target",
        "my-agent",
    ),
    case("eval-case-tags-int", lambda: FluentCase("hi", response="x", tags=[1]), "tags", "1"),
    case("eval-case-tags-empty", lambda: FluentCase("hi", response="x", tags=""), "tags"),
    case("eval-case-user-id-empty", lambda: FluentCase("hi", response="x", user_id=""), "user_id"),
    # FluentCase: state and expect_state
    case(
        "eval-case-state-holds-a-matcher",
        lambda: FluentCase("hi", response="x", state={"intent": ANY}),
        "state['intent']",
        "check",
        "expect_state",
    ),
    case(
        "eval-case-state-matcher-shown-by-name",
        lambda: FluentCase("hi", response="x", state={"intent": ANY}),
        "is ANY",
    ),
    case(
        "eval-case-state-holds-a-function",
        lambda: FluentCase("hi", response="x", state={"score": lambda v: v > 1}),
        "state['score']",
        "check",
    ),
    case("eval-case-state-list", lambda: FluentCase("hi", state=["intent"]), "state", "mapping"),
    case("eval-case-state-key-int", lambda: FluentCase("hi", state={3: "x"}), "state", "3"),
    case(
        "eval-case-expect-state-list",
        lambda: FluentCase("hi", expect_state=["intent"]),
        "expect_state",
        "mapping",
    ),
    case(
        "eval-case-expect-state-key-int",
        lambda: FluentCase("hi", expect_state={3: "x"}),
        "expect_state",
        "3",
    ),
    # FluentCase: response, tools, reference
    case("eval-case-response-int", lambda: FluentCase("hi", response=3), "response", "3", "hi"),
    case(
        "eval-case-turn-response-names-its-case",
        lambda: FluentCase([Turn("Book Paris", response=3)]),
        "case 'book-paris'",
        "response",
    ),
    case("eval-case-tools-text", lambda: FluentCase("hi", tools="book"), "tools", "list", "book"),
    case("eval-case-tools-item-int", lambda: FluentCase("hi", tools=[3]), "tools", "3"),
    case(
        "eval-case-tools-name-not-identifier",
        lambda: FluentCase("hi", tools=[tool("not a name")]),
        "tools",
        "not a name",
    ),
    case(
        "eval-case-toolcall-args-list",
        lambda: FluentCase("hi", tools=[ToolCall("book", ["Paris"])]),
        "book",
        "mapping",
        "list",
    ),
    case(
        "eval-case-toolcall-args-text",
        lambda: FluentCase("hi", tools=[ToolCall("book", "Paris")]),
        "book",
        "mapping",
    ),
    case(
        "eval-case-turn-and-case-response",
        lambda: FluentCase([Turn("hi", response="a")], response="b"),
        "response",
        "Turn",
        "one place",
    ),
    case(
        "eval-case-turn-and-case-tools",
        lambda: FluentCase([Turn("hi", tools=["book"])], tools=["refund"]),
        "tools",
        "Turn",
    ),
    case("eval-case-reference-int", lambda: FluentCase("hi", reference=3), "reference", "3"),
    # response checks
    case("eval-exact-empty", lambda: exact(""), "exact()", "non-empty"),
    case("eval-exact-int", lambda: exact(3), "exact()", "3"),
    case("eval-contains-none", lambda: contains(None), "contains()", "None"),
    case("eval-regex-bad-pattern", lambda: regex("("), "not a valid regular expression", "'('"),
    case("eval-regex-none", lambda: regex(None), "regex()", "None"),
    case("eval-rouge-threshold-two", lambda: rouge("booked", 2), "threshold", "0..1"),
    case("eval-rouge-threshold-negative", lambda: rouge("booked", -0.1), "threshold", "-0.1"),
    case("eval-rouge-threshold-text", lambda: rouge("booked", "high"), "threshold", "number"),
    case("eval-rouge-threshold-bool", lambda: rouge("booked", True), "threshold", "True"),
    case("eval-rouge-text-empty", lambda: rouge("", 0.5), "rouge()", "non-empty"),
    # matchers
    case("eval-regex-matcher-bad-pattern", lambda: Regex("[a"), "Regex('[a')", "regular"),
    case("eval-regex-matcher-int", lambda: Regex(3), "pattern", "3"),
    # FluentJudge
    case("eval-judge-name-space", lambda: FluentJudge("my judge", polite), "'my judge'", "name"),
    case("eval-judge-fn-text", lambda: FluentJudge("tone", "polite"), "tone", "function"),
    case("eval-judge-threshold-two", lambda: FluentJudge("tone", polite, 2), "tone", "0..1"),
    case("eval-judge-threshold-text", lambda: FluentJudge("tone", polite, "x"), "threshold"),
    # UserSimulation
    case("eval-simulation-plan-empty", lambda: UserSimulation("refund", plan=""), "plan"),
    case(
        "eval-simulation-max-turns-zero",
        lambda: UserSimulation("refund", plan="ask", max_turns=0),
        "max_turns",
        "0",
    ),
    case(
        "eval-simulation-max-turns-bool",
        lambda: UserSimulation("refund", plan="ask", max_turns=True),
        "max_turns",
    ),
    case("eval-simulation-model-empty", lambda: UserSimulation("r", plan="a", model=""), "model"),
    # FluentEvalSuite: its own arguments
    case(
        "eval-suite-name-space",
        lambda: FluentEvalSuite("my suite", booking_pipeline(), [_paris()]),
        "suite name",
        "'my suite'",
    ),
    case(
        "eval-suite-pipeline-text",
        lambda: FluentEvalSuite("booking", "booking_pipeline", [_paris()]),
        "pipeline",
        "str",
    ),
    case(
        "eval-suite-cases-text",
        lambda: FluentEvalSuite("booking", booking_pipeline(), ["Book Paris"]),
        "cases",
        "FluentCase",
    ),
    case(
        "eval-suite-cases-one-case",
        lambda: FluentEvalSuite("booking", booking_pipeline(), _paris()),
        "cases",
        "list",
    ),
    case(
        "eval-suite-cases-none",
        lambda: FluentEvalSuite("booking", booking_pipeline(), None),
        "cases",
        "None",
    ),
    case(
        "eval-suite-no-cases",
        lambda: FluentEvalSuite("booking", booking_pipeline(), []),
        "cases",
        "at least one case",
    ),
    case(
        "eval-suite-case-checks-nothing",
        lambda: _suite(FluentCase("hi")),
        "case 'hi'",
        "checks nothing",
    ),
    case(
        "eval-suite-duplicate-ids",
        lambda: _suite(_paris(), FluentCase("Book Rome", response="Booked.", id="paris")),
        "case 'paris'",
        "two cases",
    ),
    case(
        "eval-suite-trajectory-match-typo",
        lambda: _suite(trajectory_match="inorder"),
        "trajectory_match",
        "'inorder'",
        "did you mean 'in_order'",
    ),
    case("eval-suite-num-runs-zero", lambda: _suite(num_runs=0), "num_runs", "0"),
    case("eval-suite-parallelism-zero", lambda: _suite(parallelism=0), "parallelism"),
    case(
        "eval-suite-metrics-list",
        lambda: _suite(metrics=["response_match_score"]),
        "metrics",
        "mapping",
    ),
    case(
        "eval-suite-metric-threshold-text",
        lambda: _suite(metrics={"response_match_score": "high"}),
        "response_match_score",
        "threshold",
        "'high'",
    ),
    case(
        "eval-suite-metric-criterion-threshold-text",
        lambda: _suite(metrics={"response_match_score": {"threshold": "high"}}),
        "response_match_score",
        "threshold",
        "'high'",
    ),
    case(
        "eval-suite-own-metrics-unknown",
        lambda: _suite(own_metrics=["trajectory"]),
        "own_metrics",
        "'trajectory'",
        "adk_fluent_trajectory",
    ),
    case(
        "eval-suite-own-metrics-text",
        lambda: _suite(own_metrics="adk_fluent_trajectory"),
        "own_metrics",
        "'adk_fluent_trajectory'",
    ),
    case("eval-suite-judges-function", lambda: _suite(judges=[polite]), "judges", "FluentJudge"),
    case(
        "eval-suite-judges-one-judge",
        lambda: _suite(judges=FluentJudge("tone", polite)),
        "judges",
        "list",
    ),
    case("eval-suite-judge-model-int", lambda: _suite(judge_model=3), "judge_model", "3"),
    # FluentEvalSuite: cases checked against the pipeline
    case(
        "eval-suite-target-typo",
        lambda: _suite(FluentCase("Book Paris", response="Booked.", target="bookr")),
        "'bookr'",
        "target",
        "did you mean 'booker'",
    ),
    case(
        "eval-suite-target-reads-unseeded-key",
        lambda: _suite(FluentCase("Book Paris", tools=["book"], target="booker")),
        "'booker'",
        "'intent'",
        "state={'intent'",
    ),
    case(
        "eval-suite-target-on-native-app",
        lambda: FluentEvalSuite(
            "shop", _native_app(), [FluentCase("hi", response="x", target="clerk")]
        ),
        "target",
        "adk-fluent pipeline",
    ),
    case(
        "eval-suite-schema-key-typo",
        lambda: _suite(
            FluentCase("Book Paris", expect_state={"intnt": "booking"}), state_schema=Booking
        ),
        "'intnt'",
        "Booking",
        "did you mean 'intent'",
    ),
    case(
        "eval-suite-schema-value-type",
        lambda: _suite(FluentCase("Book Paris", expect_state={"intent": 3}), state_schema=Booking),
        "intent",
        "str",
        "expect_state",
    ),
    case(
        "eval-suite-schema-seed-type",
        lambda: _suite(
            FluentCase("Book Paris", response="Booked.", state={"reply": ["x"]}),
            state_schema=Booking,
        ),
        "reply",
        "state",
    ),
    case(
        "eval-suite-schema-not-a-schema",
        lambda: _suite(FluentCase("Book Paris", expect_state={"intent": "b"}), state_schema=dict),
        "state_schema",
        "StateSchema",
    ),
    # FluentEvalSuite: export
    case(
        "eval-suite-export-lambda-judge",
        lambda: _suite(judges=[FluentJudge("tone", lambda turn: 1.0)]).to_eval_config(),
        "'tone'",
        "module-level",
    ),
    case(
        "eval-suite-export-target-without-cases",
        lambda: _suite().to_eval_set(target="booker"),
        "'booker'",
        "target",
    ),
    # FluentEvalReport
    case("eval-report-load-missing", _load_missing, "no report", "baseline.json"),
    case(
        "eval-report-load-not-a-report",
        lambda: _load_text(json.dumps([1, 2])),
        "not an adk-fluent eval report",
    ),
    case("eval-report-load-not-json", lambda: _load_text("{nope"), "not a saved report"),
    case(
        "eval-report-load-malformed-case",
        lambda: _load_text(json.dumps({"format": "adk-fluent-eval-report/1", "cases": [{}]})),
        "report.json",
        "case",
    ),
    case("eval-report-load-folder", _load_folder, "baseline", "not a file"),
    case(
        "eval-report-case-typo",
        lambda: _report().case("pari"),
        "'pari'",
        "did you mean 'paris'",
    ),
    case(
        "eval-report-compare-int",
        lambda: _report().compare(3),
        "baseline",
        "3",
    ),
    case(
        "eval-report-compare-missing-baseline",
        lambda: _report().compare("/nonexistent/baseline.json"),
        "no report",
    ),
    # a run's selection and metric names (before anything runs)
    case(
        "eval-run-case-typo",
        lambda: _suite().run(cases=["pari"]),
        "'pari'",
        "did you mean 'paris'",
    ),
    case(
        "eval-run-sync-case-typo",
        lambda: _suite().run_sync(cases="pari"),
        "'pari'",
        "did you mean 'paris'",
    ),
    case(
        "eval-run-tag-selects-nothing",
        lambda: _suite().run(tags=["refund"]),
        "no case is selected",
        "tags",
        "booking",
    ),
    case("eval-run-no-ids", lambda: _suite().run(cases=[]), "no case is selected", "cases"),
    case(
        "eval-run-config-not-an-execution-config",
        lambda: _suite().run(config={"middleware": []}),
        "config",
        "ExecutionConfig",
        "dict",
    ),
    case(
        "eval-run-config-on-a-native-app",
        lambda: FluentEvalSuite("shop", _native_app(), [_paris()]).run(config=ExecutionConfig()),
        "config=",
        "native App",
        "App(plugins=...)",
    ),
    case(
        "eval-from-eval-set-config-list",
        lambda: FluentEvalSuite.from_eval_set(_eval_set(), booking_pipeline(), config=["x"]),
        "config",
        "EvalConfig",
        "list",
    ),
    case(
        "eval-from-eval-set-config-bad-criterion",
        lambda: FluentEvalSuite.from_eval_set(
            _eval_set(), booking_pipeline(), config={"criteria": {"response_match_score": "x"}}
        ),
        "config",
        "not an ADK eval config",
        "criteria",
    ),
    case(
        "eval-from-eval-set-old-list-refused-by-adk",
        lambda: _read('[{"query": "hi", "expected_tool_use": [{"name": "book"}]}]'),
        "older list format",
        "tool_name",
        "x.test.json",
    ),
    case("eval-from-eval-set-not-json", lambda: _read("{nope"), "is not JSON", "x.test.json"),
    case(
        "eval-from-eval-set-not-an-eval-set",
        lambda: _read('{"suite": "booking", "cases": []}'),
        "not an ADK eval set",
        "eval_set_id",
    ),
    case("eval-run-case-id-int", lambda: _suite().run(cases=[3]), "cases", "3"),
    case("eval-run-tags-int", lambda: _suite().run(tags=3), "tags", "3"),
    case(
        "eval-run-unknown-adk-metric",
        lambda: _suite(metrics={"response_match_scor": 0.7}).run(),
        "'response_match_scor'",
        "did you mean 'response_match_score'",
    ),
    # FluentCase(mock_tools=...)
    case(
        "mock-tools-a-list",
        lambda: FluentCase("Book Paris", mock_tools=["book"]),
        "mock_tools",
        "tool name -> its reply",
    ),
    case(
        "mock-tools-empty",
        lambda: FluentCase("Book Paris", mock_tools={}),
        "mock_tools",
        "an empty mapping",
    ),
    case(
        "mock-tools-name-not-a-tool-name",
        lambda: FluentCase("Book Paris", mock_tools={"book a trip": {}}),
        "mock_tools",
        "'book a trip'",
    ),
    case(
        "mock-tools-reply-not-json",
        lambda: FluentCase("Book Paris", mock_tools={"book": {"when": object()}}),
        "mock_tools",
        "'book'",
        "JSON value",
    ),
    case(
        "mock-tools-unknown-tool-at-run",
        lambda: _suite(
            FluentCase("Book Paris", tools=["book"], mock_tools={"bok": {"ok": True}}, id="p")
        ).run(),
        "case 'p'",
        "mock_tools",
        "'bok'",
        "did you mean 'book'",
    ),
    case(
        "mock-tools-native-agent-suite",
        lambda: FluentEvalSuite(
            "shop",
            _native_app(),
            [FluentCase("Hi", response="Hello", mock_tools={"x": 1}, id="hi")],
        ).run(),
        "case 'hi'",
        "mock_tools",
        "native ADK agent",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
