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

_ROUND = {"loop": "round", "map_over": "item"}  # what each repeats


@dataclass(frozen=True)
class Silent:
    """A way through a subtree on which nothing user-facing speaks."""

    trail: tuple[str, ...] = ()  # what happens on it, for the message
    culprit: ir.Node | None = None  # the last step that speaks on it, internally (the fix's place)
    fix: str = "End this path with an agent that answers the user."


def _join(ways: list[Silent]) -> Silent:
    """One after the other: the trail of each, the last culprit (and its fix)."""
    last = next((way for way in reversed(ways) if way.culprit is not None), Silent())
    return Silent(tuple(step for way in ways for step in way.trail), last.culprit, last.fix)


def _loop_fix(loop: str) -> str:
    return (
        f"Show the loop's final round: Loop(...).show(\"final\") on '{loop}' (when it ends, it "
        "presents each of its agents' latest reply to the user; every round stays in the store)."
    )


class _Silence(ir.NodeVisitor[None, Silent | None]):
    """A way through each node type on which no user-facing reply is produced, or None when
    every way produces one."""

    def __init__(self, visibility: dict[str, str]) -> None:
        self.visibility = visibility

    def _to_user(self, node: ir.Node) -> bool:
        return self.visibility.get(node.name) == "user"

    def _speaker(self, node: ir.Node, ctx: None) -> Silent | None:
        if self._to_user(node):
            return None
        fix = (
            f"Make the reply user-facing: .show() on '{node.name}', or end this path with an "
            "agent that answers the user."
        )
        return Silent((f"'{node.name}' speaks internally",), node, fix)

    visit_llm_agent = visit_native_agent = visit_remote_agent = _speaker

    def _says_nothing(self, node: ir.Node, ctx: None) -> Silent:
        return Silent()

    # a gate asks only when its predicate holds; steps say nothing
    visit_gate = visit_transform = visit_tap = visit_until = _says_nothing

    def _in_order(self, node: ir.Node, ctx: None) -> ir.Walk[None, Silent | None]:
        ways = []
        for child in node.children:
            way = yield child, None
            if way is None:
                return None
            ways.append(way)
        return _join(ways)

    visit_sequential_agent = visit_chunked_edge = visit_timeout = _in_order

    def _rounds(self, node: ir.Node, what: str, fix: str) -> ir.Walk[None, Silent | None]:
        if (yield from self._in_order(node, None)) is None:
            return None  # a step of its body speaks to the user (.show())
        return Silent((f"{what} '{node.name}' runs (every {_ROUND[what]} is internal)",), node, fix)

    def visit_loop_agent(
        self, node: ir.LoopAgentNode, ctx: None
    ) -> Silent | None | ir.Walk[None, Silent | None]:
        if node.visibility == FINAL_ROUND:
            return None if self._to_user(node) else Silent((), node, _loop_fix(node.name))
        return self._rounds(node, "loop", _loop_fix(node.name))

    def visit_map_over(self, node: ir.MapOverNode, ctx: None) -> ir.Walk[None, Silent | None]:
        fix = (
            f"End with an agent that answers from the output of map_over '{node.name}' "
            f'(e.g. Agent("presenter").instruct("Present {{{node.output_key}}}.")), or '
            ".show() the agent of its body (each item's reply then reaches the user)."
        )
        return self._rounds(node, "map_over", fix)

    def visit_parallel_agent(
        self, node: ir.ParallelAgentNode, ctx: None
    ) -> ir.Walk[None, Silent | None]:
        if node.join is not None:  # first_complete: one of them wins
            return (yield from self._one_of(node, None))
        ways = []
        for child in node.children:
            ways.append((yield child, None))
        if any(way is None for way in ways):
            return None  # every branch runs: one that speaks to the user is enough
        return _join([w for w in ways if w is not None])

    def _one_of(
        self, node: ir.Node, ctx: None, route: str | None = None
    ) -> ir.Walk[None, Silent | None]:
        """One of several ways: a Route's branch (`route`: its key), a fallback's, race's or
        first_complete's winner."""
        for child in node.children:
            way = yield child, None
            if way is not None:
                taken = (
                    f"'{node.name}' ends with '{child.name}'"
                    if route is None
                    else f"Route(\"{route}\") takes branch '{child.name}'"
                )
                return Silent((taken, *way.trail), way.culprit, way.fix)
        return None if node.children else Silent()

    visit_fallback = visit_race = visit_boundary = _one_of

    def visit_route(
        self, node: ir.RouteNode, ctx: None
    ) -> Silent | None | ir.Walk[None, Silent | None]:
        if not node.has_otherwise and not node.children:
            return None  # no rule matches: the run ends with an error event, which clients receive
        return self._one_of(node, None, route=node.key)


@register_check("user-reply", codes=("no-user-reply",))
def check_user_reply(ctx: Any) -> Iterator[Issue]:
    """In filtered mode: a path through the pipeline on which no user-facing agent speaks, so
    the client receives nothing for that turn."""
    if ctx.visibility_mode != "filtered":
        return
    way = _Silence(ctx.visibility).visit(ctx.root, None)
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
        way.fix,
    )
