"""Native ADK objects inside a fluent tree: agents written with ADK's own classes, and AgentTools.

* An instance of one of ADK's own agent classes (LlmAgent, SequentialAgent, ParallelAgent,
  LoopAgent, exactly those classes) becomes IR field by field, from the fields that were set on
  it, so everything adk-fluent does (scripted models, the checker, visibility, diagrams, the name
  check) sees inside it, and it compiles back to an equal agent.
* An instance of any other BaseAgent subclass (a custom agent) becomes a NativeAgentNode: it is
  compiled to a copy of itself, never to the instance itself, so the same builder can be built
  any number of times (ADK gives an agent one parent for life).
* An ADK `AgentTool` becomes an AgentToolSpec: the tool's agent as IR, with its options.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from types import FunctionType
from typing import Any

from adk_fluent_generated.compile_cases import FIELD_KINDS
from adk_fluent_generated.ir_nodes import (
    LlmAgentNode,
    LoopAgentNode,
    ParallelAgentNode,
    SequentialAgentNode,
)

from adk_fluent.adk.compat import installed_class
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.instruction_keys import template_reads
from adk_fluent.ir.nodes import AgentToolSpec, NativeAgentNode, Node

# ADK's classes that become IR field by field (a subclass of one of them stays native: its
# own code may depend on fields or methods the IR does not know)
_DESCRIBED: dict[str, type[Node]] = {
    "LlmAgent": LlmAgentNode,
    "SequentialAgent": SequentialAgentNode,
    "ParallelAgent": ParallelAgentNode,
    "LoopAgent": LoopAgentNode,
}


def is_native_agent(value: Any) -> bool:
    """Whether `value` is an ADK agent instance (any BaseAgent subclass)."""
    if type(value) is FunctionType:  # the common tool: asked before hasattr, which raises inside
        return False
    if isinstance(value, type) or not hasattr(value, "sub_agents"):
        return False
    from google.adk.agents.base_agent import BaseAgent

    return isinstance(value, BaseAgent)


def is_adk_agent_tool(value: Any) -> bool:
    """Whether `value` is an instance of ADK's AgentTool."""
    if type(value) is FunctionType:  # the common tool (see is_native_agent)
        return False
    if not hasattr(value, "agent") or not hasattr(value, "run_async"):
        return False
    from google.adk.tools.agent_tool import AgentTool

    return isinstance(value, AgentTool)


def agent_tool_options() -> dict[str, Any]:
    """The keyword options the installed ADK's AgentTool takes, with their defaults."""
    from google.adk.tools.agent_tool import AgentTool

    parameters = inspect.signature(AgentTool.__init__).parameters
    return {
        name: p.default
        for name, p in parameters.items()
        if name not in ("self", "agent") and p.kind is not inspect.Parameter.VAR_KEYWORD
    }


def check_agent_tool_options(options: dict[str, Any], tool: str, agent: str | None) -> None:
    """Refuse an option the installed AgentTool does not take, or a non-bool for a bool one."""
    accepted = agent_tool_options()
    for option, value in options.items():
        if option not in accepted:
            from adk_fluent.adk.compat import adk_version
            from adk_fluent.errors import did_you_mean

            raise BuildError(
                f"agent tool '{tool}': the installed google-adk {adk_version()}'s AgentTool "
                f"has no option {option!r}",
                agent=agent,
                field="tools",
                hint=did_you_mean(option, accepted)
                or f"its options are: {', '.join(sorted(accepted))}.",
            )
        if isinstance(accepted[option], bool) and not isinstance(value, bool):
            raise BuildError(
                f"agent tool '{tool}': {option} must be True or False, not {describe_value(value)}",
                agent=agent,
                field="tools",
                hint=f"e.g. AgentTool(researcher, {option}=True).",
            )


def agent_tool_spec(tool: Any) -> AgentToolSpec:
    """An ADK AgentTool as IR: its agent, and the options that differ from the defaults."""
    defaults = agent_tool_options()
    options = tuple(
        (name, getattr(tool, name))
        for name, default in sorted(defaults.items())
        if hasattr(tool, name) and getattr(tool, name) != default
    )
    return AgentToolSpec(native_ir(tool.agent), options)


def build_agent_tool(agent: Any, options: tuple[tuple[str, Any], ...]) -> Any:
    """ADK's AgentTool around a compiled agent."""
    from google.adk.tools.agent_tool import AgentTool

    return AgentTool(agent=agent, **dict(options))


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def native_ir(
    agent: Any,
    *,
    consumes: Any = None,
    produces: Any = None,
    reads: frozenset[str] = frozenset(),
    writes: frozenset[str] = frozenset(),
) -> Node:
    """The IR of a native ADK agent: field by field for ADK's own classes, a NativeAgentNode for
    any other. `consumes` / `produces` are `.reads()` / `.writes()` declarations
    (DeclaredState) and `reads` / `writes` their key names.

    The instance is never placed in the compiled tree itself (a copy is, or a new agent from
    its fields), so an agent that already has a parent in a native tree can be used too."""
    node_type = _DESCRIBED.get(type(agent).__name__)
    if node_type is not None and type(agent) is installed_class(type(agent).__name__):
        return _described(agent, node_type, consumes, produces, reads, writes)
    names, llms = _agents_inside(agent)
    return NativeAgentNode(
        agent.name,
        agent=agent,
        agent_class=f"{type(agent).__module__}.{type(agent).__qualname__}",
        agent_names=names,
        llm_agents=llms,
        **_declared(consumes, produces, reads, writes),
    )


def _declared(
    consumes: Any, produces: Any, reads: frozenset[str], writes: frozenset[str]
) -> dict[str, Any]:
    """The node fields of what `.reads()` / `.writes()` declare (those given)."""
    fields = {
        "consumes_type": consumes,
        "produces_type": produces,
        "reads_keys": reads or None,
        "writes_keys": writes or None,
    }
    return {field: value for field, value in fields.items() if value is not None}


def _described(
    agent: Any,
    node_type: type[Node],
    consumes: Any,
    produces: Any,
    reads: frozenset[str],
    writes: frozenset[str],
) -> Node:
    class_name = type(agent).__name__
    kinds = FIELD_KINDS[class_name]
    values: dict[str, Any] = {}
    for field in sorted(agent.model_fields_set):
        if field not in kinds:
            continue  # name, sub_agents, parent_agent: structure, not fields
        value = getattr(agent, field)
        if value is None and kinds[field] != "value":
            continue
        if kinds[field] in ("callback", "list"):
            value = _as_tuple(value)
        if field == "tools":
            value = tuple(
                agent_tool_spec(tool) if is_adk_agent_tool(tool) else tool for tool in value
            )
        values[field] = value
    if agent.sub_agents:
        values["children"] = tuple(native_ir(sub) for sub in agent.sub_agents)
    if node_type is LlmAgentNode:
        read_keys = template_reads(values.get("instruction")) | reads
        output_key = values.get("output_key")
        write_keys = frozenset((output_key,)) if isinstance(output_key, str) else frozenset()
        values |= _declared(consumes, produces, read_keys, write_keys | writes)
    elif consumes is not None or produces is not None:
        raise BuildError(
            f"reads() / writes() describe a custom agent; {class_name} '{agent.name}' is ADK's "
            "own class, whose reads and writes adk-fluent sees in its fields",
            agent=agent.name,
            field="reads",
            hint="declare them on the agents inside it instead.",
        )
    return node_type(agent.name, **values)


def _agents_inside(agent: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(names of the agents in a custom agent, itself first; those that are LlmAgents)."""
    from google.adk.agents.llm_agent import LlmAgent

    names: list[str] = []
    llms: list[str] = []
    for inner in agents_inside(agent):
        if inner.name not in names:
            names.append(inner.name)
            if isinstance(inner, LlmAgent):
                llms.append(inner.name)
    return tuple(names), tuple(llms)


def llm_agents_inside(agent: Any) -> list[Any]:
    """Every LlmAgent in a native tree, agents of ADK AgentTools included (see agents_inside)."""
    from google.adk.agents.llm_agent import LlmAgent

    return [inner for inner in agents_inside(agent, tools=True) if isinstance(inner, LlmAgent)]


def agents_inside(agent: Any, *, tools: bool = False) -> Iterator[Any]:
    """An agent and every agent it holds, each once: its sub-agents and agents in its own fields
    (a custom agent often keeps its sub-agents in fields too); with `tools`, also the agents of
    ADK AgentTools among any of those fields (an LlmAgent's `tools`)."""
    from google.adk.agents.base_agent import BaseAgent

    seen: set[int] = set()
    stack = [agent]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        held: list[Any] = list(current.sub_agents)
        for field in type(current).model_fields:
            if field in ("parent_agent", "sub_agents"):
                continue
            value = getattr(current, field, None)
            for item in value if isinstance(value, list | tuple) else (value,):
                if isinstance(item, BaseAgent):
                    held.append(item)
                elif tools and is_adk_agent_tool(item):
                    held.append(item.agent)
        stack.extend(reversed(held))


def compile_native(node: NativeAgentNode, model_for: Callable[[str], Any] | None) -> Any:
    """A copy of the native agent to place in the compiled tree.

    Without scripted models, a shallow copy: the agents inside are shared with the user's
    instance, untouched. With them, a deep copy whose LLM agents get the scripted models, so
    the user's agents keep their own."""
    agent = node.agent
    models = {name: model_for(name) for name in node.llm_agents} if model_for is not None else {}
    models = {name: model for name, model in models.items() if model is not None}
    if not models:
        copy = agent.model_copy()
    else:
        copy = agent.model_copy(deep=True)
        for sub in copy.sub_agents:  # deep-copied with a stale pointer to a copy of the parent
            sub.parent_agent = copy
        for inner in agents_inside(copy):
            model = models.get(inner.name)
            if model is not None and hasattr(inner, "model"):
                inner.model = model
    copy.parent_agent = None
    return copy
