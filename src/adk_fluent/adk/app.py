"""IR -> a native ADK App: the compiled root agent with adk-fluent's plugins, resumability,
compaction and run metadata, as an ExecutionConfig asks."""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Any

from adk_fluent.adk.compile import Compiler, ModelFor
from adk_fluent.adk.targets import make_compiler, resolve_target
from adk_fluent.arguments import checked_choice
from adk_fluent.errors import AdkFluentWarning, BuildError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import DEFAULT_APP_NAME, CompileTarget, ExecutionConfig, VisibilityMode


def _visibility_plugin(root: Node, compiler: Compiler, mode: str, filters: bool) -> Any:
    from adk_fluent.adk.plugins.visibility import VisibilityPlugin
    from adk_fluent.analysis.visibility import infer_visibility_table, silent_internal_agents

    checked_choice(
        mode, None, "visibility", ("annotated", "filtered"), hint="'annotated' is the default."
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
    if mode == "filtered" and filters:
        from adk_fluent.adk.compat import plugin_edits_are_stored

        plugin_edits_are_stored()  # run the probe now, not inside the first turn
    return VisibilityPlugin(table, mode, filters=filters)


def _middleware_and(
    visibility: Any, root: Node, compiler: Compiler, config: ExecutionConfig
) -> list[Any]:
    """The middleware plugin (with visibility as its tail) when the tree or the config has
    middleware; else the visibility plugin alone."""
    if not config.middleware and not any(node.middleware for node in root.walk()):
        return [visibility]
    from adk_fluent.adk.plugins.middleware import MiddlewarePlugin, stack_entries
    from adk_fluent.analysis.node_facts import node_facts

    entries = stack_entries(root, compiler.renamed, config.middleware)
    paths = {name: info.path for name, info in visibility.table.items()}
    facts = node_facts(root, compiler.renamed)
    return [MiddlewarePlugin(entries, tail=[visibility], paths=paths, facts=facts)]


def _check_app_name(name: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or name == "user":
        raise BuildError(
            f"{name!r} is not a valid App name",
            field="app_name",
            hint="ADK requires App names to be Python identifiers other than 'user', "
            "e.g. 'support_app'.",
        )


def calling_agent_folder() -> str | None:
    """The agent folder whose module called adk-fluent, as `adk web` / `adk api_server` name its
    app: `<folder>` for code in `<folder>/agent.py` or `<folder>/__init__.py` (the loader imports
    them as `<folder>.agent` / `<folder>`); None elsewhere, or when the name cannot be an App's."""
    frame = inspect.currentframe()
    while frame is not None and str(frame.f_globals.get("__name__", "")).split(".")[0] in (
        "adk_fluent",
        "adk_fluent_generated",
    ):
        frame = frame.f_back
    if frame is None:
        return None
    parts = str(frame.f_globals.get("__name__") or "").split(".")
    if Path(str(frame.f_globals.get("__file__") or "")).name == "__init__.py":
        folder = parts[-1]
    elif len(parts) >= 2 and parts[-1] == "agent":
        folder = parts[-2]
    else:
        return None
    # ADK requires an identifier and reserves 'user'; a folder that is neither keeps the default.
    return folder if folder.isidentifier() and folder != "user" else None


def app_name_for(config: ExecutionConfig, client_filters: bool) -> str:
    """The App's name: the config's; else, for an App handed to ADK's own servers, the agent
    folder it is defined in (they look its sessions up by that name); else the default."""
    if config.app_name is not None:
        _check_app_name(config.app_name)
        return config.app_name
    if client_filters:  # adk-fluent's own run()/stream(): one stable name for their stores
        return DEFAULT_APP_NAME
    return calling_agent_folder() or DEFAULT_APP_NAME


def _calls_tools(root: Node) -> bool:
    """Whether a model of the tree can call a tool (an unanswered call needs one): an LLM agent
    with tools, or a native agent, whose tools adk-fluent does not see."""
    from adk_fluent.ir.nodes import NativeAgentNode

    return any(
        isinstance(node, NativeAgentNode) or bool(getattr(node, "tools", None))
        for node in root.walk()
    )


def _may_halt(root_agent: Any) -> bool:
    """Whether an agent of the compiled tree can end the invocation (adk/custom_agents/halt.py):
    any but ADK's own LLM and workflow agents can (adk-fluent's steps, gates and remote agents,
    and a custom agent whose code adk-fluent does not see), in an agent tool's tree too."""
    from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
    from google.adk.tools.agent_tool import AgentTool

    native = (LlmAgent, LoopAgent, ParallelAgent, SequentialAgent)
    stack = [root_agent]
    while stack:
        agent = stack.pop()
        if type(agent) not in native:
            return True
        stack.extend(agent.sub_agents)
        stack.extend(t.agent for t in getattr(agent, "tools", ()) if isinstance(t, AgentTool))
    return False


def build_app(
    root: Node,
    config: ExecutionConfig | None = None,
    model_for: ModelFor | None = None,
    *,
    visibility_mode: VisibilityMode = "annotated",
    client_filters: bool = False,
    target: CompileTarget | None = None,
) -> Any:
    """A native ADK App for the tree: visibility plugin, the config's plugins, resumability,
    compaction and run metadata.

    `client_filters=True` when the caller filters what it streams itself (adk-fluent's engine):
    the plugin then only annotates, so the store keeps every event whole on every ADK release.
    """
    from google.adk.apps.app import App

    config = config or ExecutionConfig()
    app_name = app_name_for(config, client_filters)
    compiler = make_compiler(root, model_for, resolve_target(target, config), config.state_schema)
    root_agent = compiler.compile(root)
    visibility = _visibility_plugin(root, compiler, visibility_mode, not client_filters)
    # HaltPlugin first: a failed step or a waiting gate stops the agents after it, wherever
    # they sit (adk/custom_agents/halt.py); a tree where nothing can halt goes without it.
    # Middleware next, with the visibility plugin as the last stage of its chain
    # (adk/plugins/middleware.py says why), then the user's own plugins.
    plugins: list[Any] = _middleware_and(visibility, root, compiler, config)
    if plugins[0] is not visibility or _may_halt(root_agent):  # middleware can stop a run too
        from adk_fluent.adk.plugins.halt import HaltPlugin

        plugins.insert(0, HaltPlugin())
    from adk_fluent.adk.compat import unanswered_calls_reach_the_model

    if _calls_tools(root) and unanswered_calls_reach_the_model():  # before the user's plugins
        from adk_fluent.adk.plugins.tool_history import UnansweredCallsPlugin

        plugins.append(UnansweredCallsPlugin())
    plugins.extend(config.plugins)
    if config.custom_metadata:
        from adk_fluent.adk.plugins.run_metadata import RunMetadataPlugin

        plugins.append(RunMetadataPlugin(config.custom_metadata))
    kwargs: dict[str, Any] = {"name": app_name, "root_agent": root_agent, "plugins": plugins}
    if config.resumable:
        from google.adk.apps.app import ResumabilityConfig

        kwargs["resumability_config"] = ResumabilityConfig(is_resumable=True)
    if config.compaction is not None:
        kwargs["events_compaction_config"] = _compaction(config.compaction)
    return App(**kwargs)


def _compaction(compaction: Any) -> Any:
    """ADK's EventsCompactionConfig for a CompactionConfig; a setting the installed ADK does not
    have (or a trigger it requires) is refused naming it."""
    from google.adk.apps.app import EventsCompactionConfig

    from adk_fluent.adk.compat import adk_version, compaction_settings

    fields, required = compaction_settings()
    settings = {
        "compaction_interval": compaction.interval,
        "overlap_size": compaction.overlap,
        "token_threshold": compaction.token_threshold,
        "event_retention_size": compaction.event_retention_size,
    }
    ours = {"compaction_interval": "interval", "overlap_size": "overlap"}
    for name, value in settings.items():
        shown = ours.get(name, name)
        if value is not None and name not in fields:
            raise BuildError(
                f"the installed google-adk {adk_version()} has no {name} in its events "
                "compaction, so CompactionConfig cannot apply it",
                where="CompactionConfig",
                field=shown,
                hint="upgrade google-adk to a release whose EventsCompactionConfig has it, or "
                "compact by interval only: CompactionConfig(interval=10, overlap=2).",
            )
        if value is None and name in required:
            raise BuildError(
                f"the installed google-adk {adk_version()} always needs {shown} in its events "
                "compaction (its token trigger comes with the interval one)",
                where="CompactionConfig",
                field=shown,
                hint="give both: CompactionConfig(interval=10, overlap=2, token_threshold=..., "
                "event_retention_size=...).",
            )
    return EventsCompactionConfig(**{k: v for k, v in settings.items() if v is not None})
