"""`check_contracts`: the contract checker on what users hold (a builder, or its IR tree)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adk_fluent.adk.compat import adk_version, behaviour
from adk_fluent.analysis.contracts import ContractReport, check_tree
from adk_fluent.analysis.contracts.checker import initial_key_names
from adk_fluent.api.builder import BuilderBase
from adk_fluent.api.state_schema import StateSchema
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import BuildOptions


def _resolve(target: Any) -> tuple[Node, BuildOptions]:
    if isinstance(target, BuilderBase):
        return target.to_ir(), target.options
    if isinstance(target, Node):
        return target, BuildOptions()
    given = f"type {target.__name__}" if isinstance(target, type) else type(target).__name__
    schema_first = isinstance(target, type) and issubclass(target, StateSchema)
    raise BuildError(
        f"check_contracts() needs a builder (Agent, Pipeline, ...) or its IR, not {given}",
        field="pipeline",
        hint="the pipeline comes first: check_contracts(pipeline, schema=...)."
        if schema_first
        else "pass the expression itself, e.g. check_contracts(pipeline).",
    )


def check_contracts(
    target: Any,
    schema: Any = None,
    strict: bool = False,
    *,
    initial_keys: Iterable[str] = (),
    target_adk: str | None = None,
    visibility_mode: str | None = None,
    checks: Iterable[str] | None = None,
) -> ContractReport:
    """Check a pipeline (builder or IR) before any model call; returns a ContractReport.

    `schema`: a StateSchema the state must follow. `initial_keys`: keys the app guarantees at
    the start of a run. `target_adk`: the google-adk version to judge version-specific
    behaviour by (default: the installed one). `strict=True` raises ContractError on errors
    and warnings. `checks`: run only these registered checks. A builder's own `.strict(schema=,
    initial_keys=)` and `.filtered()` apply too.
    """
    root, options = _resolve(target)
    given_keys = initial_key_names(initial_keys)  # before merging: a str would split into letters
    declared = options.strict
    return check_tree(
        root,
        installed_adk=adk_version(),
        schema=schema if schema is not None else (declared.schema if declared else None),
        strict=strict,
        initial_keys=(*given_keys, *(declared.initial_keys if declared else ())),
        target_adk=target_adk,
        visibility_mode=visibility_mode or options.visibility_mode,
        checks=checks,
        installed_behaviour=behaviour,
    )
