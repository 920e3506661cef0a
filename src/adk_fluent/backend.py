"""The ADK backend: IR -> native ADK agents -> App.

Generated nodes compile through the generated compile cases; adk-fluent's own nodes compile to
the module-level agents in native_agents. ADK's validation errors come back as BuildErrors
naming the agent and the field.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from adk_fluent_generated.compile_cases import COMPILE_CASES

from ._adk import adk_major, installed_class, quiet_workflow_deprecation
from .config import ExecutionConfig
from .errors import AdkFluentWarning, BuildError, DuplicateNameError, EmptyCompositeError
from .ir import (
    ZERO_COST_TYPES,
    FallbackNode,
    GateNode,
    LlmAgentNode,
    MapOverNode,
    Node,
    RaceNode,
    RouteNode,
    SequentialAgentNode,
    TapNode,
    TimeoutNode,
    TransformNode,
    UntilNode,
    body_output_key,
    gate_state_key,
    iter_paths,
    walk,
)

# ADK 1.x calls agent callbacks with keyword arguments (callback_context=..., llm_request=...);
# 2.x binds them by keyword when the names fit and positionally (in this order) otherwise. We
# give 1.x the same rule, so `def cb(ctx, request)` works on every supported ADK.
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

# agent name -> the model to use instead (scripted models), or None for the agent's own
ModelFor = Callable[[str], Any]


def check_names(root: Node) -> None:
    """Every agent name must be unique in one tree: ADK finds agents (and transfers) by name.

    Zero-cost steps (state steps, taps, loop checks) are exempt: compile makes their names unique.
    """
    seen: dict[str, tuple[str, ...]] = {}
    for path, node in iter_paths(root):
        if isinstance(node, ZERO_COST_TYPES):
            continue
        if node.name in seen:
            first = " > ".join(seen[node.name])
            second = " > ".join(path)
            raise DuplicateNameError(
                f"the name is used twice in one tree: at {first} and at {second}",
                agent=node.name,
                field="name",
                hint=f"rename one, e.g. with .clone('{node.name}_2'), or name composites with .named(...).",
            )
        seen[node.name] = path


def _validation_error(node: Node, error: Any) -> BuildError:
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


def _adapt_callbacks(kwargs: dict[str, Any]) -> None:
    if adk_major() >= 2:
        return
    for field, value in kwargs.items():
        if field.endswith("_callback") and value is not None:
            kwargs[field] = (
                [_bind_like_adk2(f) for f in value]
                if isinstance(value, list)
                else _bind_like_adk2(value)
            )


def _mark_gated(node: Node, gated: set[int]) -> bool:
    found = isinstance(node, GateNode)
    for child in getattr(node, "children", ()) or ():
        found = _mark_gated(child, gated) or found
    if found:
        gated.add(id(node))
    return found


class _Compiler:
    """One compilation: model overrides and unique names for repeated zero-cost steps."""

    def __init__(self, root: Node, model_for: ModelFor | None) -> None:
        self.model_for = model_for
        self.taken = {n.name for n in walk(root) if not isinstance(n, ZERO_COST_TYPES)}
        self.renamed: dict[str, str] = {}  # compiled name -> IR name, for repeated zero-cost steps
        self.gated: set[int] = set()  # ids of nodes with a gate somewhere below (one pass)
        _mark_gated(root, self.gated)

    def unique(self, name: str) -> str:
        candidate, counter = name, 2
        while candidate in self.taken:
            candidate, counter = f"{name}_{counter}", counter + 1
        self.taken.add(candidate)
        self.renamed[candidate] = name
        return candidate

    def children(self, node: Node) -> list[Any]:
        return [self.compile(child) for child in node.children]

    def compile(self, node: Node) -> Any:
        """Compile one IR node (and its children) into a native ADK agent."""
        if type(node) in COMPILE_CASES:
            return self._adk_node(node)
        handler = _HANDWRITTEN.get(type(node))
        if handler is None:
            raise BuildError(
                f"no compile case for IR node type {type(node).__name__}",
                agent=getattr(node, "name", None),
            )
        return handler(self, node)

    def _adk_node(self, node: Node) -> Any:
        from pydantic import ValidationError

        if not node.children and node.ADK_CLASS != "LlmAgent":
            raise EmptyCompositeError(f"{node.ADK_CLASS} has no sub-agents", agent=node.name)
        if isinstance(node, SequentialAgentNode) and id(node) in self.gated:
            return _gated_sequence(self, node)
        class_name, case = COMPILE_CASES[type(node)]
        kwargs = case(node, self.children(node))
        _adapt_callbacks(kwargs)
        if isinstance(node, LlmAgentNode) and node.context is not None:
            _install_context(node, kwargs)
        if isinstance(node, LlmAgentNode) and self.model_for is not None:
            model = self.model_for(node.name)
            if model is not None:
                kwargs["model"] = model
        try:
            cls = installed_class(class_name)
            if class_name == "LlmAgent" or adk_major() < 2:
                return cls(**kwargs)
            with quiet_workflow_deprecation():  # only ADK 2.x's workflow agents warn
                return cls(**kwargs)
        except ValidationError as error:
            raise _validation_error(node, error) from None


def _install_context(node: LlmAgentNode, kwargs: dict[str, Any]) -> None:
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
    from .context_view import ContextView

    existing = kwargs.get("before_model_callback")
    callbacks = [] if existing is None else existing if isinstance(existing, list) else [existing]
    kwargs["before_model_callback"] = [ContextView(node.context, node.name), *callbacks]


def _fallback(c: _Compiler, node: FallbackNode) -> Any:
    from .native_agents import FallbackAgent

    return FallbackAgent(name=node.name, sub_agents=c.children(node))


def _until(c: _Compiler, node: UntilNode) -> Any:
    from .native_agents import UntilCheckAgent

    return UntilCheckAgent(name=c.unique(node.name), predicate=node.predicate)


def _transform(c: _Compiler, node: TransformNode) -> Any:
    from .native_agents import StateStepAgent

    return StateStepAgent(name=c.unique(node.name), op=node.op, args=node.args)


def _tap(c: _Compiler, node: TapNode) -> Any:
    from .native_agents import TapAgent

    return TapAgent(name=c.unique(node.name), fn=node.fn)


def _route(c: _Compiler, node: RouteNode) -> Any:
    from .native_flow import RouteAgent

    return RouteAgent(
        name=node.name,
        key=node.key,
        rules=node.rules,
        has_otherwise=node.has_otherwise,
        normalize=node.normalize,
        sub_agents=c.children(node),
    )


def _map_over(c: _Compiler, node: MapOverNode) -> Any:
    from .native_flow import MapOverAgent

    return MapOverAgent(
        name=node.name,
        list_key=node.list_key,
        item_key=node.item_key,
        output_key=node.output_key,
        body_output_key=body_output_key(node.children[0]),
        concurrency=node.concurrency,
        sub_agents=c.children(node),
    )


def _gate(c: _Compiler, node: GateNode) -> Any:
    from .native_flow import APPROVE_WORDS, REJECT_WORDS, GateAgent

    return GateAgent(
        name=node.name,
        predicate=node.predicate,
        message=node.message,
        state_key=gate_state_key(node.name),
        approve_words=node.approve_words or APPROVE_WORDS,
        reject_words=node.reject_words or REJECT_WORDS,
    )


def _gated_sequence(c: _Compiler, node: SequentialAgentNode) -> Any:
    from .native_flow import GatedSequenceAgent

    keys = tuple(
        tuple(gate_state_key(n.name) for n in walk(child) if isinstance(n, GateNode))
        for child in node.children
    )
    return GatedSequenceAgent(name=node.name, sub_agents=c.children(node), gate_keys=keys)


def _timeout(c: _Compiler, node: TimeoutNode) -> Any:
    from .native_concurrency import TimeoutAgent

    return TimeoutAgent(name=node.name, seconds=node.seconds, sub_agents=c.children(node))


def _race(c: _Compiler, node: RaceNode) -> Any:
    from .native_concurrency import RaceAgent

    return RaceAgent(name=node.name, sub_agents=c.children(node))


_HANDWRITTEN: dict[type, Callable[[_Compiler, Any], Any]] = {
    FallbackNode: _fallback,
    UntilNode: _until,
    TransformNode: _transform,
    TapNode: _tap,
    RouteNode: _route,
    MapOverNode: _map_over,
    GateNode: _gate,
    TimeoutNode: _timeout,
    RaceNode: _race,
}


def compile_tree(root: Node, model_for: ModelFor | None = None) -> Any:
    """Check the tree, then compile it to the native ADK root agent."""
    check_names(root)
    return _Compiler(root, model_for).compile(root)


def _visibility_plugin(root: Node, compiler: _Compiler, mode: str) -> Any:
    from .visibility import infer_visibility_table, silent_internal_agents
    from .visibility_plugin import VisibilityPlugin

    if mode not in ("annotated", "filtered"):
        raise BuildError(
            f"unknown visibility mode {mode!r}",
            field="visibility",
            hint="use 'annotated' (the default) or 'filtered'.",
        )
    table = infer_visibility_table(root)
    for compiled, original in compiler.renamed.items():
        table[compiled] = table[original]
    if mode == "filtered":
        for name in silent_internal_agents(root):
            warnings.warn(
                f"agent '{name}' is internal, so in filtered mode no client sees its reply, and it "
                f"has no .outputs() key, so its reply is not in state either (only in history). "
                f"Hint: add .outputs('<key>') so later steps can use it, or .show() it.",
                AdkFluentWarning,
                stacklevel=4,
            )
    return VisibilityPlugin(table, mode)


def _check_app_name(name: str) -> None:
    if not isinstance(name, str) or not name.isidentifier():
        raise BuildError(
            f"{name!r} is not a valid App name",
            field="app_name",
            hint="ADK requires App names to be Python identifiers, e.g. 'support_app'.",
        )


def build_app(
    root: Node,
    config: ExecutionConfig | None = None,
    model_for: ModelFor | None = None,
    extra_plugins: tuple[Any, ...] = (),
    visibility_mode: str | None = None,
) -> Any:
    """A native ADK App for the tree: visibility plugin, the config's plugins, resumability,
    compaction and run metadata."""
    from google.adk.apps.app import App

    config = config or ExecutionConfig()
    _check_app_name(config.app_name)
    check_names(root)
    compiler = _Compiler(root, model_for)
    root_agent = compiler.compile(root)
    mode = config.visibility or visibility_mode or "annotated"
    plugins: list[Any] = [_visibility_plugin(root, compiler, mode), *config.plugins, *extra_plugins]
    if config.custom_metadata:
        from .plugins import RunMetadataPlugin

        plugins.append(RunMetadataPlugin(config.custom_metadata))
    kwargs: dict[str, Any] = {"name": config.app_name, "root_agent": root_agent, "plugins": plugins}
    if config.resumable:
        from google.adk.apps.app import ResumabilityConfig

        kwargs["resumability_config"] = ResumabilityConfig(is_resumable=True)
    if config.compaction is not None:
        from google.adk.apps.app import EventsCompactionConfig

        kwargs["events_compaction_config"] = EventsCompactionConfig(
            compaction_interval=config.compaction.interval,
            overlap_size=config.compaction.overlap,
        )
    return App(**kwargs)
