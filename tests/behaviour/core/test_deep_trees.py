"""Deep trees (issue 11): where a hand-written ADK tree 300 levels deep builds, ours builds,
checks, draws and runs. Stress tests: ADK validates such a tree in about a second, so they
live here rather than in the unit tier's budget."""

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


async def test_a_deep_pipeline_runs():
    from adk_fluent.testing import mock_backend

    expr = Agent("a0")
    for i in range(1, 120):
        expr = Pipeline(expr, Agent(f"a{i}"))
    backend = mock_backend({f"a{i}": f"r{i}" for i in range(120)})
    assert await expr.ask("go", backend=backend) == "r119"


def test_a_hand_written_adk_tree_of_that_depth_builds():
    """The premise: ADK itself accepts a SequentialAgent tree 300 levels deep."""
    import warnings

    from google.adk.agents import LlmAgent, SequentialAgent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 2.x deprecates SequentialAgent
        agent = LlmAgent(name="a0", model="m")
        for i in range(1, DEPTH):
            agent = SequentialAgent(name=f"p{i}", sub_agents=[agent, LlmAgent(name=f"a{i}")])
    assert _depth(agent) == DEPTH


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
