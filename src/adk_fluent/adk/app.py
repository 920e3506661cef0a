"""IR -> a native ADK App: the compiled root agent with adk-fluent's plugins, resumability,
compaction and run metadata, as an ExecutionConfig asks."""

from __future__ import annotations

import warnings
from typing import Any

from adk_fluent.adk.compile import Compiler, ModelFor
from adk_fluent.errors import AdkFluentWarning, BuildError
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import ExecutionConfig, VisibilityMode


def _visibility_plugin(root: Node, compiler: Compiler, mode: str, filters: bool) -> Any:
    from adk_fluent.adk.plugins.visibility import VisibilityPlugin
    from adk_fluent.analysis.visibility import infer_visibility_table, silent_internal_agents

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
    return VisibilityPlugin(table, mode, filters=filters)


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
    *,
    visibility_mode: VisibilityMode = "annotated",
    client_filters: bool = False,
) -> Any:
    """A native ADK App for the tree: visibility plugin, the config's plugins, resumability,
    compaction and run metadata.

    `client_filters=True` when the caller filters what it streams itself (adk-fluent's engine):
    the plugin then only annotates, so the store keeps every event whole on every ADK release.
    """
    from google.adk.apps.app import App

    config = config or ExecutionConfig()
    _check_app_name(config.app_name)
    compiler = Compiler(root, model_for)
    root_agent = compiler.compile(root)
    visibility = _visibility_plugin(root, compiler, visibility_mode, not client_filters)
    from adk_fluent.adk.plugins.halt import HaltPlugin

    # HaltPlugin first: a failed step or a waiting gate stops the agents after it, wherever
    # they sit (adk/agents/halt.py).
    plugins: list[Any] = [HaltPlugin(), visibility, *config.plugins]
    if config.custom_metadata:
        from adk_fluent.adk.plugins.run_metadata import RunMetadataPlugin

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
