"""Remote contracts: what crosses an A2A boundary travels as JSON.

A RemoteAgent sends its `sends` keys and stores its `receives` keys; an execution boundary's
service does the same with the keys its part reads and writes. A value JSON cannot carry
(bytes, a set, a datetime, ...) makes the call fail at run time (REMOTE_STATE_NOT_SENDABLE), so
a key whose declared type is one of them is reported here, before anything runs.
"""

from __future__ import annotations

import datetime
import decimal
import typing
from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.ir.nodes import BoundaryNode, RemoteAgentNode

_NOT_JSON = (
    bytes,
    bytearray,
    set,
    frozenset,
    complex,
    decimal.Decimal,
    datetime.datetime,
    datetime.date,
    datetime.time,
    datetime.timedelta,
)


def _not_json(tp: Any) -> type | None:
    """The part of a declared type JSON cannot carry, if any (looks inside Optional, lists, ...)."""
    if isinstance(tp, type) and issubclass(tp, _NOT_JSON):
        return tp
    origin = typing.get_origin(tp)
    if isinstance(origin, type) and issubclass(origin, set | frozenset):
        return origin
    for arg in typing.get_args(tp):
        found = _not_json(arg)
        if found is not None:
            return found
    return None


def _crossing(node: Any) -> frozenset[str]:
    if isinstance(node, RemoteAgentNode):
        return node.reads_keys | node.writes_keys
    keys: set[str] = set()
    for inner in node.children[0].walk():
        keys |= inner.reads_keys | inner.writes_keys
    return frozenset(keys)


@register_check("remote-values", codes=("remote-value-not-json",))
def check_remote_values(ctx: Any) -> Iterator[Issue]:
    """Keys that cross an A2A boundary with a declared type JSON cannot carry."""
    for node in ctx.root.walk():
        if not isinstance(node, RemoteAgentNode | BoundaryNode):
            continue
        what = "remote agent" if isinstance(node, RemoteAgentNode) else "execution boundary"
        for key in sorted(_crossing(node)):
            for writer in ctx.flow.writers.get(key, ()):
                bad = _not_json(writer.type)
                if bad is None:
                    continue
                yield ctx.issue(
                    "error",
                    "remote-value-not-json",
                    node,
                    key,
                    f"\"{key}\" cannot cross {what} '{node.name}'",
                    f"{writer.node} writes it as {bad.__name__} ({writer.via}); state crosses "
                    "A2A as JSON, so the call would fail with REMOTE_STATE_NOT_SENDABLE.",
                    f'Store a JSON value under "{key}" (e.g. a str for a date, a list for a '
                    "set), or keep the key on one side of the boundary.",
                )
                break
