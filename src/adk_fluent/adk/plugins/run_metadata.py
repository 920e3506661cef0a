"""ADK plugins that adk-fluent attaches to the Apps it builds."""

from __future__ import annotations

from typing import Any

from google.adk.plugins.base_plugin import BasePlugin


class RunMetadataPlugin(BasePlugin):
    """Merges ExecutionConfig.custom_metadata into the run's RunConfig.custom_metadata.

    ADK itself copies run metadata onto every event it yields and stores, so the App carries
    the metadata however it is run (adk web, api_server, a plain Runner). Metadata the caller
    passes in its own RunConfig wins over the App's.
    """

    def __init__(self, metadata: dict[str, Any]) -> None:
        super().__init__(name="adk_fluent_run_metadata")
        self._metadata = dict(metadata)

    async def before_run_callback(self, *, invocation_context: Any) -> None:
        run_config = invocation_context.run_config
        if run_config is None:
            from google.adk.agents.run_config import RunConfig

            run_config = RunConfig()
        merged = {**self._metadata, **(run_config.custom_metadata or {})}
        invocation_context.run_config = run_config.model_copy(update={"custom_metadata": merged})
        return None
