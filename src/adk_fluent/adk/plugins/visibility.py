"""VisibilityPlugin: annotates every event with visibility and depth; in filtered mode keeps
internal agents' text from the client without losing it.

Why not just strip content in `on_event_callback`? Because ADK changed, inside 1.x, when that
callback runs (docs/visibility.md; decided by the probe `adk.compat.plugin_edits_are_stored`):

* store-then-plugin (1.25 .. 1.30; docs/compatibility.md has the exact releases): the Runner stores the event, then calls the plugin; a
  stripped copy hides the text from the client while the store keeps the original.
* plugin-then-store (1.31+ and 2.x): the plugin runs first and its result is what is stored AND
  streamed; a stripped event would be stripped in the store too.

So the mechanism is:

1. Annotations are put on model responses in `after_model_callback`, before ADK turns them into
   events, so the stored event carries them on every release (a reloaded history can be
   filtered exactly as the live stream was). `on_event_callback` annotates every other event.
2. adk-fluent's own `run` / `stream` filter on the client side, after the Runner has stored the
   event whole: the engine builds its App with an annotate-only plugin.
3. A plain Runner (adk web, api_server), store-then-plugin: the plugin returns a stripped copy.
4. A plain Runner, plugin-then-store: the plugin saves the content as a session artifact (ADK's
   artifact service: lossless, never streamed; the event's `artifact_delta` is left alone so no
   UI renders it) and keeps only its name and version in `custom_metadata["adk_fluent.hidden_ref"]`.
   Before each agent runs it puts the text back into the in-memory session the agent's request
   is built from, so later agents' model requests are what they would be without filtering.
   Without an artifact service (or when saving fails) the text goes to
   `custom_metadata["adk_fluent.hidden_content"]` instead (lossless, but clients receive it in
   metadata), with one logged warning per plugin. `restore_content()` gives the full event back.

Error events, tool confirmation and auth requests, tool calls and responses, and every
state / artifact delta always reach the client.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent.adk.artifact_content import content_as_part, content_from_part
from adk_fluent.adk.compat import plugin_edits_are_stored
from adk_fluent.adk.event_visibility import (
    HIDDEN_CONTENT,
    HIDDEN_REF,
    VISIBILITY,
    client_content,
    has_hidden_content,
    hidden_artifact_name,
    should_hide,
    visibility_metadata,
)
from adk_fluent.analysis.visibility import NodeVisibility
from adk_fluent.errors import AdkFluentError

logger = logging.getLogger("adk_fluent.visibility")
_CACHED_CONTENTS = 1024  # hidden texts kept in memory, so each turn does not reload them all


async def restore_content(event: Any, *, artifact_service: Any = None, session: Any = None) -> Any:
    """The event with the content filtered mode set aside put back (unchanged otherwise).

    For replays and audits of a session stored through a plain Runner on an ADK that stores what
    plugins return. Text kept in an artifact needs the Runner's `artifact_service` and the
    stored `session` it belongs to; text kept in metadata (no artifact service) needs neither.
    """
    if not has_hidden_content(event):
        return event
    from google.genai import types

    metadata = event.custom_metadata or {}
    hidden = metadata.get(HIDDEN_CONTENT)
    if hidden is not None:
        return event.model_copy(update={"content": types.Content.model_validate(hidden)})
    ref = metadata[HIDDEN_REF]
    if artifact_service is None or session is None:
        raise AdkFluentError(
            f"event {event.id} by '{event.author}': its text is in artifact {ref['artifact']!r}."
            "\n  hint: await restore_content(event, artifact_service=runner.artifact_service, "
            "session=session)."
        )
    part = await artifact_service.load_artifact(
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        filename=ref["artifact"],
        version=ref.get("version"),
    )
    if part is None:
        raise AdkFluentError(
            f"event {event.id} by '{event.author}': artifact {ref['artifact']!r} "
            f"(version {ref.get('version')}) is not in this artifact service."
            "\n  hint: pass the artifact service the Runner that stored the session used."
        )
    return event.model_copy(update={"content": content_from_part(part)})


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
        self._contents: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self._warned_no_artifacts = False

    def info(self, author: str) -> NodeVisibility:
        # Authors we did not compile (the user, a custom agent) are treated as user-facing.
        return self.table.get(author) or NodeVisibility("user", 0, author)

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        # Set on the response, the annotations are in the event ADK builds from it, before it
        # is stored: on store-then-plugin releases on_event_callback comes too late for that.
        annotations = visibility_metadata(self.info(callback_context.agent_name))
        llm_response.custom_metadata = {**(llm_response.custom_metadata or {}), **annotations}
        return None  # in place: later plugins and the agent's own callbacks still run

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
        info = self.info(event.author)
        metadata = {**(event.custom_metadata or {}), **visibility_metadata(info)}
        update: dict[str, Any] = {"custom_metadata": metadata}
        # inside an agent tool's sub-run (include_plugins) nothing reaches a client, and the
        # tool's answer is read from these events: never filter there
        if (
            self.filters
            and not info.in_tool
            and should_hide(event, metadata[VISIBILITY], self.mode)
        ):
            # Partial chunks are never stored: dropping their text loses nothing.
            if not event.partial and plugin_edits_are_stored():
                metadata.update(await self._set_aside(invocation_context, event))
            update["content"] = client_content(event)  # tool calls beside the text stay
        return event.model_copy(update=update)

    async def _set_aside(self, ctx: Any, event: Any) -> dict[str, Any]:
        """Keep the event's content where the client does not receive it; the metadata that
        points there."""
        service = getattr(ctx, "artifact_service", None)
        if service is not None:
            filename = hidden_artifact_name(event.id)
            try:
                version = await service.save_artifact(
                    app_name=ctx.app_name,
                    user_id=ctx.user_id,
                    session_id=ctx.session.id,
                    filename=filename,
                    artifact=content_as_part(event.content),
                )
            except Exception:  # never lose the text: fall back to metadata, say so
                logger.exception(
                    "adk-fluent filtered mode: saving the text of '%s' as artifact %s failed; "
                    "it is kept in custom_metadata['%s'] instead, which clients receive.",
                    event.author,
                    filename,
                    HIDDEN_CONTENT,
                )
            else:
                key = (ctx.app_name, ctx.user_id, ctx.session.id, filename, str(version))
                self._remember(key, event.content)
                return {HIDDEN_REF: {"artifact": filename, "version": version}}
        elif not self._warned_no_artifacts:
            self._warned_no_artifacts = True
            logger.warning(
                "adk-fluent filtered mode: this Runner has no artifact_service, so internal "
                "agents' text is kept in event.custom_metadata['%s'] (lossless, hidden from chat "
                "views, but clients receive it). Give the Runner an artifact service (adk web "
                "and api_server have one) to keep it out of every client payload.",
                HIDDEN_CONTENT,
            )
        return {HIDDEN_CONTENT: event.content.model_dump(mode="json", exclude_none=True)}

    def _remember(self, key: tuple[str, ...], content: Any) -> None:
        self._contents[key] = content
        self._contents.move_to_end(key)
        if len(self._contents) > _CACHED_CONTENTS:
            self._contents.popitem(last=False)

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        if not self.filters or not plugin_edits_are_stored():
            return None
        events = callback_context.session.events
        for index, event in enumerate(events):
            if has_hidden_content(event):
                # In memory only: the agent's request is built from this list; nothing is written.
                events[index] = await self._restored(event, callback_context)
        return None

    async def _restored(self, event: Any, callback_context: Any) -> Any:
        ref = (event.custom_metadata or {}).get(HIDDEN_REF)
        if ref is None:  # kept in metadata
            return await restore_content(event)
        session = callback_context.session
        key = (session.app_name, session.user_id, session.id, ref["artifact"], str(ref["version"]))
        content = self._contents.get(key)
        if content is None:
            part = await callback_context.load_artifact(ref["artifact"], ref.get("version"))
            if part is None:
                logger.warning(
                    "adk-fluent filtered mode: artifact %s (text of '%s') is missing; later "
                    "agents will not see that text.",
                    ref["artifact"],
                    event.author,
                )
                return event
            content = content_from_part(part)
            self._remember(key, content)
        else:
            self._contents.move_to_end(key)
        return event.model_copy(update={"content": content})
