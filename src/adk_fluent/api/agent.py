"""`Agent`: the builder of an ADK LlmAgent, with adk-fluent's hand-written sugar."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import FunctionType, MappingProxyType
from typing import Any, NoReturn, Self

from adk_fluent_generated.builder_bases import LlmAgentSetters
from adk_fluent_generated.ir_nodes import LlmAgentNode

from adk_fluent.adk.compat import installed_fields
from adk_fluent.adk.native import agent_tool_spec, is_adk_agent_tool, is_native_agent
from adk_fluent.adk.tools import confirmed_tool, is_model_object
from adk_fluent.api.agent_tool import AgentTool
from adk_fluent.api.builder import BuilderBase, check_name
from adk_fluent.api.declarations import AgentCallbacks, DeclaresState
from adk_fluent.api.expression import Expression, as_delegate
from adk_fluent.api.inject import check_resources, inject_tools
from adk_fluent.arguments import checked_callable, checked_function, checked_instance
from adk_fluent.errors import AdkFluentWarning, BuildError, describe_value
from adk_fluent.ir.content import ContentSpec, parse_modalities
from adk_fluent.ir.context_spec import ContextSpec
from adk_fluent.ir.instruction_keys import text_reads
from adk_fluent.ir.model_selection import ModelSelectorNode, model_selector
from adk_fluent.ir.state_keys import check_key


def _tool_name(tool: Any) -> str | None:
    """The name ADK gives a tool (a function's __name__, a BaseTool's .name); None for toolsets."""
    if type(tool) is FunctionType and not tool.__dict__:  # a plain def: none of the cases below
        return tool.__name__ or type(tool).__name__
    if hasattr(tool, "get_tools"):
        return None
    if isinstance(tool, _AGENT_TOOLS) or is_native_agent(tool):
        return str(tool.name)
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
    if not isinstance(instruction, str):
        checked_function(
            instruction,
            agent,
            "instruction",
            takes=1,
            what="an instruction that is not text",
            hint="e.g. .instruct('Answer the {topic} question.'), or a function of the "
            "ReadonlyContext ADK passes: def instruction(ctx): return '...'.",
            classes=False,
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
    if type(tool) is FunctionType and not tool.__dict__:  # a plain def, as most tools are
        name: str | None = tool.__name__ or type(tool).__name__  # (_tool_name's answer)
    else:
        if isinstance(tool, type):
            _refuse_tool(
                agent,
                f"the class {tool.__name__} is not a tool",
                "pass a function, or an instance of a BaseTool / BaseToolset class.",
            )
        if (
            not callable(tool)
            and not isinstance(tool, _AGENT_TOOLS)
            and not is_native_agent(tool)
            and not hasattr(tool, "run_async")
            and not hasattr(tool, "get_tools")
        ):
            _refuse_tool(
                agent,
                f"{describe_value(tool)} is not a tool",
                "pass a function, an ADK BaseTool or a BaseToolset; several tools go as separate "
                "arguments: .tools(search, lookup).",
            )
        name = _tool_name(tool)
    if name == "<lambda>":
        _refuse_tool(
            agent,
            "a lambda cannot be a tool: the model sees a tool by its name and docstring, "
            "and a lambda has neither",
            "define it with def, a descriptive name and a docstring saying what it does.",
        )
    if name is None:
        return
    for other in earlier:
        if other is tool or _tool_name(other) == name:
            _refuse_tool(
                agent,
                f"a tool named '{name}' is already on this agent",
                "add each tool once; two different tools need different names.",
            )


def _refuse_tool(agent: str, message: str, hint: str) -> NoReturn:
    raise BuildError(message, agent=agent, field="tools", hint=hint)


_NO_KEYS: frozenset[str] = frozenset()

# An Agent's state when only its ADK fields were set (with the bookkeeping of their setters)
_BARE_STATE = frozenset({"_name", "_fields", "_adk_spelt", "_unchecked_tools", "_ir"})

# What an agent tool is given as, before it is IR (a tuple: `X | Y` makes a new union per use)
_AGENT_TOOLS = (AgentTool, Expression)

# Fields with two spellings: ADK's field name (the generated setter) and adk-fluent's, which
# is the canonical one (it checks its value and says what the field is for).
_CANONICAL = {"instruction": "instruct", "output_key": "outputs"}


def _tool_ir(agent: str, tool: Any) -> Any:
    """A tool as the IR holds it: agent tools as AgentToolSpecs (the tree they run, visible
    to every analysis), anything else as it is."""
    if isinstance(tool, Expression) or is_native_agent(tool):  # through the .tools() setter
        tool = AgentTool(tool, _for=agent)
    if isinstance(tool, AgentTool):
        return tool.spec()
    if is_adk_agent_tool(tool):  # ADK's own AgentTool: its agent becomes IR too
        return agent_tool_spec(tool)
    return tool


class Agent(Expression, DeclaresState, AgentCallbacks, LlmAgentSetters):
    """An LLM agent. `Agent("name", "model").instruct("...")` compiles to ADK's `LlmAgent`."""

    _ADK_CLASS = "LlmAgent"
    _SPELT_DIFFERENTLY = {
        "named": "an agent is renamed with .clone('new_name'), a copy under the new name "
        "(.named() is for composites and steps).",
        "sub_agents": "an agent's sub-agents are given with .delegate(agent, ...) "
        "(ADK's LLM-driven transfer); to call an agent like a tool, .tool(agent).",
        # adk-fluent 0.x's spellings (docs/from-adk-fluent-0x.md)
        "sub_agent": "an agent's sub-agents are given with .delegate(agent, ...) "
        "(ADK's LLM-driven transfer); to call an agent like a tool, .tool(agent).",
        "proceed_if": "run an agent only when a condition holds with a Route: "
        "Route('valid').when(lambda state: ..., agent).otherwise(S.log('valid')) (the "
        "otherwise branch runs when the predicate is false).",
        "eval": "evaluate with adk_fluent.evaluation: FluentEvalSuite('name', agent, "
        "[FluentCase('prompt', response=...)]), then await suite.run() (docs/evaluation.md).",
        "publish": "serve it over A2A with adk_fluent.remote.serve(agent, host=..., port=...), "
        "or a2a_app(...) for the ASGI app (docs/remote.md).",
        "history": "choose what the agent sees of the conversation with .context(...): "
        "C.none(), C.user_only(), C.last_n_turns(3) (docs/context.md).",
    }

    # What was not set stays at these class-level defaults (a builder copies only what was set).
    _delegates: tuple[Expression, ...] = ()
    _context: ContextSpec | None = None
    # the two-spelling fields (_CANONICAL) last set with ADK's spelling; set with ours otherwise
    _adk_spelt: frozenset[str] = frozenset()
    _resources: Mapping[str, Any] = MappingProxyType({})  # .inject(): parameter -> resource
    _model_selector: ModelSelectorNode | None = None  # .model_select(): the model policy
    _content: ContentSpec | None = None  # .accepts() / .produces_modality()
    _unchecked_tools: frozenset[int] = frozenset()  # positions of the tools .tools() added
    _INNER = "_delegates"  # its tools' agents are made IR by the tools (_tool_ir)

    def __init__(self, name: str, model: Any = None) -> None:
        # BuilderBase.__init__, written out with the model (each agent is made here): a name
        # or a model name that is fine needs no more asking
        if type(name) is not str or not name.isidentifier() or name == "user":
            check_name(name)
        self._name = name
        self._fields = {} if model is None else {"model": model}
        if model is not None and (type(model) is not str or not model.strip()):
            _check_model(name, model)

    # -- sugar ------------------------------------------------------------------------------
    def _sugar(self, field: str, verb: str, value: Any) -> Self:
        """A copy with `field` set by the sugar `verb` (.instruct, .outputs): _set_spelt when a
        spelling is to be weighed, else the plain setter's copy."""
        if field in self._fields or "_adk_spelt" in self.__dict__:  # set before, or ADK's
            return self._set_spelt(field, verb, value)
        return super()._set_field(field, value)  # the plain copy (ours routes ADK's spelling)

    def instruct(self, instruction: str | Callable[..., Any]) -> Self:
        """The agent's instruction: text with `{key}` / `{key?}` state templates, or a callable."""
        if not isinstance(instruction, str):  # text needs no check
            _check_instruction(self._name, instruction)
        return self._sugar("instruction", "instruct", instruction)

    def tool(
        self, fn_or_tool: Any, *, require_confirmation: bool | Callable[..., bool] = False
    ) -> Self:
        """Add one tool: a function, an ADK tool or toolset, or an agent (a builder or a native
        ADK agent), which the model then calls like a function (ADK's AgentTool; see
        `.agent_tool()` for its options). Optionally ask a person to confirm each call.

        `.tool(agent)` is not `.delegate(agent)`: a tool runs and answers back to this agent,
        which goes on; a delegate takes the conversation over."""
        if type(fn_or_tool) is FunctionType and require_confirmation is False:
            # a plain function, as most tools are: none of the cases below applies, and the
            # first named one needs no check (_check_tool refuses lambdas and repeated names)
            state = self.__dict__
            fields = state["_fields"]
            earlier = fields.get("tools", ())
            if earlier or fn_or_tool.__dict__ or fn_or_tool.__name__ == "<lambda>":
                _check_tool(state["_name"], fn_or_tool, earlier)
            return self._set_field("tools", (*earlier, fn_or_tool))
        if isinstance(fn_or_tool, Expression) or is_native_agent(fn_or_tool):
            if require_confirmation:
                raise BuildError(
                    "require_confirmation needs a plain function, not an agent",
                    agent=self._name,
                    field="tools",
                    hint="an agent tool runs in a sub-run that cannot pause for a person: "
                    "ask before the agent that calls it (a gate in the pipeline), or give the "
                    "confirmed function to the calling agent itself.",
                )
            return self.agent_tool(fn_or_tool)
        # ADK treats any truthy value as "ask": a str such as 'no' would ask on every call
        if not isinstance(require_confirmation, bool):
            checked_callable(
                require_confirmation,
                self._name,
                "require_confirmation",
                "True, False, or a function of the call's arguments returning whether to ask.",
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
        return self._with_checked_tool(fn_or_tool)

    def agent_tool(self, agent: Any, **options: Any) -> Self:
        """Add an agent the model calls like a function (ADK's AgentTool): `agent` is a builder
        (an Agent or a composite) or a native ADK agent; `options` are AgentTool's own
        (`skip_summarization=True`, `include_plugins=False`, ... as the installed ADK has them).

        The agent runs in a sub-run on a copy of this session's state; the state changes it
        makes come back to this session, its events do not. Everything adk-fluent does sees
        inside it: scripted models, the contract checker, diagrams and the name check."""
        tool = (
            agent
            if isinstance(agent, AgentTool) and not options
            else AgentTool(agent, **options, _for=self._name)
        )
        _check_tool(self._name, tool, self._fields.get("tools", ()))
        return self._with_checked_tool(tool)

    def _with_checked_tool(self, tool: Any) -> Self:
        """`tool` added, as .tool() and .agent_tool() add it: checked already, not again at build."""
        return self._set_field("tools", (*self._fields.get("tools", ()), tool))

    def _append_field(self, field: str, items: tuple[Any, ...]) -> Self:
        new = super()._append_field(field, items)
        if field == "tools":  # the generated .tools() setter: its tools are checked at build
            start = len(self._fields.get("tools", ()))
            added = frozenset(range(start, start + len(items)))
            new.__dict__["_unchecked_tools"] = self._unchecked_tools | added
        return new

    def outputs(self, key: str) -> Self:
        """Declare this agent's role as producing `key`: its final reply is stored in state[key]."""
        # None is refused too, which the .output_key() setter allows; a name is asked no more
        if type(key) is not str or not key.isidentifier():
            _check_output_key(self._name, key)
        return self._sugar("output_key", "outputs", key)

    def delegate(self, *agents: Any) -> Self:
        """Agents this one may hand the conversation to (ADK's LLM-driven transfer): builders or
        native ADK agents."""
        steps = tuple(as_delegate(agent, self._name) for agent in agents)
        return self._copy(_delegates=(*self._delegates, *steps))

    def transfer_to(self, agent: Any, *, when: Callable[[Any], Any]) -> Self:
        """Hand the conversation to `agent` when `when(state)` holds, without asking the model
        (a rule, where `.delegate()` lets the model choose). Checked before each of this agent's
        model calls: when it holds, the model is not called, and ADK transfers as it does for a
        model's choice: `agent` answers now, and the next turns start at it. Unlike a Route,
        which runs a branch and goes on, the conversation stays with `agent`. `agent` becomes a
        delegate (a builder or a native ADK agent); rules are tried in the order given, before
        this agent's own before_model callbacks. `when` gets a read-only view of the state."""
        from adk_fluent.adk.transfers import RuleTransfer

        checked_function(
            when,
            self._name,
            "when",
            takes=1,
            what="transfer_to(..., when=...)",
            hint="it takes the state: .transfer_to(vip, when=lambda state: state['tier'] == 'gold').",
            classes=False,
        )
        target = as_delegate(agent, self._name)
        if target.name == self._name:
            raise BuildError(
                f"agent '{self._name}' cannot transfer the conversation to itself",
                agent=self._name,
                field="transfer_to",
                hint="name another agent: .transfer_to(vip, when=...).",
            )
        known = {step.name: step for step in self._delegates}
        if target.name in known and known[target.name].to_ir() != target.to_ir():
            raise BuildError(
                f"agent '{self._name}' already delegates to another agent named '{target.name}'",
                agent=self._name,
                field="transfer_to",
                hint="pass the same builder to .delegate() and .transfer_to(), or rename one.",
            )
        delegates = self._delegates if target.name in known else (*self._delegates, target)
        rule = RuleTransfer(self._name, target.name, when)
        existing = list(self._fields.get("before_model_callback") or ())
        at = sum(1 for callback in existing if isinstance(callback, RuleTransfer))
        callbacks = (*existing[:at], rule, *existing[at:])  # after earlier rules, before the rest
        fields = {**self._fields, "before_model_callback": callbacks}
        return self._copy(_delegates=delegates, _fields=fields)

    def inject(self, **resources: Any) -> Self:
        """Hand resources to this agent's tool functions: `.inject(db=pool)` passes `pool` to
        every tool function of this agent with a parameter named `db`, and the model never sees
        that parameter (it is left out of the tool's declaration). Works for tools added before
        or after this call; sync and async tools alike; `tool_context` is ADK's as always.

        A resource is one shared value (a client, a pool): every call, in every session and
        every run of this agent, gets the same object, by design, so it must be safe to share.
        For a fresh value per call pass a factory: `.inject(db=per_call(open_connection))`.
        A value the model sends for a resource's name is dropped; the resource is passed.
        Only this agent's own function tools receive them (agents used as tools have their own
        `.inject()`). Calling `.inject()` again adds resources; a name given again takes the new
        value. Every resource must be taken by some tool, or the build fails."""
        check_resources(self._name, resources)
        return self._copy(_resources={**self._resources, **resources})

    def use(self, *presets: Any) -> Self:
        """Apply presets (`Preset(model=..., before_model=...)`), in order: each one's settings
        are setter calls made at this point of the chain, so a later setter overrides a single
        value (the model) and adds to a list (tools, callbacks)."""
        agent = self
        for preset in presets:
            if not getattr(preset, "_IS_PRESET", False):
                raise BuildError(
                    f"use() takes presets, not {describe_value(preset)}",
                    agent=self._name,
                    field="use",
                    hint="make one with Preset(model='gemini-2.5-flash', ...), or call the "
                    "setters directly.",
                )
            agent = preset.apply(agent)
        return agent

    def context(self, spec: Any) -> Self:
        """What conversation this agent sees: a C spec, e.g. `C.user_only() + C.from_state("intent")`."""
        checked_instance(
            spec,
            self._name,
            "context",
            ContextSpec,
            what="a C spec",
            hint=".context(C.user_only())",
        )
        return self._copy(_context=spec)

    def model_select(
        self,
        strategy: str,
        candidates: Any,
        *,
        budget_key: str | None = None,
        fallback_model: str | None = None,
        requires: Any = (),
        prices: Any = None,
        expected_output_tokens: int = 500,
        feedback: Any = None,
        target: float = 0.8,
        min_ratings: int = 5,
        explore: float = 0.0,
        seed: int | None = None,
    ) -> Self:
        """Pick this agent's model per call by a policy (docs/telemetry.md).

        `strategy` is "cost_optimized" (the cheapest candidate), "quality_optimized" (the
        highest `quality_tier`), "budget_bounded" (the best tier whose estimated cost fits
        `state[budget_key]`, in USD; `fallback_model` once none fits) or "adaptive" (the
        cheapest candidate whose recent ratings in `feedback`, a ModelFeedback, average at
        least `target`, once it has `min_ratings` of them; `explore` is the share of calls that
        try the next cheaper one, drawn with `seed`). `candidates` are
        ModelCandidates or model names; a candidate lacking a capability in `requires`, too
        small for the request (`max_input_tokens`) or whose `condition` says no is skipped.
        `prices` adds to or replaces the default price table; `expected_output_tokens` is the
        output assumed when comparing costs before a call. Calling it again replaces the policy.

        Each model call sets the request's model to the pick, so every candidate must be served
        by the same ADK model class as the agent's model (e.g. Gemini names for a Gemini agent);
        the build refuses others."""
        selector = model_selector(
            self._name,
            strategy,
            candidates,
            budget_key=budget_key,
            fallback_model=fallback_model,
            requires=requires,
            prices=prices,
            expected_output_tokens=expected_output_tokens,
            feedback=feedback,
            target=target,
            min_ratings=min_ratings,
            explore=explore,
            seed=seed,
        )
        return self._copy(_model_selector=selector)

    def accepts(self, *modalities: Any, max_tokens: int | None = None) -> Self:
        """Declare the modalities this agent's model reads: Modality members or their names
        ("image", "audio", "video", "pdf", "file", ...; case-insensitive). Text, structured
        text and code are always accepted. The contract checker then reports every reply this
        agent would be shown that carries anything else, and a run refuses a user's message
        that would bring it one (docs/contracts.md, "ContentSpec"); an agent that declares
        nothing accepts anything. `max_tokens` declares its input bound, which the checker
        compares with the output bounds of the replies it is shown. Calling it again replaces
        the declaration."""
        accepted = parse_modalities(modalities, agent=self._name, field="accepts")
        spec = self._content_spec(max_input_tokens=max_tokens, field="accepts")
        return self._copy(_content=replace(spec, accepts=accepted, max_input_tokens=max_tokens))

    def produces_modality(self, *modalities: Any, max_tokens: int | None = None) -> Self:
        """Declare the modalities this agent's replies carry (e.g. "image" for an image
        model); without it, an agent produces text (and structured text with an
        output_schema). Every later agent that declared `.accepts()` and is shown these
        replies must accept them. `max_tokens` declares its output bound (for the checker
        only: it does not configure the model). Calling it again replaces the declaration."""
        produced = parse_modalities(modalities, agent=self._name, field="produces_modality")
        spec = self._content_spec(max_output_tokens=max_tokens, field="produces_modality")
        return self._copy(_content=replace(spec, produces=produced, max_output_tokens=max_tokens))

    def _content_spec(self, *, field: str, **bounds: Any) -> ContentSpec:
        """The ContentSpec so far, with `bounds` checked (a BuildError naming this agent)."""
        try:
            ContentSpec(**bounds)
        except BuildError as error:
            raise BuildError(
                error.message.replace("max_input_tokens", "max_tokens").replace(
                    "max_output_tokens", "max_tokens"
                ),
                agent=self._name,
                field=field,
                hint=error.hint,
            ) from None
        return self._content or ContentSpec()

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

    def clone(self, new_name: str) -> Self:
        """The same agent under another name (so both can sit in one tree)."""
        other = type(self)(new_name)  # checks the name
        return self._copy(_name=other._name)

    # callback sugar: each accumulates onto ADK's *_callback field (before_agent / after_agent
    # come from AgentCallbacks, which composites share)
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
        if field in _CANONICAL:  # the generated .instruction() / .output_key() setters
            return self._set_spelt(field, field, value, stacklevel=4)
        return super()._set_field(field, value)

    def _set_spelt(self, field: str, method: str, value: Any, stacklevel: int = 3) -> Self:
        """Set a field that has two spellings; warn when the other spelling set it to something
        else before (the last one set wins, which is easy to miss in a long chain)."""
        state = self.__dict__.copy()  # the new agent's (BuilderBase._set_field's copy, written
        fields = state["_fields"]  # out below: every agent comes through here twice)
        adk_spelt = state.get("_adk_spelt", _NO_KEYS)
        if field in fields:  # set before (only this method sets these two fields)
            before = field if field in adk_spelt else _CANONICAL[field]
            if before != method and fields[field] != value:
                canonical = _CANONICAL[field]
                warnings.warn(
                    f"Agent '{self._name}': {field} was set with .{before}() and again with "
                    f".{method}(); the last one set wins. .{canonical}() is the canonical "
                    f"spelling (.{field}() is ADK's field name): set it once.",
                    AdkFluentWarning,
                    stacklevel=stacklevel,  # the user's line: through .instruct() or the setter
                )
        if field not in installed_fields(self._ADK_CLASS):
            self._check_field(field)
        state.pop("_ir", None)
        state["_fields"] = {**fields, field: value}
        if method == field:  # ADK's spelling set it last
            if field not in adk_spelt:
                state["_adk_spelt"] = adk_spelt | {field}
        elif adk_spelt and field in adk_spelt:
            state["_adk_spelt"] = adk_spelt - {field}
        new = object.__new__(type(self))
        new.__dict__ = state
        return new

    # -- IR ---------------------------------------------------------------------------------
    def _extra_values(
        self, values: dict[str, Any], reads: frozenset[str], writes: frozenset[str]
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The node fields of the declarations, the C spec, the content spec, the model policy
        and the delegates, put in `values`; the keys read and written with theirs added."""
        if self._consumes is not None or self._produces is not None:
            declared = self._declared_fields()  # .produces() / .consumes() / .writes() / .reads()
            reads |= declared.pop("reads_keys", _NO_KEYS)
            writes |= declared.pop("writes_keys", _NO_KEYS)
            values.update(declared)
        if self._context is not None:
            reads |= self._context.reads_keys
            values["context"] = self._context
        if self._content is not None:
            values["content_spec"] = self._content
        selector = self._model_selector
        if selector is not None:
            if selector.name != self._name:  # .clone('new_name') after .model_select()
                selector = replace(selector, name=self._name)
            reads |= selector.reads_keys  # the budget key: the contract checker sees the read
            values["model_selector"] = selector
        if self._delegates:
            values["children"] = tuple(agent.to_ir() for agent in self._delegates)
        return reads, writes

    def _build_ir(self) -> LlmAgentNode:
        """The frozen IR node, with the state keys this agent reads and writes; only what was
        set is passed (the node's class defaults stand for the rest)."""
        state = self.__dict__
        name, fields = state["_name"], state["_fields"]
        # what the methods below the fields set (.inject(), .context(), .reads(), .show(), ...)
        # is kept in the instance only when set: an agent without any is read no further
        extras = len(state) > 2 and not state.keys() <= _BARE_STATE  # (2: _name and _fields)
        if "model" in fields:  # .model(...) (the generated setter) is checked here
            model = fields["model"]
            if type(model) is not str or not model.strip():  # a model name needs no more
                _check_model(name, model)
        tools = fields.get("tools")
        if tools:
            # .tools(...) (the generated setter) is checked here; .tool() checked its own
            unchecked = state.get("_unchecked_tools")
            if unchecked:
                for index in sorted(unchecked):
                    _check_tool(name, tools[index], tools[:index])
            for tool in tools:  # plain functions, most tools, are no agents
                if type(tool) is not FunctionType and (
                    isinstance(tool, _AGENT_TOOLS) or is_adk_agent_tool(tool)
                ):
                    fields = {**fields, "tools": tuple(_tool_ir(name, t) for t in tools)}
                    break
        if extras and self._resources:  # .inject(): copies of the tools that take a resource
            tools = inject_tools(name, fields.get("tools", ()), self._resources)
            fields = {**fields, "tools": tools}
        # the node, filled as LlmAgentNode.of(name, values) fills it (without a dict to copy):
        # the fields and the node fields below, all known, so not checked again
        node = object.__new__(LlmAgentNode)
        values = node.__dict__
        values["name"] = name
        values.update(fields)
        reads = _NO_KEYS
        instruction = fields.get("instruction")
        if instruction is not None:  # .instruction(...) (the generated setter) is checked here
            if isinstance(instruction, str):
                reads = text_reads(instruction)
            else:
                _check_instruction(name, instruction)
        output_key = fields.get("output_key")
        # an output_schema adds no keys: ADK stores the whole object in state[output_key]
        writes = frozenset((output_key,)) if isinstance(output_key, str) else _NO_KEYS
        if extras:
            reads, writes = self._extra_values(values, reads, writes)
        if reads:
            values["reads_keys"] = reads
        if writes:
            values["writes_keys"] = writes
        if extras and self._visibility is not None:
            values["visibility"] = self._visibility
        return node
