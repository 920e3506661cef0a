"""mock_backend: scripted models installed by agent name anywhere in a tree."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from adk_fluent.arguments import checked_instance
from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.nodes import LlmAgentNode, NativeAgentNode, Node, walk
from adk_fluent.testing.scripted import DEFAULT_MODEL, ScriptedModel

if TYPE_CHECKING:
    from google.adk.models.llm_request import LlmRequest


class MockBackend:
    """Gives every LLM agent in a tree a scripted model; agents without a script fail when called."""

    def __init__(self, responses: Mapping[str, Any], *, model: str = DEFAULT_MODEL) -> None:
        checked_instance(
            responses,
            None,
            "responses",
            Mapping,
            what="a mapping of agent name to script",
            hint='e.g. mock_backend({"writer": ["A draft.", "The final text."]}).',
        )
        scripts = {
            name: list(value) if isinstance(value, list | tuple) else [value]
            for name, value in responses.items()
        }
        self.model = ScriptedModel(scripts, model=model)

    _hidden: frozenset[str] = frozenset()  # names of agents scripted in place (scripting())

    @contextmanager
    def scripting(self, *agents: Any) -> Iterator[None]:
        """Script native agents that no tree shows, for the duration of the block: agents a tool
        function runs itself (its own AgentTool or Runner). Every LlmAgent in them (sub-agents
        and agent tools too) gets this backend's scripted model for its name, and its own
        model back when the block ends, even on error.

            with backend.scripting(sql_agent):
                await pipeline.run("...", backend=backend)
        """
        from adk_fluent.adk.native import is_native_agent, llm_agents_inside

        for agent in agents:
            if not is_native_agent(agent):
                raise BuildError(
                    f"scripting() takes native ADK agents, not {describe_value(agent)}",
                    field="agents",
                    hint="adk-fluent builders in the tree are scripted already; pass the "
                    "LlmAgent (or custom agent) your tool function runs.",
                )
        inner = [llm for agent in agents for llm in llm_agents_inside(agent)]
        saved = [(llm, llm.model) for llm in inner]
        before = self._hidden
        self._hidden = before | {llm.name for llm in inner}
        try:
            for llm in inner:
                llm.model = self.model_for(llm.name)
            yield
        finally:
            for llm, model in saved:
                llm.model = model
            self._hidden = before

    @property
    def model_name(self) -> str:
        """The model name every scripted agent reports to ADK."""
        return self.model.model

    def model_for(self, agent_name: str) -> ScriptedModel:
        """The scripted model to install on the agent named `agent_name`."""
        return self.model.for_agent(agent_name)

    def check_tree(self, root: Node) -> None:
        """Refuse scripts for agents the tree does not have (a typo would silently script nothing)."""
        names = {n.name for n in walk(root) if isinstance(n, LlmAgentNode)}
        names.update(
            n for node in walk(root) if isinstance(node, NativeAgentNode) for n in node.llm_agents
        )
        names |= self._hidden
        for scripted in sorted(self.model.scripted_agents - names):
            raise BuildError(
                "mock_backend has a script for this agent, but the tree has no LLM agent of that name",
                agent=scripted,
                hint=did_you_mean(scripted, names)
                or f"agents in the tree: {', '.join(sorted(names))}.",
            )

    @property
    def requests(self) -> dict[str, list[LlmRequest]]:
        """Every LlmRequest the scripted agents received, per agent, in order."""
        return self.model.requests

    @property
    def live_inputs(self) -> dict[str, list[tuple[Any, ...]]]:
        """What the scripted agents' live connections were sent, per agent, in order
        (adk_fluent.testing.live)."""
        return self.model.live_inputs

    def assert_consumed(self) -> None:
        """Fail when a script has steps left (see ScriptedModel.assert_consumed for repeats)."""
        self.model.assert_consumed()


def mock_backend(responses: Mapping[str, Any], *, model: str = DEFAULT_MODEL) -> MockBackend:
    """`mock_backend({"classifier": "booking", "booker": [call("book", city="Paris"), "Booked."]})`.

    A value is one script step or a list of steps (see ScriptedModel for step kinds, and
    `repeat(...)` for a step answered again and again). `model` is the name the scripted agents
    report to ADK (the default is one ADK's built-in Gemini tools accept; see ScriptedModel).
    """
    return MockBackend(responses, model=model)
