"""What a node reads from and writes to session state, as plain records the checker consumes.

Reads carry their channel (an instruction template, a C spec, a Route key, an S step, a
consumes model, a `.reads()` declaration) and whether a missing key breaks the run. Writes carry
how they happen (for messages) and, when declared, a type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adk_fluent.ir.state_keys import UNKNOWN

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
    # read by code the checker read from source: "tool" (runs only when the model calls a
    # tool: a tool, a tool callback), "agent" (runs every time: an agent callback, a custom
    # agent's code, an instruction provider), "" (a template, a C spec, a step, a declaration)
    code: str = ""


@dataclass(frozen=True)
class Write:
    """One state key a node writes (or deletes)."""

    key: str
    via: str
    type: Any = field(default=UNKNOWN, hash=False)
    value: Any = field(default=UNKNOWN, compare=False, hash=False)
    text: bool = False  # the agent's reply: the same text also reaches later agents via history
    delete: bool = False
    # outputs | produces | declared | step | map_over | map_over_item | initial | code (a tool,
    # callback or custom agent's code, read from its source)
    kind: str = "step"


@dataclass(frozen=True)
class StepEffects:
    """What one state step does: reads, writes and deletes, and whether it is opaque."""

    reads: tuple[Read, ...] = ()
    writes: tuple[Write, ...] = ()
    keep_only: tuple[str, ...] | None = None  # S.pick: every other session key is deleted
    renames: tuple[tuple[str, str], ...] = ()  # S.rename: (old, new), the value moves
    opaque_read: bool = False  # a function of the whole state: may read any key
    opaque_write: bool = False  # a function step: may write any key
