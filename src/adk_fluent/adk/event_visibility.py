"""Which events a client may see: the annotations every event carries and the filtered-mode rule.

The rule is one function (`should_hide`) used by the visibility plugin (plain Runners) and by the
engine's own streams alike. Errors, tool traffic, confirmations and auth requests always pass.
"""

from __future__ import annotations

from typing import Any

from adk_fluent.analysis.visibility import NodeVisibility

# Keys of the annotations in `Event.custom_metadata` (persisted, and sent to every client).
VISIBILITY = "adk_fluent.visibility"
IS_USER_FACING = "adk_fluent.is_user_facing"
DEPTH = "adk_fluent.depth"
PATH = "adk_fluent.path"
# Where filtered mode keeps an event's text when ADK would store what the plugin returns:
# normally an artifact (never streamed), and in the event only its name and version ...
HIDDEN_REF = "adk_fluent.hidden_ref"
# ... or, when the Runner has no artifact service (or it failed), the text itself, in metadata.
HIDDEN_CONTENT = "adk_fluent.hidden_content"


def hidden_artifact_name(event_id: str) -> str:
    """The artifact that holds a filtered event's text (session-scoped, one per event)."""
    return f"adk_fluent.hidden.{event_id}.json"


def has_hidden_content(event: Any) -> bool:
    """Whether filtered mode set this event's text aside (in an artifact or in metadata)."""
    metadata = event.custom_metadata or {}
    return event.content is None and (HIDDEN_REF in metadata or HIDDEN_CONTENT in metadata)


def visibility_metadata(info: NodeVisibility) -> dict[str, Any]:
    """The annotations every event gets, from its author's place in the tree."""
    return {
        VISIBILITY: info.visibility,
        IS_USER_FACING: info.visibility == "user",
        DEPTH: info.depth,
        PATH: info.path,
    }


def is_chat_text(event: Any) -> bool:
    """Text a chat UI would show: not errors, tool traffic, confirmations or auth requests."""
    content = event.content
    if content is None or not content.parts:
        return False
    if getattr(event, "error_code", None) or getattr(event, "error_message", None):
        return False
    actions = event.actions
    if actions is not None and (
        actions.requested_tool_confirmations or actions.requested_auth_configs
    ):
        return False
    if event.get_function_calls() or event.get_function_responses():
        return False
    return any(getattr(part, "text", None) for part in content.parts)


def should_hide(event: Any, visibility: str, mode: str) -> bool:
    """Whether a client must not see this event's text: filtered mode, not user-facing, chat text."""
    return mode == "filtered" and visibility != "user" and is_chat_text(event)


def event_visibility(event: Any) -> str:
    """The visibility an event was annotated with ('user' when it carries none)."""
    return str((event.custom_metadata or {}).get(VISIBILITY, "user"))


def for_client(event: Any, mode: str) -> Any:
    """The event as a client may see it: internal text removed in filtered mode (the stored event
    keeps it); an event left with nothing to say is not sent at all (None)."""
    if not should_hide(event, event_visibility(event), mode):
        return event
    actions = event.actions
    if actions is None or not (
        actions.state_delta
        or actions.artifact_delta
        or actions.transfer_to_agent
        or actions.escalate
    ):
        return None
    return event.model_copy(update={"content": None})
