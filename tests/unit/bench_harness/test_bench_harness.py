"""The benchmark harness (bench/): a row says its budget once, as a number, and both the verdict
of `make bench` and the CI limit of `python -m bench --quick` (1.5 x that budget) come from it.
Pure: nothing here runs a benchmark."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

import bench
from bench import CI_SLACK, Row, budget_row, info_row, ratio_row
from bench.__main__ import QUICK, discover, guard_lines, verdict_lines
from bench.bench_memory import growth

BENCH = Path(bench.__file__).resolve().parent


def test_a_ratio_row_keeps_its_budget_and_judges_the_ratio_of_medians():
    row = ratio_row("turn", [1.04, 1.05, 9.0], [1.0, 1.0, 0.1], 1.05)
    assert (row.budget, row.kind, row.goal) == (1.05, "ratio", "ratio <= 1.05x")
    assert row.figure == pytest.approx(1.05)
    assert row.passed is True and row.within() is True


def test_the_ci_limit_is_one_and_a_half_times_the_budget():
    assert CI_SLACK == 1.5
    budget = 1.05
    just_in = ratio_row("turn", [1.575], [1.0], budget)  # 1.5 x 1.05x = 1.575x
    doubled = ratio_row("turn", [2.1], [1.0], budget)  # a cost twice the budget
    noisy = ratio_row("turn", [1.2], [1.0], budget)  # a miss of the budget, not of the limit
    assert just_in.within(CI_SLACK) is True
    assert doubled.within(CI_SLACK) is False
    assert noisy.passed is False and noisy.within(CI_SLACK) is True


def test_an_absolute_budget_of_one_ms_has_a_limit_of_one_and_a_half_ms():
    under = budget_row("infer", [0.0014], 0.001)
    over = budget_row("infer", [0.0016], 0.001)
    assert (under.kind, under.budget, under.goal) == ("under", 0.001, "< 1 ms")
    assert under.passed is False and under.within(CI_SLACK) is True
    assert over.within(CI_SLACK) is False


def test_rows_without_a_numeric_budget_are_not_judged():
    assert info_row("scale", [1.0], [2.0]).within(CI_SLACK) is None
    counted = Row("unit tests run", None, None, ">= 1000", True)  # a goal of its own
    assert counted.within() is None and counted.passed is True


def test_a_row_comes_back_whole_from_the_summary_file():
    row = ratio_row("memory", [38_000.0], [37_500.0], 1.10, unit="B")
    line = json.loads(json.dumps({"bench": "t", **asdict(row), "ratio": row.ratio}))
    assert Row.from_json(line) == row
    # a row written before budgets were numbers: read, shown, not judged
    old = {"bench": "t", "measurement": "m", "fluent": 1.0, "raw": 1.0, "goal": "-", "passed": None}
    assert Row.from_json(old).within(CI_SLACK) is None


def test_the_guard_names_the_breached_row_and_by_how_much():
    rows = [
        ratio_row("p.run(): one turn", [1.2], [1.0], 1.05),
        ratio_row("same App with / without the plugin", [2.0], [1.0], 1.03),
        budget_row("per event", [0.00005], 0.0001),
        info_row("for scale", [1.0], [1.0]),
    ]
    lines, breaches = guard_lines(rows)
    assert len(lines) == 3  # the info row is not judged
    assert breaches == [
        "same App with / without the plugin: 2.000x (CI limit 1.545x = 1.5 x 1.03x; budget "
        "missed): 29% over the limit"
    ]
    assert lines[0].startswith("    ok      p.run(): one turn: 1.200x (CI limit 1.575x")


def test_the_summary_shows_every_goal_with_its_verdict():
    rows = [
        ratio_row("warm Runner: one turn", [1.0], [1.0], 1.05),
        budget_row("regen end to end", [6.0], 5.0),
        info_row("for scale", [1.0], None),
    ]
    lines, missed = verdict_lines(rows)
    assert missed == 1
    assert lines == [
        "    PASS  warm Runner: one turn: 1.000x (goal ratio <= 1.05x)",
        "    MISS  regen end to end: 6 s (goal < 5 s)",
    ]


def test_quick_mode_is_read_from_the_environment(monkeypatch):
    monkeypatch.delenv(bench.QUICK_ENV, raising=False)
    assert not bench.quick() and bench.repetitions(150, 40) == 150
    monkeypatch.setenv(bench.QUICK_ENV, "1")
    assert bench.quick() and bench.repetitions(150, 40) == 40


def test_every_quick_benchmark_exists_and_takes_fewer_repetitions_when_quick():
    assert set(QUICK) <= set(discover())
    for module in QUICK:
        assert "repetitions(" in (BENCH / f"{module}.py").read_text(encoding="utf-8"), module


def test_growth_compares_the_last_turns_with_the_first():
    assert growth([1.0] * 50 + [5.0] * 400 + [3.0] * 50) == 3.0
