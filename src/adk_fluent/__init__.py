"""adk-fluent: compose Google ADK agents with operators; get native ADK objects back.

    from adk_fluent import Agent
    pipeline = Agent("classifier").instruct("Classify.").outputs("intent") >> Agent("booker")
    app = pipeline.to_app()    # a native google.adk App

Importing adk_fluent is cheap: google-adk itself is imported when something is built or run.
"""

from . import runtime as _runtime  # noqa: F401  (registers the engine with the builders)
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
from .state_schema import (
    AppScoped,
    SessionScoped,
    StateFieldRef,
    StateSchema,
    Temp,
    UserScoped,
)
from .transforms import S, StateStep

__all__ = [
    "AdkFluentError",
    "AdkFluentWarning",
    "Agent",
    "AgentEvent",
    "AppScoped",
    "BuildError",
    "C",
    "ContextSpec",
    "CompactionConfig",
    "ContractError",
    "ContractReport",
    "DuplicateNameError",
    "EmptyCompositeError",
    "ExecutionConfig",
    "FanOut",
    "Fallback",
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
