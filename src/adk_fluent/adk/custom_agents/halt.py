"""Ending an invocation from inside it: a failed step or a waiting gate stops every agent that
has not started yet, wherever it sits in the tree.

Why a registry and not `ctx.end_invocation`? ADK gives every agent its own shallow copy of the
invocation context, so a flag set on one agent's copy never reaches its parent or its siblings
(a Sequential or Parallel agent would carry on). The registry is keyed by invocation id, which
every copy shares; `HaltPlugin` (adk/plugins/halt.py) reads it before each agent runs and ends
that agent's copy, so native ADK agents stop too. adk-fluent's own agents also ask `halted()`
between the children they run.

Entries are removed when the run ends (HaltPlugin.after_run_callback); without the plugin (a
root agent from `.build()` placed in a foreign App) the registry stays bounded by dropping the
oldest entries.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Literal

from adk_fluent.adk.bounded import remember

# failed: a step failed (an error event); paused: a gate waits; ended: a person said no.
HaltReason = Literal["failed", "paused", "ended"]

_MAX_ENTRIES = 10_000  # invocations at once in one process; the oldest is forgotten beyond it
_HALTED: OrderedDict[str, HaltReason] = OrderedDict()


def halt(ctx: Any, reason: HaltReason) -> None:
    """End the invocation `ctx` belongs to: no agent that has not started yet will run."""
    remember(_HALTED, ctx.invocation_id, reason, _MAX_ENTRIES)
    ctx.end_invocation = True


def halted(ctx: Any) -> HaltReason | None:
    """Why the invocation `ctx` belongs to was ended (a HaltReason), or None."""
    return _HALTED.get(ctx.invocation_id)


def release(invocation_id: str) -> None:
    """Forget an invocation (its run is over)."""
    _HALTED.pop(invocation_id, None)
