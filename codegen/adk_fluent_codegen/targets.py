"""What the generator scans and what it generates from each scanned class.

Adding a new ADK agent class to the builders is one entry here plus `make regen`.
"""

from __future__ import annotations

import re
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


def visit_method(node_class: str) -> str:
    """The visitor method for a node class: `LlmAgentNode` -> `visit_llm_agent`."""
    stem = node_class.removesuffix("Node")
    return "visit_" + re.sub(r"(?<!^)(?=[A-Z])", "_", stem).lower()


@dataclass(frozen=True)
class BuilderTarget:
    """An ADK agent class that gets an IR node, a builder base and a compile case.

    `speaks` and `children` are the node's traits (see the Node base): whether its events carry
    text for the user, and how its children run.
    """

    adk_class: str
    speaks: str  # by_position | always | never
    children: str  # none | sequence | repeat | branches | delegates
    # adk-fluent's extensions on this node type only, after IR_EXTENSIONS (same tuple shape)
    extensions: tuple[tuple[str, str, str, str], ...] = ()

    @property
    def node(self) -> str:
        """The IR node class name."""
        return f"{self.adk_class}Node"

    @property
    def builder_base(self) -> str:
        """The generated setter mixin's name."""
        return f"{self.adk_class}Setters"

    @property
    def visit(self) -> str:
        """The visitor method for this node type."""
        return visit_method(self.node)


BUILDER_TARGETS: tuple[BuilderTarget, ...] = (
    BuilderTarget(
        "LlmAgent",
        speaks="by_position",
        children="delegates",
        extensions=(
            (
                "model_selector",
                "Any",
                "None",
                "cost-aware model policy (`.model_select()`), a ModelSelectorNode",
            ),
            (
                "content_spec",
                "Any",
                "None",
                "modalities accepted and produced (`.accepts()` / `.produces_modality()`), "
                "a ContentSpec",
            ),
        ),
    ),
    BuilderTarget("SequentialAgent", speaks="never", children="sequence"),
    BuilderTarget(
        "ParallelAgent",
        speaks="never",
        children="branches",
        extensions=(
            ("join", "Any", "None", "None: wait for every branch; 'first_complete': the first"),
            ("merge", "Any", "None", "how branch outputs are merged into state (`.merge()`)"),
        ),
    ),
    BuilderTarget("LoopAgent", speaks="never", children="repeat"),
)


@dataclass(frozen=True)
class ControlNode:
    """A hand-written IR node (adk_fluent.ir.nodes) that the generated visitor must cover."""

    name: str
    doc: str
    module: str = "adk_fluent.ir.nodes"

    @property
    def visit(self) -> str:
        return visit_method(self.name)


# adk-fluent's own node types. tests/unit/ir/test_nodes_and_visitors.py checks this list against the
# Node subclasses the core defines, so a new control node cannot be missing from the visitor.
CONTROL_NODES: tuple[ControlNode, ...] = (
    ControlNode("FallbackNode", "`a // b`: the next child runs when the previous raised."),
    ControlNode("UntilNode", "The loop check of `body * until(pred)`."),
    ControlNode("TransformNode", "A zero-cost state step (S, C.capture, a plain function)."),
    ControlNode("RouteNode", "`Route(key)`: one branch by a state value."),
    ControlNode("MapOverNode", "`map_over`: the body once per item of a list."),
    ControlNode("GateNode", "`gate`: pause for a person's approval."),
    ControlNode("TapNode", "`tap`: observe a read-only view of state."),
    ControlNode("TimeoutNode", "`timeout`: cancel the body after a deadline."),
    ControlNode("RaceNode", "`race`: the first child to finish wins."),
    ControlNode("NativeAgentNode", "A native ADK agent (a custom BaseAgent) placed as it is."),
    ControlNode("RemoteAgentNode", "`RemoteAgent`: an agent served elsewhere, called over A2A."),
    ControlNode("BoundaryNode", "`.execution_boundary()`: a sub-tree deployed as its own service."),
    ControlNode("ChunkedEdgeNode", "`a.then(b, edge='chunked')`: b runs on each chunk of a."),
)

# Fields the builders never expose as setters: the name is the constructor's argument,
# sub-agents come from composition (`>>`, `|`, `.delegate()`), the parent is ADK's own wiring.
STRUCTURAL_FIELDS = frozenset({"name", "sub_agents", "parent_agent"})

# Setter names that differ from the field name, because adk-fluent's hand-written API uses the
# plain name for something else (`.timeout(seconds)` is the cross-version timeout primitive;
# ADK 2.x's own per-node `timeout` field stays reachable as `.adk_timeout(...)`).
SETTER_RENAMES: dict[str, str] = {"timeout": "adk_timeout"}

# adk-fluent's extensions on every generated IR node, after ADK's fields.
# The Node base already declares name, children, reads_keys, writes_keys and visibility.
IR_EXTENSIONS: tuple[tuple[str, str, str, str], ...] = (
    # (name, type, default expression, meaning)
    ("produces_type", "Any", "None", "pydantic model this node produces (`.produces()`)"),
    ("consumes_type", "Any", "None", "pydantic model this node consumes (`.consumes()`)"),
    ("context", "Any", "None", "context spec (the C module), if any"),
)

# What each behaviour probe (adk_fluent.adk.probes) asks of a release, and what adk-fluent does
# with the answer: the compatibility page's "Behaviour" section.
BEHAVIOUR_NOTES: dict[str, tuple[str, str]] = {
    "plugin_edits_are_stored": (
        "Is the event a plugin's `on_event_callback` returns what the Runner stores (not only "
        "what it streams)?",
        "Filtered visibility through a plain Runner: where no, the stored event is the "
        "original and the plugin returns a stripped copy for the client; where yes, the plugin "
        "sets the hidden text aside as a session artifact and puts it back before each agent "
        "runs (adk/plugins/visibility.py).",
    ),
    "temp_keys_carry_over": (
        "Does a `temp:` key one agent writes reach the next agent of the same invocation?",
        "The contract checker warns `temp-key-not-carried` only where it does not.",
    ),
    "workflow_agents_warn": (
        "Does constructing a SequentialAgent / ParallelAgent / LoopAgent warn that it is "
        "deprecated in favour of Workflow?",
        "adk-fluent hides that warning while it compiles (the user asked for a Pipeline, not a "
        "SequentialAgent).",
    ),
    "other_agent_reply_format": (
        "How does another agent's reply appear in an LLM agent's request?",
        "Nothing forks on it: C views render other agents' replies as `[name] said: ...` on "
        "every release; prompt snapshots of ADK's own rendering must follow this row.",
    ),
    "include_contents_none_keeps": (
        "What does an agent with `include_contents='none'` see after another agent replied?",
        "The contract checker's data flow models `include_contents='none'` as this answer "
        "(the latest other agent's reply only).",
    ),
    "callback_keywords": (
        "Which keyword names does ADK pass to agent, model and tool callbacks?",
        "Callbacks that do not take these names are wrapped at compile time so that ADK's call "
        "binds (adk/compile.py's table must equal this row).",
    ),
    "runner_takes_state_delta": (
        "Does `Runner.run_async(state_delta=...)` store the delta with the user's message when "
        "the root is an LlmAgent?",
        "`run(state=...)` passes it there; where no, the state is stored as a content-less "
        "user event just before the turn (docs/sessions.md).",
    ),
    "workflow_runs_transfers": (
        "Does an agent node of a Workflow graph run the agent it transfers to inside the graph "
        "(no where there are no Workflow graphs)?",
        "The Workflow compile target is offered only where yes (docs/workflow.md).",
    ),
    "confirmation_redelivery_accepted": (
        "Does ADK take a tool-confirmation answer delivered a second time (a client retry) "
        "without failing?",
        "`tool_approval` ends such a retried turn before the agent runs where no; the call "
        "ran (or was rejected) once either way.",
    ),
    "unanswered_calls_reach_the_model": (
        "Does a function call that never got its response (the tool raised, or a timeout "
        "cancelled it) reach the agent's next model request unanswered (which Gemini refuses)?",
        "Where yes, a plugin leaves such calls out of the model request, as newer releases do; "
        "the stored event keeps them (adk/plugins/tool_history.py).",
    ),
}
