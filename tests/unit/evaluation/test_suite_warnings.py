"""A suite warns when it is built with one of ADK's own metrics that cannot read what its cases
expect (it would score them 0 without a word), and stays quiet when they can."""

from __future__ import annotations

import warnings

import pytest

from adk_fluent.errors import AdkFluentWarning
from adk_fluent.evaluation import ANY, FluentCase, FluentEvalSuite, Turn, contains, tool
from tests.support.evaluation import booking_pipeline


def _suite(*cases, **options):
    return FluentEvalSuite("s", booking_pipeline(), list(cases), **options)


@pytest.mark.parametrize(
    "tools", [["book"], [tool("book", city="Paris", date=ANY)], [tool("book", city=str.isalpha)]]
)
def test_adks_trajectory_metric_on_loose_tool_expectations_warns(tools):
    with pytest.warns(AdkFluentWarning, match="tool_trajectory_avg_score compares tool arguments"):
        _suite(
            FluentCase("Book Paris", tools=tools, id="p"),
            metrics={"tool_trajectory_avg_score": 1.0},
        )


def test_adks_reference_metrics_on_turns_without_a_reference_warn():
    with pytest.warns(AdkFluentWarning, match=r"cases p have none on some turn"):
        _suite(
            FluentCase("Book Paris", response=contains("booked"), id="p"),
            metrics={"response_match_score": 0.5},
        )
    with pytest.warns(AdkFluentWarning, match="final_response_match_v2"):
        _suite(FluentCase(["Hi", Turn("Paris", reference="Booked.")], id="q"), judge_model="m")


def test_exact_arguments_and_references_keep_it_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _suite(
            FluentCase(
                "Book Paris",
                tools=[tool("book", city="Paris", date="2026-12-01")],
                reference="Booked.",
                id="p",
            ),
            metrics={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5},
        )
