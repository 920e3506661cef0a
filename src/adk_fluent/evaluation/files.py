"""Suites in files: ADK's `.evalset.json` (with its test_config.json) in, and adk-fluent's YAML
format in and out.

The YAML format keeps everything a suite says that a file can hold (tags and targets too, which
ADK's eval set has no field for):

    name: booking
    trajectory_match: exact            # or in_order / any_order
    metrics: {response_match_score: 0.6}
    cases:
      - id: paris
        input: Book me a trip to Paris     # or turns: [{text: ..., response: ..., tools: ...}]
        response: {contains: booked}       # exact / contains / regex / rouge (+ threshold)
        tools:
          - lookup                         # by name, any arguments
          - {name: book, args: {city: Paris, date: {$match: any}}}
        state: {tier: gold}
        expect_state: {booking_ref: {$match: regex, pattern: ^BK-}}
        target: booker
        tags: [booking]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from adk_fluent.errors import EvalError, describe_value, install_extra
from adk_fluent.evaluation.cases import (
    SUITE_NAME,
    FluentCase,
    ResponseCheck,
    ToolCall,
    Turn,
    rouge,
)
from adk_fluent.evaluation.compile import (
    RESPONSE_METRIC,
    TRAJECTORY_METRIC,
    encoded_state,
    from_eval_case,
    metrics_from_config,
)
from adk_fluent.evaluation.matchers import decode, encoded_for_file


class Suite(Protocol):
    """What the file formats read of a FluentEvalSuite and set on one (suite.py imports this
    module and hands its class in, so the formats name no suite class)."""

    _adk_header: dict[str, Any] | None

    @property
    def name(self) -> str: ...
    @property
    def trajectory_match(self) -> str: ...
    @property
    def metrics(self) -> Sequence[Any]: ...
    @property
    def num_runs(self) -> int: ...
    @property
    def cases(self) -> Sequence[Any]: ...


SuiteT = TypeVar("SuiteT", bound=Suite)

_OWN_METRICS = (TRAJECTORY_METRIC, RESPONSE_METRIC)
_CASE_KEYS = {
    "id", "input", "turns", "simulate", "response", "tools", "reference", "state",
    "expect_state", "target", "tags", "user_id", "mock_tools",
}  # fmt: skip
_SIMULATE_KEYS = {"starting_prompt", "plan", "model", "max_turns", "persona"}
_SUITE_KEYS = {"name", "trajectory_match", "metrics", "num_runs", "cases"}


def _yaml() -> Any:
    try:
        import yaml
    except ImportError as error:  # pragma: no cover - google-adk depends on PyYAML
        raise EvalError(
            "the YAML format needs PyYAML",
            field="path",
            hint=install_extra("eval"),
        ) from error
    return yaml


# ---- YAML -> suite ----


def _response_from(value: Any, where: str, case: Any = None) -> ResponseCheck | None:
    from adk_fluent.evaluation.cases import contains, exact, regex

    if value is None:
        return None
    if isinstance(value, str):
        return exact(value)
    if isinstance(value, Mapping):
        modes = [key for key in ("exact", "contains", "regex", "rouge") if key in value]
        extra = set(value) - {"exact", "contains", "regex", "rouge", "threshold", "ignore_case"}
        if len(modes) == 1 and not extra:
            mode = modes[0]
            text = value[mode]
            if mode == "rouge":
                return rouge(text, value.get("threshold", 0.8))
            if mode == "regex":
                return regex(text)
            make = exact if mode == "exact" else contains
            return make(text, ignore_case=bool(value.get("ignore_case", False)))
    raise EvalError(
        f"{where}: response {value!r} is not a response check",
        case=case if isinstance(case, str) else None,
        field="response",
        hint="write {contains: text}, {exact: text}, {regex: pattern} or "
        "{rouge: text, threshold: 0.7}.",
    )


def _tools_from(value: Any, where: str) -> list[ToolCall | str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise EvalError(
            f"{where}: tools must be a list, not {describe_value(value)}",
            field="tools",
            hint="tools: [lookup, {name: book, args: {city: Paris}}]",
        )
    out: list[ToolCall | str] = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping) and "name" in item and set(item) <= {"name", "args"}:
            args = item.get("args")
            out.append(ToolCall(item["name"], None if args is None else decode(args, where=where)))
        else:
            raise EvalError(
                f"{where}: {item!r} is not an expected tool call",
                field="tools",
                hint="a name, or {name: book, args: {city: Paris}}.",
            )
    return out


def _check_keys(
    data: Mapping[str, Any], known: set[str], where: str, what: str, **place: Any
) -> None:
    """Refuses the first key of `data` that is not one of `known` (a typo, usually)."""
    unknown = sorted(set(data) - known)
    if unknown:
        from adk_fluent.errors import did_you_mean

        key = unknown[0]
        raise EvalError(
            f"{where} has an unknown key '{key}'",
            field=key,
            hint=did_you_mean(key, known) or f"{what}: {', '.join(sorted(known))}.",
            **place,
        )


def _case_from(data: Any, index: int) -> FluentCase:
    where = f"cases[{index}]"
    if not isinstance(data, Mapping):
        raise EvalError(
            f"{where} is {describe_value(data)}, not a case",
            field="cases",
            hint="each case is a mapping with at least input: or turns:.",
        )
    _check_keys(data, _CASE_KEYS, where, "keys", case=data.get("id"))
    if sum(key in data for key in ("input", "turns", "simulate")) != 1:
        raise EvalError(
            f"{where} needs exactly one of input:, turns: and simulate:",
            case=data.get("id"),
            field="input",
            hint="input: for one message, turns: for a conversation, simulate: for a "
            "simulated user.",
        )
    message: Any
    if "simulate" in data:
        from adk_fluent.evaluation.cases import UserSimulation

        spec = data["simulate"]
        if not isinstance(spec, Mapping) or not set(spec) <= _SIMULATE_KEYS:
            raise EvalError(
                f"{where}: simulate takes {', '.join(sorted(_SIMULATE_KEYS))}",
                case=data.get("id"),
                field="simulate",
                hint="simulate: {starting_prompt: I need a trip, plan: say Oslo when asked}",
            )
        message = UserSimulation(**spec)
    elif "turns" in data:
        turns_data = data["turns"]
        if not isinstance(turns_data, list) or not turns_data:
            raise EvalError(
                f"{where}: turns must be a non-empty list",
                case=data.get("id"),
                field="turns",
                hint="turns: [{text: Hi}, {text: Book Paris, tools: [book]}]",
            )
        turns = []
        for item in turns_data:
            if isinstance(item, str):
                turns.append(Turn(item))
            elif isinstance(item, Mapping) and "text" in item:
                turns.append(
                    Turn(
                        item["text"],
                        _response_from(item.get("response"), where, data.get("id")),
                        _tools_from(item.get("tools"), where),
                        item.get("reference"),
                    )
                )
            else:
                raise EvalError(
                    f"{where}: turn {item!r} has no text",
                    case=data.get("id"),
                    field="turns",
                    hint="each turn is a message, or {text: ..., response: ..., tools: ...}.",
                )
        message = turns
    else:
        message = data["input"]
    expect = data.get("expect_state")
    return FluentCase(
        message,
        response=_response_from(data.get("response"), where, data.get("id")),
        tools=_tools_from(data.get("tools"), where),
        reference=data.get("reference"),
        expect_state=None if expect is None else decode(expect, where=f"{where}.expect_state"),
        state=data.get("state"),
        target=data.get("target"),
        tags=data.get("tags") or (),
        id=data.get("id"),
        user_id=data.get("user_id", "eval_user"),
        mock_tools=data.get("mock_tools"),
    )


def load_yaml(
    cls: Callable[..., SuiteT], path: str | Path, pipeline: Any, **options: Any
) -> SuiteT:
    source = Path(path)
    try:
        data = _yaml().safe_load(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalError(f"no file at {source}", field="path", hint="check the path.") from None
    except _yaml().YAMLError as error:
        raise EvalError(
            f"{source} is not valid YAML: {error}", field="path", hint="check the indentation."
        ) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("cases"), list):
        raise EvalError(
            f"{source} is not a suite: it needs a cases: list",
            field="cases",
            hint="see docs/evaluation.md, 'The YAML format'.",
        )
    _check_keys(data, _SUITE_KEYS, str(source), "suite keys")
    settings = {
        key: data[key] for key in ("trajectory_match", "metrics", "num_runs") if key in data
    }
    settings.update(options)
    cases = [_case_from(item, index) for index, item in enumerate(data["cases"])]
    return cls(data.get("name") or source.stem.split(".")[0], pipeline, cases, **settings)


# ---- suite -> YAML ----


def _response_to(check: ResponseCheck | str | None) -> Any:
    if check is None or isinstance(check, str):
        return check
    return {check.mode: check.text, **check.options()}


def _tools_to(calls: Any, case: str) -> Any:
    if calls is None:
        return None
    out: list[Any] = []
    for call in calls:
        if call.args is None:
            out.append(call.name)
            continue
        what = f"an argument of {call.describe()}"
        args = encoded_for_file(dict(call.args), what, case=case, field="tools", medium="YAML")
        out.append({"name": call.name, "args": args})
    return out


def _turn_to(turn: Turn, case: str, text_key: str) -> dict[str, Any]:
    """A turn's message under `text_key` and what it expects (only what it gives)."""
    data: dict[str, Any] = {text_key: turn.text}
    for key, value in (
        ("response", _response_to(turn.response)),
        ("tools", _tools_to(turn.tools, case)),
        ("reference", turn.reference),
    ):
        if value is not None:
            data[key] = value
    return data


def case_to_data(case: FluentCase) -> dict[str, Any]:
    data: dict[str, Any] = {"id": case.case_id}
    turns = case.turns
    simulation = case.simulation
    if simulation is not None:
        spec: dict[str, Any] = {
            "starting_prompt": simulation.starting_prompt,
            "plan": simulation.plan,
        }
        spec.update(model=simulation.model, max_turns=simulation.max_turns)
        if simulation.persona:
            spec["persona"] = simulation.persona
        data["simulate"] = spec
    elif len(turns) == 1:
        data.update(_turn_to(turns[0], case.case_id, "input"))
    else:
        data["turns"] = [_turn_to(turn, case.case_id, "text") for turn in turns]
    if case.state:
        data["state"] = dict(case.state)
    if case.expect_state:
        data["expect_state"] = encoded_state(case.expect_state, case.case_id, "YAML")
    if case.target:
        data["target"] = case.target
    if case.tags:
        data["tags"] = list(case.tags)
    if case.user_id != "eval_user":
        data["user_id"] = case.user_id
    if case.mock_tools:
        data["mock_tools"] = dict(case.mock_tools)
    return data


def _metrics_setting(specs: Sequence[Any]) -> dict[str, Any]:
    """A suite's `metrics=` for the MetricSpecs: a threshold, or a criterion mapping."""
    return {
        spec.name: spec.threshold
        if not spec.criterion
        else {"threshold": spec.threshold, **spec.criterion}
        for spec in specs
    }


def dump_yaml(suite: Suite) -> str:
    data: dict[str, Any] = {"name": suite.name}
    if suite.trajectory_match != "exact":
        data["trajectory_match"] = suite.trajectory_match
    if suite.metrics:
        data["metrics"] = _metrics_setting(suite.metrics)
    if suite.num_runs != 1:
        data["num_runs"] = suite.num_runs
    data["cases"] = [case_to_data(case) for case in suite.cases]
    _warn_what_yaml_drops(suite)
    return str(_yaml().safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


def _warn_what_yaml_drops(suite: Suite) -> None:
    """Cases read from an ADK eval set may hold expectations the YAML format has no field for
    (rubrics, a turn's intermediate responses): say which, rather than drop them quietly."""
    import warnings

    from adk_fluent.errors import AdkFluentWarning
    from adk_fluent.evaluation.cases import adk_source

    dropped: dict[str, list[str]] = {}
    for case in suite.cases:
        source = adk_source(case)
        if source is None:
            continue
        turns = source.conversation or []
        if source.rubrics or any(turn.rubrics for turn in turns):
            dropped.setdefault("rubrics", []).append(case.case_id)
        if any(getattr(turn.intermediate_data, "intermediate_responses", None) for turn in turns):
            dropped.setdefault("intermediate responses", []).append(case.case_id)
    if dropped:
        what = "; ".join(f"{kind} of {', '.join(ids[:5])}" for kind, ids in dropped.items())
        warnings.warn(
            f"suite '{suite.name}': the YAML format has no field for ADK's {what}, so the YAML "
            f"leaves them out. Hint: to_eval_set_file() writes every field ADK's eval set keeps.",
            AdkFluentWarning,
            stacklevel=3,
        )


# ---- ADK eval set -> suite ----


def read_eval_set(path: Path) -> Any:
    """ADK's EvalSet from a file, read as ADK reads it: the EvalSet schema, else one of the two
    older list formats ADK still converts with its own converter (`convert_eval_set_to_pydantic_
    schema`, on every supported release):

    - `[{"name": ..., "data": [{"query": ...}, ...], "initial_session": {...}}, ...]`, which
      `adk eval` reads (one case per item, named by its `name`);
    - `[{"query": ..., "expected_tool_use": [...], "reference": ...}, ...]`, which ADK's
      AgentEvaluator reads (the whole file is one case, named after the file's path).

    Where ADK makes up an eval set id (a random one, or the file's path), the file's name
    without its suffixes stands in, so the suite has a usable name."""
    import json

    from google.adk.evaluation.eval_set import EvalSet
    from pydantic import ValidationError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EvalError(f"no file at {path}", field="path", hint="check the path.") from None
    try:
        return EvalSet.model_validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        problem = f"{'.'.join(str(part) for part in first['loc'])}: {first['msg']}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise EvalError(
            f"{path} is not JSON: {error}",
            field="path",
            hint="pass a .evalset.json or .test.json written by ADK (adk web, adk eval) or by "
            "to_eval_set_file().",
        ) from None
    old = _from_list_format(data, path)
    if old is not None:
        return old
    raise EvalError(
        f"{path} is not an ADK eval set: {problem}",
        field="path",
        hint="pass a .evalset.json or .test.json written by ADK (adk web, adk eval) or by "
        "to_eval_set_file(), or a list in ADK's older format (query / expected_tool_use / "
        "reference).",
    )


def _from_list_format(data: Any, path: Path) -> Any:
    """The EvalSet ADK's converter makes of an older list-format file; None when `data` is
    not one (the caller then reports the EvalSet schema's complaint)."""
    from google.adk.evaluation.local_eval_sets_manager import convert_eval_set_to_pydantic_schema
    from pydantic import ValidationError

    if not isinstance(data, list) or not data or not all(isinstance(x, Mapping) for x in data):
        return None
    if all("data" in item and "name" in item for item in data):
        items = data  # adk eval's form: one case per item
    elif all("query" in item for item in data):
        # AgentEvaluator's form: the file is one case named after its path (as ADK names it)
        items = [{"name": str(path), "data": data, "initial_session": {}}]
    else:
        return None
    try:
        return convert_eval_set_to_pydantic_schema(_name_of(path), items)
    except (KeyError, TypeError, ValidationError) as error:
        raise EvalError(
            f"{path} is in ADK's older list format, but ADK's converter refuses it: "
            f"{type(error).__name__}: {error}",
            field="path",
            hint="each turn needs query (and may give expected_tool_use with tool_name / "
            "tool_input, and reference).",
        ) from None


def _name_of(path: Path) -> str:
    """A suite name from a file name: `roll_die.test.json` -> `roll_die`."""
    from adk_fluent.evaluation.cases import slug

    stem = path.name.split(".")[0]
    return stem if SUITE_NAME.fullmatch(stem) else slug(stem)


def load_eval_set(
    cls: Callable[..., SuiteT],
    source: Any,
    pipeline: Any,
    *,
    config: Any = None,
    name: str | None = None,
    **options: Any,
) -> SuiteT:
    from google.adk.evaluation.eval_set import EvalSet

    from adk_fluent.evaluation.compile import eval_set_header, simulator_defaults

    path: Path | None = None
    if isinstance(source, EvalSet):
        eval_set = source
    else:
        path = Path(source)
        eval_set = read_eval_set(path)
    eval_config = _eval_config(config, path)
    specs = metrics_from_config(eval_config)
    own = {spec.name: spec for spec in specs if spec.name in _OWN_METRICS}
    scenarios = any(case.conversation_scenario for case in eval_set.eval_cases)
    simulator = simulator_defaults(eval_config) if scenarios else None
    cases = [from_eval_case(eval_case, simulator) for eval_case in eval_set.eval_cases]
    adk_specs = [s for s in specs if s.name not in _OWN_METRICS and s.function_path is None]
    settings: dict[str, Any] = {"metrics": _metrics_setting(adk_specs)}
    trajectory = own.get(TRAJECTORY_METRIC)
    if trajectory is not None and "match" in trajectory.criterion:
        settings["trajectory_match"] = trajectory.criterion["match"]
    # The file's tool calls and answers serve the config's metrics: adk-fluent's run only when
    # the config names them (a file from `adk web` is scored by ADK's metrics alone).
    settings["own_metrics"] = tuple(own)
    settings.update(options)
    suite_name = name or (
        eval_set.eval_set_id
        if SUITE_NAME.fullmatch(eval_set.eval_set_id)
        else _name_of(path or Path(eval_set.eval_set_id))
    )
    suite = cls(suite_name, pipeline, cases, **settings)
    suite._adk_header = eval_set_header(eval_set)  # exported back as it was read
    return suite


def _validated_config(validate: Callable[[], Any], shown: str, hint: str) -> Any:
    """ADK's EvalConfig from `validate()`, or an EvalError naming the first field it refused."""
    from pydantic import ValidationError

    try:
        return validate()
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise EvalError(
            f"{shown} is not an ADK eval config: {where}: {first['msg']}",
            field="config",
            hint=hint,
        ) from None


def _eval_config(config: Any, path: Path | None) -> Any:
    """ADK's EvalConfig: `config` (an EvalConfig, its JSON file, or that JSON as a mapping),
    else test_config.json
    beside the eval set (where ADK's AgentEvaluator looks), else ADK's default criteria."""
    from google.adk.evaluation.eval_config import EvalConfig

    if config is None and path is not None and (path.parent / "test_config.json").is_file():
        config = path.parent / "test_config.json"
    if config is None:
        return EvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
    if isinstance(config, EvalConfig):
        return config
    if isinstance(config, Mapping):  # test_config.json's content
        return _validated_config(
            lambda: EvalConfig.model_validate(dict(config)),
            "config",
            'e.g. {"criteria": {"tool_trajectory_avg_score": 1.0}}.',
        )
    if isinstance(config, str | Path):
        try:
            text = Path(config).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise EvalError(
                f"no config at {config}", field="config", hint="check the path."
            ) from None
        return _validated_config(
            lambda: EvalConfig.model_validate_json(text),
            str(config),
            'a test_config.json: {"criteria": {"tool_trajectory_avg_score": 1.0}}.',
        )
    raise EvalError(
        f"config takes an ADK EvalConfig, the path of its JSON file or its content, not "
        f"{describe_value(config)}",
        field="config",
        hint="e.g. config='eval/test_config.json'.",
    )
