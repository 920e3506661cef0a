"""Deep trees (issue 11): where a hand-written ADK tree 300 levels deep builds, ours builds,
checks, draws and runs; every walk of ours is iterative, so a tree deeper than Python's
recursion limit builds, checks and draws, and compiles wherever ADK accepts a tree that deep.
Stress tests: ADK validates such a tree in about a second, so they live here rather than in
the unit tier's budget."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Pipeline

# -- deep nesting (issue 11): where a hand-written ADK tree of that depth builds, ours does -------
DEPTH = 300


def _nested_by_constructor():
    expr = Agent("a0")
    for i in range(1, DEPTH):
        expr = Pipeline(expr, Agent(f"a{i}"))
    return expr


def _nested_by_grouping():
    expr = Agent("a0")
    for i in range(1, DEPTH):  # a named group stays a unit under >>, so each level nests
        expr = (Agent(f"a{i}") >> expr).named(f"p{i}")
    return expr


def _depth(agent) -> int:
    deepest, stack = 0, [(agent, 1)]
    while stack:  # the tree's depth, without recursion
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in node.sub_agents)
    return deepest


async def test_a_pipeline_deeper_than_adks_own_run_reaches_runs():
    """ADK runs nested agents recursively, about 7 frames a level: with Python's default limit
    a hand-written tree stops near 140 levels. Ours runs (run/stack_room.py), and the limit is
    given back after the turn."""
    import sys

    from adk_fluent.testing import mock_backend

    depth, limit = 160, sys.getrecursionlimit()
    expr = Agent("a0")
    for i in range(1, depth):
        expr = Pipeline(expr, Agent(f"a{i}"))
    backend = mock_backend({f"a{i}": f"r{i}" for i in range(depth)})
    assert await expr.ask("go", backend=backend) == f"r{depth - 1}"
    assert sys.getrecursionlimit() == limit


def _hand_written(depth: int):
    """A hand-written ADK SequentialAgent tree `depth` levels deep."""
    import warnings

    from google.adk.agents import LlmAgent, SequentialAgent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 2.x deprecates SequentialAgent
        agent = LlmAgent(name="a0", model="m")
        for i in range(1, depth):
            agent = SequentialAgent(name=f"p{i}", sub_agents=[agent, LlmAgent(name=f"a{i}")])
    return agent


def test_a_hand_written_adk_tree_of_that_depth_builds():
    """The premise: ADK itself accepts a SequentialAgent tree 300 levels deep."""
    assert _depth(_hand_written(DEPTH)) == DEPTH


@pytest.mark.parametrize("make", [_nested_by_constructor, _nested_by_grouping])
def test_a_300_deep_pipeline_builds_checks_and_draws(make):
    import sys

    from adk_fluent import check_contracts

    limit = sys.getrecursionlimit()
    expr = make()
    assert expr.to_app().root_agent is not None  # the default target (the Workflow's too)
    assert _depth(expr.build(target="classic")) == DEPTH
    assert not check_contracts(expr).errors
    assert expr.to_mermaid().count('["a') == DEPTH  # every agent drawn
    assert sys.getrecursionlimit() == limit  # the room is given back


def test_a_tree_deeper_than_the_recursion_limit_builds_checks_draws_and_compiles():
    import sys

    from google.adk.agents import base_agent

    from adk_fluent import check_contracts

    depth = sys.getrecursionlimit() + 100
    expr = Agent("a0")
    for i in range(1, depth):
        expr = (Agent(f"a{i}") >> expr).named(f"p{i}")
    assert sum(1 for _ in expr.to_ir().walk()) == 2 * depth - 1
    assert not check_contracts(expr).errors
    assert expr.to_mermaid().count('["a') == depth
    if hasattr(base_agent, "_subtree_names"):
        # ADK 2.x checks sub-agent names recursively: it builds no tree this deep by hand either
        # (tests/unit/ir: the compiler says so in a BuildError)
        return
    assert _depth(expr.build(target="classic")) == depth


async def test_a_deep_trees_session_is_read_from_its_store():
    """session() finds the tree's store by the tree's fingerprint, a recursive walk: it gets
    the same room as a turn (run/stack_room.py), and gives it back."""
    import sys

    limit = sys.getrecursionlimit()
    expr = _nested_by_grouping()
    assert await expr.session("never-ran") is None
    assert sys.getrecursionlimit() == limit
