"""FluentEvalReport built from CaseResults: verdicts, per-tag and per-metric summaries, the
comparison with a baseline, the text table, JSON round trips, and merging a case's runs."""

from __future__ import annotations

import json

import pytest

from adk_fluent.errors import EvalError
from adk_fluent.evaluation import (
    CaseResult,
    FluentEvalReport,
    MetricOutcome,
    StateOutcome,
    TurnOutcome,
)
from adk_fluent.evaluation.report import merge_runs

TRAJ = "adk_fluent_trajectory"
RESP = "response_match_score"


def _metric(score, status=None, threshold=0.8):
    if status is None:
        status = (
            "not_evaluated" if score is None else ("passed" if score >= threshold else "failed")
        )
    return MetricOutcome(score, threshold, status)


def _case(case_id, status="passed", tags=(), **scores):
    metrics = {name: _metric(score) for name, score in scores.items()}
    return CaseResult(case_id, status, metrics=metrics, tags=list(tags))


def _report(*cases, metrics=(TRAJ, RESP)):
    return FluentEvalReport("booking", list(cases), adk_version="9.9.9", metrics=list(metrics))


def _failing_case():
    return CaseResult(
        "rome",
        "failed",
        metrics={TRAJ: _metric(0.0, threshold=1.0), RESP: _metric(0.9)},
        state=[
            StateOutcome("intent", "'booking'", "'booking'", True),
            StateOutcome("reply", "Regex('^Done')", "'Which city?'", False, "does not match"),
        ],
        turns=[
            TurnOutcome(
                user="Book Rome",
                response="Which city?",
                tool_calls=["book(city='Rome')"],
                response_check="contains('booked')",
                response_problem="does not contain 'booked'",
                trajectory=[
                    "~ book(city='Rome')  expected book(city='Paris'): "
                    "book argument ['city']: 'Rome' != 'Paris'"
                ],
                trajectory_problem="book argument ['city']: 'Rome' != 'Paris'",
            )
        ],
        tags=["booking", "rome"],
        tokens={"input": 120, "output": 30},
    )


def _full_report():
    return _report(
        CaseResult(
            "paris",
            "passed",
            metrics={TRAJ: _metric(1.0, threshold=1.0), RESP: _metric(0.95)},
            tags=["booking"],
        ),
        _failing_case(),
        CaseResult("hello", "error", error="model exploded", tags=["smoke"]),
        CaseResult(
            "quiet",
            "not_evaluated",
            metrics={RESP: _metric(None)},
            tags=["smoke"],
        ),
    )


# ---- verdicts and summaries ----
def test_pass_rate_and_failures():
    report = _full_report()
    assert report.pass_rate == pytest.approx(0.25)
    assert [case.id for case in report.failures] == ["rome", "hello", "quiet"]
    assert not report.passed


def test_passed_needs_every_case_and_at_least_one():
    assert _report(CaseResult("a", "passed"), CaseResult("b", "passed")).passed
    assert not _report().passed
    assert _report().pass_rate == 0.0
    # a case no metric evaluated has not passed
    assert not _report(CaseResult("a", "passed"), CaseResult("b", "not_evaluated")).passed


def test_per_tag():
    tags = _full_report().per_tag
    assert list(tags) == ["booking", "rome", "smoke"]
    assert (tags["booking"].total, tags["booking"].passed) == (2, 1)
    assert tags["booking"].pass_rate == pytest.approx(0.5)
    assert (tags["smoke"].total, tags["smoke"].passed) == (2, 0)
    assert tags["rome"].pass_rate == 0.0


def test_per_metric_means_over_the_cases_it_scored():
    metrics = _full_report().per_metric
    assert metrics[TRAJ] == {"mean": 0.5, "passed": 1, "failed": 1, "not_evaluated": 0}
    assert metrics[RESP]["mean"] == pytest.approx((0.95 + 0.9) / 2)
    assert (metrics[RESP]["passed"], metrics[RESP]["not_evaluated"]) == (2, 1)


def test_per_metric_mean_is_none_when_no_case_was_scored():
    report = _report(CaseResult("a", "not_evaluated", metrics={RESP: _metric(None)}))
    assert report.per_metric[RESP]["mean"] is None
    assert report.per_metric[TRAJ] == {
        "mean": None,
        "passed": 0,
        "failed": 0,
        "not_evaluated": 0,
    }


def test_case_lookup():
    report = _full_report()
    assert report.case("rome").status == "failed"
    with pytest.raises(EvalError, match="did you mean 'rome'"):
        report.case("roma")


def test_problems_of_a_failing_case():
    problems = _failing_case().problems()
    assert problems == [
        "turn 1 tools: book argument ['city']: 'Rome' != 'Paris'",
        "turn 1 response: does not contain 'booked'",
        "state reply: does not match",
        f"{TRAJ}: 0.00 < 1.00",
    ]
    assert CaseResult("x", "error", error="boom").problems() == ["error: boom"]


# ---- compare ----
def test_compare_finds_regressions_improvements_new_and_missing():
    baseline = _report(
        _case("paris", "passed", response_match_score=0.95),
        _case("rome", "failed", response_match_score=0.5),
        _case("oslo", "passed", response_match_score=0.9),
        _case("gone", "passed"),
    )
    now = _report(
        _case("paris", "passed", response_match_score=0.95),
        _case("rome", "passed", response_match_score=0.85),
        CaseResult(
            "oslo",
            "failed",
            metrics={RESP: _metric(0.4)},
            turns=[TurnOutcome("Book Oslo", "Which city?", response_problem="differs")],
        ),
        _case("fresh", "passed"),
    )
    diff = now.compare(baseline)
    assert [(c.id, c.before, c.after) for c in diff.regressed] == [("oslo", "passed", "failed")]
    assert "turn 1 response: differs" in diff.regressed[0].detail
    assert [(c.id, c.before, c.after) for c in diff.improved] == [("rome", "failed", "passed")]
    assert diff.score_drops == []
    assert diff.new == ["fresh"]
    assert diff.missing == ["gone"]
    assert diff.has_regressions


def test_compare_reports_score_drops_beyond_the_tolerance_while_the_verdict_holds():
    baseline = _report(
        _case("a", response_match_score=0.99),
        _case("b", response_match_score=0.99),
        _case("c", response_match_score=0.90),
    )
    now = _report(
        _case("a", response_match_score=0.90),  # down 0.09
        _case("b", response_match_score=0.96),  # down 0.03: within the tolerance
        _case("c", response_match_score=0.95),  # up
    )
    diff = now.compare(baseline)
    assert [(c.id, c.before, c.after, c.detail) for c in diff.score_drops] == [
        ("a", "0.99", "0.90", RESP)
    ]
    assert diff.has_regressions
    assert not now.compare(baseline, tolerance=0.1).has_regressions
    assert [c.id for c in now.compare(baseline, tolerance=0.01).score_drops] == ["a", "b"]


def test_compare_with_itself_is_no_change():
    report = _full_report()
    diff = report.compare(report)
    assert not diff.has_regressions
    assert diff.to_text() == "Against the baseline: no change.\n"


def test_compare_skips_metrics_without_a_score():
    baseline = _report(CaseResult("a", "failed", metrics={RESP: _metric(0.9, "failed")}))
    now = _report(CaseResult("a", "failed", metrics={RESP: _metric(None, "failed")}))
    assert now.compare(baseline).score_drops == []


def test_regression_text_names_each_change():
    baseline = _report(_case("a"), _case("b", "failed"), _case("gone"))
    now = _report(_case("a", "failed"), _case("b"), _case("new"))
    text = now.compare(baseline).to_text()
    assert "regressed" in text and "a: passed -> failed" in text
    assert "improved" in text and "b: failed -> passed" in text
    assert "new             new" in text
    assert "gone (in the baseline, not in this run)" in text


def test_compare_loads_a_saved_baseline(tmp_path):
    path = _report(_case("a")).save(tmp_path / "base.json")
    diff = _report(_case("a", "failed")).compare(path)
    assert [c.id for c in diff.regressed] == ["a"]
    diff = _report(_case("a", "failed")).compare(str(path))
    assert [c.id for c in diff.regressed] == ["a"]


# ---- text ----
def test_to_text_has_the_summary_the_table_and_the_failures():
    text = _full_report().to_text()
    lines = text.splitlines()
    assert lines[0].startswith("Suite booking on google-adk 9.9.9: 4 case(s), 1 passed, 3 not")
    assert "(25%)" in lines[0]
    header = lines[2].split()
    assert header == ["case", "status", TRAJ, RESP, "state", "tags"]
    rows = {line.split()[0]: line.split() for line in lines[3:7]}
    assert rows["paris"][:4] == ["paris", "PASS", "1.00", "0.95"]
    assert rows["rome"][:6] == ["rome", "FAIL", "0.00", "0.90", "1/2", "booking,rome"]
    assert rows["hello"][:2] == ["hello", "ERROR"]
    assert "Failures" in lines
    assert "  rome (FAIL)" in lines
    assert "    error: model exploded" in lines
    assert "      answered: 'Which city?'" in lines
    assert "      response contains('booked'): does not contain 'booked'" in lines
    assert any(line.strip().startswith("~ book(city='Rome')") for line in lines)
    assert "    state reply: expected Regex('^Done'), does not match" in lines
    assert f"    {TRAJ}: 0.00 below 1.00" in lines
    assert "  paris (PASS)" not in lines


def test_verbose_text_details_every_case():
    text = _full_report().to_text(verbose=True)
    assert "Details" in text.splitlines()
    assert "  paris (PASS)" in text.splitlines()


def test_text_of_an_all_passing_report_has_no_failures_section():
    text = _report(_case("a", response_match_score=1.0)).to_text()
    assert "Failures" not in text
    assert "1 passed, 0 not (100%)" in text


# ---- JSON ----
def test_to_json_and_from_dict_round_trip():
    report = _full_report()
    data = json.loads(report.to_json())
    assert data["format"] == "adk-fluent-eval-report/1"
    assert data["pass_rate"] == pytest.approx(0.25)
    assert data["passed"] is False
    back = FluentEvalReport.from_dict(data)
    assert back.cases == report.cases
    assert (back.suite, back.adk_version, back.metrics) == ("booking", "9.9.9", [TRAJ, RESP])
    assert back.to_text() == report.to_text()


def test_save_and_load(tmp_path):
    report = _full_report()
    path = report.save(tmp_path / "reports" / "baseline.json")
    assert path.exists()
    loaded = FluentEvalReport.load(path)
    assert loaded.cases == report.cases
    assert loaded.per_metric == report.per_metric
    assert loaded.compare(report).to_text() == "Against the baseline: no change.\n"


def test_from_dict_refuses_another_format():
    with pytest.raises(EvalError, match="not an adk-fluent eval report"):
        FluentEvalReport.from_dict({"format": "something-else/1", "cases": []})


# ---- merging runs ----
def test_merge_runs_takes_the_worst_status_and_mean_scores():
    runs = [
        CaseResult("a", "passed", metrics={RESP: _metric(1.0)}, tokens={"input": 10, "output": 2}),
        CaseResult(
            "a",
            "failed",
            metrics={RESP: _metric(0.5)},
            turns=[TurnOutcome("q", "bad", response_problem="differs")],
            tokens={"input": 12, "output": 3},
        ),
        CaseResult("a", "passed", metrics={RESP: _metric(0.9)}, tokens={"input": 11}),
    ]
    merged = merge_runs(runs)
    assert merged.status == "failed"
    assert merged.runs == 3
    assert merged.metrics[RESP].score == pytest.approx(0.8)
    assert merged.metrics[RESP].status == "failed"
    assert merged.metrics[RESP].threshold == 0.8
    assert merged.turns == runs[1].turns  # the failing run's details
    assert merged.tokens == {"input": 33, "output": 5}


@pytest.mark.parametrize(
    ("statuses", "worst"),
    [
        (["passed", "passed"], "passed"),
        (["passed", "not_evaluated"], "not_evaluated"),
        (["not_evaluated", "failed"], "failed"),
        (["failed", "error", "passed"], "error"),
    ],
)
def test_merge_runs_status_order(statuses, worst):
    assert merge_runs([CaseResult("a", status) for status in statuses]).status == worst


def test_merge_runs_mean_ignores_runs_without_a_score():
    runs = [
        CaseResult("a", "passed", metrics={RESP: _metric(0.9)}),
        CaseResult("a", "not_evaluated", metrics={RESP: _metric(None)}),
    ]
    merged = merge_runs(runs)
    assert merged.metrics[RESP].score == pytest.approx(0.9)
    assert merged.metrics[RESP].status == "not_evaluated"


def test_merge_of_one_run_is_that_run():
    case = _failing_case()
    assert merge_runs([case]) == case


# ---- which ExecutionConfig ran ----
def test_the_config_is_a_line_of_the_text_and_a_field_of_the_json():
    from adk_fluent import ExecutionConfig
    from adk_fluent.evaluation.report import describe_config
    from adk_fluent.middleware import retry

    config = ExecutionConfig(app_name="trips", max_llm_calls=20, middleware=[retry()])
    shown = describe_config(config)
    assert (
        shown
        == "ExecutionConfig(app_name='trips', max_llm_calls=20, middleware=[retry(app, priority=-10)])"
    )
    report = _report(_case("a", response_match_score=1.0))
    report.config = shown
    assert report.to_text().splitlines()[1] == f"Config: {shown}"
    data = json.loads(report.to_json())
    assert data["config"] == shown
    assert FluentEvalReport.from_dict(data).config == shown


def test_a_report_saved_before_reports_named_their_config_still_loads():
    data = json.loads(_report(_case("a", response_match_score=1.0)).to_json())
    del data["config"]
    loaded = FluentEvalReport.from_dict(data)
    assert loaded.config == "" and "Config:" not in loaded.to_text()


def test_describe_config_names_plugins_and_says_none():
    from google.adk.plugins.base_plugin import BasePlugin

    from adk_fluent import ExecutionConfig
    from adk_fluent.evaluation.report import NO_CONFIG, describe_config

    assert describe_config(None) == NO_CONFIG
    assert describe_config(ExecutionConfig()) == "ExecutionConfig()"
    assert (
        describe_config(ExecutionConfig(plugins=[BasePlugin(name="audit")]))
        == "ExecutionConfig(plugins=[audit])"
    )
