"""`check_tree`: run every registered check over an IR tree (the API's check_contracts calls it)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, get_args

from adk_fluent_generated.behaviours import UnknownBehaviour, behaviour_on
from adk_fluent_generated.field_versions import SCANNED_ADK_VERSIONS, release_key

from adk_fluent.analysis.contracts.dataflow import analyse
from adk_fluent.analysis.contracts.effects import REF_CHANNELS
from adk_fluent.analysis.contracts.flow_state import YES, DataflowResult, ReadRecord
from adk_fluent.analysis.contracts.registry import select_checks
from adk_fluent.analysis.contracts.report import (
    SEVERITIES,
    ContractReport,
    Issue,
    Satisfied,
    Severity,
)
from adk_fluent.arguments import checked_choice
from adk_fluent.errors import BuildError, ContractError, describe_value, did_you_mean
from adk_fluent.ir.nodes import LlmAgentNode, Node, iter_paths, walk
from adk_fluent.ir.options import StrictOptions, VisibilityMode
from adk_fluent.ir.state_keys import check_key


class CheckContext:
    """What a check sees: the IR, the data-flow analysis, the schema and the options."""

    def __init__(
        self,
        root: Node,
        *,
        installed_adk: str,
        schema: Any = None,
        initial_keys: Iterable[str] = (),
        target_adk: str | None = None,
        visibility_mode: str | None = None,
        installed_behaviour: Callable[[str], Any] | None = None,
    ) -> None:
        self.root = root
        self.schema = checked_schema(schema)
        self.initial_keys = frozenset(initial_key_names(initial_keys))
        self.installed_adk = target_adk is None
        self.target_version = _checked_target(target_adk) or installed_adk
        self._installed_behaviour = installed_behaviour
        if visibility_mode is not None:
            checked_choice(
                visibility_mode,
                None,
                "visibility_mode",
                get_args(VisibilityMode),
                hint="'annotated' is the default.",
            )
        self.visibility_mode = visibility_mode or "annotated"

    @cached_property
    def flow(self) -> DataflowResult:
        """The abstract run (computed once, shared by every check)."""
        return analyse(self.root, self.initial_keys)

    @cached_property
    def visibility(self) -> dict[str, str]:
        """user / internal / zero_cost for every node, by name."""
        from adk_fluent.analysis.visibility import infer_visibility

        return dict(infer_visibility(self.root))

    @cached_property
    def schema_keys(self) -> frozenset[str]:
        """Every key the schema declares (empty without a schema)."""
        keys = getattr(self.schema, "keys", None)
        return frozenset(keys()) if callable(keys) else frozenset()

    @cached_property
    def known_keys(self) -> frozenset[str]:
        """Every key written anywhere, declared initial, or declared by the schema."""
        return frozenset(self.flow.writers) | self.initial_keys | self.schema_keys

    @cached_property
    def order(self) -> dict[str, int]:
        """Tree order of every node path (issues are sorted by it)."""
        return {"/".join(path): index for index, (path, _) in enumerate(iter_paths(self.root))}

    def behaves(self, probe: str) -> Any:
        """What the judged google-adk answers to behaviour probe `probe` (adk/probes.py): the
        installed one's answer (the ADK room passes it in), or the scans' answer for
        `target_adk`."""
        if self.installed_adk and self._installed_behaviour is not None:
            return self._installed_behaviour(probe)
        try:
            return behaviour_on(probe, self.target_version, scanned_only=False)
        except UnknownBehaviour:
            raise BuildError(
                f"no scan says how google-adk {self.target_version} behaves ({probe})",
                field="target_adk",
                hint=_SUPPORTED_HINT,
            ) from None

    @property
    def version_label(self) -> str:
        """'google-adk 1.25.0 (installed)' or the targeted version."""
        suffix = " (installed)" if self.installed_adk else ""
        return f"google-adk {self.target_version}{suffix}"

    def llm_agents(self) -> list[LlmAgentNode]:
        """Every LLM agent in the tree (delegates included), in tree order."""
        return [node for node in walk(self.root) if isinstance(node, LlmAgentNode)]

    def path_of(self, node: Any) -> str:
        """The path of a node (or node name) from the root, names joined by '/'."""
        name = node if isinstance(node, str) else getattr(node, "name", str(node))
        return self.flow.paths.get(name, name)

    def suggest(self, key: str, among: Iterable[str] | None = None) -> str | None:
        """A did-you-mean for a key, among the known keys (or `among`)."""
        candidates = set(self.known_keys if among is None else among) - {key}
        return did_you_mean(key, candidates)

    def issue(
        self,
        severity: Severity,
        code: str,
        node: Any,
        key: str | None,
        subject: str,
        message: str,
        hint: str,
        *,
        path: str | None = None,
    ) -> Issue:
        """Build an Issue; `node` is a node or a node name."""
        name = node if isinstance(node, str) else getattr(node, "name", str(node))
        return Issue(severity, code, name, path or self.path_of(name), key, subject, message, hint)


# -- the options, checked before any check runs (a wrong one is a BuildError, never a raw trace) --
def checked_schema(schema: Any, *, agent: str | None = None) -> Any:
    """`schema` if it is None or a StateSchema class (what the checks read), else a BuildError."""
    protocol = ("field_refs", "field_for_key", "keys")  # StateSchema's API (api/ declares it)
    if schema is None or (
        isinstance(schema, type) and all(callable(getattr(schema, n, None)) for n in protocol)
    ):
        return schema
    raise BuildError(
        f"schema must be a StateSchema subclass, not {describe_value(schema)}",
        agent=agent,
        field="schema",
        hint="declare the state's keys in one (class State(StateSchema): intent: str); a "
        "pydantic model describes one agent's reply: use .produces(Model) / .consumes(Model).",
    )


def initial_key_names(keys: Any, *, agent: str | None = None) -> tuple[str, ...]:
    """`initial_keys` as a tuple of state keys; a lone str (it would split into letters), None
    or a name no state key can have is a BuildError."""
    if isinstance(keys, str) or not isinstance(keys, Iterable):
        example = repr([keys]) if isinstance(keys, str) else "['tenant']"
        raise BuildError(
            f"initial_keys must be a list of state keys, not {describe_value(keys)}",
            agent=agent,
            field="initial_keys",
            hint=f"e.g. initial_keys={example}, or leave it out when the run starts empty.",
        )
    names = tuple(keys)
    for key in names:
        check_key(
            key,
            "initial_keys",
            agent=agent,
            field="initial_keys",
            hint="name each key the app sets before the run, e.g. initial_keys=['tenant'].",
        )
    return names


_SUPPORTED_HINT = (
    f"judge by a supported release, {SCANNED_ADK_VERSIONS[0]} to {SCANNED_ADK_VERSIONS[-1]} "
    "(docs/compatibility.md lists them)."
)


def _checked_target(target_adk: Any) -> str | None:
    """`target_adk` as given when it looks like a release ('1.25.0'), else a BuildError."""
    if target_adk is None:
        return None
    if isinstance(target_adk, str) and re.fullmatch(r"\d+\.\d+\.\d+", target_adk):
        oldest = SCANNED_ADK_VERSIONS[0]
        if release_key(target_adk) < release_key(oldest):
            raise BuildError(
                f"target_adk {target_adk!r} is older than google-adk {oldest}, the oldest "
                "supported release",
                field="target_adk",
                hint=_SUPPORTED_HINT,
            )
        return target_adk
    major_only = isinstance(target_adk, int) or (
        isinstance(target_adk, str) and target_adk.isdigit()
    )
    example = f"'{target_adk}.0.0'" if major_only else "'1.25.0'"
    raise BuildError(
        f"target_adk must be a google-adk release, not {describe_value(target_adk)}",
        field="target_adk",
        hint=f"e.g. target_adk={example}, or leave it out to judge by the installed google-adk.",
    )


def _satisfied(records: list[ReadRecord], subject: Any) -> tuple[Satisfied, ...]:
    held = []
    for record in records:
        if record.fact.status != YES or not record.read.required:
            continue
        if record.read.channel in REF_CHANNELS or not record.fact.writers:
            continue
        writer = " and ".join(dict.fromkeys(w.via for w in record.fact.writers))
        held.append(Satisfied(record.read.key, writer, subject(record), record.path))
    return tuple(held)


def check_tree(
    root: Node,
    *,
    installed_adk: str,
    schema: Any = None,
    strict: bool = False,
    initial_keys: Iterable[str] = (),
    target_adk: str | None = None,
    visibility_mode: str | None = None,
    checks: Iterable[str] | None = None,
    installed_behaviour: Callable[[str], Any] | None = None,
) -> ContractReport:
    """Check an IR tree before any model call; returns a ContractReport.

    `installed_adk`: the google-adk version installed and `installed_behaviour`: its answers to
    the behaviour probes (the ADK room knows both; without the latter the scans' table answers);
    `target_adk`: the version to judge version-specific behaviour by instead. See
    `check_contracts` in the API for the other options.
    """
    from adk_fluent.analysis.contracts import checks as _builtin  # noqa: F401  (registers them)
    from adk_fluent.analysis.contracts.checks.common import read_subject

    context = CheckContext(
        root,
        installed_adk=installed_adk,
        schema=schema,
        initial_keys=initial_keys,
        target_adk=target_adk,
        visibility_mode=visibility_mode,
        installed_behaviour=installed_behaviour,
    )
    selected = select_checks(checks)
    found: dict[tuple[str, str, str | None, str], Issue] = {}
    for spec in selected:
        for issue in spec.fn(context):
            found.setdefault((issue.code, issue.path, issue.key, issue.subject), issue)
    rank = {severity: index for index, severity in enumerate(SEVERITIES)}
    order = context.order
    issues = sorted(
        found.values(),
        key=lambda i: (rank[i.severity], order.get(i.path, len(order)), i.code, i.key or ""),
    )
    report = ContractReport(
        root.name,
        tuple(issues),
        _satisfied(context.flow.records, read_subject),
        context.target_version,
        tuple(spec.name for spec in selected),
    )
    if strict and report.failing(strict=True):
        raise ContractError(_refusal(report, strict=True), report)
    return report


def _refusal(report: ContractReport, *, strict: bool) -> str:
    failing = report.failing(strict=strict)
    what = "errors and warnings" if strict else "errors"
    lines = [
        f"contract check of '{report.root}' found {len(failing)} issue(s) ({what} fail it):",
        *(issue.to_text() for issue in failing),
        "hint: fix them; check_contracts(pipeline).to_text() shows the whole report.",
    ]
    return "\n".join(lines)


def enforce_strict(
    root: Node,
    options: StrictOptions,
    visibility_mode: str | None,
    installed_adk: str,
    installed_behaviour: Callable[[str], Any] | None = None,
) -> None:
    """What `.strict()` builds run: refuse to compile a tree whose contract check has errors."""
    # `.strict(schema=..., initial_keys=...)` belong to the root: errors name it
    report = check_tree(
        root,
        installed_adk=installed_adk,
        schema=checked_schema(options.schema, agent=root.name),
        initial_keys=initial_key_names(options.initial_keys, agent=root.name),
        visibility_mode=visibility_mode,
        installed_behaviour=installed_behaviour,
    )
    if report.errors:
        raise ContractError(
            _refusal(report, strict=False).replace(
                "hint: fix them;", "hint: fix them, or drop .strict() to build anyway;"
            ),
            report,
        )
