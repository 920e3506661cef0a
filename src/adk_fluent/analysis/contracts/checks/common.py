"""Wording shared by the checks: how a read, a writer and a fix are described."""

from __future__ import annotations

from collections.abc import Iterable

from adk_fluent.analysis.contracts.effects import REF_CHANNELS
from adk_fluent.analysis.contracts.flow_state import ReadRecord, Writer


def read_subject(record: ReadRecord) -> str:
    """The headline naming who reads what, e.g. 'booker reads {intent} in instruction'."""
    read, key, node = record.read, record.read.key, record.node
    channel = read.channel
    if read.code:
        how = f'state["{key}"]' if read.required else f'state.get("{key}")'
        return f"{node}'s {channel} reads {how}"
    if channel in ("instruction", "global instruction", "C.template"):
        brace = f"{{{key}}}" if read.required else f"{{{key}?}}"
        return f"{node} reads {brace} in {channel}"
    if channel == "C.from_state":
        return f'{node} reads "{key}" via C.from_state'
    if channel == "consumes":
        return f"{node} consumes {read.source}"
    if channel == "declared":
        return f'{node} reads "{key}" (declared with .reads())'
    if channel == "A2A":
        return f'remote agent {node} is sent "{key}" (RemoteAgent(sends=...))'
    if channel == "route":
        return f'Route("{key}") reads "{key}"'
    if channel == "map_over":
        return f'map_over("{key}") reads "{key}"'
    if channel in REF_CHANNELS:
        return f"{channel} step '{node}' names \"{key}\""
    if channel.startswith("S."):
        return f"{channel} step '{node}' reads \"{key}\""
    return f'{node} reads "{key}"'


def reader_name(record: ReadRecord) -> str:
    """How the reader is named inside a sentence."""
    if record.read.code:
        return f"{record.read.channel} of '{record.node}'"
    if record.kind in ("agent", "node"):
        return f"'{record.node}'"
    if record.read.channel == "route":
        return f"Route(\"{record.read.key}\") ('{record.node}')"
    if record.kind == "map_over":
        return f"map_over '{record.node}'"
    return f"step '{record.node}'"


def ways(writers: Iterable[Writer]) -> str:
    """'a.outputs("k")' or 'a.outputs("k") and S.set(k=...)'."""
    listed = list(dict.fromkeys(w.via for w in writers))
    if len(listed) > 3:
        listed = [*listed[:3], f"{len(listed) - 3} more"]
    return " and ".join(listed) if listed else "nothing"


def consequence(record: ReadRecord) -> str:
    """What happens at run time when this read finds its key missing."""
    channel, key = record.read.channel, record.read.key
    if record.read.code:
        return f'state["{key}"] raises KeyError there' if record.read.required else "it gets None"
    if channel in ("instruction", "global instruction"):
        return f'ADK fails the turn with "Context variable not found: `{key}`"'
    if channel == "C.template":
        return "the context template raises ContextKeyError and the turn fails"
    if channel == "C.from_state":
        return f"the agent's context block shows {key} = null"
    if channel == "route":
        if record.handles_missing:
            return "every run takes the .otherwise() branch"
        return "the route emits a ROUTE_KEY_MISSING error event and the run ends there"
    if channel == "map_over":
        return "map_over emits a MAP_OVER_NOT_A_LIST error event and the run ends there"
    if channel in ("S.merge", "S.transform"):
        return "the step emits a STATE_KEY_MISSING error event and the run ends there"
    if channel == "consumes":
        return "its declared input is missing"
    return "the value it expects is missing"


def write_fix(key: str, channel: str) -> str:
    """How to make a key exist before a read."""
    fix = f'add .outputs("{key}") to an upstream agent, or S.set({key}=...) before it'
    if channel in ("instruction", "global instruction", "C.template"):
        fix += f", or read it as {{{key}?}} if it is optional"
    return (
        fix + f'; if code the checker cannot read writes it, declare .writes("{key}") on that '
        f'step; if the app sets it before the run, pass initial_keys=["{key}"]'
    )


def with_suggestion(suggestion: str | None, rest: str) -> str:
    """'Did you mean 'x'? Otherwise <rest>.' or '<Rest>.'"""
    rest = rest.rstrip(".")
    if suggestion:
        return f"{suggestion[0].upper()}{suggestion[1:]} Otherwise {rest}."
    return f"{rest[0].upper()}{rest[1:]}."
