"""What the generator scans and what it generates from each scanned class.

Adding a new ADK agent class to the builders is one entry here plus `make regen`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScanTarget:
    """An ADK pydantic class to scan; `modules` are tried in order (ADK moves things)."""

    name: str
    modules: tuple[str, ...]
    kind: str  # "agent" | "model"
    optional: bool = False  # absent in some supported versions (e.g. 2.x-only classes)


SCAN_TARGETS: tuple[ScanTarget, ...] = (
    ScanTarget("BaseAgent", ("google.adk.agents.base_agent",), "agent"),
    ScanTarget("LlmAgent", ("google.adk.agents.llm_agent",), "agent"),
    ScanTarget("SequentialAgent", ("google.adk.agents.sequential_agent",), "agent"),
    ScanTarget("ParallelAgent", ("google.adk.agents.parallel_agent",), "agent"),
    ScanTarget("LoopAgent", ("google.adk.agents.loop_agent",), "agent"),
    ScanTarget("Workflow", ("google.adk.workflow",), "agent", optional=True),
    ScanTarget("App", ("google.adk.apps.app",), "model"),
    ScanTarget("RunConfig", ("google.adk.agents.run_config",), "model"),
    ScanTarget("Event", ("google.adk.events.event",), "model"),
    ScanTarget("EventActions", ("google.adk.events.event_actions",), "model"),
)

PLUGIN_BASE = ("google.adk.plugins.base_plugin", "BasePlugin")


@dataclass(frozen=True)
class BuilderTarget:
    """An ADK agent class that gets an IR node, a builder base and a compile case."""

    adk_class: str
    node: str  # IR node class name
    builder_base: str  # generated builder mixin name
    compile_fn: str
    has_children: bool


BUILDER_TARGETS: tuple[BuilderTarget, ...] = (
    BuilderTarget("LlmAgent", "LlmAgentNode", "LlmAgentSetters", "compile_llm_agent", True),
    BuilderTarget(
        "SequentialAgent",
        "SequentialAgentNode",
        "SequentialAgentSetters",
        "compile_sequential_agent",
        True,
    ),
    BuilderTarget(
        "ParallelAgent",
        "ParallelAgentNode",
        "ParallelAgentSetters",
        "compile_parallel_agent",
        True,
    ),
    BuilderTarget("LoopAgent", "LoopAgentNode", "LoopAgentSetters", "compile_loop_agent", True),
)

# Fields the builders never expose as setters: the name is the constructor's argument,
# sub-agents come from composition (`>>`, `|`, `.delegate()`), the parent is ADK's own wiring.
STRUCTURAL_FIELDS = frozenset({"name", "sub_agents", "parent_agent"})

# Setter names that differ from the field name, because adk-fluent's hand-written API uses the
# plain name for something else (`.timeout(seconds)` is the cross-version timeout primitive;
# ADK 2.x's own per-node `timeout` field stays reachable as `.adk_timeout(...)`).
SETTER_RENAMES: dict[str, str] = {"timeout": "adk_timeout"}

# adk-fluent's extensions on every generated IR node (spec v4 section 3.2), after ADK's fields.
IR_EXTENSIONS: tuple[tuple[str, str, str, str], ...] = (
    # (name, type, default expression, meaning)
    ("children", "tuple[Any, ...]", "()", "child IR nodes (ADK's sub_agents)"),
    ("reads_keys", "frozenset[str]", "frozenset()", "state keys this node reads"),
    ("writes_keys", "frozenset[str]", "frozenset()", "state keys this node writes"),
    ("produces_type", "Any", "None", "pydantic model this node produces (`.produces()`)"),
    ("consumes_type", "Any", "None", "pydantic model this node consumes (`.consumes()`)"),
    ("visibility", "str | None", "None", "developer's visibility override, if any"),
    ("context", "Any", "None", "context spec (the C module), if any"),
)
