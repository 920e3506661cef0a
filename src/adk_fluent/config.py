"""ExecutionConfig: how an expression becomes an ADK App and how it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class CompactionConfig:
    """ADK's events compaction (EventsCompactionConfig): summarise old events every `interval` turns."""

    interval: int = 10
    overlap: int = 2


@dataclass(frozen=True)
class ExecutionConfig:
    """App-level settings: name, plugins, resumability, compaction, run metadata, limits."""

    app_name: str = "adk_fluent_app"
    max_llm_calls: int | None = None  # None: ADK's default (500; ADK 2.x reads ADK_MAX_LLM_CALLS)
    streaming_mode: Literal["none", "sse"] = "none"
    resumable: bool = False
    compaction: CompactionConfig | None = None
    custom_metadata: dict[str, Any] | None = None
    plugins: tuple[Any, ...] = field(default_factory=tuple)
    # "annotated" (default): every event reaches the client with visibility metadata;
    # "filtered": internal agents' text is kept from the client (see visibility_plugin).
    # None: use the expression's own `.filtered()` / `.annotated()`.
    visibility: Literal["annotated", "filtered"] | None = None
