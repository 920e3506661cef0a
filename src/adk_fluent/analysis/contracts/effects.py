"""What each IR node kind reads from and writes to session state, as the checker sees it.

Reads carry their channel (an instruction template, a C spec, a Route key, an S step, a
consumes model, a `.reads()` declaration) and whether a missing key breaks the run. Writes carry
how they happen (for messages) and, when declared, a type. Nothing here imports google.adk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from adk_fluent.analysis.contracts.source import (
    CodeEffects,
    agent_code_effects,
    function_effects,
    function_label,
    tool_effects,
    tool_label,
)
from adk_fluent.ir.effects import REF_CHANNELS, Read, StepEffects, Write
from adk_fluent.ir.instruction_keys import template_keys
from adk_fluent.ir.nodes import UNSET, LlmAgentNode, NativeAgentNode, Node, TransformNode
from adk_fluent.ir.state_keys import UNKNOWN, unwrap_declared

__all__ = [
    "REF_CHANNELS",
    "CodeUnit",
    "Read",
    "StepEffects",
    "Write",
    "agent_code",
    "agent_reads",
    "agent_writes",
    "callback_code",
    "declared_reads",
    "declared_writes",
    "native_code",
    "step_effects",
]


def is_set(value: Any) -> bool:
    """Whether a generated node field holds a value (not UNSET, None or empty)."""
    return (
        value is not None
        and value is not UNSET
        and not (isinstance(value, tuple | list) and not value)
    )


def model_name(model: Any) -> str:
    """A pydantic model's class name (for messages)."""
    return getattr(model, "__name__", type(model).__name__)


def model_fields(model: Any) -> dict[str, Any]:
    """A pydantic model's fields by name; {} for anything else."""
    fields = getattr(model, "model_fields", None)
    return dict(fields) if isinstance(fields, dict) else {}


def _field_type(info: Any) -> Any:
    return getattr(info, "annotation", UNKNOWN)


def _field_required(info: Any) -> bool:
    required = getattr(info, "is_required", None)
    return bool(required()) if callable(required) else True


def agent_reads(node: LlmAgentNode, *, is_root: bool) -> list[Read]:
    """Every key an LLM agent reads: instruction templates, its C spec, consumes, `.reads()`."""
    reads: list[Read] = []
    seen: set[tuple[str, str]] = set()

    def add(read: Read) -> None:
        if (read.key, read.channel) not in seen:
            seen.add((read.key, read.channel))
            reads.append(read)

    def templates(text: Any, channel: str) -> None:
        required, optional = template_keys(text)
        for key in sorted(required):
            add(Read(key, channel, True))
        for key in sorted(optional):
            add(Read(key, channel, False))

    templates(node.instruction, "instruction")
    if is_root:  # ADK applies a global instruction only from the root agent
        templates(node.global_instruction, "global instruction")
    spec = node.context
    if spec is not None:
        for key in getattr(spec, "state_keys", ()):
            add(Read(key, "C.from_state", True))
        for text in getattr(spec, "templates", ()):
            templates(text, "C.template")
    for read in declared_reads(node, accounted={r.key for r in reads}):
        add(read)
    return reads


def declared_reads(node: Node, *, accounted: set[str] | None = None) -> list[Read]:
    """Keys a node declares it reads (`.reads()`, and `.consumes()` models when `models`)."""
    reads: list[Read] = []
    model, refs = unwrap_declared(getattr(node, "consumes_type", None))
    for name, info in model_fields(model).items():
        reads.append(
            Read(
                name,
                "consumes",
                _field_required(info),
                _field_type(info),
                f"{model_name(model)}.{name}",
            )
        )
    for ref in refs:
        reads.append(Read(ref.key, "declared", not ref.has_default, ref.type, repr(ref)))
    seen = {r.key for r in reads} | (accounted or set())
    for key in sorted(node.reads_keys - seen):  # keys added to the IR by other means
        reads.append(Read(key, "declared", True))
    return reads


def agent_writes(node: LlmAgentNode) -> list[Write]:
    """Every key an LLM agent writes: its output key, produces fields and `.writes()` refs."""
    writes: list[Write] = []
    output_schema = node.output_schema if is_set(node.output_schema) else None
    if isinstance(node.output_key, str):
        writes.append(
            Write(
                node.output_key,
                f'{node.name}.outputs("{node.output_key}")',
                output_schema if isinstance(output_schema, type) else UNKNOWN,
                text=True,
                kind="outputs",
            )
        )
    # ADK stores an output_schema object whole, in state[output_key]; its fields are not keys
    accounted = {w.key for w in writes} | set(model_fields(output_schema))
    writes.extend(declared_writes(node, accounted=accounted))
    return writes


def declared_writes(node: Node, *, accounted: set[str] | None = None) -> list[Write]:
    """Keys a node declares it writes (`.writes()`, `.produces()` models)."""
    writes: list[Write] = []
    model, refs = unwrap_declared(getattr(node, "produces_type", None))
    for name, info in model_fields(model).items():
        writes.append(
            Write(
                name,
                f"{node.name}.produces({model_name(model)})",
                _field_type(info),
                kind="produces",
            )
        )
    for ref in refs:
        writes.append(Write(ref.key, f"{node.name}.writes({ref!r})", ref.type, kind="declared"))
    seen = {w.key for w in writes} | (accounted or set())
    for key in sorted(node.writes_keys - seen):
        writes.append(Write(key, f"{node.name} (declared writes)", kind="declared"))
    return writes


# -- code the checker reads: tools, callbacks, instruction providers, custom agents ----------
# When each callback runs, as a stage of its agent: `tool` stages run only when the model calls
# a tool (or, for on_model_error, when the model fails), so what they do is not certain.
_CALLBACK_STAGES = {
    "before_agent_callback": "before_agent",
    "before_model_callback": "before_model",
    "after_model_callback": "after_model",
    "on_model_error_callback": "tool",
    "before_tool_callback": "tool",
    "after_tool_callback": "tool",
    "on_tool_error_callback": "tool",
    "after_agent_callback": "after_agent",
}


@dataclass(frozen=True)
class CodeUnit:
    """One function of a node, read from its source: a tool, a callback, an instruction
    provider or a custom agent's own code; `stage` says when it runs (before_agent,
    instruction, before_model, tool, after_model, after_agent, or code for a custom agent)."""

    stage: str
    label: str  # "tool 'lookup'", "before_agent_callback 'load_profile'"
    effects: CodeEffects

    @property
    def maybe(self) -> bool:
        """Whether it runs only when the model calls a tool (what it does is not certain)."""
        return self.stage == "tool"

    def reads(self) -> list[Read]:
        """Its reads, on the channel of its label."""
        kind = "tool" if self.maybe else "agent"
        return [
            Read(key, self.label, required, source=self.effects.name, code=kind)
            for key, required in self.effects.reads
        ]

    def writes(self, node: str) -> list[Write]:
        """Its writes and deletes, as done by `node`."""
        via = f"{self.label} of '{node}'"
        return [Write(key, via, kind="code") for key in self.effects.writes] + [
            Write(key, via, kind="code", delete=True) for key in self.effects.deletes
        ]

    def opaque_label(self, node: str) -> str:
        """What the messages say of it when it is opaque."""
        why = f": {self.effects.why}" if self.effects.why else ""
        return f"{self.label} of '{node}'{why}"


def _callables(value: Any) -> tuple[Any, ...]:
    if not is_set(value):
        return ()
    items = value if isinstance(value, tuple | list) else (value,)
    return tuple(item for item in items if callable(item))


def _callback_units(node: Any, values: dict[str, Any]) -> list[CodeUnit]:
    units = []
    for field, stage in _CALLBACK_STAGES.items():
        for fn in _callables(values.get(field)):
            units.append(CodeUnit(stage, f"{field} '{function_label(fn)}'", function_effects(fn)))
    return units


def agent_code(node: LlmAgentNode, *, is_root: bool) -> tuple[CodeUnit, ...]:
    """The code of an LLM agent: its callbacks, tools and instruction providers (agent tools
    are not code: the checker follows their trees)."""
    values = node.set_fields()
    units = _callback_units(node, values)
    providers = [node.instruction] + ([node.global_instruction] if is_root else [])
    for provider in providers:
        if callable(provider) and not isinstance(provider, str):
            label = f"instruction provider '{function_label(provider)}'"
            units.append(CodeUnit("instruction", label, function_effects(provider)))
    for tool in node.tools if isinstance(node.tools, tuple | list) else ():
        if isinstance(getattr(tool, "agent", None), Node):
            continue  # an agent tool (AgentToolSpec): its tree is analysed as a tree
        units.append(CodeUnit("tool", f"tool '{tool_label(tool)}'", tool_effects(tool)))
    return tuple(units)


def callback_code(node: Node) -> tuple[CodeUnit, ...]:
    """The code of a composite: its agent callbacks."""
    return tuple(_callback_units(node, node.set_fields()))


def native_code(node: NativeAgentNode) -> tuple[CodeUnit, ...]:
    """The code of a custom agent: its agent callbacks and its own `_run_async_impl`."""
    agent = node.agent
    values = {
        field: getattr(agent, field, None)
        for field in ("before_agent_callback", "after_agent_callback")
    }
    effects = agent_code_effects(agent)
    return (*_callback_units(node, values), CodeUnit("code", f"code '{effects.name}'", effects))


def step_effects(node: TransformNode) -> StepEffects:
    """What an S / C step reads and writes, as its typed record declares."""
    return cast(StepEffects, node.step.effects())
