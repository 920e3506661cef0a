"""What each IR node kind reads from and writes to session state, as the checker sees it.

Reads carry their channel (an instruction template, a C spec, a Route key, an S step, a
consumes model, a `.reads()` declaration) and whether a missing key breaks the run. Writes carry
how they happen (for messages) and, when declared, a type. Nothing here imports google.adk.
"""

from __future__ import annotations

from typing import Any

from adk_fluent.ir.effects import REF_CHANNELS, Read, StepEffects, Write
from adk_fluent.ir.instruction_keys import template_keys
from adk_fluent.ir.nodes import UNSET, LlmAgentNode, TransformNode
from adk_fluent.ir.state_keys import UNKNOWN, unwrap_declared

__all__ = [
    "REF_CHANNELS",
    "Read",
    "StepEffects",
    "Write",
    "agent_reads",
    "agent_writes",
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
    model, refs = unwrap_declared(node.consumes_type)
    for name, info in model_fields(model).items():
        add(
            Read(
                name,
                "consumes",
                _field_required(info),
                _field_type(info),
                f"{model_name(model)}.{name}",
            )
        )
    for ref in refs:
        add(Read(ref.key, "declared", not ref.has_default, ref.type, repr(ref)))
    accounted = {r.key for r in reads}
    for key in sorted(node.reads_keys - accounted):  # keys added to the IR by other means
        add(Read(key, "declared", True))
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
    model, refs = unwrap_declared(node.produces_type)
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
    # ADK stores an output_schema object whole, in state[output_key]; its fields are not keys
    accounted = {w.key for w in writes} | set(model_fields(output_schema))
    for key in sorted(node.writes_keys - accounted):
        writes.append(Write(key, f"{node.name} (declared writes)", kind="declared"))
    return writes


def step_effects(node: TransformNode) -> StepEffects:
    """What an S / C step reads and writes, as its typed record declares."""
    return node.step.effects()
