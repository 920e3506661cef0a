"""mock_backend: scripted models installed by agent name anywhere in a tree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adk_fluent.errors import BuildError, did_you_mean
from adk_fluent.ir.nodes import LlmAgentNode, NativeAgentNode, Node, walk
from adk_fluent.testing.scripted import ScriptedModel


class MockBackend:
    """Gives every LLM agent in a tree a scripted model; agents without a script fail when called."""

    def __init__(self, responses: Mapping[str, Any]) -> None:
        scripts = {
            name: list(value) if isinstance(value, list | tuple) else [value]
            for name, value in responses.items()
        }
        self.model = ScriptedModel(scripts)

    def model_for(self, agent_name: str) -> ScriptedModel:
        return self.model.for_agent(agent_name)

    def check_tree(self, root: Node) -> None:
        """Refuse scripts for agents the tree does not have (a typo would silently script nothing)."""
        names = {n.name for n in walk(root) if isinstance(n, LlmAgentNode)}
        names.update(
            n for node in walk(root) if isinstance(node, NativeAgentNode) for n in node.llm_agents
        )
        for scripted in sorted(self.model.scripted_agents - names):
            raise BuildError(
                "mock_backend has a script for this agent, but the tree has no LLM agent of that name",
                agent=scripted,
                hint=did_you_mean(scripted, names)
                or f"agents in the tree: {', '.join(sorted(names))}.",
            )

    @property
    def requests(self) -> dict[str, list[Any]]:
        return self.model.requests

    def assert_consumed(self) -> None:
        self.model.assert_consumed()


def mock_backend(responses: Mapping[str, Any]) -> MockBackend:
    """`mock_backend({"classifier": "booking", "booker": [call("book", city="Paris"), "Booked."]})`.

    A value is one script step or a list of steps (see ScriptedModel for step kinds).
    """
    return MockBackend(responses)
