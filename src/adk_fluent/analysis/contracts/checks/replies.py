"""A filtered pipeline whose turn can end with no reply the client receives.

In filtered mode a client receives only user-facing agents' text (docs/visibility.md). A path
through the tree on which every agent that speaks is internal (a loop's rounds, a map_over's
items, an agent with a successor, `.hide()`) ends the turn with nothing shown to the user,
though every reply is in the store: a draft-review loop at the end of a Route branch is the
usual case. The check follows every path (a Route's branches, a fallback's or race's
alternatives, a loop's body, a map_over that may run zero times) and names one such path.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adk_fluent.analysis.contracts.registry import register_check
from adk_fluent.analysis.contracts.report import Issue
from adk_fluent.analysis.visibility import FINAL_ROUND
from adk_fluent.ir import nodes as ir


@dataclass(frozen=True)
class Silent:
    """A way through a subtree on which nothing user-facing speaks."""

    trail: tuple[str, ...] = ()  # what happens on it, for the message
    culprit: ir.Node | None = None  # the last step that speaks on it, internally (the fix's place)


def _speaks_to_user(node: ir.Node, visibility: dict[str, str]) -> bool:
    return visibility.get(node.name) == "user"


def _join(ways: list[Silent]) -> Silent:
    """One after the other: the trail of each, the last culprit."""
    culprit = next((way.culprit for way in reversed(ways) if way.culprit is not None), None)
    return Silent(tuple(step for way in ways for step in way.trail), culprit)


def _silent(node: ir.Node, visibility: dict[str, str]) -> Silent | None:
    """A way through `node` on which no user-facing reply is produced, or None when every way
    produces one."""
    if isinstance(node, ir.LoopAgentNode) and node.visibility == FINAL_ROUND:
        return None if _speaks_to_user(node, visibility) else Silent((), node)
    if node.SPEAKS == "by_position":
        if _speaks_to_user(node, visibility):
            return None
        return Silent((f"'{node.name}' speaks internally",), node)
    if node.SPEAKS == "always":  # a gate asks only when its predicate holds
        return Silent()
    children = node.children
    if isinstance(node, ir.LoopAgentNode | ir.MapOverNode):
        if _sequence(children, visibility) is None:
            return None  # a step of its body speaks to the user (.show())
        what = "round" if isinstance(node, ir.LoopAgentNode) else "item"
        kind = "loop" if isinstance(node, ir.LoopAgentNode) else "map_over"
        return Silent((f"{kind} '{node.name}' runs (every {what} is internal)",), node)
    if node.CHILDREN == "sequence" or isinstance(node, ir.TimeoutNode):
        return _sequence(children, visibility)
    if isinstance(node, ir.ParallelAgentNode) and node.join is None:
        ways = [_silent(child, visibility) for child in children]
        if any(way is None for way in ways):
            return None  # every branch runs: one that speaks to the user is enough
        return _join([w for w in ways if w is not None])
    # one of several ways: a Route's branch, a fallback's, race's or first_complete's winner
    for child in children:
        way = _silent(child, visibility)
        if way is not None:
            if isinstance(node, ir.RouteNode):
                taken = f"Route(\"{node.key}\") takes branch '{child.name}'"
            else:
                taken = f"'{node.name}' ends with '{child.name}'"
            return Silent((taken, *way.trail), way.culprit)
    if isinstance(node, ir.RouteNode) and not node.has_otherwise:
        return None  # no rule matches: the run ends with an error event, which clients receive
    return None if children else Silent()


def _sequence(children: tuple[ir.Node, ...], visibility: dict[str, str]) -> Silent | None:
    ways = []
    for child in children:
        way = _silent(child, visibility)
        if way is None:
            return None
        ways.append(way)
    return _join(ways)


def _fix(culprit: ir.Node | None) -> str:
    if isinstance(culprit, ir.LoopAgentNode):
        return (
            f"Show the loop's final round: Loop(...).show(\"final\") on '{culprit.name}' (when "
            "it ends, it presents each of its agents' latest reply to the user; every round "
            "stays in the store)."
        )
    if isinstance(culprit, ir.MapOverNode):
        return (
            f"End with an agent that answers from the output of map_over '{culprit.name}' "
            f'(e.g. Agent("presenter").instruct("Present {{{culprit.output_key}}}.")), or '
            ".show() the agent of its body (each item's reply then reaches the user)."
        )
    if culprit is not None:
        return (
            f"Make the reply user-facing: .show() on '{culprit.name}', or end this path with "
            "an agent that answers the user."
        )
    return "End this path with an agent that answers the user."


@register_check("user-reply", codes=("no-user-reply",))
def check_user_reply(ctx: Any) -> Iterator[Issue]:
    """In filtered mode: a path through the pipeline on which no user-facing agent speaks, so
    the client receives nothing for that turn."""
    if ctx.visibility_mode != "filtered":
        return
    way = _silent(ctx.root, ctx.visibility)
    if way is None:
        return
    where = way.culprit or ctx.root
    trail = "; ".join(way.trail) if way.trail else "the pipeline runs"
    yield ctx.issue(
        "warning",
        "no-user-reply",
        where,
        None,
        f"a turn of '{ctx.root.name}' can end with no reply for the user",
        f"In filtered mode the client receives only user-facing agents' text, and on this "
        f"path nothing user-facing speaks: {trail}. The turn ends with every reply in the "
        "store and none sent to the client.",
        _fix(way.culprit),
    )
