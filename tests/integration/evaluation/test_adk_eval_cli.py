"""ADK's own `adk eval` runs the files adk-fluent exports, as a user runs them: an agent folder
whose agent.py builds the pipeline and exposes `app` / `root_agent`, the `.evalset.json` and
`test_config.json` from `FluentEvalSuite.to_eval_set_file()`, and the CLI of whichever ADK this
environment has (so the same test runs on both ADK ends in CI).

It proves that adk-fluent's metrics (argument rules, name-only calls, "no call", response
checks, multi-turn cases) are imported and applied by ADK itself: the summary ADK prints, and
the eval history ADK writes under the folder, say which cases passed and which failed, by our
metric names. Each subprocess takes seconds, so each run holds several cases."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adk_fluent.evaluation import (
    ANY,
    FluentCase,
    FluentEvalSuite,
    Regex,
    Turn,
    contains,
    exact,
    regex,
    tool,
)
from adk_fluent.evaluation.compile import RESPONSE_METRIC, TRAJECTORY_METRIC
from tests.support.evaluation import booking_pipeline

REPO = Path(__file__).resolve().parents[3]
ADK_CLI = Path(sys.executable).parent / "adk"
RUN_SECONDS = 300  # a fresh process imports ADK and its eval stack; slow on a shared machine
FOLDER = "shop"

AGENT_PY = """
from tests.support.evaluation import booking_backend, booking_pipeline

pipeline = booking_pipeline()
app = pipeline.to_app(backend=booking_backend())
root_agent = app.root_agent
"""


@dataclass
class EvalRun:
    """One `adk eval` process: its exit code, output, summary counts and ADK's eval history."""

    returncode: int
    output: str
    passed: int
    failed: int
    history: dict[str, Any]  # eval_id -> ADK's EvalCaseResult, from .adk/eval_history/

    def status(self, case_id: str) -> Any:
        return self.history[case_id].final_eval_status

    def metric_statuses(self, case_id: str) -> dict[str, Any]:
        return {
            result.metric_name: result.eval_status
            for result in self.history[case_id].overall_eval_metric_results
        }


def adk_eval(tmp_path: Path, suite: FluentEvalSuite) -> EvalRun:
    """Export `suite`, run `adk eval` on it in a fresh agent folder, and read what ADK wrote."""
    if not ADK_CLI.exists():
        pytest.skip(f"no `adk` CLI beside {sys.executable}")
    from google.adk.evaluation.eval_result import EvalSetResult

    folder = tmp_path / FOLDER
    folder.mkdir()
    (folder / "__init__.py").write_text("from . import agent\n")
    (folder / "agent.py").write_text(textwrap.dedent(AGENT_PY))
    evalset, config = suite.to_eval_set_file(tmp_path / "evals" / f"{suite.name}.evalset.json")
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    result = subprocess.run(
        [str(ADK_CLI), "eval", str(folder), str(evalset), "--config_file_path", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    output = result.stdout + result.stderr
    summary = re.search(
        rf"^{re.escape(suite.name)}:\s+Tests passed: (\d+)\s+Tests failed: (\d+)",
        result.stdout,
        re.MULTILINE,
    )
    assert summary, f"no summary for '{suite.name}' (exit {result.returncode}):\n{output[-4000:]}"
    # ADK 1.x writes a file per batch of cases, 2.x one per run: read them all.
    history: dict[str, Any] = {}
    for path in sorted((folder / ".adk" / "eval_history").glob("*.evalset_result.json")):
        recorded = EvalSetResult.model_validate_json(path.read_text(encoding="utf-8"))
        assert recorded.eval_set_id == suite.name
        for case in recorded.eval_case_results:
            assert case.eval_id not in history, f"{case.eval_id} recorded twice"
            history[case.eval_id] = case
    return EvalRun(result.returncode, output, int(summary.group(1)), int(summary.group(2)), history)


def test_a_suite_that_should_pass_passes_under_adk_eval(tmp_path):
    from google.adk.evaluation.evaluator import EvalStatus

    suite = FluentEvalSuite(
        "good",
        booking_pipeline(),
        [
            FluentCase(
                "Book me a trip to Paris",
                response=contains("booked"),
                tools=[tool("book", city="Paris", date=ANY)],
                id="paris",
            ),
            FluentCase(
                "Rome please",
                response=regex(r"BK-ROM-\d+"),
                tools=[tool("book", city=Regex("^Ro"), date=Regex(r"^\d{4}-\d{2}-\d{2}$"))],
                id="rome-regex",
            ),
            FluentCase(
                "I want a refund",
                response=exact("Done: refunded A-17. Your trip is booked."),
                tools=["refund"],  # by name: any arguments
                id="refund-by-name",
            ),
            FluentCase("hello", response=contains("Which city"), tools=[], id="no-call"),
            FluentCase(
                [
                    Turn("hi there", response=contains("Which city"), tools=[]),
                    Turn(
                        "Oslo, please",
                        response=contains("BK-OSL"),
                        tools=[tool("book", city="Oslo", date=ANY)],
                    ),
                ],
                id="two-turns",
            ),
        ],
    )
    run = adk_eval(tmp_path, suite)

    assert (run.passed, run.failed) == (5, 0), run.output[-4000:]
    assert run.returncode == 0, run.output[-4000:]
    assert set(run.history) == {case.case_id for case in suite.cases}
    for case_id in run.history:
        assert run.status(case_id) == EvalStatus.PASSED, case_id
        statuses = run.metric_statuses(case_id)
        assert statuses[TRAJECTORY_METRIC] == EvalStatus.PASSED, (case_id, statuses)
        assert statuses[RESPONSE_METRIC] == EvalStatus.PASSED, (case_id, statuses)
    # The two-turn case was scored turn by turn: ADK kept a result per invocation.
    assert len(run.history["two-turns"].eval_metric_result_per_invocation) == 2


def test_one_wrong_expectation_fails_that_case_only(tmp_path):
    from google.adk.evaluation.evaluator import EvalStatus

    suite = FluentEvalSuite(
        "wrong-city",
        booking_pipeline(),
        [
            FluentCase(
                "Book me a trip to Paris",
                response=contains("booked"),
                tools=[tool("book", city="Paris", date=ANY)],
                id="paris",
            ),
            FluentCase(
                "Book me a trip to Rome",
                response=contains("booked"),
                tools=[tool("book", city="Paris", date=ANY)],  # the pipeline books Rome
                id="rome-expects-paris",
            ),
            FluentCase("hello", response=contains("Which city"), tools=[], id="no-call"),
        ],
    )
    run = adk_eval(tmp_path, suite)

    assert (run.passed, run.failed) == (2, 1), run.output[-4000:]
    # A failed case exits 1 on ADK 2.x and 0 on 1.x (ADK's own choice, not adk-fluent's);
    # either way the run completed (a crash would print no summary, asserted above).
    assert run.returncode in (0, 1), run.output[-4000:]
    assert run.status("rome-expects-paris") == EvalStatus.FAILED
    assert run.metric_statuses("rome-expects-paris")[TRAJECTORY_METRIC] == EvalStatus.FAILED
    # The response check still held: only the wrong argument failed the case.
    assert run.metric_statuses("rome-expects-paris")[RESPONSE_METRIC] == EvalStatus.PASSED
    assert run.status("paris") == EvalStatus.PASSED
    assert run.status("no-call") == EvalStatus.PASSED


def test_adk_eval_ignores_an_argument_marked_any_and_checks_a_fixed_one(tmp_path):
    from google.adk.evaluation.evaluator import EvalStatus

    suite = FluentEvalSuite(
        "ignored-arguments",
        booking_pipeline(),
        [
            FluentCase(
                "Book me a trip to Paris",
                tools=[tool("book", city="Paris", date=ANY)],
                id="date-ignored",
            ),
            FluentCase(
                "Book me a trip to Paris",
                tools=[tool("book", city="Paris", date="1999-01-01")],
                id="date-checked",
            ),
            FluentCase(
                "Book me a trip to Paris",
                tools=[tool("book", city="Paris")],  # an argument left out must not be passed
                id="date-left-out",
            ),
        ],
    )
    run = adk_eval(tmp_path, suite)

    assert (run.passed, run.failed) == (1, 2), run.output[-4000:]
    assert run.returncode in (0, 1), run.output[-4000:]
    assert run.metric_statuses("date-ignored")[TRAJECTORY_METRIC] == EvalStatus.PASSED
    assert run.metric_statuses("date-checked")[TRAJECTORY_METRIC] == EvalStatus.FAILED
    assert run.metric_statuses("date-left-out")[TRAJECTORY_METRIC] == EvalStatus.FAILED
    # No response expectation, so adk-fluent's response metric was not asked for.
    assert RESPONSE_METRIC not in run.metric_statuses("date-ignored")
