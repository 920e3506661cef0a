"""`Agent`: the builder of an ADK LlmAgent, with adk-fluent's hand-written sugar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from adk_fluent_generated.builder_bases import LlmAgentSetters
from adk_fluent_generated.ir_nodes import LlmAgentNode

from adk_fluent.adk.tools import confirmed_tool, is_model_object
from adk_fluent.api.builder import BuilderBase, check_arity
from adk_fluent.api.expression import Expression, describe_value
from adk_fluent.api.state_schema import declare
from adk_fluent.errors import BuildError
from adk_fluent.ir.context_spec import ContextSpec
from adk_fluent.ir.instruction_keys import template_reads
from adk_fluent.ir.state_keys import check_key


def _schema_fields(model: Any) -> frozenset[str]:
    fields = getattr(model, "model_fields", None)
    return frozenset(fields) if isinstance(fields, dict) else frozenset()


def _tool_name(tool: Any) -> str | None:
    """The name ADK gives a tool (a function's __name__, a BaseTool's .name); None for toolsets."""
    if hasattr(tool, "get_tools"):
        return None
    name = getattr(tool, "name", None) if hasattr(tool, "run_async") else None
    if name is None:
        target = getattr(tool, "func", tool)  # functools.partial
        name = getattr(target, "__name__", None) or type(target).__name__
    return name if isinstance(name, str) else None


def _check_model(agent: str, model: Any) -> None:
    """A model is a name (text) or a model object (ADK's BaseLlm); anything else is refused
    here, before ADK's validation prints its union of types (or fails on a dict)."""
    if isinstance(model, str):
        if model.strip():
            return
        problem = "an empty model name"
    elif isinstance(model, type):
        problem = f"the class {model.__name__} is not a model (pass an instance)"
    elif isinstance(model, BuilderBase):
        problem = f"{model!r} is a builder, not a model"
    elif model is not None and is_model_object(model):
        return
    else:
        problem = f"{describe_value(model)} is not a model"
    raise BuildError(
        problem,
        agent=agent,
        field="model",
        hint="pass a model name such as 'gemini-2.5-flash', or a model object (an ADK BaseLlm "
        "such as LiteLlm(...)).",
    )


def _check_instruction(agent: str, instruction: Any) -> None:
    """Text, or a function ADK can call with its one argument (the ReadonlyContext)."""
    if isinstance(instruction, str):
        return
    if not callable(instruction) or isinstance(instruction, type | BuilderBase):
        raise BuildError(
            f"an instruction must be text or a callable, not {describe_value(instruction)}",
            agent=agent,
            field="instruction",
            hint="e.g. .instruct('Answer the {topic} question.'), or a function of the "
            "ReadonlyContext returning text.",
        )
    check_arity(
        instruction,
        1,
        what="an instruction function",
        agent=agent,
        field="instruction",
        hint="take the ReadonlyContext ADK passes: def instruction(ctx): return '...'.",
    )


def _check_output_key(agent: str, key: Any) -> None:
    """An output key is a state key name like any other (the S steps' rules)."""
    check_key(
        key,
        "an output key",
        agent=agent,
        field="output_key",
        hint="name the state key the reply goes to, e.g. .outputs('intent').",
    )


def _check_tool(agent: str, tool: Any, earlier: Any) -> None:
    """What ADK needs of a tool, said at build: a named function, a tool or a toolset, each at
    most once (`earlier`: the tools already on the agent)."""

    def refuse(message: str, hint: str) -> None:
        raise BuildError(message, agent=agent, field="tools", hint=hint)

    if isinstance(tool, BuilderBase):
        refuse(
            f"{type(tool).__name__} '{tool.name}' is a builder, not a tool",
            f"to hand the conversation over, use .delegate({tool.name}); to call it like a "
            f"tool, pass ADK's AgentTool(agent={tool.name}.build()).",
        )
    if isinstance(tool, type):
        refuse(
            f"the class {tool.__name__} is not a tool",
            "pass a function, or an instance of a BaseTool / BaseToolset class.",
        )
    if not callable(tool) and not hasattr(tool, "run_async") and not hasattr(tool, "get_tools"):
        refuse(
            f"{describe_value(tool)} is not a tool",
            "pass a function, an ADK BaseTool or a BaseToolset; several tools go as separate "
            "arguments: .tools(search, lookup).",
        )
    name = _tool_name(tool)
    if name == "<lambda>":
        refuse(
            "a lambda cannot be a tool: the model sees a tool by its name and docstring, "
            "and a lambda has neither",
            "define it with def, a descriptive name and a docstring saying what it does.",
        )
    if name is None:
        return
    for other in earlier:
        if other is tool or _tool_name(other) == name:
            refuse(
                f"a tool named '{name}' is already on this agent",
                "add each tool once; two different tools need different names.",
            )


class Agent(Expression, LlmAgentSetters):
    """An LLM agent. `Agent("name", "model").instruct("...")` compiles to ADK's `LlmAgent`."""

    _ADK_CLASS = "LlmAgent"
    _SPELT_DIFFERENTLY = {
        "named": "an agent is renamed with .clone('new_name'), a copy under the new name "
        "(.named() is for composites and steps).",
        "sub_agents": "an agent's sub-agents are given with .delegate(agent, ...) "
        "(ADK's LLM-driven transfer).",
    }

    # What was not set stays at these class-level defaults (a builder copies only what was set).
    _delegates: tuple[Expression, ...] = ()
    _context: ContextSpec | None = None
    _produces: Any = None  # a pydantic model, or a DeclaredState from .writes()
    _consumes: Any = None  # a pydantic model, or a DeclaredState from .reads()

    def __init__(self, name: str, model: Any = None) -> None:
        super().__init__(name, None)
        if model is not None:
            _check_model(name, model)
            self._fields = {"model": model}

    # -- sugar ------------------------------------------------------------------------------
    def instruct(self, instruction: str | Callable[..., Any]) -> Self:
        """The agent's instruction: text with `{key}` / `{key?}` state templates, or a callable."""
        _check_instruction(self._name, instruction)
        return self._set_field("instruction", instruction)

    def tool(
        self, fn_or_tool: Any, *, require_confirmation: bool | Callable[..., bool] = False
    ) -> Self:
        """Add one tool: a function, an ADK tool or toolset. Optionally ask a person to confirm each call."""
        # ADK treats any truthy value as "ask": a str such as 'no' would ask on every call
        if not isinstance(require_confirmation, bool) and (
            not callable(require_confirmation) or isinstance(require_confirmation, type)
        ):
            raise BuildError(
                "require_confirmation must be True, False or a function, not "
                f"{describe_value(require_confirmation)}",
                agent=self._name,
                field="tools",
                hint="e.g. .tool(refund, require_confirmation=True), or a function of the "
                "call's arguments returning whether to ask.",
            )
        if require_confirmation:
            if not callable(fn_or_tool) or hasattr(fn_or_tool, "run_async"):
                raise BuildError(
                    "require_confirmation needs a plain function",
                    agent=self._name,
                    field="tools",
                    hint="for an ADK tool object, construct it with require_confirmation yourself.",
                )
            _check_tool(self._name, fn_or_tool, ())
            fn_or_tool = confirmed_tool(fn_or_tool, require_confirmation)
        _check_tool(self._name, fn_or_tool, self._fields.get("tools", ()))
        return self._append_field("tools", (fn_or_tool,))

    def outputs(self, key: str) -> Self:
        """Declare this agent's role as producing `key`: its final reply is stored in state[key]."""
        _check_output_key(self._name, key)  # None too, which the .output_key() setter allows
        return self._set_field("output_key", key)

    def delegate(self, *agents: Expression) -> Self:
        """Agents this one may hand the conversation to (ADK's LLM-driven transfer)."""
        for agent in agents:
            if not isinstance(agent, Expression):
                raise BuildError(
                    f"can only delegate to builders, got {describe_value(agent)}",
                    agent=self._name,
                    field="sub_agents",
                    hint="delegate to adk-fluent agents: .delegate(Agent('booker').instruct(...)).",
                )
        return self._copy(_delegates=(*self._delegates, *agents))

    def context(self, spec: Any) -> Self:
        """What conversation this agent sees: a C spec, e.g. `C.user_only() + C.from_state("intent")`."""
        if not isinstance(spec, ContextSpec):
            raise BuildError(
                f"context() needs a C spec, got {type(spec).__name__}",
                agent=self._name,
                field="context",
                hint="e.g. .context(C.user_only()).",
            )
        return self._copy(_context=spec)

    def produces(self, model: type) -> Self:
        """Declare the pydantic model this agent's output satisfies (its fields become written keys)."""
        self._check_model_class(model, "produces")
        return self._copy(_produces=model)

    def consumes(self, model: type) -> Self:
        """Declare the pydantic model this agent reads from state (its fields become read keys)."""
        self._check_model_class(model, "consumes")
        return self._copy(_consumes=model)

    def _check_model_class(self, model: Any, field: str) -> None:
        if isinstance(model, type) and isinstance(getattr(model, "model_fields", None), dict):
            return
        raise BuildError(
            f"{field}() needs a pydantic model class, got {describe_value(model)}",
            agent=self._name,
            field=field,
            hint=f"class Intent(BaseModel): category: str, then .{field}(Intent); for single "
            f"keys use .{'writes' if field == 'produces' else 'reads'}('key').",
        )

    def reads(self, *fields: Any) -> Self:
        """Declare state keys this agent's tools or callbacks read: `.reads(Billing.intent)` or
        `.reads("intent")` (checked by check_contracts; no effect at run time)."""
        declared = declare(self._consumes, fields, agent=self._name, what="reads")
        return self._copy(_consumes=declared)

    def writes(self, *fields: Any) -> Self:
        """Declare state keys this agent's tools or callbacks write: `.writes(Billing.ticket_id)`
        or `.writes("ticket_id")` (checked by check_contracts; no effect at run time)."""
        declared = declare(self._produces, fields, agent=self._name, what="writes")
        return self._copy(_produces=declared)

    def clone(self, new_name: str) -> Self:
        """The same agent under another name (so both can sit in one tree)."""
        other = type(self)(new_name)  # checks the name
        return self._copy(_name=other._name)

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

    def _set_field(self, field: str, value: Any) -> Self:
        # the generated .output_key() setter (and .outputs()) lands here; None clears the key
        if field == "output_key" and value is not None:
            _check_output_key(self._name, value)
        return super()._set_field(field, value)

    # -- IR ---------------------------------------------------------------------------------
    def _build_ir(self) -> LlmAgentNode:
        """The frozen IR node, with the state keys this agent reads and writes; only what was
        set is passed (the node's class defaults stand for the rest)."""
        fields = self._fields
        if "model" in fields:  # .model(...) (the generated setter) is checked here
            _check_model(self._name, fields["model"])
        tools = fields.get("tools", ())
        for index, tool in enumerate(tools):  # .tools(...) (the generated setter) is checked here
            _check_tool(self._name, tool, tools[:index])
        instruction = fields.get("instruction")
        if instruction is not None:  # .instruction(...) (the generated setter) is checked here
            _check_instruction(self._name, instruction)
        reads = template_reads(fields.get("instruction"))
        extras: dict[str, Any] = {}
        output_key = fields.get("output_key")
        # an output_schema adds no keys: ADK stores the whole object in state[output_key]
        writes = frozenset((output_key,)) if isinstance(output_key, str) else frozenset()
        if self._produces is not None:
            writes |= _schema_fields(self._produces)
            extras["produces_type"] = self._produces
        if self._consumes is not None:
            reads |= _schema_fields(self._consumes)
            extras["consumes_type"] = self._consumes
        if self._context is not None:
            reads |= self._context.reads_keys
            extras["context"] = self._context
        if self._delegates:
            extras["children"] = tuple(agent.to_ir() for agent in self._delegates)
        if reads:
            extras["reads_keys"] = reads
        if writes:
            extras["writes_keys"] = writes
        if self._visibility is not None:
            extras["visibility"] = self._visibility
        # setters only set fields the installed ADK has, and extras are node fields: no re-check
        return LlmAgentNode.of(self._name, {**fields, **extras})
