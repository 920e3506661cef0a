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
    "Agent": "agent",
    "Fallback": "composites",
    "FanOut": "composites",
    "Loop": "composites",
    "Pipeline": "composites",
    "Until": "composites",
    "until": "composites",
    "CompactionConfig": "config",
    "ExecutionConfig": "config",
    "C": "context",
    "ContextSpec": "context",
    "ContractReport": "contracts",
    "Issue": "contracts",
    "check_all": "contracts",
    "check_contracts": "contracts",
    "register_check": "contracts",
    "Gate": "control",
    "MapOver": "control",
    "Race": "control",
    "Tap": "control",
    "Timeout": "control",
    "gate": "control",
    "loop_until": "control",
    "map_over": "control",
    "race": "control",
    "tap": "control",
    "timeout": "control",
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
    "UnknownSetterError": "errors",
    "AgentEvent": "events",
    "final_text": "events",
    "Route": "routing",
    "ReadOnlyState": "state_ops",
    "StateStepError": "state_ops",
    "StateWriteError": "state_ops",
    "AppScoped": "state_schema",
    "SessionScoped": "state_schema",
    "StateFieldRef": "state_schema",
    "StateSchema": "state_schema",
    "Temp": "state_schema",
    "UserScoped": "state_schema",
    "S": "transforms",
    "StateStep": "transforms",
}

__all__ = [
    "AdkFluentError",
    "AdkFluentWarning",
    "Agent",
    "AgentEvent",
    "AppScoped",
    "BuildError",
    "C",
    "CompactionConfig",
    "ContextSpec",
    "ContractError",
    "ContractReport",
    "DuplicateNameError",
    "EmptyCompositeError",
    "ExecutionConfig",
    "Fallback",
    "FanOut",
    "FieldNotInstalledError",
    "Gate",
    "Issue",
    "Loop",
    "MapOver",
    "Pipeline",
    "Race",
    "ReadOnlyState",
    "Route",
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
    "UnknownSetterError",
    "Until",
    "UserScoped",
    "check_all",
    "check_contracts",
    "final_text",
    "gate",
    "loop_until",
    "map_over",
    "race",
    "register_check",
    "tap",
    "timeout",
    "until",
]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from .agent import Agent
    from .composites import Fallback, FanOut, Loop, Pipeline, Until, until
    from .config import CompactionConfig, ExecutionConfig
    from .context import C, ContextSpec
    from .contracts import ContractReport, Issue, check_all, check_contracts, register_check
    from .control import (
        Gate,
        MapOver,
        Race,
        Tap,
        Timeout,
        gate,
        loop_until,
        map_over,
        race,
        tap,
        timeout,
    )
    from .errors import (
        AdkFluentError,
        AdkFluentWarning,
        BuildError,
        ContractError,
        DuplicateNameError,
        EmptyCompositeError,
        FieldNotInstalledError,
        SchemaCompositionError,
        StateFieldError,
        StateKeyError,
        StateTypeError,
        UnknownSetterError,
    )
    from .events import AgentEvent, final_text
    from .routing import Route
    from .state_ops import ReadOnlyState, StateStepError, StateWriteError
    from .state_schema import AppScoped, SessionScoped, StateFieldRef, StateSchema, Temp, UserScoped
    from .transforms import S, StateStep


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'adk_fluent' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"adk_fluent.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
