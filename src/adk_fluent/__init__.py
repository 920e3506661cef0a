"""adk-fluent: compose Google ADK agents with operators; get native ADK objects back.

    from adk_fluent import Agent
    pipeline = Agent("classifier").instruct("Classify.").outputs("intent") >> Agent("booker")
    app = pipeline.to_app()    # a native google.adk App

Importing adk_fluent is cheap: each name is loaded on first use (PEP 562), and google-adk
itself only when something is built or run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Agent": "api.agent",
    "Preset": "api.presets",
    "agent": "api.decorators",
    "per_call": "api.inject",
    "Fallback": "api.expression",
    "FanOut": "api.expression",
    "Loop": "api.expression",
    "Pipeline": "api.expression",
    "Until": "api.expression",
    "until": "api.expression",
    "exit_when": "api.expression",
    "LoopExit": "api.expression",
    "AgentTool": "api.agent_tool",
    "Native": "api.expression",
    "CompactionConfig": "ir.options",
    "ExecutionConfig": "ir.options",
    "Middleware": "ir.middleware",
    "ModelPrice": "ir.prices",
    "Prices": "ir.prices",
    "ModelCandidate": "ir.model_selection",
    "ModelSelectorNode": "ir.model_selection",
    "otel_enrichment": "telemetry.enrichment",
    "estimate_cost": "analysis.cost",
    "TrafficAssumptions": "analysis.cost",
    "CostModel": "analysis.cost",
    "NodeCost": "analysis.cost",
    "cost_attribution": "telemetry.cost",
    "usage": "telemetry.usage",
    "FluentEvalSuite": "evaluation.suite",
    "FluentCase": "evaluation.cases",
    "FluentJudge": "evaluation.cases",
    "FluentEvalReport": "evaluation.report",
    "EvalError": "errors",
    "UsageReport": "telemetry.usage",
    "C": "api.context",
    "ContextSpec": "ir.context_spec",
    "ContractReport": "analysis.contracts",
    "Issue": "analysis.contracts",
    "register_check": "analysis.contracts",
    "registered_checks": "analysis.contracts",
    "unregister_check": "analysis.contracts",
    "check_all": "api.checks",
    "check_contracts": "api.checks",
    "infer_visibility": "analysis.visibility",
    "restore_content": "adk.plugins.visibility",
    "available_targets": "adk.targets",
    "close_session_stores": "run.stores",
    "prepare_session_store": "run.stores",
    "BuildOptions": "ir.options",
    "Gate": "api.control",
    "MapOver": "api.control",
    "Race": "api.control",
    "Tap": "api.control",
    "Timeout": "api.expression",
    "Boundary": "api.expression",
    "RemoteAgent": "api.remote",
    "Modality": "ir.content",
    "ContentSpec": "ir.content",
    "Recorder": "replay",
    "Recording": "replay",
    "ReplayerBackend": "replay",
    "diff_events": "replay",
    "EventDiff": "replay",
    "RecordingError": "errors",
    "ReplayMismatchError": "errors",
    "ReplayedError": "errors",
    "AgentDirectory": "api.directory",
    "to_apps": "remote.boundaries",
    "gate": "api.control",
    "loop_until": "api.control",
    "map_over": "api.control",
    "race": "api.control",
    "tap": "api.control",
    "timeout": "api.control",
    "AdkFluentError": "errors",
    "AdkFluentWarning": "errors",
    "BuildError": "errors",
    "ContractError": "errors",
    "DuplicateNameError": "errors",
    "EmptyCompositeError": "errors",
    "FieldNotInstalledError": "errors",
    "SchemaCompositionError": "errors",
    "StateFieldError": "errors",
    "StateKeyError": "errors",
    "StateTypeError": "errors",
    "RunError": "errors",
    "UnknownSetterError": "errors",
    "AgentEvent": "run.events",
    "final_text": "run.events",
    "Route": "api.route",
    "ReadOnlyState": "ir.steps",
    "StateStepError": "errors",
    "StateWriteError": "errors",
    "AppScoped": "api.state_schema",
    "SessionScoped": "api.state_schema",
    "StateFieldRef": "api.state_schema",
    "StateSchema": "api.state_schema",
    "Temp": "api.state_schema",
    "UserScoped": "api.state_schema",
    "S": "api.state_steps",
    "StateStep": "api.expression",
}

__all__ = [
    "diff_events",
    "ReplayerBackend",
    "ReplayedError",
    "ReplayMismatchError",
    "RecordingError",
    "Recording",
    "Recorder",
    "Modality",
    "EventDiff",
    "ContentSpec",
    "AdkFluentError",
    "AdkFluentWarning",
    "Agent",
    "AgentDirectory",
    "AgentEvent",
    "AgentTool",
    "AppScoped",
    "Boundary",
    "BuildError",
    "BuildOptions",
    "C",
    "CompactionConfig",
    "ContextSpec",
    "ContractError",
    "ContractReport",
    "CostModel",
    "DuplicateNameError",
    "EmptyCompositeError",
    "ExecutionConfig",
    "Fallback",
    "FanOut",
    "EvalError",
    "FieldNotInstalledError",
    "FluentCase",
    "FluentEvalReport",
    "FluentEvalSuite",
    "FluentJudge",
    "Gate",
    "Issue",
    "Loop",
    "LoopExit",
    "MapOver",
    "Middleware",
    "ModelCandidate",
    "ModelPrice",
    "ModelSelectorNode",
    "Native",
    "NodeCost",
    "Pipeline",
    "Preset",
    "Prices",
    "Race",
    "ReadOnlyState",
    "RemoteAgent",
    "Route",
    "RunError",
    "S",
    "SchemaCompositionError",
    "SessionScoped",
    "StateFieldError",
    "StateFieldRef",
    "StateKeyError",
    "StateSchema",
    "StateStep",
    "StateStepError",
    "StateTypeError",
    "StateWriteError",
    "Tap",
    "Temp",
    "Timeout",
    "TrafficAssumptions",
    "UnknownSetterError",
    "Until",
    "UsageReport",
    "UserScoped",
    "agent",
    "check_all",
    "check_contracts",
    "close_session_stores",
    "cost_attribution",
    "estimate_cost",
    "exit_when",
    "final_text",
    "gate",
    "infer_visibility",
    "loop_until",
    "map_over",
    "otel_enrichment",
    "per_call",
    "prepare_session_store",
    "race",
    "register_check",
    "registered_checks",
    "restore_content",
    "available_targets",
    "tap",
    "timeout",
    "to_apps",
    "unregister_check",
    "until",
    "usage",
]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from adk_fluent.adk.plugins.visibility import restore_content
    from adk_fluent.adk.targets import available_targets
    from adk_fluent.analysis.contracts import (
        ContractReport,
        Issue,
        register_check,
        registered_checks,
        unregister_check,
    )
    from adk_fluent.analysis.cost import CostModel, NodeCost, TrafficAssumptions, estimate_cost
    from adk_fluent.analysis.visibility import infer_visibility
    from adk_fluent.api.agent import Agent
    from adk_fluent.api.agent_tool import AgentTool
    from adk_fluent.api.checks import check_all, check_contracts
    from adk_fluent.api.context import C
    from adk_fluent.api.control import (
        Gate,
        MapOver,
        Race,
        Tap,
        gate,
        loop_until,
        map_over,
        race,
        tap,
        timeout,
    )
    from adk_fluent.api.decorators import agent
    from adk_fluent.api.directory import AgentDirectory
    from adk_fluent.api.expression import (
        Boundary,
        Fallback,
        FanOut,
        Loop,
        LoopExit,
        Native,
        Pipeline,
        StateStep,
        Timeout,
        Until,
        exit_when,
        until,
    )
    from adk_fluent.api.inject import per_call
    from adk_fluent.api.presets import Preset
    from adk_fluent.api.remote import RemoteAgent
    from adk_fluent.api.route import Route
    from adk_fluent.api.state_schema import (
        AppScoped,
        SessionScoped,
        StateSchema,
        Temp,
        UserScoped,
    )
    from adk_fluent.api.state_steps import S
    from adk_fluent.errors import (
        AdkFluentError,
        AdkFluentWarning,
        BuildError,
        ContractError,
        DuplicateNameError,
        EmptyCompositeError,
        EvalError,
        FieldNotInstalledError,
        RecordingError,
        ReplayedError,
        ReplayMismatchError,
        RunError,
        SchemaCompositionError,
        StateFieldError,
        StateKeyError,
        StateStepError,
        StateTypeError,
        StateWriteError,
        UnknownSetterError,
    )
    from adk_fluent.evaluation.cases import FluentCase, FluentJudge
    from adk_fluent.evaluation.report import FluentEvalReport
    from adk_fluent.evaluation.suite import FluentEvalSuite
    from adk_fluent.ir.content import ContentSpec, Modality
    from adk_fluent.ir.context_spec import ContextSpec
    from adk_fluent.ir.middleware import Middleware
    from adk_fluent.ir.model_selection import ModelCandidate, ModelSelectorNode
    from adk_fluent.ir.options import BuildOptions, CompactionConfig, ExecutionConfig
    from adk_fluent.ir.prices import ModelPrice, Prices
    from adk_fluent.ir.state_keys import StateFieldRef
    from adk_fluent.ir.steps import ReadOnlyState
    from adk_fluent.remote.boundaries import to_apps
    from adk_fluent.replay import EventDiff, Recorder, Recording, ReplayerBackend, diff_events
    from adk_fluent.run.events import AgentEvent, final_text
    from adk_fluent.run.stores import close_session_stores, prepare_session_store
    from adk_fluent.telemetry.cost import cost_attribution
    from adk_fluent.telemetry.enrichment import otel_enrichment
    from adk_fluent.telemetry.usage import UsageReport, usage


def _load(name: str) -> Any:
    """Import the module that defines `name` and keep the value here (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'adk_fluent' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"adk_fluent.{module}"), name)
    globals()[name] = value
    return value


# Type checkers see the imports above instead: a module-level __getattr__ would make every
# misspelt name (`from adk_fluent import Agnet`) an `Any` to them rather than an error.
if not TYPE_CHECKING:
    __getattr__ = _load


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
