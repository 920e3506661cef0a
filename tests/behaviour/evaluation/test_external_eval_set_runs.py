"""ADK's own eval-set files (../shared/external-evalsets), run: each file's cases through the real
Runner, with a stand-in for every tool its cases call and a scripted model that makes the calls
the file expects and gives the answers it recorded, scored by ADK's metrics.

- every file passes under the metrics ADK's tools would use (test_config.json beside it), or,
  where there is none, the ADK metrics its cases can be scored by (tests/support/evaluation.py
  `replay_config`): the tool trajectory, ROUGE, and ADK's rubric metric with a scripted judge;
  except that a case whose rubrics no metric scores is NOT EVALUATED, with the reason, never
  passed: ADK's rubric metrics read a case's or a turn's rubric only when its `type` names
  their kind, and the long-horizon sample's per-turn rubrics have none;
- with a type, a file's per-turn rubrics reach ADK's rubric judge and are scored;
- the scoring is live: a replay that leaves a call out fails the file's trajectory metric;
- the long-horizon sample's own eval_config.json (ADK's rubric metric only) scores its own two
  rubrics, and the report says which of the file's it could not;
- rubrics with no rubric metric in the run: NOT EVALUATED, naming this ADK's rubric metrics.

Reading and exporting them is tests/unit/evaluation/test_external_eval_set_files.py."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from adk_fluent.errors import AdkFluentWarning
from adk_fluent.evaluation import FluentEvalSuite
from adk_fluent.testing import mock_backend, repeat
from tests.support.evaluation import (
    REVIEWER_PROMPTS,
    adk_reads,
    external_eval_set_files,
    file_id,
    replay_config,
    replay_pipeline,
    replayer,
    reviewer_models,
)

FILES = external_eval_set_files()


def _suite(source: Any, pipeline: Any, config: Any = None) -> FluentEvalSuite:
    with warnings.catch_warnings():  # ADK's default criteria on unanswered turns: true, not ours
        warnings.simplefilter("ignore", AdkFluentWarning)
        return FluentEvalSuite.from_eval_set(source, pipeline, config=config)


FINAL_RESPONSE = "FINAL_RESPONSE_QUALITY"  # the kind of rubric replay_config's metric scores


def _rubrics(eval_case: Any) -> list[Any]:
    rubrics = list(eval_case.rubrics or [])
    for turn in eval_case.conversation or []:
        rubrics += turn.rubrics or []
    return rubrics


@pytest.mark.parametrize("path", FILES, ids=file_id)
async def test_a_replay_of_the_files_own_calls_and_answers_passes(path: Path, tmp_path: Path):
    adk = adk_reads(path, tmp_path)
    pipeline, backend = replay_pipeline(adk)
    config = replay_config(path, adk)
    suite = _suite(path, pipeline, config)

    with reviewer_models():
        report = await suite.run(backend=backend)

    assert [case.id for case in report.cases] == [case.eval_id for case in adk.eval_cases]
    for case, eval_case in zip(report.cases, adk.eval_cases, strict=True):
        metrics = {name: outcome.status for name, outcome in case.metrics.items()}
        unscored = [r for r in _rubrics(eval_case) if r.type != FINAL_RESPONSE]
        if not unscored:
            assert case.status == "passed", report.to_text(verbose=True)
            assert metrics and set(metrics.values()) == {"passed"}  # scored, not waved through
            continue
        # rubrics ADK's metric skips (no type): said so, and the case is not called passed
        assert case.status == "not_evaluated"
        assert metrics.pop("rubrics") == "not_evaluated"
        assert set(metrics.values()) == {"passed"}
        reason = case.metrics["rubrics"].reason
        assert reason.startswith(f"{len(unscored)} rubric(s) in the case that ")
        assert "only when its type names their kind" in reason and "type None" in reason


async def test_typed_per_turn_rubrics_reach_adks_rubric_judge_and_are_scored(tmp_path: Path):
    """The long-horizon sample's rubrics, given the type ADK's final-response metric reads:
    each turn's rubrics are in the judge's prompt and in ADK's rubric scores, and the case
    passes. (Before, a loaded case dropped its turns' rubrics: the judge saw none.)"""
    [path] = [path for path in FILES if path.name == "guardrail_halt.evalset.json"]
    typed = adk_reads(path, tmp_path).model_copy(deep=True)
    for case in typed.eval_cases:
        for rubric in _rubrics(case):
            rubric.type = FINAL_RESPONSE
    pipeline, backend = replay_pipeline(typed)
    suite = _suite(typed, pipeline, replay_config(path, typed))

    with reviewer_models():
        report = await suite.run(backend=backend)

    assert report.passed, report.to_text(verbose=True)
    scored = {
        score.rubric_id
        for result in report.case_results
        for per_turn in result.eval_metric_result_per_invocation
        for metric in per_turn.eval_metric_results
        for score in metric.details.rubric_scores or []
    }
    wanted = {rubric.rubric_id for case in typed.eval_cases for rubric in _rubrics(case)}
    assert wanted and wanted <= scored
    for case in typed.eval_cases:
        for rubric in _rubrics(case):
            text = rubric.rubric_content.text_property
            assert any(text in prompt for prompt in REVIEWER_PROMPTS), text


def _without_last_calls(eval_set: Any) -> Any:
    """The eval set as if no turn made its last expected call (what the broken agent does)."""
    broken = eval_set.model_copy(deep=True)
    for case in broken.eval_cases:
        for turn in case.conversation or []:
            data = turn.intermediate_data
            if data is not None and data.tool_uses:
                data.tool_uses = data.tool_uses[:-1]
    return broken


def _scores_calls(path: Path) -> bool:
    """The file expects tool calls, and its run scores them with ADK's trajectory metric (its
    test_config.json names it, or replay_config adds it, as for every file without one)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        turns = [turn for item in data for turn in item.get("data", [item])]
        calls = any(turn.get("expected_tool_use") for turn in turns)
    else:
        calls = any(
            (turn.get("intermediate_data") or {}).get("tool_uses")
            for case in data["eval_cases"]
            for turn in case.get("conversation") or []
        )
    config = path.parent / "test_config.json"
    return calls and (not config.is_file() or "tool_trajectory_avg_score" in config.read_text())


@pytest.mark.parametrize("path", [path for path in FILES if _scores_calls(path)], ids=file_id)
async def test_a_replay_that_leaves_a_call_out_fails_the_trajectory(path: Path, tmp_path: Path):
    adk = adk_reads(path, tmp_path)
    suite = _suite(path, replay_pipeline(adk)[0], replay_config(path, adk))
    [threshold] = [s.threshold for s in suite.metrics if s.name == "tool_trajectory_avg_score"]

    backend = mock_backend({"agent": repeat(replayer(_without_last_calls(adk)))})
    with reviewer_models():
        report = await suite.run(backend=backend)

    scores = [
        case.metrics["tool_trajectory_avg_score"].score
        for case in report.cases
        if "tool_trajectory_avg_score" in case.metrics
    ]
    assert min(scores) < 1.0  # a missing call is seen
    if threshold == 1.0:
        assert not report.passed


async def test_the_long_horizon_samples_own_eval_config_scores_its_rubrics(tmp_path: Path):
    """guardrail_halt's project grades it with eval_config.json (ADK's rubric metric, a judge
    named gemini-3.7-flash, two rubrics of its own) on top of each turn's rubrics."""
    [path] = [path for path in FILES if path.name == "guardrail_halt.evalset.json"]
    config = path.parent.parent / "eval_config.json"
    adk = adk_reads(path, tmp_path)
    pipeline, backend = replay_pipeline(adk)
    suite = _suite(path, pipeline, config)
    assert [spec.name for spec in suite.metrics] == ["rubric_based_final_response_quality_v1"]

    with reviewer_models():
        report = await suite.run(backend=backend)

    assert report.metrics == ["rubric_based_final_response_quality_v1"]
    for case, eval_case in zip(report.cases, adk.eval_cases, strict=True):
        # its own two rubrics were judged and passed; the turn's untyped ones ADK skipped
        assert case.metrics["rubric_based_final_response_quality_v1"].status == "passed"
        assert case.metrics["rubric_based_final_response_quality_v1"].score == 1.0
        assert case.status == "not_evaluated"
        count = len(_rubrics(eval_case))
        assert case.metrics["rubrics"].reason.startswith(f"{count} rubric(s) in the case that")
    criterion = json.loads(config.read_text(encoding="utf-8"))["criteria"]
    own = [r["rubricContent"]["textProperty"] for r in criterion[report.metrics[0]]["rubrics"]]
    assert len(own) == 2 and len(REVIEWER_PROMPTS) == len(report.cases)
    assert all(text in prompt for text in own for prompt in REVIEWER_PROMPTS)


async def test_rubrics_no_metric_scores_leave_the_case_not_evaluated(tmp_path: Path):
    from google.adk.evaluation.eval_config import EvalConfig

    """Under ADK's default criteria (no rubric metric) the guardrail cases' rubrics go unscored:
    the cases are NOT EVALUATED with the reason and this ADK's rubric metrics, never passed."""
    [path] = [path for path in FILES if path.name == "guardrail_halt.evalset.json"]
    adk = adk_reads(path, tmp_path)
    pipeline, backend = replay_pipeline(adk)
    only_calls = EvalConfig(criteria={"tool_trajectory_avg_score": 1.0})
    suite = _suite(path, pipeline, only_calls)

    report = await suite.run(backend=backend)

    assert not report.passed
    assert {case.status for case in report.cases} == {"not_evaluated"}
    first = report.cases[0]
    assert first.metrics["tool_trajectory_avg_score"].status == "passed"
    reason = first.metrics["rubrics"].reason
    assert reason.startswith("2 rubric(s) in the case, no rubric metric ran")
    assert "rubric_based_final_response_quality_v1" in reason
    assert "rubrics: not evaluated (2 rubric(s) in the case" in report.to_text()
