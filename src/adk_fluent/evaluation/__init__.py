"""Evaluation over ADK's own eval stack: fluent cases compiled to ADK's EvalSet, run by
LocalEvalService with the pipeline's App, scored by ADK's metrics and adk-fluent's (tool calls
with argument rules, response checks, custom judges), reported per case and per metric and
compared with a saved baseline; exported for `adk eval` (docs/evaluation.md).

Importing this package does not import ADK's evaluation modules (pandas, rouge-score, ...);
running or exporting a suite does.
"""

from adk_fluent.evaluation.cases import (
    FluentCase,
    FluentJudge,
    JudgeInput,
    ResponseCheck,
    ToolCall,
    Turn,
    UserSimulation,
    contains,
    exact,
    regex,
    rouge,
    tool,
)
from adk_fluent.evaluation.matchers import ANY, Regex
from adk_fluent.evaluation.report import (
    CaseChange,
    CaseResult,
    FluentEvalReport,
    MetricOutcome,
    RegressionReport,
    StateOutcome,
    TagSummary,
    TurnOutcome,
)
from adk_fluent.evaluation.suite import FluentEvalSuite

__all__ = [
    "ANY",
    "CaseChange",
    "CaseResult",
    "FluentCase",
    "FluentEvalReport",
    "FluentEvalSuite",
    "FluentJudge",
    "JudgeInput",
    "MetricOutcome",
    "Regex",
    "RegressionReport",
    "ResponseCheck",
    "StateOutcome",
    "TagSummary",
    "ToolCall",
    "Turn",
    "TurnOutcome",
    "UserSimulation",
    "contains",
    "exact",
    "regex",
    "rouge",
    "tool",
]
