"""FluentEvalSuite: cases for a pipeline, compiled to ADK's EvalSet and run on ADK's
LocalEvalService with the pipeline's App, or exported for `adk eval`.

    suite = FluentEvalSuite("booking", pipeline, [
        FluentCase("Book Paris", response=contains("booked"), tools=[tool("book", city="Paris")]),
    ])
    report = await suite.run(backend=mock_backend({...}))     # or on the agents' own models
    print(report.to_text())
    suite.to_eval_set_file("eval/booking.evalset.json")      # + eval/test_config.json
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from adk_fluent.adk.native import is_native_agent
from adk_fluent.arguments import (
    checked_choice,
    checked_count,
    checked_instance,
    checked_some,
    checked_text,
    refused_as,
)
from adk_fluent.errors import (
    AdkFluentWarning,
    EvalError,
    describe_value,
    did_you_mean,
    with_article,
)
from adk_fluent.evaluation.cases import (
    SUITE_NAME,
    TRAJECTORY_MATCHES,
    FluentCase,
    FluentJudge,
    ToolCall,
)
from adk_fluent.evaluation.compile import (
    FUNCTION_PATHS,
    JUDGE_FUNCTION_PATH,
    RESPONSE_METRIC,
    TRAJECTORY_METRIC,
    MetricSpec,
)
from adk_fluent.evaluation.report import FluentEvalReport, describe_config, merge_runs
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import ExecutionConfig

LLM_JUDGE_METRIC = "final_response_match_v2"  # ADK's LLM-as-judge on the reference answer


def _is_builder(value: Any) -> bool:
    return callable(getattr(value, "to_ir", None)) and hasattr(value, "options")


def _is_native_app(value: Any) -> bool:
    return hasattr(value, "root_agent") and hasattr(value, "plugins") and hasattr(value, "name")


class _WholeTreeBackend:
    """A scripted backend for a sub-graph: its scripts are checked against the whole pipeline
    (they name agents outside the target too), its models handed out as usual."""

    def __init__(self, backend: Any, root: Node) -> None:
        self._backend = backend
        self._root = root

    def check_tree(self, _subtree: Node) -> None:
        if hasattr(self._backend, "check_tree"):
            self._backend.check_tree(self._root)

    def model_for(self, name: str) -> Any:
        return self._backend.model_for(name)


class FluentEvalSuite:
    """Evaluation cases for a pipeline (an adk-fluent expression, or a native ADK App or agent).

    - `metrics`: ADK's metrics by name, with a threshold or a criterion mapping
      (`{"response_match_score": 0.7}`); adk-fluent's own (`adk_fluent_trajectory`,
      `adk_fluent_response`) are added for the cases that expect tools or a response;
    - `judges`: FluentJudge custom metrics; `judge_model`: ADK's LLM judge
      (final_response_match_v2) on each turn's reference answer, with that model;
    - `trajectory_match`: "exact" (default), "in_order" or "any_order";
    - `state_schema`: a StateSchema that `state` / `expect_state` keys and values must follow;
    - `num_runs`: run each case that many times (a case passes only if every run does);
    - `parallelism`: cases run at once (ADK's InferenceConfig / EvaluateConfig);
    - `own_metrics`: which of adk-fluent's metrics run (default: those the cases' expectations
      need; a suite loaded from an ADK file runs those its test_config.json names).
    """

    def __init__(
        self,
        name: str,
        pipeline: Any,
        cases: Iterable[FluentCase],
        *,
        metrics: Mapping[str, Any] | None = None,
        judges: Iterable[FluentJudge] = (),
        judge_model: str | None = None,
        trajectory_match: str = "exact",
        state_schema: Any = None,
        num_runs: int = 1,
        parallelism: int = 4,
        own_metrics: Iterable[str] | None = None,
    ) -> None:
        if not (isinstance(name, str) and SUITE_NAME.fullmatch(name)):
            raise EvalError(
                f"suite name {name!r} is not usable",
                field="name",
                hint="letters, digits, '_', '-', '.' (it names the eval set and its file).",
            )
        self.name = name
        if not (_is_builder(pipeline) or _is_native_app(pipeline) or is_native_agent(pipeline)):
            raise EvalError(
                f"FluentEvalSuite evaluates a pipeline, not {describe_value(pipeline)}",
                field="pipeline",
                hint="pass an adk-fluent expression (Agent, Pipeline, ...), a native ADK App or a "
                "native agent instance.",
            )
        self.pipeline = pipeline
        self.metrics = _adk_metrics(metrics)
        self.judges = tuple(_listed(judges, "judges", "FluentJudge('polite', fn)"))
        with refused_as(EvalError):
            for judge in self.judges:
                checked_instance(
                    judge,
                    None,
                    "judges",
                    FluentJudge,
                    what="a FluentJudge",
                    hint="FluentJudge('polite', fn, threshold=0.8).",
                )
            if judge_model is not None:
                checked_text(
                    judge_model,
                    None,
                    "judge_model",
                    what="a model name",
                    hint="e.g. judge_model='gemini-2.5-flash'.",
                )
            self.judge_model = judge_model
            self.trajectory_match = checked_choice(
                trajectory_match,
                None,
                "trajectory_match",
                TRAJECTORY_MATCHES,
                hint="exact: the same calls in order; in_order: others may come between; "
                "any_order: each expected call, in any order.",
            )
            self.num_runs = checked_count(
                num_runs, None, "num_runs", least=1, hint="e.g. num_runs=2."
            )
            self.parallelism = checked_count(
                parallelism, None, "parallelism", least=1, hint="e.g. parallelism=2."
            )
        if state_schema is not None and not (
            isinstance(state_schema, type)
            and callable(getattr(state_schema, "field_for_key", None))
        ):
            raise EvalError(
                f"state_schema takes a StateSchema subclass, not {describe_value(state_schema)}",
                field="state_schema",
                hint="class Booking(StateSchema): intent: str ... then state_schema=Booking.",
            )
        self.state_schema = state_schema
        # The id, name, description and timestamp of the ADK eval set the suite was read from
        # (from_eval_set), exported back as they were read; None for a suite written in code.
        self._adk_header: dict[str, Any] | None = None
        self.own_metrics = (
            None
            if own_metrics is None
            else tuple(_listed(own_metrics, "own_metrics", "['adk_fluent_trajectory']"))
        )
        with refused_as(EvalError):
            for metric in self.own_metrics or ():
                checked_choice(
                    metric,
                    None,
                    "own_metrics",
                    (TRAJECTORY_METRIC, RESPONSE_METRIC),
                    hint="those are adk-fluent's metrics; ADK's go in metrics=.",
                )
            self.cases = _unique(_listed(cases, "cases", "FluentCase('Book Paris', ...)"))
            checked_some(
                self.cases, None, "cases", shown="the suite", items="case", hint="a FluentCase."
            )
        names = self._agent_names()
        judged = bool(self.metrics or self.judges or self.judge_model)
        for case in self.cases:
            if not case.checks_something and not judged:
                raise EvalError(
                    "the case checks nothing, so it would pass whatever the pipeline does",
                    case=case.case_id,
                    field="response",
                    hint="give response=, tools=, reference= or expect_state=, or suite "
                    "metrics / judges.",
                )
            if case.target is not None:
                self._check_target(case, names)
            if state_schema is not None:
                _check_schema(case, state_schema)

        self._warn_about_adk_metrics()

    def _warn_about_adk_metrics(self) -> None:
        """ADK's own metrics on expectations they cannot read: they would score 0 silently."""
        from adk_fluent.evaluation.matchers import serializable

        names = {spec.name for spec in self.metrics}
        loose, unreferenced = [], []
        for case in self.cases:
            for turn in case.turns:
                calls = [call for call in turn.tools or () if isinstance(call, ToolCall)]
                if any(
                    call.args is None
                    or not _literal(dict(call.args))
                    or not serializable(dict(call.args))
                    for call in calls
                ):
                    loose.append(case.case_id)
                if turn.expected_text is None:
                    unreferenced.append(case.case_id)
        if "tool_trajectory_avg_score" in names and loose:
            warnings.warn(
                f"suite '{self.name}': ADK's tool_trajectory_avg_score compares tool arguments "
                f"literally, so it scores 0 on calls expected by name only or with ANY / Regex / "
                f"a predicate (cases {', '.join(sorted(set(loose))[:5])}). Hint: tools= is "
                f"checked by adk_fluent_trajectory already; drop tool_trajectory_avg_score, "
                f"or give those calls their exact arguments.",
                AdkFluentWarning,
                stacklevel=3,
            )
        judged = names & {"response_match_score", LLM_JUDGE_METRIC}
        if self.judge_model is not None:
            judged.add(LLM_JUDGE_METRIC)
        if judged and unreferenced:
            warnings.warn(
                f"suite '{self.name}': {', '.join(sorted(judged))} compare(s) the answer with a "
                f"reference, and cases {', '.join(sorted(set(unreferenced))[:5])} have none on "
                f"some turn, so those turns score 0. Hint: give reference='...' (or an exact / "
                f"rouge response check) on each turn.",
                AdkFluentWarning,
                stacklevel=3,
            )

    # ---- the pipeline ----
    def _agent_names(self) -> set[str] | None:
        if not _is_builder(self.pipeline):
            return None
        return {node.name for node in self.pipeline.to_ir().walk()}

    def _check_target(self, case: FluentCase, names: set[str] | None) -> None:
        if names is None:
            raise EvalError(
                "target needs an adk-fluent pipeline to take the sub-graph from",
                case=case.case_id,
                field="target",
                hint="evaluate a native App or agent as a whole, or wrap it: Native(agent).",
            )
        if case.target not in names:
            raise EvalError(
                f"the pipeline has no agent or sub-pipeline named '{case.target}'",
                case=case.case_id,
                field="target",
                hint=did_you_mean(str(case.target), names) or f"names: {', '.join(sorted(names))}.",
            )
        node = self._node(case.target)
        from adk_fluent.adk.compat import adk_version, behaviour
        from adk_fluent.analysis.contracts import check_tree

        report = check_tree(
            node,
            installed_adk=adk_version(),
            initial_keys=tuple(case.state or {}),
            installed_behaviour=behaviour,
        )
        for issue in report:
            if issue.code == "read-before-write" and issue.key:
                raise EvalError(
                    f"'{case.target}' reads '{issue.key}' ({issue.node}), which nothing before "
                    f"it writes when it runs on its own",
                    case=case.case_id,
                    field="state",
                    hint=f"seed it: FluentCase(..., state={{'{issue.key}': ...}}).",
                )

    def _node(self, target: str) -> Node:
        node: Node = next(node for node in self.pipeline.to_ir().walk() if node.name == target)
        return node

    def to_app(self, *, target: str | None = None, backend: Any = None, config: Any = None) -> Any:
        """The native ADK App the cases run on (of the `target` sub-graph when given), built
        with `config` (an ExecutionConfig: middleware, plugins, app name, limits) as
        `pipeline.to_app(config)` builds it: what an agent folder exposes to `adk eval` for an
        exported suite."""
        if config is not None and not _is_builder(self.pipeline):
            raise EvalError(
                f"config= builds an adk-fluent pipeline's App, and this suite evaluates "
                f"{'a native App' if _is_native_app(self.pipeline) else 'a native agent'}, "
                "which no ExecutionConfig is applied to",
                field="config",
                hint="a native App runs with its own plugins: give them to App(plugins=...), "
                "or evaluate the adk-fluent pipeline with config=ExecutionConfig(...).",
            )
        if _is_native_app(self.pipeline):
            return self.pipeline
        if is_native_agent(self.pipeline):
            from google.adk.apps.app import App

            return App(name="adk_fluent_eval", root_agent=self.pipeline)
        from adk_fluent.run.engine import ENGINE

        root = self.pipeline.to_ir()
        options = self.pipeline.options
        if isinstance(config, ExecutionConfig) and config.telemetry is not None:
            from adk_fluent.telemetry.runtime import with_telemetry

            config = with_telemetry(config)  # as pipeline.to_app(config) builds it
        if target is None:
            return ENGINE.to_app(root, options, config, backend)
        node = self._node(target)
        options = dataclasses.replace(options, strict=None)  # checked with its seeded inputs
        wrapped = None if backend is None else _WholeTreeBackend(backend, root)
        return ENGINE.to_app(node, options, config, wrapped)

    # ---- metrics ----
    def metric_specs(self) -> list[MetricSpec]:
        """Every metric a run uses: adk-fluent's for the expectations the cases hold, the
        judges, ADK's LLM judge when a judge model is set, and the ADK metrics named."""
        specs = []
        turns = [turn for case in self.cases for turn in case.turns]
        own = self.own_metrics
        if (own is None and any(turn.tools is not None for turn in turns)) or (
            own is not None and TRAJECTORY_METRIC in own
        ):
            specs.append(
                MetricSpec(
                    TRAJECTORY_METRIC,
                    1.0,
                    {"match": self.trajectory_match},
                    FUNCTION_PATHS[TRAJECTORY_METRIC],
                )
            )
        if (own is None and any(turn.response is not None for turn in turns)) or (
            own is not None and RESPONSE_METRIC in own
        ):
            specs.append(MetricSpec(RESPONSE_METRIC, 1.0, {}, FUNCTION_PATHS[RESPONSE_METRIC]))
        for judge in self.judges:
            specs.append(
                MetricSpec(
                    judge.name,
                    1.0,
                    {"judge": judge.function_path, "judge_threshold": judge.threshold},
                    JUDGE_FUNCTION_PATH,
                )
            )
        if self.judge_model is not None:
            specs.append(
                MetricSpec(
                    LLM_JUDGE_METRIC,
                    0.5,
                    {"judge_model_options": {"judge_model": self.judge_model, "num_samples": 1}},
                )
            )
        specs.extend(self.metrics)
        return specs

    # ---- running ----
    async def run(
        self,
        *,
        backend: Any = None,
        config: Any = None,
        session_service: Any = None,
        artifact_service: Any = None,
        memory_service: Any = None,
        cases: Iterable[str] | None = None,
        tags: Iterable[str] | None = None,
    ) -> FluentEvalReport:
        """Run the cases (those ids / tags only, when given) through LocalEvalService with the
        pipeline's App; `backend=mock_backend(...)` scripts the models. `config` is the
        ExecutionConfig the App is built with, as `pipeline.to_app(config)` builds what you
        deploy: its middleware (retry, fallback, ...), plugins and limits run in every case, and
        the report names it (`report.config`). Each run uses its own sessions (in memory unless
        `session_service` is given)."""
        with warnings.catch_warnings():
            # ADK marks its eval classes experimental on every construction (importing its
            # metric registry makes one); the user asked for an evaluation, not for that banner
            # once per case.
            warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)
            from google.adk.artifacts.in_memory_artifact_service import InMemoryArtifactService
            from google.adk.sessions.in_memory_session_service import InMemorySessionService

            from adk_fluent.adk.compat import adk_version
            from adk_fluent.evaluation.execute import Services, evaluate_group

            chosen = self._select(cases, tags)
            specs = self.metric_specs()
            self._check_metric_names(specs)
            given_config = config  # what the report names; mocks are the evaluation's own
            if any(case.mock_tools for case in chosen):
                config = self._with_mocks(chosen, config)
            # One LocalEvalService per sub-graph and user simulator (ADK configures the
            # simulator per service): static cases share one.
            groups: dict[tuple[str | None, Any], list[FluentCase]] = {}
            for case in chosen:
                simulation = case.simulation
                settings = None if simulation is None else (simulation.model, simulation.max_turns)
                groups.setdefault((case.target, settings), []).append(case)

            def build_apps() -> dict[str | None, Any]:
                return {
                    target: self.to_app(target=target, backend=backend, config=config)
                    for target, _ in groups
                }

            # Each sub-graph's App, built with `config` before anything runs (a config that
            # cannot apply is refused here, not after half the cases ran); each run builds its
            # own, so middleware state (a cache, a breaker) starts afresh as in a new process.
            apps = build_apps()
            services = Services(
                session_service or InMemorySessionService(),
                artifact_service or InMemoryArtifactService(),
                memory_service,
            )
            started = time.perf_counter()
            runs: dict[str, list[Any]] = {case.case_id: [] for case in chosen}
            adk_results: list[Any] = []
            for run in range(self.num_runs):
                apps = apps if run == 0 else build_apps()
                for (target, _), members in groups.items():
                    results, scored = await evaluate_group(
                        app=apps[target],
                        suite_name=self.name,
                        cases=members,
                        metrics=specs,
                        judges=self.judges,
                        services=services,
                        parallelism=self.parallelism,
                        trajectory_match=self.trajectory_match,
                        simulation=members[0].simulation,
                    )
                    for result in results:
                        runs[result.id].append(result)
                    adk_results.extend(scored)
            return FluentEvalReport(
                suite=self.name,
                cases=[merge_runs(runs[case.case_id]) for case in chosen],
                adk_version=adk_version(),
                metrics=[spec.name for spec in specs],
                seconds=time.perf_counter() - started,
                case_results=adk_results,
                config=describe_config(given_config),
            )

    def _with_mocks(self, chosen: Sequence[FluentCase], config: Any) -> Any:
        """`config` with the middleware answering the cases' mocked tools, every mocked name
        checked against the pipeline's tools first (a misspelt one would run the real tool)."""
        from adk_fluent.evaluation.mocks import check_mocked_names, with_mocks

        if not _is_builder(self.pipeline):
            mocked = next(case for case in chosen if case.mock_tools)
            raise EvalError(
                "mock_tools answers tools through an adk-fluent pipeline's middleware, and this "
                "suite evaluates a native ADK agent",
                case=mocked.case_id,
                field="mock_tools",
                hint="evaluate the adk-fluent pipeline (Agent(...) >> ...), or give the native "
                "agent a before_tool_callback that returns the mocked reply.",
            )
        root = self.pipeline.to_ir()
        for case in chosen:
            if case.mock_tools:
                check_mocked_names(root, case.case_id, case.mock_tools)
        return with_mocks(config)

    def run_sync(self, **options: Any) -> FluentEvalReport:
        """`run()` for code without an event loop (a script, a notebook cell without await)."""
        return asyncio.run(self.run(**options))

    def _select(self, ids: Iterable[str] | None, tags: Iterable[str] | None) -> list[FluentCase]:
        chosen = self.cases
        if ids is not None:
            wanted = [ids] if isinstance(ids, str) else _listed(ids, "cases", "'paris'")
            known = {case.case_id for case in self.cases}
            for case_id in wanted:
                with refused_as(EvalError):
                    hint = f"cases: {', '.join(sorted(known))}."
                    checked_instance(case_id, None, "cases", str, what="a case id", hint=hint)
                if case_id not in known:
                    raise EvalError(
                        f"the suite has no case {case_id!r}",
                        field="cases",
                        hint=did_you_mean(case_id, known) or f"cases: {', '.join(sorted(known))}.",
                    )
            chosen = [case for case in chosen if case.case_id in wanted]
        if tags is not None:
            wanted_tags = (
                {tags} if isinstance(tags, str) else set(_listed(tags, "tags", "'billing'"))
            )
            with refused_as(EvalError):
                for tag in wanted_tags:
                    hint = "e.g. tags=['billing'] or tags='billing'."
                    checked_instance(tag, None, "tags", str, what="a tag (text)", hint=hint)
            chosen = [case for case in chosen if wanted_tags & set(case.tags)]
        if not chosen:
            raise EvalError(
                "no case is selected",
                field="tags" if tags is not None else "cases",
                hint="check the ids / tags; the suite's tags: "
                + (", ".join(sorted({t for c in self.cases for t in c.tags})) or "(none)"),
            )
        return chosen

    def _check_metric_names(self, specs: Sequence[MetricSpec]) -> None:
        from adk_fluent.evaluation.adk_metrics import FluentMetricRegistry

        registry = FluentMetricRegistry()
        for judge in self.judges:
            registry.register_judge(judge)
        known = registry.known()
        for spec in specs:
            if spec.name not in known:
                raise EvalError(
                    f"ADK has no metric named '{spec.name}' in this release",
                    field="metrics",
                    hint=did_you_mean(spec.name, known)
                    or f"registered metrics: {', '.join(sorted(known))}.",
                )

    # ---- files ----
    def _export_cases(self, target: str | None) -> list[FluentCase]:
        chosen = [case for case in self.cases if case.target == target]
        skipped = [case.case_id for case in self.cases if case.target != target]
        if not chosen:
            raise EvalError(
                f"no case runs on {'the whole pipeline' if target is None else repr(target)}",
                field="target",
                hint="pass target= the sub-graph the cases name.",
            )
        if skipped:
            warnings.warn(
                f"suite '{self.name}': {len(skipped)} case(s) target another sub-graph and are "
                f"not in this file ({', '.join(skipped[:5])}). Hint: export each target on its "
                f"own with to_eval_set_file(..., target='<name>') and an agent folder whose "
                f"app is suite.to_app(target='<name>').",
                AdkFluentWarning,
                stacklevel=3,
            )
        return chosen

    def to_eval_set(self, *, target: str | None = None, app_name: str | None = None) -> Any:
        """ADK's EvalSet for the cases on the whole pipeline (or on `target`). A suite read
        from an ADK eval set gives back that set's id, name, description and timestamp, and each
        case read from it as it was read (rubrics, intermediate responses, invocation ids, its
        session input); `app_name` renames the app of every case."""
        from adk_fluent.evaluation.compile import to_eval_set

        app = app_name or self._app_name()
        return to_eval_set(
            self.name,
            self._export_cases(target),
            app,
            header=self._adk_header,
            keep_app_name=app_name is None,
        )

    def to_eval_config(self) -> Any:
        """ADK's EvalConfig (test_config.json) for the suite's metrics."""
        from adk_fluent.evaluation.compile import eval_config

        specs = self.metric_specs()
        for judge in self.judges:
            if judge.function_path is None:
                raise EvalError(
                    f"judge '{judge.name}' is not a module-level function, so `adk eval` "
                    "cannot import it",
                    field="judges",
                    hint="define the judge function at the top level of an importable module.",
                )
        return eval_config(specs)

    def to_eval_set_file(
        self,
        path: str | Path,
        *,
        config_path: str | Path | None = None,
        target: str | None = None,
        app_name: str | None = None,
    ) -> tuple[Path, Path]:
        """Write the eval set (ADK's `.evalset.json`) and its criteria (`test_config.json`
        beside it unless `config_path` is given): `adk eval <agent_folder> <path>
        --config_file_path <config>` runs them. Returns both paths."""
        target_path = Path(path)
        config_file = (
            Path(config_path) if config_path else target_path.with_name("test_config.json")
        )
        import json

        from adk_fluent.evaluation.compile import eval_config_data

        eval_set = self.to_eval_set(target=target, app_name=app_name)
        self.to_eval_config()  # validates it (and the judges' import paths)
        config = eval_config_data(self.metric_specs())
        target_path.parent.mkdir(parents=True, exist_ok=True)
        config_file.parent.mkdir(parents=True, exist_ok=True)
        target_path.write_text(
            # Only the fields that were given: a case read from a file is written back as it
            # was read (an explicit null stays null), and a case of adk-fluent's own holds no
            # release's defaults (a file written on ADK 2.x reads the same on 1.x).
            eval_set.model_dump_json(indent=2, exclude_unset=True, by_alias=False) + "\n",
            encoding="utf-8",
        )
        config_file.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return target_path, config_file

    def _app_name(self) -> str:
        if _is_native_app(self.pipeline):
            return str(self.pipeline.name)
        from adk_fluent.ir.options import DEFAULT_APP_NAME

        return DEFAULT_APP_NAME

    @classmethod
    def from_eval_set(
        cls,
        source: Any,
        pipeline: Any,
        *,
        config: Any = None,
        name: str | None = None,
        **options: Any,
    ) -> FluentEvalSuite:
        """A suite from an ADK eval set (a `.evalset.json` path, or an EvalSet), with the metrics
        of `config` (an EvalConfig, its JSON path, or `test_config.json` beside the file), else
        ADK's default criteria."""
        from adk_fluent.evaluation.files import load_eval_set

        return load_eval_set(cls, source, pipeline, config=config, name=name, **options)

    @classmethod
    def from_yaml(cls, path: str | Path, pipeline: Any, **options: Any) -> FluentEvalSuite:
        """A suite from adk-fluent's YAML format (docs/evaluation.md)."""
        from adk_fluent.evaluation.files import load_yaml

        return load_yaml(cls, path, pipeline, **options)

    def to_yaml(self, path: str | Path | None = None) -> str:
        """The suite in adk-fluent's YAML format; written to `path` when given."""
        from adk_fluent.evaluation.files import dump_yaml

        text = dump_yaml(self)
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
        return text


def _literal(value: Any) -> bool:
    from adk_fluent.evaluation.matchers import is_matcher

    if is_matcher(value) or (callable(value) and not isinstance(value, type)):
        return False
    if isinstance(value, Mapping):
        return all(_literal(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(_literal(item) for item in value)
    return True


def _adk_metrics(metrics: Mapping[str, Any] | None) -> list[MetricSpec]:
    if metrics is None:
        return []
    if not isinstance(metrics, Mapping):
        raise EvalError(
            f"metrics takes a mapping of ADK metric name to threshold, not {describe_value(metrics)}",
            field="metrics",
            hint="e.g. metrics={'response_match_score': 0.7}.",
        )
    out = []
    for name, value in metrics.items():
        if not isinstance(name, str) or not name:
            raise EvalError(
                f"metric name {name!r} is not text",
                field="metrics",
                hint="ADK's metric names, e.g. 'tool_trajectory_avg_score'.",
            )
        if isinstance(value, bool) or not isinstance(value, int | float | Mapping):
            raise EvalError(
                f"metric '{name}' takes a threshold or a criterion mapping, not "
                f"{describe_value(value)}",
                field="metrics",
                hint="e.g. {'response_match_score': 0.7} or {'final_response_match_v2': "
                "{'threshold': 0.5, 'judge_model_options': {'judge_model': '...'}}}.",
            )
        if isinstance(value, Mapping):
            threshold = value.get("threshold")
            if threshold is not None and (
                isinstance(threshold, bool) or not isinstance(threshold, int | float)
            ):
                raise EvalError(
                    f"metric '{name}' threshold must be a number, not {describe_value(threshold)}",
                    field="metrics",
                    hint=f"e.g. {{'{name}': {{'threshold': 0.7, ...}}}}.",
                )
            rest = {key: item for key, item in value.items() if key != "threshold"}
            out.append(MetricSpec(name, None if threshold is None else float(threshold), rest))
        else:
            out.append(MetricSpec(name, float(value)))
    return out


def _listed(value: Any, field: str, example: str) -> list[Any]:
    """A list from an iterable argument; one item, a string or None is refused by name."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise EvalError(
            f"{field} takes a list, not {describe_value(value)}",
            field=field,
            hint=f"wrap it in a list: {field}=[{example}].",
        )
    return list(value)


def _unique(cases: list[FluentCase]) -> list[FluentCase]:
    seen: dict[str, int] = {}
    out = []
    for case in cases:
        with refused_as(EvalError):
            hint = "FluentCase('Book Paris', response=contains('booked'))."
            checked_instance(case, None, "cases", FluentCase, what="a FluentCase", hint=hint)
        case_id = case.case_id
        if case_id in seen:
            if case.id is not None:
                raise EvalError(
                    "two cases have this id",
                    case=case_id,
                    field="id",
                    hint="give each case its own id (reports and baselines match cases by id).",
                )
            seen[case_id] += 1
            case = case.with_id(f"{case_id}-{seen[case_id]}")
        else:
            seen[case_id] = 1
        out.append(case)
    return out


def _check_schema(case: FluentCase, schema: Any) -> None:
    from adk_fluent.evaluation.cases import schema_type_problem
    from adk_fluent.evaluation.matchers import is_matcher
    from adk_fluent.ir.state_keys import type_name

    for field_name, mapping in (("state", case.state), ("expect_state", case.expect_state)):
        for key, value in (mapping or {}).items():
            name = getattr(key, "key", key)
            ref = schema.field_for_key(name)
            if ref is None:
                raise EvalError(
                    f"{field_name} key '{name}' is not a field of {schema.__name__}",
                    case=case.case_id,
                    field=field_name,
                    hint=did_you_mean(name, schema.keys())
                    or f"its keys: {', '.join(sorted(schema.keys()))}.",
                )
            if is_matcher(value) or callable(value):
                continue
            if schema_type_problem(ref, value) is not None:
                raise EvalError(
                    f"{field_name}['{name}'] is {describe_value(value)}, but {ref!r} is "
                    f"{with_article(type_name(ref.type))}",
                    case=case.case_id,
                    field=field_name,
                    hint=f"give {with_article(type_name(ref.type))}, or a check: ANY, Regex(...), a function.",
                )
