"""Dead state: keys written that no step ever reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.ir.state_keys import scope_of_key

# Kinds of write whose value is meant for a reader in the pipeline. Fields of a .produces()
# model are a declaration of the output's shape (consumers read a subset); initial keys belong
# to the app.
_CHECKED_KINDS = frozenset({"outputs", "declared", "step", "map_over", "map_over_item"})


@register_check("dead-state", codes=("dead-state",))
def check_dead_state(ctx: Any) -> Iterator[Issue]:
    """`.outputs()` (and S.set, .writes(), map_over results) that nobody reads."""
    flow = ctx.flow
    if flow.opaque_readers:  # a tap, function step or predicate may read any key
        return
    for key, writers in flow.writers.items():
        if key in flow.read_keys or scope_of_key(key) in ("app", "user"):
            continue
        for writer in writers:
            if writer.kind not in _CHECKED_KINDS:
                continue
            if writer.kind == "outputs" and ctx.visibility.get(writer.node) == "user":
                continue  # the answer itself: its output key is for the app
            if writer.kind == "map_over_item":
                message = (
                    f"map_over '{writer.node}' stores each item in \"{key}\", but its body never "
                    "reads it (no template, C spec or .reads() names it)."
                )
                hint = f'Read the item in the body, e.g. "{{{key}}}" in its instruction.'
            else:
                message = (
                    f'No step reads "{key}" (no template, C spec, Route, S step or .reads() names '
                    f"it), so {writer.via} stores a value nobody uses."
                )
                hint = (
                    f'Read it downstream (e.g. {{{key}}} or C.from_state("{key}")), or drop the '
                    f'write; if code the checker cannot read uses it, declare .reads("{key}") on its step.'
                )
            yield ctx.issue(
                "info",
                "dead-state",
                writer.node,
                key,
                f"{writer.via} is never read",
                message,
                hint,
                path=writer.path,
            )
