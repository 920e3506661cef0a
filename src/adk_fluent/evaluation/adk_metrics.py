"""adk-fluent's metrics as ADK evaluators: trajectory with argument rules, response checks and
custom judges, scored turn by turn like ADK's own metrics.

Two ways in, one scoring: `FluentMetricRegistry` (a MetricEvaluatorRegistry for one suite run,
so nothing is registered process-wide) hands LocalEvalService the evaluator classes; the
module-level `*_metric` functions are what an exported test_config.json names for `adk eval`
(ADK's custom metrics, `code_config.name`).

A turn without an expectation for a metric is NOT_EVALUATED for it (ADK leaves such a metric
out of the case's verdict); a metric passes when the share of checked turns that pass reaches
its threshold (1.0 by default: every checked turn).
"""

from __future__ import annotations

import abc
import functools
import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.adk.evaluation.eval_case import get_all_tool_calls
from google.adk.evaluation.eval_metrics import (
    EvalMetric,
    EvalStatus,
    Interval,
    MetricInfo,
    MetricValueInfo,
)
from google.adk.evaluation.evaluator import EvaluationResult, Evaluator, PerInvocationResult

from adk_fluent.evaluation.cases import FluentJudge, JudgeInput, Turn
from adk_fluent.evaluation.compile import RESPONSE_METRIC, TRAJECTORY_METRIC, _turn_from
from adk_fluent.evaluation.scoring import check_trajectory

if TYPE_CHECKING:
    from google.adk.evaluation.metric_evaluator_registry import MetricEvaluatorRegistry

Verdict = tuple[float, bool] | None  # (score, passed), None: not checked on this turn


def actual_calls(invocation: Any) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls an actual invocation made, in order (ids dropped: they differ per run)."""
    if invocation is None or invocation.intermediate_data is None:
        return []
    return [
        (call.name or "", dict(call.args or {}))
        for call in get_all_tool_calls(invocation.intermediate_data)
    ]


def final_text(invocation: Any) -> str:
    content = getattr(invocation, "final_response", None)
    return "".join(part.text or "" for part in (getattr(content, "parts", None) or []))


def expected_turn(invocation: Any, predicates: Mapping[str, Any] | None = None) -> Turn | None:
    return None if invocation is None else _turn_from(invocation, "", predicates)


def _criterion(eval_metric: EvalMetric, name: str, default: Any) -> Any:
    criterion = eval_metric.criterion
    if criterion is None:
        return default
    extra = getattr(criterion, "model_extra", None) or {}
    return extra.get(name, getattr(criterion, name, default))


def _threshold(eval_metric: EvalMetric) -> float:
    for value in (_criterion(eval_metric, "threshold", None), eval_metric.threshold):
        if isinstance(value, int | float):
            return float(value)
    return 1.0


def _result(
    eval_metric: EvalMetric,
    actual: Sequence[Any],
    expected: Sequence[Any] | None,
    verdicts: Sequence[Verdict],
) -> EvaluationResult:
    per = []
    for index, invocation in enumerate(actual):
        verdict = verdicts[index] if index < len(verdicts) else None
        per.append(
            PerInvocationResult(
                actual_invocation=invocation,
                expected_invocation=expected[index] if expected and index < len(expected) else None,
                score=None if verdict is None else verdict[0],
                eval_status=EvalStatus.NOT_EVALUATED
                if verdict is None
                else (EvalStatus.PASSED if verdict[1] else EvalStatus.FAILED),
            )
        )
    checked = [verdict for verdict in verdicts if verdict is not None]
    if not checked:
        return EvaluationResult(per_invocation_results=per)
    share = sum(1 for _, passed in checked if passed) / len(checked)
    return EvaluationResult(
        overall_score=share,
        overall_eval_status=EvalStatus.PASSED
        if share >= _threshold(eval_metric)
        else EvalStatus.FAILED,
        per_invocation_results=per,
    )


def _pairs(
    actual: Sequence[Any],
    expected: Sequence[Any] | None,
    predicates: Mapping[str, Any] | None = None,
) -> list[tuple[Any, Turn | None]]:
    expected = list(expected or [])
    return [
        (invocation, expected_turn(expected[index], predicates) if index < len(expected) else None)
        for index, invocation in enumerate(actual)
    ]


def trajectory_verdicts(
    eval_metric: EvalMetric,
    actual: Sequence[Any],
    expected: Sequence[Any] | None,
    predicates: Mapping[str, Any] | None = None,
) -> list[Verdict]:
    match = str(_criterion(eval_metric, "match", "exact"))
    verdicts: list[Verdict] = []
    for invocation, turn in _pairs(actual, expected, predicates):
        if turn is None or turn.tools is None:
            verdicts.append(None)
            continue
        reason = check_trajectory(list(turn.tools), actual_calls(invocation), match)  # type: ignore[arg-type]
        verdicts.append((1.0, True) if reason is None else (0.0, False))
    return verdicts


def response_verdicts(actual: Sequence[Any], expected: Sequence[Any] | None) -> list[Verdict]:
    verdicts: list[Verdict] = []
    for invocation, turn in _pairs(actual, expected):
        check = None if turn is None else turn.response
        if check is None or isinstance(check, str):
            verdicts.append(None)
            continue
        score, reason = check.check(final_text(invocation))
        verdicts.append((score, reason is None))
    return verdicts


async def judge_verdicts(
    judge: FluentJudge, actual: Sequence[Any], expected: Sequence[Any] | None
) -> list[Verdict]:
    verdicts: list[Verdict] = []
    for invocation, turn in _pairs(actual, expected):
        seen = JudgeInput(
            user="".join(
                part.text or "" for part in (invocation.user_content.parts or []) if part.text
            ),
            response=final_text(invocation),
            expected=None if turn is None else turn.expected_text,
            tool_calls=tuple(actual_calls(invocation)),
            invocation=invocation,
        )
        value = judge.fn(seen)
        if inspect.isawaitable(value):
            value = await value
        score = judge_score(judge.name, value)
        verdicts.append((score, score >= judge.threshold))
    return verdicts


def judge_score(name: str, value: Any) -> float:
    """A judge's return value as a score in 0..1: a bool, a number, or (score, reason)."""
    if isinstance(value, tuple) and value:
        value = value[0]
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float) and 0 <= value <= 1:
        return float(value)
    from adk_fluent.errors import EvalError, describe_value

    raise EvalError(
        f"judge '{name}' returned {describe_value(value)}",
        field="fn",
        hint="return a score between 0 and 1, a bool, or (score, reason).",
    )


# ---- ADK evaluators (in-process) ----------------------------------------------------------


class _FluentEvaluator(Evaluator):
    """One of adk-fluent's metrics as an ADK Evaluator: `_verdicts` scores each turn."""

    def __init__(self, eval_metric: EvalMetric) -> None:
        self._eval_metric = eval_metric

    @abc.abstractmethod
    async def _verdicts(self, actual: list[Any], expected: list[Any] | None) -> list[Verdict]:
        """Each actual turn's (score, passed), or None where the metric does not apply."""

    async def evaluate_invocations(  # type: ignore[override]
        self,
        actual_invocations: list[Any],
        expected_invocations: list[Any] | None = None,
        conversation_scenario: Any = None,
    ) -> EvaluationResult:
        verdicts = await self._verdicts(actual_invocations, expected_invocations)
        return _result(self._eval_metric, actual_invocations, expected_invocations, verdicts)


class TrajectoryEvaluator(_FluentEvaluator):
    predicates: Mapping[str, Any] = {}  # a run's predicate arguments (compile.to_eval_set)

    async def _verdicts(self, actual: list[Any], expected: list[Any] | None) -> list[Verdict]:
        return trajectory_verdicts(self._eval_metric, actual, expected, self.predicates)


class ResponseEvaluator(_FluentEvaluator):
    async def _verdicts(self, actual: list[Any], expected: list[Any] | None) -> list[Verdict]:
        return response_verdicts(actual, expected)


class JudgeEvaluator(_FluentEvaluator):
    judge: FluentJudge  # set on the per-judge subclass

    async def _verdicts(self, actual: list[Any], expected: list[Any] | None) -> list[Verdict]:
        return await judge_verdicts(self.judge, actual, expected)


class _Recorded(Evaluator):
    """An evaluator of this run that remembers why it raised, then raises as before."""

    def __init__(self, inner: Evaluator, name: str, failures: dict[tuple[str, str], str]) -> None:
        self._inner = inner
        self._name = name
        self._failures = failures

    async def evaluate_invocations(  # type: ignore[override]
        self,
        actual_invocations: list[Any],
        expected_invocations: list[Any] | None = None,
        conversation_scenario: Any = None,
    ) -> EvaluationResult:
        try:
            result = self._inner.evaluate_invocations(
                actual_invocations, expected_invocations, conversation_scenario
            )
            if inspect.isawaitable(result):
                result = await result
        except Exception as error:
            first = actual_invocations[0].invocation_id if actual_invocations else ""
            self._failures[(first, self._name)] = f"{type(error).__name__}: {error}"
            raise
        return result  # type: ignore[no-any-return]


def metric_info(name: str, description: str) -> MetricInfo:
    return MetricInfo(
        metric_name=name,
        description=description,
        metric_value_info=MetricValueInfo(interval=Interval(min_value=0.0, max_value=1.0)),
    )


def __getattr__(name: str) -> Any:
    # FluentMetricRegistry is made on first use: ADK's registry module imports
    # google-cloud-aiplatform (thousands of modules, seconds), which the metrics here do not need
    if name == "FluentMetricRegistry":
        return _registry_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _registry_class() -> type[MetricEvaluatorRegistry]:
    from google.adk.evaluation.metric_evaluator_registry import (
        DEFAULT_METRIC_EVALUATOR_REGISTRY,
        MetricEvaluatorRegistry,
    )

    class FluentMetricRegistry(MetricEvaluatorRegistry):
        """ADK's registry for one suite run: ADK's metrics as registered process-wide, plus the
        evaluators registered here, which no other run sees (ADK 1.x keeps registrations in a
        class-level dict, so registering into ADK's default registry would leak between runs)."""

        def __init__(
            self,
            base: MetricEvaluatorRegistry | None = None,
            predicates: Mapping[str, Any] | None = None,
        ) -> None:
            self._base = base or DEFAULT_METRIC_EVALUATOR_REGISTRY
            self._own: dict[str, tuple[type[Evaluator], MetricInfo]] = {}
            # Why a metric raised (ADK turns it into NOT_EVALUATED and only logs it), keyed by
            # (the first actual invocation's id, metric name): this run's evaluators only.
            self.failures: dict[tuple[str, str], str] = {}
            trajectory = type(
                "RunTrajectoryEvaluator",
                (TrajectoryEvaluator,),
                {"predicates": dict(predicates or {})},
            )
            self.register_evaluator(
                metric_info(TRAJECTORY_METRIC, "adk-fluent: tool calls, with argument rules"),
                trajectory,
            )
            self.register_evaluator(
                metric_info(RESPONSE_METRIC, "adk-fluent: final response checks"), ResponseEvaluator
            )

        def register_evaluator(self, metric_info: MetricInfo, evaluator: type[Evaluator]) -> None:
            self._own[str(metric_info.metric_name)] = (evaluator, metric_info)

        def register_judge(self, judge: FluentJudge) -> None:
            evaluator = type(f"Judge_{judge.name}", (JudgeEvaluator,), {"judge": judge})
            self.register_evaluator(
                metric_info(judge.name, judge.description or f"adk-fluent judge {judge.name}"),
                evaluator,
            )

        def get_evaluator(self, eval_metric: EvalMetric) -> Evaluator:
            own = self._own.get(eval_metric.metric_name)
            if own is not None:
                evaluator = own[0](eval_metric=eval_metric)  # type: ignore[call-arg]
            else:
                evaluator = self._base.get_evaluator(eval_metric)
            return _Recorded(evaluator, str(eval_metric.metric_name), self.failures)

        def get_registered_metrics(self) -> list[MetricInfo]:
            mine = [info.model_copy(deep=True) for _, info in self._own.values()]
            return [*self._base.get_registered_metrics(), *mine]

        def fork(self) -> FluentMetricRegistry:
            """An isolated copy (ADK 2.x's registries fork per eval run)."""
            copy = FluentMetricRegistry(self._base)
            copy._own = dict(self._own)
            return copy

        def known(self) -> set[str]:
            return {str(info.metric_name) for info in self.get_registered_metrics()}

    FluentMetricRegistry.__qualname__ = "FluentMetricRegistry"  # as if defined at the top
    return FluentMetricRegistry


# ---- custom-metric functions (what `adk eval` imports) ------------------------------------


def trajectory_metric(
    eval_metric: EvalMetric,
    actual_invocations: list[Any],
    expected_invocations: list[Any] | None = None,
    conversation_scenario: Any = None,
) -> EvaluationResult:
    """adk_fluent_trajectory for ADK's custom metrics (criterion: threshold, match)."""
    verdicts = trajectory_verdicts(eval_metric, actual_invocations, expected_invocations)
    return _result(eval_metric, actual_invocations, expected_invocations, verdicts)


def response_metric(
    eval_metric: EvalMetric,
    actual_invocations: list[Any],
    expected_invocations: list[Any] | None = None,
    conversation_scenario: Any = None,
) -> EvaluationResult:
    """adk_fluent_response for ADK's custom metrics (criterion: threshold)."""
    verdicts = response_verdicts(actual_invocations, expected_invocations)
    return _result(eval_metric, actual_invocations, expected_invocations, verdicts)


async def judge_metric(
    eval_metric: EvalMetric,
    actual_invocations: list[Any],
    expected_invocations: list[Any] | None = None,
    conversation_scenario: Any = None,
) -> EvaluationResult:
    """A FluentJudge for ADK's custom metrics: the criterion's `judge` names the function
    (`module.function`), its `judge_threshold` the pass mark per turn."""
    path = str(_criterion(eval_metric, "judge", ""))
    module, _, name = path.rpartition(".")
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    threshold = _criterion(eval_metric, "judge_threshold", 0.5)
    judge = FluentJudge(eval_metric.metric_name, fn, float(threshold))
    verdicts = await judge_verdicts(judge, actual_invocations, expected_invocations)
    return _result(eval_metric, actual_invocations, expected_invocations, verdicts)
