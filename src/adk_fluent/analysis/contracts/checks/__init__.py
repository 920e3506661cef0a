"""The built-in checks, one module per family; importing this package registers them."""

from adk_fluent.analysis.contracts.checks import (
    channels,
    context,
    injection,
    loops,
    modality,
    outputs,
    planners,
    remote,
    replies,
    shapes,
    state,
    streaming,
    types,
)

__all__ = [
    "channels",
    "context",
    "injection",
    "loops",
    "modality",
    "outputs",
    "planners",
    "remote",
    "replies",
    "shapes",
    "state",
    "streaming",
    "types",
]
