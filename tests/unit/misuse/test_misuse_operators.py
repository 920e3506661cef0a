"""Misuse of the composition operators (`>> | * //`, `.timeout()`) and of the composites and
branching steps they make (Pipeline, FanOut, Loop, Route, loop_until): operands
that are not steps, counts that are not counts, arguments in the wrong order, and one name
used twice in one tree. Each is refused when the expression is written or built, naming the
operator or the step and the field, with a hint."""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    FanOut,
    Loop,
    Pipeline,
    Route,
    S,
    loop_until,
    timeout,
    until,
)
from adk_fluent.errors import DuplicateNameError
from tests.support.misuse import case, check, ids


def search(query: str) -> str:
    """Search the web."""
    return query


def _function_tool():
    from google.adk.tools import FunctionTool

    return FunctionTool(search)


A, B = Agent("a"), Agent("b")

CASES = [
    # -- `>>`: operands that are not steps ----------------------------------------------------------
    case("op-rshift-list-of-agents", lambda: A >> [B, Agent("c")], "a list", "`>>`"),
    case("op-rshift-dict-of-values", lambda: A >> {"tier": "gold"}, "a dict", "`>>`"),
    case("op-rshift-until", lambda: A >> until(lambda s: True), "an Until", "`>>`"),
    case(
        "op-rshift-adk-tool",
        lambda: A >> _function_tool(),
        "FunctionTool 'search'",
        "`>>`",
    ),
    # forgetting to call the factory: S.set itself is a function of **values, not of the state
    case("op-rshift-uncalled-s-factory", lambda: A >> S.set, "function step", "set(values)"),
    # -- `//` ---------------------------------------------------------------------------------------
    case("op-floordiv-none", lambda: A // None, "None", "`//`"),
    case("op-floordiv-class", lambda: A // Agent, "the class Agent", "`//`"),
    # -- `*`: loop counts -----------------------------------------------------------------------
    case("op-mul-none", lambda: A * None, "agent 'a'", "field 'max_iterations'", "None"),
    case("op-mul-numeric-str", lambda: A * "3", "field 'max_iterations'", "str '3'"),
    case("op-mul-agent", lambda: A * B, "field 'max_iterations'", "Agent 'b'"),
    # a bare predicate: until(...) is what makes it a loop condition
    case("op-mul-bare-predicate", lambda: A * (lambda state: True), "a function", "until("),
    # -- .timeout() and timeout() ---------------------------------------------------------------
    case("op-timeout-none", lambda: A.timeout(None), "agent 'a'", "field 'seconds'", "None"),
    case("op-timeout-args-swapped", lambda: timeout(5, A), "cannot use 5", "`timeout`"),
    case("op-timeout-name-user", lambda: timeout(A, 5, name="user"), "'user'", "reserved"),
    # -- composites built by hand ---------------------------------------------------------------
    case("op-pipeline-list", lambda: Pipeline([A, B]), "a list", "`Pipeline`"),
    case("op-fanout-names-not-agents", lambda: FanOut("a", "b"), "str 'a'", "`FanOut`"),
    case(
        "op-loop-max-iterations-str",
        lambda: Loop(A, max_iterations="3"),
        "agent 'loop__a'",
        "field 'max_iterations'",
        "str '3'",
    ),
    # -- Route ----------------------------------------------------------------------------------
    case(
        "op-route-eq-args-swapped",
        lambda: Route("intent").eq(A, "booking"),
        "str 'booking'",
        "Route('intent').eq",
    ),
    case(
        "op-route-otherwise-name-not-agent",
        lambda: Route("intent").otherwise("helper"),
        "str 'helper'",
        "Route('intent').otherwise",
    ),
    case(
        "op-route-when-class",
        lambda: Route("k").when(bool, A),
        "agent 'route_k'",
        "field 'when'",
        "the class bool",
    ),
    case("op-route-key-list", lambda: Route(["intent"]), "field 'key'", "a list"),
    case("op-route-name-user", lambda: Route("k", name="user"), "route name", "reserved"),
    # -- loop_until -----------------------------------------------------------------------------
    case(
        "op-loop-until-args-swapped",
        lambda: loop_until(A, lambda state: True),
        "field 'predicate'",
        "Agent 'a'",
    ),
    # -- one name twice in one tree: each topology reports both paths -------------------------
    case(
        "op-same-agent-in-both-branches",
        lambda: (A | A).build(),
        "agent 'a'",
        "fanout__a__a > a",
        error=DuplicateNameError,
    ),
    case(
        "op-agent-falls-back-to-itself",
        lambda: (A // A).build(),
        "agent 'a'",
        "fallback__a__a > a",
        error=DuplicateNameError,
    ),
    case(
        "op-agent-delegates-to-itself",
        lambda: A.delegate(A).build(),
        "agent 'a'",
        "at a and at a > a",
        error=DuplicateNameError,
    ),
    case(
        "op-route-branches-share-an-agent",
        lambda: Route("k").eq("x", Agent("x")).eq("y", Agent("x")).build(),
        "agent 'x'",
        "route_k > x",
        error=DuplicateNameError,
    ),
    case(
        "op-pipeline-named-like-its-child",
        lambda: Pipeline(Agent("writer"), Agent("editor"), name="writer").build(),
        "agent 'writer'",
        "used twice",
        error=DuplicateNameError,
    ),
    case(
        "op-two-composites-one-name",
        lambda: (Pipeline(A, name="stage") >> Pipeline(B, name="stage")).build(),
        "agent 'stage'",
        "used twice",
        error=DuplicateNameError,
    ),
    case(
        "op-timeout-named-like-an-agent",
        lambda: (timeout(A, 5, name="b") >> B).build(),
        "agent 'b'",
        "used twice",
        error=DuplicateNameError,
    ),
    # -- a str left of `//`, Loop's max_iterations setter, Route values and keys ---------------
    case("op-rfloordiv-str", lambda: "backup" // A, "str 'backup'", "`//`"),
    case(
        "op-loop-setter-zero",
        lambda: (A * 2).max_iterations(0).build(),
        "field 'max_iterations'",
        "0",
    ),
    case(
        "op-loop-setter-negative",
        lambda: (A * 2).max_iterations(-1).build(),
        "field 'max_iterations'",
        "-1",
    ),
    case(
        "op-route-eq-builder-as-value",
        lambda: Route("intent").eq(Agent("booker"), Agent("helper")),
        "field 'eq'",
        "Agent 'booker'",
    ),
    case("op-route-key-braces", lambda: Route("{intent}"), "'{intent}'", "braces"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
