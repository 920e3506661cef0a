"""Running a suite on ADK's eval stack: the App (plugins and all) answers each case's turns,
LocalEvalService scores them with ADK's metrics and adk-fluent's, and the session each case
leaves behind is checked against its `expect_state`.

Inference goes through LocalEvalService with the App where ADK accepts one; on releases where
it only takes a root agent (and would drop the App's plugins), the same turns run through a
Runner of the App here, and the events become ADK's Invocations with ADK's own converter.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adk_fluent.evaluation.cases import (
    FluentCase,
    FluentJudge,
    UserSimulation,
    adk_source,
    schema_type_problem,
)
from adk_fluent.evaluation.compile import (
    RESPONSE_METRIC,
    TRAJECTORY_METRIC,
    MetricSpec,
    to_eval_set,
)
from adk_fluent.evaluation.matchers import check_value, show
from adk_fluent.evaluation.mocks import mocking
from adk_fluent.evaluation.report import (
    CaseResult,
    MetricOutcome,
    StateOutcome,
    Status,
    TurnOutcome,
)
from adk_fluent.evaluation.scoring import check_trajectory, show_call, trajectory_diff

# ADK's eval inference writes this key into the session state (its request interceptor); it is
# ADK's bookkeeping, not the pipeline's state, so state checks and reports leave it out.
_ADK_EVAL_KEYS = frozenset({"__llm_request_key__"})


@dataclass(frozen=True)
class Services:
    session_service: Any = None
    artifact_service: Any = None
    memory_service: Any = None


def eval_metrics(specs: Sequence[MetricSpec]) -> list[Any]:
    from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric

    out = []
    for spec in specs:
        criterion = BaseCriterion.model_validate({"threshold": spec.threshold, **spec.criterion})
        out.append(EvalMetric(metric_name=spec.name, threshold=spec.threshold, criterion=criterion))
    return out


def simulator_provider(simulation: UserSimulation | None) -> Any:
    """ADK's UserSimulatorProvider: static cases replay their turns; a UserSimulation gets
    ADK's LLM-backed simulator with its model and turn limit."""
    from google.adk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider

    if simulation is None:
        return UserSimulatorProvider()
    from google.adk.evaluation.simulation.llm_backed_user_simulator import (
        LlmBackedUserSimulatorConfig,
    )

    return UserSimulatorProvider(
        user_simulator_config=LlmBackedUserSimulatorConfig(
            model=simulation.model, max_allowed_invocations=simulation.max_turns
        )
    )


async def infer_with_app(
    app: Any,
    eval_set: Any,
    services: Services,
    parallelism: int,
    provider: Any,
    ids: Sequence[str] | None = None,
) -> list[Any]:
    """ADK's InferenceResults for the eval set's cases, each run through a Runner of the App,
    the user's messages coming from ADK's user simulator (static turns or an LLM) as in ADK's
    own inference."""
    from google.adk.evaluation.base_eval_service import InferenceResult, InferenceStatus
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.events.event import Event
    from google.adk.runners import Runner

    gate = asyncio.Semaphore(parallelism)
    runner = Runner(
        app=app,
        session_service=services.session_service,
        artifact_service=services.artifact_service,
        memory_service=services.memory_service,
    )

    async def one(eval_case: Any) -> Any:
        session_input = eval_case.session_input
        user_id = session_input.user_id
        session_id = f"adk-fluent-eval-{uuid.uuid4().hex}"
        result = InferenceResult(
            app_name=app.name,
            eval_set_id=eval_set.eval_set_id,
            eval_case_id=eval_case.eval_id,
            session_id=session_id,
        )
        async with gate:
            try:
                await services.session_service.create_session(
                    app_name=app.name,
                    user_id=user_id,
                    session_id=session_id,
                    state=dict(session_input.state or {}),
                )
                events: list[Any] = []
                simulator = provider.provide(eval_case)
                while True:
                    message = await simulator.get_next_user_message(copy.deepcopy(events))
                    if message.status.name != "SUCCESS":
                        break
                    first = True
                    async for event in runner.run_async(
                        user_id=user_id, session_id=session_id, new_message=message.user_message
                    ):
                        if first:  # the user's turn, under the turn's invocation id (as ADK does)
                            events.append(
                                Event(
                                    author="user",
                                    content=message.user_message,
                                    invocation_id=event.invocation_id,
                                )
                            )
                            first = False
                        events.append(event)
                result.inferences = EvaluationGenerator.convert_events_to_eval_invocations(events)
                result.status = InferenceStatus.SUCCESS
            except Exception as error:  # ADK's own path records a failed case the same way
                result.status = InferenceStatus.FAILURE
                result.error_message = f"{type(error).__name__}: {error}"
        return result

    chosen = [case for case in eval_set.eval_cases if ids is None or case.eval_id in ids]
    try:
        return list(await asyncio.gather(*(one(case) for case in chosen)))
    finally:
        await runner.close()


async def evaluate_group(
    *,
    app: Any,
    suite_name: str,
    cases: Sequence[FluentCase],
    metrics: Sequence[MetricSpec],
    judges: Sequence[FluentJudge],
    services: Services,
    parallelism: int,
    trajectory_match: str,
    simulation: UserSimulation | None = None,
) -> tuple[list[CaseResult], list[Any]]:
    """Run and score one group of cases (one target) on the App: one CaseResult per case, and
    ADK's EvalCaseResults."""
    from google.adk.evaluation.base_eval_service import (
        EvaluateConfig,
        EvaluateRequest,
        InferenceConfig,
        InferenceRequest,
    )
    from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
    from google.adk.evaluation.local_eval_service import LocalEvalService

    from adk_fluent.adk.compat import eval_service_takes_app

    predicates: dict[str, Any] = {}  # predicate tool arguments, checked by reference
    eval_set = to_eval_set(
        suite_name, cases, app.name, strict=False, predicates=predicates, run=True
    )
    manager = InMemoryEvalSetsManager()
    manager.create_eval_set(app_name=app.name, eval_set_id=eval_set.eval_set_id)
    for eval_case in eval_set.eval_cases:
        manager.add_eval_case(
            app_name=app.name, eval_set_id=eval_set.eval_set_id, eval_case=eval_case
        )
    from adk_fluent.evaluation.adk_metrics import FluentMetricRegistry

    registry = FluentMetricRegistry(predicates=predicates)
    for judge in judges:
        registry.register_judge(judge)
    settings: dict[str, Any] = {
        "root_agent": app.root_agent,
        "eval_sets_manager": manager,
        "metric_evaluator_registry": registry,
        "session_service": services.session_service,
        "artifact_service": services.artifact_service,
        "memory_service": services.memory_service,
    }
    provider = simulator_provider(simulation)
    settings["user_simulator_provider"] = provider
    native = eval_service_takes_app()
    if native:
        settings["app"] = app
    service = LocalEvalService(**settings)
    # Cases run together when they mock the same tools the same way (most suites: none); the
    # runs of each set see its mocks (mocks.py: the tasks ADK starts copy the context).
    by_mocks: dict[str, list[str]] = {}
    mocks_of: dict[str, Any] = {}
    for case in cases:
        key = json.dumps(dict(case.mock_tools or {}), sort_keys=True, default=str)
        by_mocks.setdefault(key, []).append(case.case_id)
        mocks_of[key] = case.mock_tools
    inferences: list[Any] = []
    for key, ids in by_mocks.items():
        with mocking(mocks_of[key]):
            if native:
                request = InferenceRequest(
                    app_name=app.name,
                    eval_set_id=eval_set.eval_set_id,
                    eval_case_ids=ids if len(by_mocks) > 1 else None,
                    inference_config=InferenceConfig(parallelism=parallelism),
                )
                inferences += [result async for result in service.perform_inference(request)]
            else:
                inferences += await infer_with_app(
                    app, eval_set, services, parallelism, provider, ids
                )
    # A case whose run failed has nothing to score (ADK 1.x's evaluate() would raise on it);
    # it is reported as an error with the run's message.
    ran = [result for result in inferences if result.inferences is not None]
    scored = [
        result
        async for result in service.evaluate(
            EvaluateRequest(
                inference_results=ran,
                evaluate_config=EvaluateConfig(
                    eval_metrics=eval_metrics(metrics), parallelism=parallelism
                ),
            )
        )
    ]
    # Why a metric could not run, by case (#3439: a metric that did not run is not a pass).
    first_turn = {
        result.inferences[0].invocation_id: result.eval_case_id
        for result in ran
        if result.inferences
    }
    reasons = {
        (first_turn.get(invocation_id, ""), metric): reason
        for (invocation_id, metric), reason in registry.failures.items()
    }
    by_case = {result.eval_id: result for result in scored}
    errors = {
        result.eval_case_id: result.error_message or "the case did not run"
        for result in inferences
        if result.inferences is None or getattr(result.status, "name", "") == "FAILURE"
    }
    inferred = {result.eval_case_id: result.inferences or [] for result in inferences}
    results = [
        case_result(
            case,
            by_case.get(case.case_id),
            inferred.get(case.case_id, []),
            errors.get(case.case_id)
            if case.case_id in by_case
            else errors.get(case.case_id, "no result"),
            trajectory_match,
            reasons,
        )
        for case in cases
    ]
    rubric_metrics = sorted(name for name in registry.known() if name.startswith(RUBRIC_PREFIX))
    judging = [spec.name for spec in metrics if spec.name.startswith(RUBRIC_PREFIX)]
    results = [
        unscored_rubrics(result, case, by_case.get(case.case_id), judging, rubric_metrics)
        for result, case in zip(results, cases, strict=True)
    ]
    return results, scored


RUBRIC_PREFIX = "rubric_based_"  # ADK's rubric metrics: rubric_based_final_response_quality_v1, ...
UNSCORED_RUBRICS = "rubrics"  # the outcome of a case's rubrics that no metric of the run scored


def _scored_rubric_ids(adk_result: Any) -> set[str]:
    """The rubric ids ADK's metrics gave a score in this case (overall and turn by turn)."""
    results = list(adk_result.overall_eval_metric_results or [])
    for per_turn in adk_result.eval_metric_result_per_invocation or []:
        results += per_turn.eval_metric_results or []
    return {
        score.rubric_id
        for result in results
        for score in (getattr(result.details, "rubric_scores", None) or [])
    }


def unscored_rubrics(
    result: CaseResult,
    case: FluentCase,
    adk_result: Any,
    ran: Sequence[str],
    installed: Sequence[str],
) -> CaseResult:
    """A case read with ADK rubrics (its own, or a turn's) that no metric of the run scored:
    they are expectations nobody checked, so the case is NOT EVALUATED (never passed on its
    other metrics alone), with the reason. ADK's rubric metrics score a case's or a turn's
    rubric only when its `type` names their kind (FINAL_RESPONSE_QUALITY, TOOL_USE_QUALITY);
    the criterion's own rubrics always."""
    source = adk_source(case)
    if source is None or adk_result is None or result.status == "error":
        return result
    rubrics = list(source.rubrics or [])
    for turn in source.conversation or []:
        rubrics += turn.rubrics or []
    scored = _scored_rubric_ids(adk_result)
    unscored = [rubric for rubric in rubrics if rubric.rubric_id not in scored]
    if not unscored:
        return result
    if not ran:
        why = (
            f"add one of this ADK's rubric metrics ({', '.join(installed)}) to the metrics"
            if installed
            else "the installed google-adk has no rubric metric to score them with"
        )
        reason = f"{len(unscored)} rubric(s) in the case, no rubric metric ran: {why}"
    else:
        kinds = ", ".join(sorted({str(rubric.type) for rubric in unscored}))
        reason = (
            f"{len(unscored)} rubric(s) in the case that {', '.join(ran)} did not score: ADK's "
            f"rubric metrics score a case's or a turn's rubric only when its type names their "
            f"kind (FINAL_RESPONSE_QUALITY, TOOL_USE_QUALITY); these have type {kinds}"
        )
    outcome = MetricOutcome(None, None, "not_evaluated", reason)
    status: Status = "not_evaluated" if result.status == "passed" else result.status
    return dataclasses.replace(
        result, status=status, metrics={**result.metrics, UNSCORED_RUBRICS: outcome}
    )


def _status(adk_status: Any) -> Status:
    name = getattr(adk_status, "name", str(adk_status)).lower()
    return {"passed": "passed", "failed": "failed"}.get(name, "not_evaluated")  # type: ignore[return-value]


def state_outcomes(case: FluentCase, state: dict[str, Any]) -> list[StateOutcome]:
    out = []
    for key, expected in (case.expect_state or {}).items():
        name = getattr(key, "key", key)
        present = name in state
        actual = state.get(name)
        reason = check_value(expected, actual, present=present)
        if reason is None and present:
            reason = schema_type_problem(key, actual)
        out.append(
            StateOutcome(
                key=name,
                expected=show(expected),
                actual=repr(actual) if present else "(missing)",
                passed=reason is None,
                reason=reason,
            )
        )
    return out


def _verdict(case: FluentCase, outcomes: dict[str, MetricOutcome], state_checked: bool) -> Status:
    """A case that failed nothing: passed when something checked it. ADK counts a metric that
    could not run (NOT_EVALUATED) as nothing; here it is a case not evaluated (#3439), except
    adk-fluent's own metrics on a case without that kind of expectation."""
    expects = {
        TRAJECTORY_METRIC: any(turn.tools is not None for turn in case.turns),
        RESPONSE_METRIC: any(turn.response is not None for turn in case.turns),
    }
    unevaluated = [
        name
        for name, outcome in outcomes.items()
        if outcome.status == "not_evaluated" and expects.get(name, True)
    ]
    if unevaluated:
        return "not_evaluated"
    evaluated = any(outcome.status == "passed" for outcome in outcomes.values())
    return "passed" if evaluated or state_checked else "not_evaluated"


NOT_RUN = "the turn did not run"


def case_result(
    case: FluentCase,
    adk_result: Any,
    actual: Sequence[Any],
    error: str | None,
    trajectory_match: str,
    reasons: dict[tuple[str, str], str] | None = None,
) -> CaseResult:
    """One case's CaseResult from ADK's EvalCaseResult, the actual invocations and the state."""
    # here, not at the top: adk_metrics imports ADK's metric registry (google-cloud-aiplatform,
    # seconds), which the module's pure helpers (unscored_rubrics, state_outcomes) do not need
    from adk_fluent.evaluation.adk_metrics import actual_calls, final_text

    turns = []
    if case.simulation is not None:  # the simulated user's turns, as they happened
        for invocation in actual:
            calls = actual_calls(invocation)
            turns.append(
                TurnOutcome(
                    user="".join(p.text or "" for p in invocation.user_content.parts or []),
                    response=final_text(invocation),
                    tool_calls=[show_call(name, args) for name, args in calls],
                )
            )
    for index, turn in enumerate(case.turns):
        invocation = actual[index] if index < len(actual) else None
        calls = actual_calls(invocation)
        answer = final_text(invocation) if invocation is not None else ""
        response_problem = trajectory_problem = None
        check = turn.response if not isinstance(turn.response, str) else None
        if check is not None:  # a turn that never ran did not give the answer
            response_problem = NOT_RUN if invocation is None else check.check(answer)[1]
        diff: list[str] = []
        if turn.tools is not None and invocation is None:
            trajectory_problem = NOT_RUN
        elif turn.tools is not None:
            expected = list(turn.tools)
            trajectory_problem = check_trajectory(expected, calls, trajectory_match)  # type: ignore[arg-type]
            diff = trajectory_diff(expected, calls) if (trajectory_problem or expected) else []  # type: ignore[arg-type]
        turns.append(
            TurnOutcome(
                user=turn.text,
                response=answer,
                tool_calls=[show_call(name, args) for name, args in calls],
                response_check=None if check is None else check.describe(),
                response_problem=response_problem,
                trajectory=diff,
                trajectory_problem=trajectory_problem,
            )
        )
    outcomes: dict[str, MetricOutcome] = {}
    state: dict[str, Any] = {}
    tokens = {"input": 0, "output": 0}
    status: Status
    if adk_result is None or error is not None:
        status = "error"
        error = error or "the case did not run"
    else:
        status = _status(adk_result.final_eval_status)
        for result in adk_result.overall_eval_metric_results:
            outcomes[result.metric_name] = MetricOutcome(
                result.score,
                result.threshold,
                _status(result.eval_status),
                (reasons or {}).get((case.case_id, result.metric_name)),
            )
        session = adk_result.session_details
        if session is not None:
            state = {k: v for k, v in session.state.items() if k not in _ADK_EVAL_KEYS}
            for event in session.events:
                usage = getattr(event, "usage_metadata", None)
                if usage is not None and not getattr(event, "partial", False):
                    tokens["input"] += usage.prompt_token_count or 0
                    tokens["output"] += usage.candidates_token_count or 0
    checks = state_outcomes(case, state) if status != "error" else []
    if status != "error":
        if any(not check.passed for check in checks):
            status = "failed"
        elif status != "failed":
            status = _verdict(case, outcomes, bool(checks))
    return CaseResult(
        id=case.case_id,
        status=status,
        metrics=outcomes,
        state=checks,
        turns=turns,
        tags=list(case.tags),
        target=case.target,
        error=error,
        tokens=tokens if any(tokens.values()) else {},
    )
