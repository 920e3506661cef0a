"""Bounded tables for what adk-fluent keeps per run or call in flight (halted invocations, a
Workflow loop's iteration, middleware's calls): the oldest entries go first, so a table stays
bounded even when some runs never end."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any


def remember(table: OrderedDict[Any, Any], key: Any, value: Any, limit: int) -> None:
    """Put `key` last in a bounded table, dropping the oldest entries beyond `limit`."""
    table.pop(key, None)
    table[key] = value
    while len(table) > limit:
        table.popitem(last=False)
