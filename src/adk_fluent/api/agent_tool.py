"""AgentTool: an agent (a builder or a native ADK agent) that an LLM agent calls like a function.

Compiled to ADK's AgentTool. Unlike wrapping a built agent by hand, the agent's tree stays in
the IR, so scripted models, the contract checker, diagrams and the name check see inside it.
"""

from __future__ import annotations

from typing import Any

from adk_fluent.adk.native import check_agent_tool_options, is_native_agent
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.nodes import AgentToolSpec


class AgentTool:
    """`AgentTool(researcher, skip_summarization=True)`: give it to `Agent.tool()` / `.tools()`.

    `agent` is an adk-fluent builder (an Agent, or a composite of agents) or a native ADK agent;
    the options are ADK AgentTool's keyword arguments, checked against the installed ADK
    (`skip_summarization`, `include_plugins`, and on newer releases more)."""

    def __init__(
        self, agent: Any, *positional: Any, _for: str | None = None, **options: Any
    ) -> None:
        from adk_fluent.api.expression import Expression

        if positional:  # ADK's AgentTool(agent, True) means skip_summarization=True
            raise BuildError(
                f"AgentTool takes its options by name, not {describe_value(positional[0])} "
                "after the agent",
                agent=_for,
                field="tools",
                hint="e.g. AgentTool(researcher, skip_summarization=True).",
            )

        if not isinstance(agent, Expression) and not is_native_agent(agent):
            raise BuildError(
                f"an agent tool needs an agent, not {describe_value(agent)}",
                agent=_for,
                field="tools",
                hint="pass a builder, e.g. AgentTool(Agent('researcher').instruct(...)), or a "
                "native ADK agent; a function is a tool on its own: .tool(fn).",
            )
        name = str(agent.name)
        if isinstance(agent, Expression) and agent.to_ir().ZERO_COST:
            raise BuildError(
                f"{type(agent).__name__} '{name}' is a step, not an agent: as a tool it would "
                "ignore the model's request and answer nothing",
                agent=_for,
                field="tools",
                hint="give the tool an agent (Agent(...) or a composite that ends with one); "
                "a function is a tool on its own: .tool(fn).",
            )
        check_agent_tool_options(options, name, _for)
        self._agent = agent
        self._options = tuple(sorted(options.items()))
        self.name = name

    @property
    def agent(self) -> Any:
        """The agent this tool runs (as given)."""
        return self._agent

    @property
    def options(self) -> dict[str, Any]:
        """ADK AgentTool's keyword arguments, as given."""
        return dict(self._options)

    def spec(self) -> AgentToolSpec:
        """The IR of this tool: the agent's tree and the options."""
        from adk_fluent.api.expression import Expression, Native

        agent = self._agent if isinstance(self._agent, Expression) else Native(self._agent)
        return AgentToolSpec(agent.to_ir(), self._options)

    def __repr__(self) -> str:
        shown = "".join(f", {k}={v!r}" for k, v in self._options)
        return f"AgentTool({self.name!r}{shown})"
