"""Two run-facade rules that need no Runner: ask_sync inside a running loop is a clear error, and
no workflow-agent deprecation warning reaches users."""

from __future__ import annotations

import warnings

import pytest

from adk_fluent import Agent
from adk_fluent.adk.compat import workflow_agents_warn
from adk_fluent.errors import BuildError
from adk_fluent.testing import ScriptedModel


async def test_ask_sync_inside_a_loop_is_a_clear_error():
    with pytest.raises(BuildError, match="ask_sync\\(\\) was called inside a running event loop"):
        Agent("greeter", ScriptedModel(["x"])).ask_sync("hi")


def test_no_workflow_deprecation_warning_reaches_users():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (Agent("a") >> (Agent("b") | Agent("c")) >> Agent("d") * 2).build()
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert not [m for m in messages if "Workflow" in m]
    # and nothing was silenced globally: a user's own construction still warns where ADK warns
    if workflow_agents_warn():
        from google.adk.agents import LlmAgent, SequentialAgent

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            SequentialAgent(name="mine", sub_agents=[LlmAgent(name="x")])
        assert any("Workflow" in str(w.message) for w in caught)
