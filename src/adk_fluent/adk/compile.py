"""IR -> native ADK agents: the Compiler, a NodeVisitor with one case per node type.

Generated nodes compile through the generated compile table (only the fields the user set);
adk-fluent's own nodes compile to the agents in `adk/custom_agents`. ADK's validation
errors come back as BuildErrors naming the agent and the field.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from types import FunctionType, GeneratorType
from typing import Any, NamedTuple, cast

from adk_fluent_generated.compile_cases import FIELD_KINDS, compile_kwargs
from pydantic import ValidationError

from adk_fluent.adk.compat import (
    adk_version,
    asks_confirmation,
    installed_class,
    presigned,
    quiet_workflow_copies,
    quiet_workflow_deprecation,
    workflow_agents_warn,
)
from adk_fluent.errors import (
    BuildError,
    DuplicateNameError,
    EmptyCompositeError,
    describe_value,
    install_extra,
    with_article,
)
from adk_fluent.ir import nodes as ir
from adk_fluent.ir.nodes import body_output_key, iter_paths
from adk_fluent.ir.state_keys import gate_state_key

# ADK 1.x calls agent callbacks with keyword arguments (callback_context=..., llm_request=...);
# 2.x binds them by keyword when the names fit and positionally (in this order) otherwise. We
# give every release the same rule, so `def cb(ctx, request)` works on every supported ADK.
_CALLBACK_PARAM_ORDER = (
    "tool",
    "args",
    "tool_context",
    "response",
    "tool_response",
    "callback_context",
    "llm_request",
    "llm_response",
    "error",
)

# The keywords ADK passes to each agent callback (the same from 1.25 to 2.x). A callback that
# accepts them is passed to ADK as it is; any other is wrapped to bind positionally when the
# keywords do not fit, which is what 2.x does itself, so no release needs to be asked.
_CALLBACK_KEYWORDS = {
    "before_agent_callback": ("callback_context",),
    "after_agent_callback": ("callback_context",),
    "before_model_callback": ("callback_context", "llm_request"),
    "after_model_callback": ("callback_context", "llm_response"),
    "on_model_error_callback": ("callback_context", "llm_request", "error"),
    "before_tool_callback": ("tool", "args", "tool_context"),
    "after_tool_callback": ("tool", "args", "tool_context", "tool_response"),
    "on_tool_error_callback": ("tool", "args", "tool_context", "error"),
}

# every callback field of the ADK classes compiled from generated nodes (their kwargs hold no
# other field whose name ends with _callback)
_CALLBACK_FIELDS = frozenset(
    field for kinds in FIELD_KINDS.values() for field in kinds if field.endswith("_callback")
)

# agent name -> the model to use instead (scripted models), or None for the agent's own
ModelFor = Callable[[str], Any]


class TreeNames(NamedTuple):
    """What a walk of a tree found about its names (see check_names)."""

    taken: frozenset[str]  # the agents' names
    duplicate: str | None  # the first name used twice, if one is
    gated: bool  # whether the tree holds a gate (most hold none: no subtree needs searching)


def check_names(root: ir.Node) -> set[str]:
    """Every agent name must be unique in one tree: ADK finds agents (and transfers) by name.
    Returns the names taken.

    Zero-cost steps (state steps, taps, loop checks) are exempt: compile makes their names unique.
    So is one agent-tool tree used by several agents (equal trees: the same tool); the agents
    inside a native custom agent count too.
    """
    names = _tree_names(root)
    if names.duplicate is not None:
        _duplicate(root, names.duplicate)
    return set(names.taken)


def check_tree_names(root: ir.Node) -> None:
    """The check of a tree to_ir just made: two different state steps given one name by
    `.named()` (ADK's events, diagrams and errors would name them alike), or a step named like
    an agent of the tree, is a BuildError now. The walk also finds the agent names, which are
    kept on the root for the compiler (check_names): one walk of the tree for both."""
    object.__setattr__(root, "_names", _tree_names(root, steps=True))


def _tree_names(root: ir.Node, *, steps: bool = False) -> TreeNames:
    """check_names' walk, which also finds the gates and, with `steps`, checks the names given
    to state steps (only state steps can be named by hand, and a step's default name is derived
    from its record, so the IR tells which names were given)."""
    known: TreeNames | None = getattr(root, "_names", None)
    if known is not None and not steps:
        return known
    taken: dict[str, ir.Node] = {}
    given: dict[str, ir.Node] = {}
    in_tools: set[int] | None = None  # the nodes of agent-tool trees, found at the first repeat
    duplicate: str | None = None
    gated = False
    stack = [root]
    while stack:  # root.walk(), written out: the one walk of every new tree (a loop per node)
        node = stack.pop()
        for tool in node.__dict__.get("tools", ()):  # (attached's own fast path, asked first)
            if type(tool) is not FunctionType or "agent" in tool.__dict__:
                attached = node.attached
                if attached:
                    stack.extend(reversed(attached))
                break
        children = node.children
        if children:
            stack.extend(reversed(children))
        if type(node) is ir.LlmAgentNode and duplicate is None:  # most nodes: an agent
            name = node.name
            if name not in taken:
                taken[name] = node
                continue
        if node.PAUSES_RUN:
            gated = True
        if node.ZERO_COST:
            if steps and isinstance(node, ir.TransformNode):
                _given_step_name(node, given)
            continue
        if duplicate is not None or isinstance(node, ir.BoundaryNode):  # compiles to nothing
            continue
        if isinstance(node, ir.NativeAgentNode):
            names: tuple[str, ...] = node.agent_names
        else:
            name = node.name
            if name not in taken:  # most nodes: a name not seen yet
                taken[name] = node
                continue
            names = (name,)
        for name in names:
            first = taken.get(name)
            if first is None:
                taken[name] = node
                continue
            if in_tools is None:
                in_tools = {id(n) for tree in _tool_trees(root) for n in tree.walk()}
            if not (first == node and id(first) in in_tools and id(node) in in_tools):
                duplicate = name
                break
    if given:
        agents = {node.name for node in root.walk() if not node.ZERO_COST}
        for name in sorted(given.keys() & agents):
            raise BuildError(
                "a step has the name of an agent in the same tree",
                agent=name,
                field="name",
                hint=f"rename the step, e.g. .named('{name}_step').",
            )
    return TreeNames(frozenset(taken), duplicate, gated)


def _given_step_name(node: ir.TransformNode, given: dict[str, ir.Node]) -> None:
    """Note a step's name given by hand; two different steps given one name are an error."""
    if node.name == node.step.default_name():
        return
    if given.setdefault(node.name, node) != node:
        raise BuildError(
            "two different steps are named alike",
            agent=node.name,
            field="name",
            hint=f"give each step its own name, e.g. .named('{node.name}_2'); "
            "reusing one step value twice is fine.",
        )


def _tool_trees(root: ir.Node) -> list[ir.Node]:
    return [tree for node in root.walk() for tree in node.attached]


def _duplicate(root: ir.Node, name: str) -> None:
    paths = [
        " > ".join(path if node.name == name else (*path, name))
        for path, node in iter_paths(root)
        if node.name == name or (isinstance(node, ir.NativeAgentNode) and name in node.agent_names)
    ]
    raise DuplicateNameError(
        f"the name is used twice in one tree: at {paths[0]} and at {paths[1]}",
        agent=name,
        field="name",
        hint=_rename_hint(root, name),
    )


def _rename_hint(root: ir.Node, name: str) -> str:
    """How to rename the duplicated node: each kind is renamed its own way."""
    kinds = {type(node) for node in root.walk() if node.name == name}
    if kinds and kinds <= {ir.LlmAgentNode, ir.RemoteAgentNode}:
        return f"rename one, e.g. with .clone('{name}_2')."
    if kinds & {ir.SequentialAgentNode, ir.ParallelAgentNode, ir.LoopAgentNode}:
        return f"rename one, e.g. with .named('{name}_2') (agents: .clone('{name}_2'))."
    if kinds & {ir.LlmAgentNode, ir.NativeAgentNode}:
        return f"rename one, e.g. with .clone('{name}_2'), or name composites with .named(...)."
    # steps (gate, tap, timeout, race, map_over, S steps) take their name when made
    return f"give one step its own name when you make it, e.g. name='{name}_2'."


def _validation_error(node: ir.Node, error: Any) -> BuildError:
    problems = []
    field = None
    for item in error.errors():
        loc = ".".join(str(p) for p in item.get("loc", ()))
        field = field or (loc.split(".")[0] if loc else None)
        value = item.get("input")
        shown = repr(value) if not isinstance(value, dict) else "{...}"
        problems.append(f"{item.get('msg')} (got {shown[:80]})" if loc else str(item.get("msg")))
    return BuildError(
        "; ".join(problems),
        agent=node.name,
        field=field,
        hint=f"ADK's {getattr(node, 'ADK_CLASS', 'agent')} rejected this value; see the setter's docstring for the accepted type.",
    )


def _bind_like_adk2(fn: Callable[..., Any]) -> Callable[..., Any]:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            ordered = sorted(kwargs.items(), key=lambda item: _param_rank(item[0]))
            return fn(*args, *(value for _, value in ordered))
        return fn(*args, **kwargs)

    return call


def _param_rank(name: str) -> int:
    return (
        _CALLBACK_PARAM_ORDER.index(name)
        if name in _CALLBACK_PARAM_ORDER
        else len(_CALLBACK_PARAM_ORDER)
    )


def callback_keywords(field: str) -> tuple[str, ...] | None:
    """The arguments ADK passes (by keyword) to an agent callback field; None if not one."""
    return _CALLBACK_KEYWORDS.get(field)


def takes_keywords(fn: Callable[..., Any], keywords: tuple[str, ...] | None) -> bool:
    """Whether ADK's keyword call for this callback field binds to `fn` as it is."""
    if keywords is None:
        return False  # a callback field we do not know: wrapping is always safe
    try:
        inspect.signature(fn).bind(**dict.fromkeys(keywords))
    except (TypeError, ValueError):
        return False
    return True


def _adapt_callbacks(kwargs: dict[str, Any], agent: str) -> None:
    for field, value in list(kwargs.items()):
        if not field.endswith("_callback") or value is None:
            continue
        keywords = _CALLBACK_KEYWORDS.get(field)
        items = value if isinstance(value, list) else [value]
        adapted = [_adapted(f, field, agent, bind=not takes_keywords(f, keywords)) for f in items]
        kwargs[field] = adapted if isinstance(value, list) else adapted[0]


# What an agent or model callback may return: None, or the one ADK class it uses instead (any
# other value makes ADK fail deep inside: an after_model callback's str is "AttributeError: 'str'
# object has no attribute 'content'", a before_agent callback's str a pydantic trace). Tool
# callbacks are not listed: ADK takes any value from them as the tool's result, as from a tool.
_CALLBACK_RETURNS = {
    "before_agent_callback": ("Content", "run the agent", "skip it: that Content is its reply"),
    "after_agent_callback": ("Content", "keep the agent's reply", "add that Content as a reply"),
    "before_model_callback": ("LlmResponse", "call the model", "skip the call: it is the reply"),
    "after_model_callback": ("LlmResponse", "keep the model's response", "replace it"),
    "on_model_error_callback": ("LlmResponse", "raise the error", "answer instead"),
}


def _adapted(fn: Callable[..., Any], field: str, agent: str, *, bind: bool) -> Callable[..., Any]:
    """A callback as ADK gets it: bound like ADK 2.x when ADK's keywords do not fit it, and for
    an agent or model callback, its return value checked (one wrapper, `__wrapped__` is `fn`)."""
    call = _bind_like_adk2(fn) if bind else fn
    if field not in _CALLBACK_RETURNS:
        return call

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        result = call(*args, **kwargs)
        if inspect.isawaitable(result):
            return _checked_later(result, fn, field, agent)
        return _checked_return(result, fn, field, agent)

    return presigned(checked)


async def _checked_later(result: Any, fn: Any, field: str, agent: str) -> Any:
    return _checked_return(await result, fn, field, agent)


def _checked_return(value: Any, fn: Any, field: str, agent: str) -> Any:
    """`value` when ADK can use it as what the callback `fn` returns; else a BuildError naming
    the agent, the callback, what it returned and what it may return."""
    if value is None:
        return value
    from google.adk.models.llm_response import LlmResponse
    from google.genai.types import Content

    expected, none_means, value_means = _CALLBACK_RETURNS[field]
    if isinstance(value, Content if expected == "Content" else LlmResponse):
        return value
    kind = field.removesuffix("_callback")
    name = getattr(fn, "__name__", None)
    label = f"'{name}'" if name and name != "<lambda>" else "(a lambda)"
    if type(value).__name__ == "LlmRequest":
        hint = "change llm_request in place and return None."
    elif expected == "Content":
        hint = (
            "e.g. return types.Content(role='model', parts=[types.Part(text='...')]) "
            "(from google.genai import types), or None."
        )
    else:
        hint = (
            "e.g. return LlmResponse(content=types.Content(role='model', "
            "parts=[types.Part(text='...')])) (from google.adk.models import LlmResponse), or "
            "change llm_response in place and return None."
            if kind == "after_model"
            else "e.g. return LlmResponse(content=types.Content(role='model', "
            "parts=[types.Part(text='...')])) (from google.adk.models import LlmResponse), or None."
        )
    raise BuildError(
        f"the {kind} callback {label} returned {describe_value(value)}; it may return None "
        f"({none_means}) or {with_article(expected)} ({value_means})",
        agent=agent,
        field=field,
        hint=hint,
    )


def _let_the_model_hear_the_user(kwargs: dict[str, Any]) -> None:
    """A model that asks for it (a scripted one: adk_fluent.testing.user_message) is told, last
    before each of its calls, the user's message of the run it answers: a model request holds
    it only among user-role contents that other agents' replies share."""
    hook = getattr(kwargs.get("model"), "note_user_message", None)
    if not callable(hook):
        return
    existing = kwargs.get("before_model_callback")
    callbacks = [] if existing is None else existing if isinstance(existing, list) else [existing]
    kwargs["before_model_callback"] = [*callbacks, presigned(hook)]


def _install_context(node: ir.LlmAgentNode, kwargs: dict[str, Any]) -> None:
    """A C spec becomes the first before-model callback, which sets the request's contents."""
    if not node.context.needs_view:
        return
    if "include_contents" in kwargs:
        raise BuildError(
            "both .context(...) and .include_contents(...) are set",
            agent=node.name,
            field="include_contents",
            hint="use one: C.none() replaces include_contents='none'.",
        )
    from adk_fluent.adk.context_view import ContextView

    existing = kwargs.get("before_model_callback")
    callbacks = [] if existing is None else existing if isinstance(existing, list) else [existing]
    kwargs["before_model_callback"] = [presigned(ContextView(node.context, node.name)), *callbacks]


def gates_in(node: ir.Node) -> frozenset[str]:
    """The names of the gates in a subtree (most subtrees are a single agent: no walk)."""
    if not node.children:
        return frozenset({node.name}) if node.PAUSES_RUN else frozenset()
    return frozenset(n.name for n in node.walk() if n.PAUSES_RUN)


# Where a gate cannot sit, and why: each of these runs its body in a way a pause cannot resume.
_NO_GATE_INSIDE = {
    "map_over": "map_over runs its body once per item and cannot resume at one item's gate",
    "race": "race runs each alternative on a private copy of the session and discards the losers",
    "timeout": "a timeout's clock cannot wait across turns for a person's reply",
    "fallback": "a fallback re-runs the next alternative from scratch when one fails",
    "delegates": "an agent's transfer targets are chosen by the model at run time",
    "agent tool": "an agent tool runs in a sub-run of its own, which ends with the tool call",
    "first_complete": "first_complete cancels the other branches when one finishes, and a "
    "branch cancelled while its gate waits could never resume",
    "merge": "a merging FanOut stores its merge once every branch has ended, which a branch "
    "waiting for a later turn would postpone past the end of the turn",
    "chunked edge": "a chunked edge runs its consumer while the producer is still writing, "
    "and neither can stop there for a person's reply",
}


_PLACES = {
    "delegates": "a transfer target of agent",
    "agent tool": "an agent tool of agent",
    "first_complete": "the first_complete FanOut",
    "merge": "the merging FanOut",
}
# what the hint asks to move the gate out of, where it is not the kind itself
_OUT_OF = {
    "delegates": "agent",
    "agent tool": "agent",
    "first_complete": "FanOut",
    "merge": "FanOut",
}


def _refuse_gates(node: ir.Node, children: tuple[ir.Node, ...], kind: str) -> None:
    names = sorted(set().union(*(gates_in(child) for child in children)))
    if not names:
        return
    raise BuildError(
        f"gate '{names[0]}' sits inside "
        f"{_PLACES.get(kind, kind)} '{node.name}': "
        f"{_NO_GATE_INSIDE[kind]}",
        agent=node.name,
        field="gate",
        hint=f"move the gate out of the {_OUT_OF.get(kind, kind)}: put it "
        "before or after it in a pipeline "
        "(gates work in pipelines, loops, FanOut branches and Route branches).",
    )


def _refuse_confirmations(node: ir.Node, tree: ir.Node) -> None:
    """A tool that asks a person to confirm each call cannot work inside an agent tool: the
    sub-run ends with the tool call, so nobody is asked and the function never runs."""
    for inner in tree.walk():
        for tool in getattr(inner, "tools", None) or ():
            if asks_confirmation(tool):
                name = getattr(tool, "name", "?")
                raise BuildError(
                    f"tool '{name}' of agent '{inner.name}' asks for confirmation, but "
                    f"'{inner.name}' runs inside an agent tool of agent '{node.name}', whose "
                    "sub-run cannot pause for a person's reply (the call would never run)",
                    agent=inner.name,
                    field="tools",
                    hint=f"give the confirmed tool to '{node.name}' itself, or ask before it "
                    "with a gate in the pipeline.",
                )


class Around(NamedTuple):
    """What is around the node being compiled (the compiler's walk carries it down)."""

    loops: tuple[str, ...] = ()  # the gated loops (of this run): a gate names them
    in_loop: bool = False  # a loop of this run (exit_when needs one)
    inside: bool = False  # the Workflow target: an agent node runs it, so it is no graph


class Compiler(ir.NodeVisitor[Around, Any]):
    """One compilation: model overrides and unique names for repeated zero-cost steps."""

    def __init__(self, root: ir.Node, model_for: ModelFor | None) -> None:
        self.model_for = model_for
        names = _tree_names(root)
        if names.duplicate is not None:
            _duplicate(root, names.duplicate)
        self.taken, self.gated = set(names.taken), names.gated
        self.renamed: dict[str, str] = {}  # compiled name -> IR name, for repeated zero-cost steps

    def gates_in(self, node: ir.Node) -> frozenset[str]:
        """`gates_in(node)`, without a walk when the tree holds no gate at all."""
        return gates_in(node) if self.gated else frozenset()

    def unique(self, name: str) -> str:
        candidate, counter = name, 2
        while candidate in self.taken:
            candidate, counter = f"{name}_{counter}", counter + 1
        self.taken.add(candidate)
        self.renamed[candidate] = name
        return candidate

    def children(self, node: ir.Node, around: Around) -> ir.Walk[Around, list[Any]]:
        compiled = []
        for child in node.children:
            # the child's case called here: a leaf's agent comes back at once, and a case that
            # walks on is run on the visitor's stack (see NodeVisitor)
            result = getattr(self, child.VISIT)(child, around)
            if isinstance(result, GeneratorType):
                result = yield cast(Any, result)
            compiled.append(result)
        return compiled

    def visit(self, node: ir.Node, ctx: Around) -> Any:
        """The compiled tree (the walk itself never recurses: see the generated NodeVisitor)."""
        try:
            return super().visit(node, ctx)
        except RecursionError:  # ADK's agents check their sub-agents' names recursively
            raise BuildError(
                f"'{node.name}' is nested too deep for google-adk {adk_version()}: its agents "
                "check their sub-agents' names recursively, past Python's recursion limit",
                agent=node.name,
                field="sub_agents",
                hint="nest fewer levels (a >> b >> c is one pipeline of three steps, "
                "Pipeline(Pipeline(a, b), c) a nesting), or raise the limit with "
                "sys.setrecursionlimit() before building.",
            ) from None

    def compile(self, node: ir.Node) -> Any:
        """Compile a tree into its native ADK root agent.

        ADK 2.x warns that the workflow agents are deprecated whenever one is constructed; the
        user asked for a Pipeline, not for that compile target, so the one message is silenced
        while this compilation constructs them (once for the tree, not once per composite).
        """
        if not workflow_agents_warn():
            return self.visit(node, Around())
        quiet_workflow_copies()  # ADK copies them again as it runs them
        with quiet_workflow_deprecation():
            return self.visit(node, Around())

    # -- ADK's own agent classes -------------------------------------------------------------
    def _adk_agent(
        self,
        node: Any,
        around: Around,
        gate_aware: type | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ir.Walk[Around, Any]:
        """A native ADK agent, or (for a composite that contains a gate, or a FanOut that
        merges) `gate_aware`, built from the same fields (plus `extra`, its own), so its
        callbacks and description carry over."""
        class_name = node.ADK_CLASS
        if not node.children and class_name != "LlmAgent":
            raise EmptyCompositeError(f"{class_name} has no sub-agents", agent=node.name)
        if class_name == "LlmAgent" and node.children:
            _refuse_gates(node, node.children, "delegates")
        sub_agents = yield from self.children(node, around)
        tools = None
        if isinstance(node, ir.LlmAgentNode) and node.attached:
            tools = yield from self.tools(node, around)
        return self._construct(node, sub_agents, tools, gate_aware, extra)

    def _construct(
        self,
        node: Any,
        sub_agents: list[Any],
        tools: list[Any] | None,
        gate_aware: type | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Any:
        """The native agent of `node`, its sub-agents and agent tools already compiled."""
        class_name = node.ADK_CLASS
        kwargs = compile_kwargs(class_name, node, sub_agents)
        if not _CALLBACK_FIELDS.isdisjoint(kwargs):  # most agents: no callback set
            _adapt_callbacks(kwargs, node.name)
        if isinstance(node, ir.LlmAgentNode):
            if tools is not None:
                kwargs["tools"] = tools
            model = self.model_for(node.name) if self.model_for is not None else None
            if node.model_selector is not None:  # before the C view, which goes in front of it
                from adk_fluent.adk.model_selection import install_model_selection

                install_model_selection(node, kwargs, scripted=model is not None)
            if node.context is not None:
                _install_context(node, kwargs)
            if model is not None:
                kwargs["model"] = model
            if type(kwargs.get("model")) is not str:  # a model name has no hook to ask for
                _let_the_model_hear_the_user(kwargs)
        if extra:
            kwargs.update(extra)
        try:
            return (gate_aware or installed_class(class_name))(**kwargs)
        except ValidationError as error:
            raise _validation_error(node, error) from None

    def tools(self, node: ir.LlmAgentNode, around: Around) -> ir.Walk[Around, list[Any]]:
        """An LLM agent's tools, its agent tools compiled (each tree to a native agent of its
        own, with the same model overrides) into ADK's AgentTool."""
        from adk_fluent.adk.native import build_agent_tool

        compiled = []
        for tool in node.tools:
            if isinstance(tool, ir.AgentToolSpec):
                _refuse_gates(node, (tool.agent,), "agent tool")
                _refuse_confirmations(node, tool.agent)
                # the tool's run is a run of its own: no loop of this one is around it
                agent = yield tool.agent, Around(inside=around.inside)
                compiled.append(build_agent_tool(agent, tool.options))
            else:
                compiled.append(tool)
        return compiled

    def visit_llm_agent(self, node: ir.LlmAgentNode, around: Around) -> Any:
        if node.children:
            return self._adk_agent(node, around)
        for tool in node.__dict__.get("tools", ()):
            if isinstance(tool, ir.AgentToolSpec):  # the tools this compiler compiles (tools())
                return self._adk_agent(node, around)
        return self._construct(node, [], None)  # most agents: nothing under them to walk

    def visit_native_agent(self, node: ir.NativeAgentNode, around: Around) -> Any:
        from adk_fluent.adk.native import compile_native

        return compile_native(node, self.model_for)

    def visit_remote_agent(self, node: ir.RemoteAgentNode, around: Around) -> Any:
        if node.queued:  # a pool of queue workers serves it (to_apps with a redis:// URL)
            from adk_fluent.adk.custom_agents.queued import QueuedBoundaryAgent

            return QueuedBoundaryAgent(
                name=node.name,
                description=node.description,
                url=node.card,
                service=node.service or node.name,
                timeout=node.timeout,
                sends=tuple(sorted(node.reads_keys)),
                receives=tuple(sorted(node.writes_keys)),
            )
        try:
            from adk_fluent.adk.custom_agents.remote import FluentRemoteAgent
        except ImportError as error:
            raise BuildError(
                f"RemoteAgent needs ADK's A2A support, which failed to import ({error})",
                agent=node.name,
                field="card",
                hint=f"install the a2a extra: {install_extra('a2a')}.",
            ) from None
        card: Any = node.card
        if node.card_json is not None:
            from a2a.types import AgentCard

            card = AgentCard.model_validate_json(node.card_json)
        with warnings.catch_warnings():  # ADK marks all of its A2A support experimental
            warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)
            return FluentRemoteAgent(
                name=node.name,
                agent_card=card,
                description=node.description,
                timeout=node.timeout,
                sends=tuple(sorted(node.reads_keys)),
                receives=tuple(sorted(node.writes_keys)),
                card_source=node.card,
                connection=node.connection,
            )

    def visit_boundary(self, node: ir.BoundaryNode, around: Around) -> ir.Walk[Around, Any]:
        """In one process a boundary changes nothing: its sub-tree runs in place."""
        return (yield node.children[0], around)

    # Composites without a gate compile to ADK's own agents, exactly as written; with a gate
    # inside, to adk-fluent's gate-aware ones, which stop at a waiting gate and resume there.
    def visit_sequential_agent(
        self, node: ir.SequentialAgentNode, around: Around
    ) -> ir.Walk[Around, Any]:
        if not self.gates_in(node):
            return self._adk_agent(node, around)
        from adk_fluent.adk.custom_agents.gates import GatedSequenceAgent

        return self._adk_agent(node, around, GatedSequenceAgent)

    def visit_parallel_agent(
        self, node: ir.ParallelAgentNode, around: Around
    ) -> ir.Walk[Around, Any]:
        if node.join is not None or node.merge is not None:
            return self._fanout(node, around)
        if not self.gates_in(node):
            return self._adk_agent(node, around)
        from adk_fluent.adk.custom_agents.gates import GatedParallelAgent

        return self._adk_agent(node, around, GatedParallelAgent)

    def visit_loop_agent(self, node: ir.LoopAgentNode, around: Around) -> ir.Walk[Around, Any]:
        around = around._replace(in_loop=True)
        if node.visibility == "final":  # Loop(...).show("final"): no gate inside (api/)
            from adk_fluent.adk.custom_agents.flow import final_round_loop_agent

            return self._adk_agent(node, around, final_round_loop_agent())
        if not self.gates_in(node):
            return self._adk_agent(node, around)
        from adk_fluent.adk.custom_agents.gates import GatedLoopAgent

        gated = around._replace(loops=(*around.loops, node.name))
        return self._adk_agent(node, gated, GatedLoopAgent)

    def _fanout(self, node: ir.ParallelAgentNode, around: Around) -> ir.Walk[Around, Any]:
        """A FanOut that merges its outputs or ends with its first finished branch."""
        from adk_fluent.adk.custom_agents.fanout import FanOutAgent

        _refuse_gates(node, node.children, "first_complete" if node.join else "merge")
        extra = {
            "join": node.join,
            "merge": node.merge,
            "branch_names": tuple(child.name for child in node.children),
            "output_keys": tuple(body_output_key(child) for child in node.children),
        }
        return self._adk_agent(node, around, FanOutAgent, extra)

    # -- adk-fluent's own nodes ----------------------------------------------------------------
    def visit_chunked_edge(self, node: ir.ChunkedEdgeNode, around: Around) -> ir.Walk[Around, Any]:
        from adk_fluent.adk.custom_agents.chunked import ChunkedEdgeAgent

        _refuse_gates(node, node.children, "chunked edge")
        producer, consumer = node.children
        return ChunkedEdgeAgent(
            name=node.name,
            by=node.by,
            key=node.key,
            buffer=node.buffer,
            output_key=body_output_key(consumer),
            sub_agents=(yield from self.children(node, around)),
        )

    def visit_fallback(self, node: ir.FallbackNode, around: Around) -> ir.Walk[Around, Any]:
        from adk_fluent.adk.custom_agents.steps import FallbackAgent

        _refuse_gates(node, node.children, "fallback")
        return FallbackAgent(name=node.name, sub_agents=(yield from self.children(node, around)))

    def visit_until(self, node: ir.UntilNode, around: Around) -> Any:
        from adk_fluent.adk.custom_agents.steps import UntilCheckAgent

        if not around.in_loop:
            raise BuildError(
                "exit_when() is not inside a loop: there is no loop for it to end",
                agent=node.name,
                field="step",
                hint="put it in a loop's body, e.g. Loop(writer >> exit_when(pred) >> editor); "
                "to stop a pipeline early, use a Route or a gate.",
            )

        return UntilCheckAgent(name=self.unique(node.name), predicate=node.predicate)

    def visit_transform(self, node: ir.TransformNode, around: Around) -> Any:
        from adk_fluent.adk.custom_agents.steps import StateStepAgent

        return StateStepAgent(name=self.unique(node.name), step=node.step)

    def visit_tap(self, node: ir.TapNode, around: Around) -> Any:
        from adk_fluent.adk.custom_agents.steps import TapAgent

        return TapAgent(name=self.unique(node.name), fn=node.fn)

    def visit_route(self, node: ir.RouteNode, around: Around) -> ir.Walk[Around, Any]:
        from adk_fluent.adk.custom_agents.flow import RouteAgent

        fields: dict[str, Any] = {
            "name": node.name,
            "key": node.key,
            "rules": node.rules,
            "has_otherwise": node.has_otherwise,
            "normalize": node.normalize,
            "sub_agents": (yield from self.children(node, around)),
        }
        branch_gates = tuple(self.gates_in(child) for child in node.children)
        if not any(branch_gates):
            return RouteAgent(**fields)
        from adk_fluent.adk.custom_agents.gates import GatedRouteAgent

        return GatedRouteAgent(**fields, branch_gates=branch_gates)

    def visit_map_over(self, node: ir.MapOverNode, around: Around) -> ir.Walk[Around, Any]:
        from adk_fluent.adk.custom_agents.flow import MapOverAgent

        _refuse_gates(node, node.children, "map_over")
        return MapOverAgent(
            name=node.name,
            list_key=node.list_key,
            item_key=node.item_key,
            output_key=node.output_key,
            body_output_key=body_output_key(node.children[0]),
            concurrency=node.concurrency,
            sub_agents=(yield from self.children(node, around)),
        )

    def visit_gate(self, node: ir.GateNode, around: Around) -> Any:
        from adk_fluent.adk.custom_agents.gates import APPROVE_WORDS, REJECT_WORDS, GateAgent

        approve = node.approve_words or APPROVE_WORDS
        reject = node.reject_words or REJECT_WORDS
        return GateAgent(
            name=node.name,
            predicate=node.predicate,
            message=node.message,
            state_key=gate_state_key(node.name),
            approve_words=approve,
            reject_words=reject,
            # the prompt names the words: all the user gave, or the first two defaults
            shown_approve=node.approve_words or APPROVE_WORDS[:2],
            shown_reject=node.reject_words or REJECT_WORDS[:2],
            loops=around.loops,
        )

    def visit_timeout(self, node: ir.TimeoutNode, around: Around) -> ir.Walk[Around, Any]:
        from adk_fluent.adk.custom_agents.concurrency import TimeoutAgent

        _refuse_gates(node, node.children, "timeout")
        children = yield from self.children(node, around)
        return TimeoutAgent(name=node.name, seconds=node.seconds, sub_agents=children)

    def visit_race(self, node: ir.RaceNode, around: Around) -> ir.Walk[Around, Any]:
        from adk_fluent.adk.custom_agents.concurrency import RaceAgent

        _refuse_gates(node, node.children, "race")
        return RaceAgent(name=node.name, sub_agents=(yield from self.children(node, around)))


def compile_tree(root: ir.Node, model_for: ModelFor | None = None) -> Any:
    """Check the tree, then compile it to the native ADK root agent."""
    return Compiler(root, model_for).compile(root)
