"""FluentEvalReport: what a suite run found, per case and per metric, readable in a terminal,
saved as JSON, and compared with a saved baseline (what got worse, what got better).

ADK's own results (EvalCaseResult, with the session) stay on `report.case_results` for anything
the report does not show; the JSON holds adk-fluent's summary, not ADK's objects, so a baseline
saved on one ADK release compares with a run on another.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from adk_fluent.arguments import checked_number, refused_as
from adk_fluent.errors import EvalError, describe_value

Status = Literal["passed", "failed", "error", "not_evaluated"]
FORMAT = "adk-fluent-eval-report/1"
_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "not_evaluated": "NOT EVALUATED"}


@dataclass(frozen=True)
class MetricOutcome:
    """A metric's result for one case: score (None when not evaluated), threshold, status."""

    score: float | None
    threshold: float | None
    status: Status
    reason: str | None = None  # why it could not run (NOT_EVALUATED), from ADK's log


@dataclass(frozen=True)
class StateOutcome:
    """One `expect_state` check: the key, what was expected and found, and why it failed."""

    key: str
    expected: str
    actual: str
    passed: bool
    reason: str | None = None


@dataclass(frozen=True)
class TurnOutcome:
    """One turn: what the user said, what the pipeline answered and called, and the findings."""

    user: str
    response: str
    tool_calls: list[str] = field(default_factory=list)
    response_check: str | None = None
    response_problem: str | None = None
    trajectory: list[str] = field(default_factory=list)  # scoring.trajectory_diff lines
    trajectory_problem: str | None = None


@dataclass(frozen=True)
class CaseResult:
    """One case's result (over all its runs: any failing run fails it, scores are averaged)."""

    id: str
    status: Status
    metrics: dict[str, MetricOutcome] = field(default_factory=dict)
    state: list[StateOutcome] = field(default_factory=list)
    turns: list[TurnOutcome] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    target: str | None = None
    error: str | None = None
    runs: int = 1
    tokens: dict[str, int] = field(default_factory=dict)  # input / output, summed over runs

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def problems(self) -> list[str]:
        """The reasons it did not pass, one line each."""
        out = [f"error: {self.error}"] if self.error else []
        for index, turn in enumerate(self.turns, 1):
            if turn.trajectory_problem:
                out.append(f"turn {index} tools: {turn.trajectory_problem}")
            if turn.response_problem:
                out.append(f"turn {index} response: {turn.response_problem}")
        out += [f"state {check.key}: {check.reason}" for check in self.state if not check.passed]
        for name, metric in self.metrics.items():
            if metric.status == "failed":
                out.append(f"{name}: {_score(metric.score)} < {_score(metric.threshold)}")
            elif metric.status == "not_evaluated" and metric.reason:
                out.append(f"{name} not evaluated: {metric.reason}")
        return out


@dataclass(frozen=True)
class TagSummary:
    total: int
    passed: int

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


@dataclass(frozen=True)
class CaseChange:
    """A case whose verdict or a metric's score moved between the baseline and this run."""

    id: str
    before: str
    after: str
    detail: str = ""


@dataclass(frozen=True)
class RegressionReport:
    """`report.compare(baseline)`: cases that got worse, better, appeared or disappeared, and
    metric scores that dropped by more than the tolerance while the verdict held."""

    regressed: list[CaseChange]
    improved: list[CaseChange]
    score_drops: list[CaseChange]
    new: list[str]
    missing: list[str]

    @property
    def has_regressions(self) -> bool:
        return bool(self.regressed or self.score_drops)

    def to_text(self) -> str:
        lines = []
        if not (self.regressed or self.improved or self.score_drops or self.new or self.missing):
            return "Against the baseline: no change.\n"
        lines.append("Against the baseline:")
        for title, changes in (
            ("regressed", self.regressed),
            ("scores dropped", self.score_drops),
            ("improved", self.improved),
        ):
            for change in changes:
                detail = f"  ({change.detail})" if change.detail else ""
                lines.append(
                    f"  {title:<15} {change.id}: {change.before} -> {change.after}{detail}"
                )
        lines += [f"  {'new':<15} {case}" for case in self.new]
        lines += [
            f"  {'missing':<15} {case} (in the baseline, not in this run)" for case in self.missing
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@dataclass
class FluentEvalReport:
    """The result of `FluentEvalSuite.run()`."""

    suite: str
    cases: list[CaseResult]
    adk_version: str = ""
    metrics: list[str] = field(default_factory=list)
    seconds: float = 0.0
    case_results: list[Any] = field(default_factory=list, repr=False)  # ADK's EvalCaseResult
    # The ExecutionConfig the App ran with (describe_config), so a report says whether it
    # evaluated what is deployed; "" in a report saved before reports named it.
    config: str = ""

    # ---- verdicts ----
    @property
    def passed(self) -> bool:
        """True when every case passed (a case NOT_EVALUATED by every metric has not)."""
        return bool(self.cases) and all(case.passed for case in self.cases)

    @property
    def pass_rate(self) -> float:
        return sum(case.passed for case in self.cases) / len(self.cases) if self.cases else 0.0

    def case(self, case_id: str) -> CaseResult:
        for case in self.cases:
            if case.id == case_id:
                return case
        from adk_fluent.errors import did_you_mean

        raise EvalError(
            f"the report has no case {case_id!r}",
            field="case",
            hint=did_you_mean(case_id, [c.id for c in self.cases])
            or f"cases: {', '.join(c.id for c in self.cases) or '(none)'}.",
        )

    @property
    def failures(self) -> list[CaseResult]:
        return [case for case in self.cases if not case.passed]

    @property
    def per_tag(self) -> dict[str, TagSummary]:
        groups: dict[str, list[CaseResult]] = {}
        for case in self.cases:
            for tag in case.tags:
                groups.setdefault(tag, []).append(case)
        return {
            tag: TagSummary(len(cases), sum(c.passed for c in cases))
            for tag, cases in sorted(groups.items())
        }

    @property
    def per_metric(self) -> dict[str, dict[str, Any]]:
        """Per metric: mean score over the cases it evaluated, and how many passed / failed."""
        out: dict[str, dict[str, Any]] = {}
        for name in self.metrics:
            outcomes = [case.metrics[name] for case in self.cases if name in case.metrics]
            scored = [o.score for o in outcomes if o.score is not None]
            out[name] = {
                "mean": sum(scored) / len(scored) if scored else None,
                "passed": sum(o.status == "passed" for o in outcomes),
                "failed": sum(o.status == "failed" for o in outcomes),
                "not_evaluated": sum(o.status == "not_evaluated" for o in outcomes),
            }
        return out

    # ---- regression ----
    def compare(
        self, baseline: FluentEvalReport | str | Path, *, tolerance: float = 0.05
    ) -> RegressionReport:
        """What changed since `baseline` (a report, or the path of a saved one): cases that
        passed there and not here (regressed), the reverse (improved), metric scores down by
        more than `tolerance` on a case whose verdict held, and cases only in one of them."""
        with refused_as(EvalError):
            hint = "the score drop to ignore, e.g. tolerance=0.05."
            checked_number(tolerance, None, "tolerance", positive=False, hint=hint)
        if isinstance(baseline, str | Path):
            baseline = FluentEvalReport.load(baseline)
        if not isinstance(baseline, FluentEvalReport):
            raise EvalError(
                f"compare() takes a report or the path of a saved one, not "
                f"{describe_value(baseline)}",
                field="baseline",
                hint="report.compare('eval/baseline.json') or report.compare(other_report).",
            )
        before = {case.id: case for case in baseline.cases}
        now = {case.id: case for case in self.cases}
        regressed, improved, drops = [], [], []
        for case_id, case in now.items():
            old = before.get(case_id)
            if old is None:
                continue
            if old.passed and not case.passed:
                regressed.append(
                    CaseChange(case_id, old.status, case.status, "; ".join(case.problems()[:2]))
                )
            elif case.passed and not old.passed:
                improved.append(CaseChange(case_id, old.status, case.status))
            else:
                for name, metric in case.metrics.items():
                    prior = old.metrics.get(name)
                    if prior is None or prior.score is None or metric.score is None:
                        continue
                    if prior.score - metric.score > tolerance:
                        drops.append(
                            CaseChange(case_id, _score(prior.score), _score(metric.score), name)
                        )
        return RegressionReport(
            regressed,
            improved,
            drops,
            new=[case_id for case_id in now if case_id not in before],
            missing=[case_id for case_id in before if case_id not in now],
        )

    # ---- output ----
    def to_text(self, *, verbose: bool = False) -> str:
        """A table of cases and metrics, then why each failing case failed (every case with
        `verbose`)."""
        total, ok = len(self.cases), sum(case.passed for case in self.cases)
        on = f" on google-adk {self.adk_version}" if self.adk_version else ""
        lines = [
            f"Suite {self.suite}{on}: {total} case(s), {ok} passed, {total - ok} not "
            f"({self.pass_rate:.0%}) in {self.seconds:.1f}s",
        ]
        if self.config:
            lines.append(f"Config: {self.config}")
        lines.append("")
        headers = ["case", "status", *self.metrics, "state", "tags"]
        rows = []
        for case in self.cases:
            checks = case.state
            state = f"{sum(c.passed for c in checks)}/{len(checks)}" if checks else "-"
            row = [case.id, _MARK[case.status]]
            for name in self.metrics:
                metric = case.metrics.get(name)
                row.append("-" if metric is None else _score(metric.score))
            rows.append([*row, state, ",".join(case.tags)])
        widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
        for row in [headers, *rows]:
            lines.append(
                "  ".join(
                    str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)
                ).rstrip()
            )
        shown = self.cases if verbose else self.failures
        if shown:
            lines += ["", "Details" if verbose else "Failures"]
        for case in shown:
            lines.append(f"  {case.id} ({_MARK[case.status]})")
            if case.error:
                lines.append(f"    error: {case.error}")
            for index, turn in enumerate(case.turns, 1):
                lines.append(f"    turn {index}: {turn.user!r}")
                lines.append(f"      answered: {turn.response!r}")
                if turn.response_check:
                    verdict = turn.response_problem or "ok"
                    lines.append(f"      response {turn.response_check}: {verdict}")
                if turn.trajectory:
                    lines.append("      tools:")
                    lines += [f"        {line}" for line in turn.trajectory]
                elif turn.tool_calls:
                    lines.append(f"      tools: {', '.join(turn.tool_calls)}")
            for check in case.state:
                outcome = "ok" if check.passed else str(check.reason)
                lines.append(f"    state {check.key}: expected {check.expected}, {outcome}")
            for name, metric in case.metrics.items():
                if metric.status == "failed":
                    lines.append(
                        f"    {name}: {_score(metric.score)} below {_score(metric.threshold)}"
                    )
                elif metric.status == "not_evaluated" and case.status == "not_evaluated":
                    why = metric.reason or "it produced no score"
                    lines.append(f"    {name}: not evaluated ({why})")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "suite": self.suite,
            "adk_version": self.adk_version,
            "config": self.config,
            "metrics": list(self.metrics),
            "seconds": round(self.seconds, 3),
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "cases": [asdict(case) for case in self.cases],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def save(self, path: str | Path) -> Path:
        """Write the JSON (a baseline for `compare()` and `adk-fluent eval --baseline`)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.to_json() + "\n", encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> FluentEvalReport:
        source = Path(path)
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except IsADirectoryError:
            raise EvalError(
                f"{source} is a folder, not a file holding a saved report",
                field="baseline",
                hint="pass the JSON file written by report.save() or --save.",
            ) from None
        except FileNotFoundError:
            raise EvalError(
                f"no report at {source}",
                field="baseline",
                hint="save one first: report.save(path) or adk-fluent eval ... --save path.",
            ) from None
        except json.JSONDecodeError as error:
            raise EvalError(
                f"{source} is not a saved report: {error}",
                field="baseline",
                hint="pass a file written by report.save() or --save.",
            ) from None
        return cls.from_dict(data, where=str(source))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "the report") -> FluentEvalReport:
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise EvalError(
                f"{where} is not an adk-fluent eval report (format {FORMAT!r})",
                field="baseline",
                hint="pass a file written by report.save() or `adk-fluent eval --save`.",
            )
        cases = []
        for index, item in enumerate(data.get("cases") or []):
            try:
                cases.append(_case(item))
            except (KeyError, TypeError, ValueError) as error:
                raise EvalError(
                    f"{where}: case {index} is malformed ({type(error).__name__}: {error})",
                    field="baseline",
                    hint="save the baseline again with report.save(); do not edit it by hand.",
                ) from None
        return cls(
            suite=data.get("suite", ""),
            cases=cases,
            adk_version=data.get("adk_version", ""),
            config=str(data.get("config", "")),
            metrics=list(data.get("metrics", [])),
            seconds=float(data.get("seconds", 0.0)),
        )


def _case(data: Mapping[str, Any]) -> CaseResult:
    return CaseResult(
        id=data["id"],
        status=data["status"],
        metrics={name: MetricOutcome(**value) for name, value in data.get("metrics", {}).items()},
        state=[StateOutcome(**item) for item in data.get("state", [])],
        turns=[TurnOutcome(**item) for item in data.get("turns", [])],
        tags=list(data.get("tags", [])),
        target=data.get("target"),
        error=data.get("error"),
        runs=int(data.get("runs", 1)),
        tokens=dict(data.get("tokens", {})),
    )


NO_CONFIG = "none (the App as the pipeline builds it)"


def describe_config(config: Any) -> str:
    """An ExecutionConfig in one line, naming only what differs from the defaults (its
    middleware and plugins by name): `ExecutionConfig(middleware=[retry(app, priority=-10)])`."""
    import dataclasses

    if config is None:
        return NO_CONFIG
    if not dataclasses.is_dataclass(config):
        return repr(config)
    shown = []
    for item in dataclasses.fields(config):
        value = getattr(config, item.name)
        if item.default is not dataclasses.MISSING:
            default = item.default
        elif item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        else:  # pragma: no cover - ExecutionConfig gives every field a default
            default = dataclasses.MISSING
        if value == default:
            continue
        if item.name in ("middleware", "plugins"):
            names = [
                repr(one) if item.name == "middleware" else getattr(one, "name", type(one).__name__)
                for one in value
            ]
            shown.append(f"{item.name}=[{', '.join(names)}]")
        else:
            shown.append(f"{item.name}={value!r}")
    return f"{type(config).__name__}({', '.join(shown)})"


def merge_runs(runs: Iterable[CaseResult]) -> CaseResult:
    """One case's result over several runs: the worst status, mean scores, the first failing
    run's details."""
    results = list(runs)
    order = ["error", "failed", "not_evaluated", "passed"]
    worst = min(results, key=lambda r: order.index(r.status))
    metrics = {}
    for name in results[0].metrics:
        outcomes = [r.metrics[name] for r in results if name in r.metrics]
        scored = [o.score for o in outcomes if o.score is not None]
        status = min((o.status for o in outcomes), key=order.index)
        reason = next((o.reason for o in outcomes if o.reason), None)
        metrics[name] = MetricOutcome(
            sum(scored) / len(scored) if scored else None, outcomes[0].threshold, status, reason
        )
    tokens: dict[str, int] = {}
    for result in results:
        for key, value in result.tokens.items():
            tokens[key] = tokens.get(key, 0) + value
    return CaseResult(
        id=worst.id,
        status=worst.status,
        metrics=metrics,
        state=worst.state,
        turns=worst.turns,
        tags=worst.tags,
        target=worst.target,
        error=worst.error,
        runs=len(results),
        tokens=tokens,
    )
