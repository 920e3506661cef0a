"""Compile targets (docs/workflow.md): which one a build uses ('classic': ADK's agent classes,
adk/compile.py; 'workflow': an ADK 2.x Workflow graph, adk/workflow_target.py), which ones the
installed ADK can run, and the Compiler for each, with a StateSchema made ADK's `state_schema`."""

from __future__ import annotations

from typing import Any

from adk_fluent.adk.compile import Compiler, ModelFor
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import TARGET_VARIABLE, CompileTarget, ExecutionConfig, check_target


def default_target() -> CompileTarget:
    """The target when neither the call nor the config names one: ADK_FLUENT_TARGET if set,
    else 'classic' while the installed ADK has its classic workflow agents, else 'workflow'
    (docs/workflow.md says why)."""
    import os

    from adk_fluent.adk.compat import classic_agents_available

    chosen = os.environ.get(TARGET_VARIABLE)
    if chosen:
        return check_target(chosen, TARGET_VARIABLE)
    return "classic" if classic_agents_available() else "workflow"


def available_targets() -> tuple[CompileTarget, ...]:
    """The compile targets the installed ADK can run: ('classic',) on 1.x (and on a 2.x release
    whose Workflow cannot run what the target needs), ('classic', 'workflow') on the others;
    ('workflow',) once a release drops the classic agents."""
    from adk_fluent.adk.compat import classic_agents_available, workflow_graphs_missing

    targets: list[CompileTarget] = ["classic"] if classic_agents_available() else []
    if workflow_graphs_missing() is None:
        targets.append("workflow")
    return tuple(targets)


def resolve_target(target: Any = None, config: ExecutionConfig | None = None) -> CompileTarget:
    """The compile target of one build: the call's, else the config's, else the default; a
    Workflow target the installed ADK cannot run is a BuildError."""
    if target is not None:
        check_target(target)
    chosen: CompileTarget = target or (config.target if config else None) or default_target()
    if chosen == "workflow":
        from adk_fluent.adk.compat import workflow_graphs_missing

        missing = workflow_graphs_missing()
        if missing is not None:
            raise BuildError(
                f"the 'workflow' compile target needs ADK 2.x Workflow graphs it can run: "
                f"{missing}",
                field="target",
                hint="use target='classic' (the default on this release), or a google-adk "
                "release whose Workflow runs it (2.4 and later: docs/workflow.md).",
            )
    return chosen


def make_compiler(
    root: Node, model_for: ModelFor | None, target: CompileTarget, state_schema: Any = None
) -> Compiler:
    """The Compiler for a target; a StateSchema is only the Workflow target's."""
    if target == "workflow":
        from adk_fluent.adk.workflow_target import WorkflowCompiler

        return WorkflowCompiler(root, model_for, pydantic_state_schema(state_schema))
    if state_schema is not None:
        raise BuildError(
            "state_schema is only checked at run time by an ADK Workflow, and this build "
            "compiles to the classic target",
            field="state_schema",
            hint="use ExecutionConfig(target='workflow', state_schema=...) on ADK 2.x; on the "
            "classic target, check_contracts(pipeline, schema=...) checks the keys before running.",
        )
    return Compiler(root, model_for)


def pydantic_state_schema(schema: Any) -> Any:
    """ADK's `state_schema` for a StateSchema: a pydantic model of its plain keys (ADK checks
    only keys without a ':' scope prefix). A pydantic model is taken as it is."""
    if schema is None:
        return None
    from pydantic import BaseModel, create_model

    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema
    refs = getattr(schema, "field_refs", None)
    if not callable(refs):
        raise BuildError(
            f"state_schema takes a StateSchema subclass or a pydantic model, not {schema!r}",
            field="state_schema",
            hint="class Booking(StateSchema): intent: str ... then state_schema=Booking.",
        )
    from adk_fluent.ir.state_keys import UNKNOWN

    fields: dict[str, Any] = {}
    for ref in refs().values():
        if ":" in ref.key:
            continue
        kind = Any if ref.type is UNKNOWN or isinstance(ref.type, str) else ref.type
        fields[ref.key] = (kind, ref.default if ref.has_default else None)
    return create_model(schema.__name__, **fields)
