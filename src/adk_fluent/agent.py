"""`Agent`: the builder of an ADK LlmAgent, with adk-fluent's hand-written sugar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from adk_fluent_generated.builder_bases import LlmAgentSetters
from adk_fluent_generated.ir_nodes import LlmAgentNode

from .builder_core import BuilderBase
from .errors import BuildError
from .templates import template_keys


def _schema_fields(model: Any) -> frozenset[str]:
    fields = getattr(model, "model_fields", None)
    return frozenset(fields) if isinstance(fields, dict) else frozenset()


class Agent(BuilderBase, LlmAgentSetters):
    """An LLM agent. `Agent("name", "model").instruct("...")` compiles to ADK's `LlmAgent`."""

    _ADK_CLASS = "LlmAgent"
    _KIND = "agent"

    def __init__(self, name: str, model: Any = None) -> None:
        super().__init__(name)
        self._delegates: tuple[BuilderBase, ...] = ()
        if model is not None:
            self._fields = {"model": model}

    # -- sugar ------------------------------------------------------------------------------
    def instruct(self, instruction: str | Callable[..., Any]) -> Self:
        """The agent's instruction: text with `{key}` / `{key?}` state templates, or a callable."""
        if not isinstance(instruction, str) and not callable(instruction):
            raise BuildError(
                f"an instruction must be text or a callable, not {type(instruction).__name__}",
                agent=self._name,
                field="instruction",
            )
        return self._set_field("instruction", instruction)

    def tool(
        self, fn_or_tool: Any, *, require_confirmation: bool | Callable[..., bool] = False
    ) -> Self:
        """Add one tool: a function, an ADK tool or toolset. Optionally ask a person to confirm each call."""
        if require_confirmation:
            if not callable(fn_or_tool) or hasattr(fn_or_tool, "run_async"):
                raise BuildError(
                    "require_confirmation needs a plain function",
                    agent=self._name,
                    field="tools",
                    hint="for an ADK tool object, construct it with require_confirmation yourself.",
                )
            from google.adk.tools.function_tool import FunctionTool

            fn_or_tool = FunctionTool(fn_or_tool, require_confirmation=require_confirmation)
        elif (
            not callable(fn_or_tool)
            and not hasattr(fn_or_tool, "run_async")
            and not hasattr(fn_or_tool, "get_tools")
        ):
            raise BuildError(
                f"{fn_or_tool!r} is not a tool",
                agent=self._name,
                field="tools",
                hint="pass a function, an ADK BaseTool or a BaseToolset.",
            )
        return self._append_field("tools", (fn_or_tool,))

    def outputs(self, key: str) -> Self:
        """Declare this agent's role as producing `key`: its final reply is stored in state[key]."""
        if not isinstance(key, str) or not key:
            raise BuildError(
                "an output key must be a non-empty string", agent=self._name, field="output_key"
            )
        return self._set_field("output_key", key)

    def delegate(self, *agents: BuilderBase) -> Self:
        """Agents this one may hand the conversation to (ADK's LLM-driven transfer)."""
        for agent in agents:
            if not isinstance(agent, BuilderBase):
                raise BuildError(
                    f"can only delegate to builders, got {type(agent).__name__}",
                    agent=self._name,
                    field="sub_agents",
                )
        return self._copy(_delegates=(*self._delegates, *agents))

    def context(self, spec: Any) -> Self:
        """What conversation this agent sees: a C spec, e.g. `C.user_only() + C.from_state("intent")`."""
        from .context_spec import ContextSpec

        if not isinstance(spec, ContextSpec):
            raise BuildError(
                f"context() needs a C spec, got {type(spec).__name__}",
                agent=self._name,
                field="context",
                hint="e.g. .context(C.user_only()).",
            )
        return self._with_meta("context", spec)

    def produces(self, model: type) -> Self:
        """Declare the pydantic model this agent's output satisfies (its fields become written keys)."""
        return self._with_meta("produces", model)

    def consumes(self, model: type) -> Self:
        """Declare the pydantic model this agent reads from state (its fields become read keys)."""
        return self._with_meta("consumes", model)

    def reads(self, *fields: Any) -> Self:
        """Declare state keys this agent's tools or callbacks read: `.reads(Billing.intent)` or
        `.reads("intent")` (checked by check_contracts; no effect at run time)."""
        from .state_schema import declare

        declared = declare(self._meta.get("consumes"), fields, agent=self._name, what="reads")
        return self._with_meta("consumes", declared)

    def writes(self, *fields: Any) -> Self:
        """Declare state keys this agent's tools or callbacks write: `.writes(Billing.ticket_id)`
        or `.writes("ticket_id")` (checked by check_contracts; no effect at run time)."""
        from .state_schema import declare

        declared = declare(self._meta.get("produces"), fields, agent=self._name, what="writes")
        return self._with_meta("produces", declared)

    def clone(self, new_name: str) -> Self:
        """The same agent under another name (so both can sit in one tree)."""
        other = type(self)(new_name)
        return self._copy(_name=other.name)

    # callback sugar: each accumulates onto ADK's *_callback field
    def before_agent(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context)` before the agent; returning Content skips the agent."""
        return self._add_callbacks("before_agent_callback", (fn,))

    def after_agent(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context)` after the agent."""
        return self._add_callbacks("after_agent_callback", (fn,))

    def before_model(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context, llm_request)` before each model call; a response skips the call."""
        return self._add_callbacks("before_model_callback", (fn,))

    def after_model(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context, llm_response)` after each model call."""
        return self._add_callbacks("after_model_callback", (fn,))

    def on_model_error(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context, llm_request, error)` when the model call fails."""
        return self._add_callbacks("on_model_error_callback", (fn,))

    def before_tool(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(tool, args, tool_context)` before each tool call; a dict skips the call."""
        return self._add_callbacks("before_tool_callback", (fn,))

    def after_tool(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(tool, args, tool_context, result)` after each tool call."""
        return self._add_callbacks("after_tool_callback", (fn,))

    def on_tool_error(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(tool, args, tool_context, error)` when a tool raises."""
        return self._add_callbacks("on_tool_error_callback", (fn,))

    # -- IR ---------------------------------------------------------------------------------
    def _build_ir(self) -> LlmAgentNode:
        """The frozen IR node, with the state keys this agent reads and writes."""
        fields = self._fields
        required, optional = template_keys(fields.get("instruction"))
        reads = required | optional
        writes: frozenset[str] = frozenset()
        if isinstance(fields.get("output_key"), str):
            writes |= {fields["output_key"]}
        writes |= _schema_fields(fields.get("output_schema"))
        produces = self._meta.get("produces")
        consumes = self._meta.get("consumes")
        writes |= _schema_fields(produces)
        reads |= _schema_fields(consumes)
        context = self._meta.get("context")
        if context is not None:
            reads |= context.reads_keys
        return LlmAgentNode(
            name=self._name,
            **fields,
            children=tuple(agent.to_ir() for agent in self._delegates),
            reads_keys=reads,
            writes_keys=writes,
            produces_type=produces,
            consumes_type=consumes,
            visibility=self._meta.get("visibility"),
            context=self._meta.get("context"),
        )
