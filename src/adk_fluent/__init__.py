"""adk-fluent: compose Google ADK agents with operators; get native ADK objects back.

    from adk_fluent import Agent
    pipeline = Agent("classifier").instruct("Classify.").outputs("intent") >> Agent("booker")
    app = pipeline.to_app()    # a native google.adk App

The top level holds what a pipeline is composed, configured, run and checked with. The rest lives
in its room: adk_fluent.evaluation, .replay, .telemetry (usage, cost), .remote, .middleware,
.testing, and adk_fluent.errors (every error class).

Importing adk_fluent is cheap: each name is loaded on first use (PEP 562), and google-adk
itself only when something is built or run.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# The public names, written once: type checkers read these imports; at run time _exports()
# reads the same block from this file's source and loads each name on first use.
if TYPE_CHECKING:
    from adk_fluent.adk.plugins.visibility import restore_content as restore_content
    from adk_fluent.adk.targets import available_targets as available_targets
    from adk_fluent.analysis.contracts import ContractReport as ContractReport
    from adk_fluent.analysis.contracts import Issue as Issue
    from adk_fluent.analysis.contracts import register_check as register_check
    from adk_fluent.analysis.visibility import infer_visibility as infer_visibility
    from adk_fluent.api.agent import Agent as Agent
    from adk_fluent.api.agent_tool import AgentTool as AgentTool
    from adk_fluent.api.checks import check_contracts as check_contracts
    from adk_fluent.api.context import C as C
    from adk_fluent.api.control import gate as gate
    from adk_fluent.api.control import loop_until as loop_until
    from adk_fluent.api.control import map_over as map_over
    from adk_fluent.api.control import race as race
    from adk_fluent.api.control import tap as tap
    from adk_fluent.api.control import timeout as timeout
    from adk_fluent.api.decorators import agent as agent
    from adk_fluent.api.directory import AgentDirectory as AgentDirectory
    from adk_fluent.api.expression import Fallback as Fallback
    from adk_fluent.api.expression import FanOut as FanOut
    from adk_fluent.api.expression import Loop as Loop
    from adk_fluent.api.expression import Native as Native
    from adk_fluent.api.expression import Pipeline as Pipeline
    from adk_fluent.api.expression import exit_when as exit_when
    from adk_fluent.api.expression import until as until
    from adk_fluent.api.inject import per_call as per_call
    from adk_fluent.api.inject import per_invocation as per_invocation
    from adk_fluent.api.inject import per_session as per_session
    from adk_fluent.api.presets import Preset as Preset
    from adk_fluent.api.remote import RemoteAgent as RemoteAgent
    from adk_fluent.api.route import Route as Route
    from adk_fluent.api.state_schema import AppScoped as AppScoped
    from adk_fluent.api.state_schema import CapturedBy as CapturedBy
    from adk_fluent.api.state_schema import SessionScoped as SessionScoped
    from adk_fluent.api.state_schema import StateSchema as StateSchema
    from adk_fluent.api.state_schema import Temp as Temp
    from adk_fluent.api.state_schema import UserScoped as UserScoped
    from adk_fluent.api.state_steps import S as S
    from adk_fluent.errors import AdkFluentError as AdkFluentError
    from adk_fluent.errors import AdkFluentWarning as AdkFluentWarning
    from adk_fluent.errors import BuildError as BuildError
    from adk_fluent.errors import ContractError as ContractError
    from adk_fluent.errors import RunError as RunError
    from adk_fluent.ir.content import ContentSpec as ContentSpec
    from adk_fluent.ir.content import Modality as Modality
    from adk_fluent.ir.middleware import Middleware as Middleware
    from adk_fluent.ir.model_selection import ModelCandidate as ModelCandidate
    from adk_fluent.ir.model_selection import ModelFeedback as ModelFeedback
    from adk_fluent.ir.options import CompactionConfig as CompactionConfig
    from adk_fluent.ir.options import ExecutionConfig as ExecutionConfig
    from adk_fluent.ir.options import TelemetryConfig as TelemetryConfig
    from adk_fluent.ir.prices import ModelPrice as ModelPrice
    from adk_fluent.ir.prices import Prices as Prices
    from adk_fluent.ir.steps import ReadOnlyState as ReadOnlyState
    from adk_fluent.run.events import AgentEvent as AgentEvent
    from adk_fluent.run.events import final_text as final_text
    from adk_fluent.run.stores import close_session_stores as close_session_stores
    from adk_fluent.run.stores import prepare_session_store as prepare_session_store


@cache
def _exports() -> dict[str, str]:
    """Public name -> the module defining it, read from the TYPE_CHECKING block above (one
    `from M import X as X` a line, as ruff's import sorting keeps it)."""
    import re  # only on the first name looked up: importing adk_fluent stays cheap

    with open(__file__, encoding="utf-8") as source:
        found = re.findall(r"^    from (\S+) import (\w+) as \2$", source.read(), re.M)
    return {name: module for module, name in found}


def _load(name: str) -> Any:
    """Import the module that defines `name` and keep the value here (PEP 562)."""
    if name == "__all__":
        value: Any = sorted(_exports())
    else:
        module = _exports().get(name)
        if module is None:
            raise AttributeError(f"module 'adk_fluent' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


# Type checkers see the imports above instead: a module-level __getattr__ would make every
# misspelt name (`from adk_fluent import Agnet`) an `Any` to them rather than an error.
if not TYPE_CHECKING:
    __getattr__ = _load


def __dir__() -> list[str]:
    return sorted([*globals(), *_exports()])
