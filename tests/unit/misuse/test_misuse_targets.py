"""Misuse of the compile target (docs/workflow.md): a target name that is not one, the
environment variable set wrong, a state_schema where no ADK check uses it or that is not a
schema, a served pipeline asked for the Workflow target, and (on ADK 1.x) the Workflow target
itself. Each is refused at build time, naming the field, with a hint."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from adk_fluent import Agent, ExecutionConfig, StateSchema
from adk_fluent.adk.compat import workflow_graphs_missing
from tests.support.misuse import case, check, ids

MISSING = workflow_graphs_missing()  # None where this ADK has Workflow graphs


class Notes(StateSchema):
    facts: str


def _pipeline() -> Agent:
    return Agent("reader").instruct("Read.").outputs("facts") >> Agent("writer").instruct("W.")


def _with_variable(value: str, build: Callable[[], Any]) -> Callable[[], Any]:
    def attempt() -> Any:
        before = os.environ.get("ADK_FLUENT_TARGET")
        os.environ["ADK_FLUENT_TARGET"] = value
        try:
            return build()
        finally:
            if before is None:
                del os.environ["ADK_FLUENT_TARGET"]
            else:
                os.environ["ADK_FLUENT_TARGET"] = before

    return attempt


def _served_as_workflow() -> Any:
    pytest.importorskip("a2a")
    from adk_fluent.remote.serve import served_app

    return served_app(_pipeline(), ExecutionConfig(target="workflow"))


CASES = [
    case("targets-config-unknown", lambda: ExecutionConfig(target="banana"), "target", "banana"),
    case(
        "targets-config-capitalised",
        lambda: ExecutionConfig(target="Workflow"),
        "target",
        "did you mean 'workflow'",
    ),
    case("targets-to-app-unknown", lambda: _pipeline().to_app(target="graph"), "target", "graph"),
    case("targets-build-not-text", lambda: _pipeline().build(target=2), "target", "2"),
    case(
        "targets-to-runner-unknown",
        lambda: _pipeline().to_runner(target="workflows"),
        "target",
        "did you mean 'workflow'",
    ),
    case(
        "targets-variable-unknown",
        _with_variable("graph", lambda: _pipeline().to_app()),
        "ADK_FLUENT_TARGET",
        "graph",
    ),
    case(
        "targets-schema-on-classic",
        lambda: _pipeline().to_app(ExecutionConfig(target="classic", state_schema=Notes)),
        "state_schema",
        "target='workflow'",
    ),
    case(
        "targets-schema-not-a-schema",
        lambda: _pipeline().to_app(ExecutionConfig(target="workflow", state_schema={"facts": str})),
        *(("state_schema", "StateSchema subclass") if MISSING is None else ("needs ADK 2.x",)),
    ),
    case("targets-served-as-workflow", _served_as_workflow, "target", "sub-agent"),
]
if MISSING is not None:  # ADK 1.x: no Workflow graphs to compile to
    CASES.append(
        case(
            "targets-workflow-without-graphs",
            lambda: _pipeline().to_app(target="workflow"),
            "needs ADK 2.x",
            "google-adk",
        )
    )


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
