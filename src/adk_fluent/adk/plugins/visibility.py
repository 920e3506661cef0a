"""VisibilityPlugin: annotates every event with visibility and depth; in filtered mode keeps
internal agents' text from the client without losing it.

Why not just strip content in `on_event_callback`? Because ADK changed when that callback runs
(see docs/visibility.md and `adk.compat.plugin_edits_are_stored`):

* ADK 1.x stores the event first and then calls the plugin: returning a stripped copy hides
  the text from the client while the store keeps the original.
* ADK 2.x calls the plugin first and stores (and yields) the merged result: a stripped event
  would be stripped in the store too, and later agents would no longer see the text.

So the mechanism is:

1. adk-fluent's own `run` / `stream` filter on the client side, after the Runner has stored
   the event: the engine builds its App with an annotate-only plugin. Store intact on both.
2. A plain ADK Runner on 1.x (adk web, api_server): the plugin returns a stripped copy.
3. A plain ADK Runner on 2.x: the plugin moves the content into
   `custom_metadata["adk_fluent.hidden_content"]` (lossless, persisted) and, before each agent
   runs, puts it back into the in-memory session the agent's request is built from, so later
   agents' model requests are exactly what they would be without visibility. `restore_content()`
   gives the full event back for replay and audits.

Error events, tool confirmation and auth requests, tool calls and responses, and every
state / artifact delta always reach the client.
"""

from __future__ import annotations

from typing import Any

from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent.adk.compat import plugin_edits_are_stored
from adk_fluent.adk.event_visibility import (
    HIDDEN_CONTENT,
    VISIBILITY,
    should_hide,
    visibility_metadata,
)
from adk_fluent.analysis.visibility import NodeVisibility


def restore_content(event: Any) -> Any:
    """The event with content moved aside by filtered mode put back (unchanged otherwise)."""
    hidden = (event.custom_metadata or {}).get(HIDDEN_CONTENT)
    if hidden is None or event.content is not None:
        return event
    from google.genai import types

    return event.model_copy(update={"content": types.Content.model_validate(hidden)})


class VisibilityPlugin(BasePlugin):
    """Annotates events with `adk_fluent.visibility`, `.is_user_facing`, `.depth`, `.path`."""

    def __init__(
        self, table: dict[str, NodeVisibility], mode: str = "annotated", *, filters: bool = True
    ) -> None:
        super().__init__(name="adk_fluent_visibility")
        self.table = table
        self.mode = mode
        # False when the caller filters what it streams itself (adk-fluent's engine): then
        # the plugin only annotates, and the store keeps every event whole on every ADK.
        self.filters = filters and mode == "filtered"

    def info(self, author: str) -> NodeVisibility:
        # Authors we did not compile (the user, a custom agent) are treated as user-facing.
        return self.table.get(author) or NodeVisibility("user", 0, author)

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        metadata = {**(event.custom_metadata or {}), **visibility_metadata(self.info(event.author))}
        update: dict[str, Any] = {"custom_metadata": metadata}
        if self.filters and should_hide(event, metadata[VISIBILITY], self.mode):
            if plugin_edits_are_stored() and not event.partial:
                metadata[HIDDEN_CONTENT] = event.content.model_dump(mode="json", exclude_none=True)
            update["content"] = None
        return event.model_copy(update=update)

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        if not self.filters or not plugin_edits_are_stored():
            return None
        events = callback_context.session.events
        for index, event in enumerate(events):
            if event.content is None and HIDDEN_CONTENT in (event.custom_metadata or {}):
                events[index] = restore_content(event)  # in memory only: nothing is written
        return None
