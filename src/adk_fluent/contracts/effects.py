"""What each IR node kind reads from and writes to session state, as the checker sees it.

Reads carry their channel (an instruction template, a C spec, a Route key, an S step, a
consumes model, a `.reads()` declaration) and whether a missing key breaks the run. Writes carry
how they happen (for messages) and, when declared, a type. Nothing here imports google.adk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir import UNSET, LlmAgentNode, TransformNode
from ..state_schema import UNKNOWN, unwrap_declared
from ..templates import template_keys

# Reads that only name a key (S.drop / S.pick / S.log / S.rename): a missing key breaks nothing,
# but a key nobody ever writes is almost always a typo.
REF_CHANNELS = frozenset({"S.drop", "S.pick", "S.log", "S.rename"})


@dataclass(frozen=True)
class Read:
    """One state key a node reads."""

    key: str
    channel: str
    required: bool = True
    type: Any = field(default=UNKNOWN, hash=False)
    source: str = ""  # e.g. "Intent.confidence" for a consumes field


@dataclass(frozen=True)
class Write:
    """One state key a node writes (or deletes)."""

    key: str
    via: str
    type: Any = field(default=UNKNOWN, hash=False)
    value: Any = field(default=UNKNOWN, compare=False, hash=False)
    text: bool = False  # the agent's reply: the same text also reaches later agents via history
    delete: bool = False
    kind: str = "step"  # outputs | produces | declared | step | map_over | initial


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


@dataclass(frozen=True)
class StepEffects:
    """What one state step does: reads, writes and deletes, and whether it is opaque."""

    reads: tuple[Read, ...] = ()
    writes: tuple[Write, ...] = ()
    keep_only: tuple[str, ...] | None = None  # S.pick: every other session key is deleted
    renames: tuple[tuple[str, str], ...] = ()  # S.rename: (old, new), the value moves
    opaque_read: bool = False  # a function of the whole state: may read any key
    opaque_write: bool = False  # a function step: may write any key


def _pairs(value: Any) -> tuple[tuple[Any, Any], ...]:
    return tuple(value) if isinstance(value, tuple) else ()


def step_effects(node: TransformNode) -> StepEffects:
    """The effects of an S / C step, from its op and args."""
    op, args = node.op, node.args
    try:
        return _STEP_EFFECTS[op](node, args)
    except (KeyError, IndexError, TypeError, ValueError):
        # an op this checker does not know (or malformed args): trust the node's declared keys
        return StepEffects(
            reads=tuple(Read(k, "step", True) for k in sorted(node.reads_keys)),
            writes=tuple(Write(k, f"step '{node.name}'") for k in sorted(node.writes_keys)),
        )


def _set(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    return StepEffects(
        writes=tuple(
            Write(k, f"S.set({k}=...)", type(v), value=v, kind="step") for k, v in _pairs(args[0])
        )
    )


def _default(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    pairs = _pairs(args[0])
    return StepEffects(
        reads=tuple(Read(k, "S.default", False) for k, _ in pairs),
        writes=tuple(
            Write(k, f"S.default({k}=...)", type(v), value=v, kind="step") for k, v in pairs
        ),
    )


def _merge(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    keys, into, _fn = args
    return StepEffects(
        reads=tuple(Read(k, "S.merge", True) for k in keys),
        writes=(Write(into, f'S.merge(..., into="{into}")'),),
    )


def _pick(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    return StepEffects(reads=tuple(Read(k, "S.pick", False) for k in args), keep_only=tuple(args))


def _drop(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    return StepEffects(
        reads=tuple(Read(k, "S.drop", False) for k in args),
        writes=tuple(Write(k, f'S.drop("{k}")', delete=True) for k in args),
    )


def _rename(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    pairs = _pairs(args)
    return StepEffects(
        reads=tuple(Read(old, "S.rename", False) for old, _ in pairs),
        renames=tuple((old, new) for old, new in pairs),
    )


def _transform(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    key = args[0]
    return StepEffects(
        reads=(Read(key, "S.transform", True),),
        writes=(Write(key, f'S.transform("{key}", ...)'),),
    )


def _compute(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    return StepEffects(
        writes=tuple(Write(k, f"S.compute({k}=...)") for k, _ in _pairs(args)),
        opaque_read=True,
    )


def _guard(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    return StepEffects(opaque_read=True)


def _log(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    keys = args[0]
    return StepEffects(reads=tuple(Read(k, "S.log", False) for k in keys), opaque_read=not keys)


def _capture(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    key = args[0]
    return StepEffects(writes=(Write(key, f'S.capture("{key}")', str),))


def _capture_turns(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    key = args[0]
    return StepEffects(writes=(Write(key, f'C.capture_turns("{key}")', str),))


def _function(node: TransformNode, args: tuple[Any, ...]) -> StepEffects:
    return StepEffects(opaque_read=True, opaque_write=True)


_STEP_EFFECTS = {
    "set": _set,
    "default": _default,
    "merge": _merge,
    "pick": _pick,
    "drop": _drop,
    "rename": _rename,
    "transform": _transform,
    "compute": _compute,
    "guard": _guard,
    "log": _log,
    "capture": _capture,
    "capture_turns": _capture_turns,
    "function": _function,
}
