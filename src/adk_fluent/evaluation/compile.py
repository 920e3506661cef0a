"""FluentCase <-> ADK's EvalCase, and a suite's metrics <-> ADK's EvalConfig.

The file an `adk eval` run reads holds what each case expects in ADK's own fields:
- the user's turns in `conversation[i].user_content`;
- the expected answer in `final_response`; when adk-fluent checks it, the text part carries
  `part_metadata={"adk_fluent": {"match": "contains", ...}}` (genai's field for a part's
  custom metadata), which ADK's own metrics ignore;
- the expected tool calls in `intermediate_data.tool_uses`, an argument checked by a rule as
  `{"$match": ...}` (matchers.py), a call checked by name only without `args`;
- the starting state in `session_input.state`, and `expect_state` in `final_session_state`
  (ADK stores but does not check it; adk-fluent does).
Tags and targets are not ADK fields: the YAML format (files.py) keeps them.

A case read from an ADK eval set keeps the EvalCase it was read from (cases.adk_source): a run
hands ADK that case (rubrics, intermediate responses, recorded tool responses and all), only
pointed at the App being evaluated, and an export writes it back as it was read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adk_fluent.errors import EvalError
from adk_fluent.evaluation.cases import (
    FluentCase,
    ResponseCheck,
    ToolCall,
    Turn,
    adk_source,
    with_adk_source,
)
from adk_fluent.evaluation.matchers import decode, encode, encoded_for_file, serializable

TRAJECTORY_METRIC = "adk_fluent_trajectory"
RESPONSE_METRIC = "adk_fluent_response"
METADATA_KEY = "adk_fluent"
MOCKS_KEY = "mock_tools"  # under METADATA_KEY on the first user turn's part: what was mocked
# The functions `adk eval` imports for adk-fluent's metrics (custom_metrics code_config).
FUNCTION_PATHS = {
    TRAJECTORY_METRIC: "adk_fluent.evaluation.adk_metrics.trajectory_metric",
    RESPONSE_METRIC: "adk_fluent.evaluation.adk_metrics.response_metric",
}
JUDGE_FUNCTION_PATH = "adk_fluent.evaluation.adk_metrics.judge_metric"


@dataclass(frozen=True)
class MetricSpec:
    """One metric a suite runs: ADK's (by its registered name) or adk-fluent's. `criterion`
    holds the rest of ADK's criterion (match type, judge model options, ...)."""

    name: str
    threshold: float | None
    criterion: Mapping[str, Any] = field(default_factory=dict)
    function_path: str | None = None  # custom metrics: what `adk eval` imports


def _content(role: str, text: str, metadata: dict[str, Any] | None = None) -> Any:
    from google.genai import types

    part = types.Part(text=text)
    if metadata is not None:
        part.part_metadata = {METADATA_KEY: metadata}
    return types.Content(role=role, parts=[part])


def _tool_uses(
    calls: Iterable[ToolCall], case: str, predicates: dict[str, Any] | None
) -> list[Any]:
    from google.genai import types

    out = []
    for call in calls:
        if predicates is not None and call.args is not None:  # a run: predicates by reference
            out.append(types.FunctionCall(name=call.name, args=encode(dict(call.args), predicates)))
            continue
        args = None
        if call.args is not None:
            what = f"an argument of {call.describe()}"
            args = encoded_for_file(dict(call.args), what, case=case, field="tools")
        out.append(types.FunctionCall(name=call.name, args=args))
    return out


def encoded_state(
    expected: Mapping[Any, Any], case: str, medium: str = "a file", *, strict: bool = True
) -> dict[str, Any]:
    """`expect_state` for a file (`medium`): keys by name, values encoded (encoded_for_file);
    with `strict=False` a value a function checks is left out instead (a run checks the state
    itself)."""
    out = {}
    for key, value in expected.items():
        name = getattr(key, "key", key)
        if strict or serializable(value):
            where = f"expect_state[{name!r}]"
            out[name] = encoded_for_file(
                value, where, case=case, field="expect_state", medium=medium
            )
    return out


def to_invocation(turn: Turn, case: str, predicates: dict[str, Any] | None = None) -> Any:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation

    final = None
    if isinstance(turn.response, ResponseCheck):
        # One text part: the reference answer when there is one (what ADK's own response
        # metrics compare with), the check's text in the metadata when it differs.
        meta = {"match": turn.response.mode, **turn.response.options()}
        text = turn.reference if turn.reference is not None else turn.response.text
        if text != turn.response.text:
            meta["value"] = turn.response.text
        final = _content("model", text, meta)
    elif turn.reference is not None:
        final = _content("model", turn.reference)
    tools = None
    if turn.tools is not None:
        tools = IntermediateData(tool_uses=_tool_uses(turn.tools, case, predicates))  # type: ignore[arg-type]
    return Invocation(
        user_content=_content("user", turn.text), final_response=final, intermediate_data=tools
    )


def _session_input(case: FluentCase, app_name: str) -> Any:
    """ADK's SessionInput for a case: the App's name, the case's user and starting state."""
    from google.adk.evaluation.eval_case import SessionInput

    return SessionInput(app_name=app_name, user_id=case.user_id, state=dict(case.state or {}))


def _from_source(case: FluentCase, source: Any, app_name: str | None, run: bool) -> Any:
    """The EvalCase a case was read from, under the case's id. For a run its session input
    names the App that runs it (ADK opens the case's session under that name) and the case's
    user; for a file it is kept as read unless `app_name` renames the app."""
    update: dict[str, Any] = {"eval_id": case.case_id}
    session = source.session_input
    if run:
        assert app_name is not None
        if session is None:
            update["session_input"] = _session_input(case, app_name)
        else:
            update["session_input"] = session.model_copy(
                update={"app_name": app_name, "user_id": case.user_id}
            )
    elif app_name is not None and session is not None:
        update["session_input"] = session.model_copy(update={"app_name": app_name})
    return source.model_copy(deep=True, update=update)


def to_eval_case(
    case: FluentCase,
    app_name: str,
    *,
    strict: bool = True,
    predicates: dict[str, Any] | None = None,
    run: bool = False,
    keep_app_name: bool = False,
) -> Any:
    """ADK's EvalCase for a case. `strict`: a predicate in `expect_state` is an error (a file
    cannot hold it); otherwise it is left out of `final_session_state` (adk-fluent checks the
    state itself). `predicates`: for a run, not a file, collects predicate tool arguments
    (written by reference, matchers.encode). `run`: the case is for a run of the App named
    `app_name`. `keep_app_name`: a case read from an eval set keeps the app name it was read
    with (an export that was not asked to rename it)."""
    from google.adk.evaluation.eval_set import EvalCase

    source = adk_source(case)
    if source is not None:
        return _from_source(case, source, None if keep_app_name and not run else app_name, run)
    expected_state = encoded_state(case.expect_state or {}, case.case_id, strict=strict)
    common = {
        "eval_id": case.case_id,
        "session_input": _session_input(case, app_name),
        "final_session_state": expected_state,
    }
    simulation = case.simulation
    if simulation is not None:
        from google.adk.evaluation.conversation_scenarios import ConversationScenario

        if case.mock_tools and not run:
            raise EvalError(
                "a simulated case's mock_tools cannot be written to an eval set: ADK's "
                "conversation scenario has no place for them",
                case=case.case_id,
                field="mock_tools",
                hint="keep simulated cases with mocks in the suite's YAML file "
                "(to_yaml_file), which holds them, or give the case fixed turns.",
            )

        plan = simulation.plan
        if simulation.persona:
            plan = f"You are {simulation.persona}.\n{plan}"
        scenario = ConversationScenario(
            starting_prompt=simulation.starting_prompt, conversation_plan=plan
        )
        return EvalCase(conversation_scenario=scenario, **common)
    conversation = [to_invocation(turn, case.case_id, predicates) for turn in case.turns]
    if case.mock_tools:
        # what the case mocked, where ADK's metrics do not look: the first user turn's metadata
        part = conversation[0].user_content.parts[0]
        part.part_metadata = {METADATA_KEY: {MOCKS_KEY: dict(case.mock_tools)}}
    return EvalCase(conversation=conversation, **common)


def to_eval_set(
    name: str,
    cases: Iterable[FluentCase],
    app_name: str,
    *,
    strict: bool = True,
    predicates: dict[str, Any] | None = None,
    run: bool = False,
    header: Mapping[str, Any] | None = None,
    keep_app_name: bool = False,
) -> Any:
    """ADK's EvalSet named `name` for the cases. `header`: the id, name, description and
    timestamp of the eval set a suite was read from, exported as they were read."""
    from google.adk.evaluation.eval_set import EvalSet

    fields: dict[str, Any] = {"eval_set_id": name, "name": name}
    if header is not None:
        fields = dict(header)
    return EvalSet(
        **fields,
        eval_cases=[
            to_eval_case(
                case,
                app_name,
                strict=strict,
                predicates=predicates,
                run=run,
                keep_app_name=keep_app_name,
            )
            for case in cases
        ],
    )


def eval_set_header(eval_set: Any) -> dict[str, Any]:
    """What an EvalSet says besides its cases (id, name, description, timestamp), as far as
    it says it: a field the file left out stays out of the export too."""
    return {
        name: getattr(eval_set, name)
        for name in type(eval_set).model_fields
        if name != "eval_cases" and (name in eval_set.model_fields_set or name == "eval_set_id")
    }


def _texts(content: Any) -> list[Any]:
    return [part for part in (getattr(content, "parts", None) or []) if part.text is not None]


def _user_text(content: Any) -> str:
    """The user's message as text; a message without text (an image, a file) is named by
    the kinds of its parts, so the case still reads in a report."""
    text = "".join(part.text for part in _texts(content))
    if text.strip():
        return text
    kinds = sorted(
        {
            name
            for part in getattr(content, "parts", None) or []
            for name, value in part
            if value is not None and name != "text"
        }
    )
    return f"<{', '.join(kinds) or 'empty message'}>"


def _turn_from(invocation: Any, case: str, predicates: Mapping[str, Any] | None = None) -> Turn:
    from google.adk.evaluation.eval_case import get_all_tool_calls

    user = _user_text(invocation.user_content)
    response: ResponseCheck | None = None
    reference = None
    plain: list[str] = []  # the answer's text parts, joined as ADK's response metrics join them
    for part in _texts(invocation.final_response):
        meta = (part.part_metadata or {}).get(METADATA_KEY)
        if meta is None:
            if part.text:
                plain.append(part.text)
            continue
        if "value" in meta:
            reference = part.text
        response = ResponseCheck(
            mode=meta.get("match", "exact"),
            text=meta.get("value", part.text),
            threshold=meta.get("threshold"),
            ignore_case=bool(meta.get("ignore_case", False)),
        )
    tools = None
    if invocation.intermediate_data is not None:
        tools = [
            ToolCall(
                call.name or "",
                None
                if call.args is None
                else decode(call.args, where=call.name or "tool", predicates=predicates),
            )
            for call in get_all_tool_calls(invocation.intermediate_data)
        ]
    if response is not None and response.mode not in ("exact", "contains", "regex", "rouge"):
        raise EvalError(
            f"unknown response match {response.mode!r} in the file",
            case=case,
            field="response",
            hint="adk-fluent writes exact, contains, regex or rouge.",
        )
    if reference is None and plain:
        reference = "\n".join(plain)
    return Turn(user, response, tools, reference)


def simulator_defaults(config: Any = None) -> tuple[str, int]:
    """(model, turn limit) of ADK's user simulator: those an EvalConfig's
    `user_simulator_config` names, else ADK's own defaults (what `adk eval` would use)."""
    from google.adk.evaluation.simulation.llm_backed_user_simulator import (
        LlmBackedUserSimulatorConfig,
    )

    defaults = LlmBackedUserSimulatorConfig()
    given = getattr(config, "user_simulator_config", None)
    model = getattr(given, "model", None) or defaults.model
    turns = getattr(given, "max_allowed_invocations", None) or defaults.max_allowed_invocations
    return str(model), int(turns)


def from_eval_case(eval_case: Any, simulator: tuple[str, int] | None = None) -> FluentCase:
    """A FluentCase from ADK's EvalCase (a static conversation, or a conversation scenario
    played by ADK's user simulator with `simulator`'s model and turn limit), remembering the
    EvalCase itself for runs and exports."""
    case_id = eval_case.eval_id
    session = eval_case.session_input
    scenario = eval_case.conversation_scenario
    if not eval_case.conversation and scenario is None:
        raise EvalError(
            "the case has neither a conversation nor a conversation scenario",
            case=case_id,
            field="conversation",
            hint="an ADK eval case holds one of the two.",
        )
    expected_state = {
        key: decode(value, where=f"final_session_state[{key!r}]")
        for key, value in (eval_case.final_session_state or {}).items()
    }
    message: Any
    if eval_case.conversation:
        message = [_turn_from(invocation, case_id) for invocation in eval_case.conversation]
    else:
        from adk_fluent.evaluation.cases import UserSimulation

        model, max_turns = simulator or simulator_defaults()
        message = UserSimulation(
            scenario.starting_prompt, scenario.conversation_plan, model=model, max_turns=max_turns
        )
    case = FluentCase(
        message,
        expect_state=expected_state or None,
        state=dict(session.state) if session else None,
        id=case_id,
        user_id=session.user_id if session and session.user_id else "eval_user",
        mock_tools=_mocks_of(eval_case),
    )
    return with_adk_source(case, eval_case.model_copy(deep=True))


def _mocks_of(eval_case: Any) -> dict[str, Any] | None:
    """The tools an exported case mocked (to_eval_case writes them), or None."""
    if not eval_case.conversation:
        return None
    content = eval_case.conversation[0].user_content
    for part in (content.parts if content else None) or ():
        meta = (part.part_metadata or {}).get(METADATA_KEY)
        if isinstance(meta, dict) and isinstance(meta.get(MOCKS_KEY), dict):
            return dict(meta[MOCKS_KEY])
    return None


def eval_config(metrics: Iterable[MetricSpec]) -> Any:
    """ADK's EvalConfig (test_config.json) for the metrics, adk-fluent's as custom metrics."""
    from google.adk.evaluation.eval_config import EvalConfig

    return EvalConfig.model_validate(eval_config_data(metrics))


def eval_config_data(metrics: Iterable[MetricSpec]) -> dict[str, Any]:
    """test_config.json as plain data: only what the suite says, none of a release's defaults
    (a file written on ADK 2.x reads the same on 1.x)."""
    criteria: dict[str, Any] = {}
    custom: dict[str, Any] = {}
    for metric in metrics:
        if metric.criterion or metric.threshold is None:
            criteria[metric.name] = {"threshold": metric.threshold, **dict(metric.criterion)}
        else:
            criteria[metric.name] = metric.threshold
        if metric.function_path is not None:
            custom[metric.name] = {"code_config": {"name": metric.function_path}}
    data: dict[str, Any] = {"criteria": criteria}
    if custom:
        data["custom_metrics"] = custom
    return data


def metrics_from_config(config: Any) -> list[MetricSpec]:
    """The metrics an EvalConfig (or its JSON as a dict) names, in order."""
    data = config if isinstance(config, Mapping) else config.model_dump(mode="json", by_alias=False)
    criteria = data.get("criteria") or {}
    custom = data.get("custom_metrics") or data.get("customMetrics") or {}
    out = []
    for name, criterion in criteria.items():
        path = None
        if name in custom:
            code = custom[name].get("code_config") or custom[name].get("codeConfig") or {}
            path = code.get("name")
        if isinstance(criterion, Mapping):
            rest = {key: value for key, value in criterion.items() if key != "threshold"}
            out.append(MetricSpec(name, criterion.get("threshold"), rest, path))
        else:
            out.append(MetricSpec(name, float(criterion), {}, path))
    return out
