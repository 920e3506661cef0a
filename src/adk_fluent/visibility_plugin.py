"""VisibilityPlugin: annotates every event with visibility and depth; in filtered mode keeps
internal agents' text from the client without losing it.

Why not just strip content in `on_event_callback` (as spec v5.1 section 4.4 suggests)? Because
ADK changed when that callback runs (see ADK_FACTS.md):

* ADK 1.x stores the event first and then calls the plugin: returning a stripped copy hides
  the text from the client while the store keeps the original.
* ADK 2.x calls the plugin first and stores (and yields) the merged result: a stripped event
  would be stripped in the store too, and later agents would no longer see the text.

So the mechanism is:

1. adk-fluent's own `run` / `stream` filter on the client side, after the Runner has stored
   the event: the plugin only annotates (a context variable tells it so). Store intact on both.
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

from ._adk import adk_major
from .visibility import (
    HIDDEN_CONTENT,
    NodeVisibility,
    client_filters,
    should_hide,
    visibility_metadata,
)


def restore_content(event: Any) -> Any:
    """The event with content moved aside by filtered mode put back (unchanged otherwise)."""
    hidden = (event.custom_metadata or {}).get(HIDDEN_CONTENT)
    if hidden is None or event.content is not None:
        return event
    from google.genai import types

    return event.model_copy(update={"content": types.Content.model_validate(hidden)})


class VisibilityPlugin(BasePlugin):
    """Annotates events with `adk_fluent.visibility`, `.is_user_facing`, `.depth`, `.path`."""

    def __init__(self, table: dict[str, NodeVisibility], mode: str = "annotated") -> None:
        super().__init__(name="adk_fluent_visibility")
        self.table = table
        self.mode = mode

    def info(self, author: str) -> NodeVisibility:
        # Authors we did not compile (the user, a custom agent) are treated as user-facing.
        return self.table.get(author) or NodeVisibility("user", 0, author)

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        metadata = {**(event.custom_metadata or {}), **visibility_metadata(self.info(event.author))}
        update: dict[str, Any] = {"custom_metadata": metadata}
        if (
            should_hide(event, metadata["adk_fluent.visibility"], self.mode)
            and not client_filters.get()
        ):
            if adk_major() >= 2 and not event.partial:
                metadata[HIDDEN_CONTENT] = event.content.model_dump(mode="json", exclude_none=True)
            update["content"] = None
        return event.model_copy(update=update)

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        if self.mode != "filtered" or adk_major() < 2:
            return None
        events = callback_context.session.events
        for index, event in enumerate(events):
            if event.content is None and HIDDEN_CONTENT in (event.custom_metadata or {}):
                events[index] = restore_content(event)  # in memory only: nothing is written
        return None
