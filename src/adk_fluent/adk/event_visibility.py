"""Which events a client may see: the annotations every event carries and the filtered-mode rule.

The rule is one function (`should_hide`) used by the visibility plugin (plain Runners) and by the
engine's own streams alike. Errors, tool traffic, confirmations and auth requests always pass.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NamedTuple

from adk_fluent.analysis.visibility import NodeVisibility

# Keys of the annotations in `Event.custom_metadata` (persisted, and sent to every client).
VISIBILITY = "adk_fluent.visibility"
IS_USER_FACING = "adk_fluent.is_user_facing"
DEPTH = "adk_fluent.depth"
PATH = "adk_fluent.path"
# On an event of an agent tool's run that run()/stream() pass on: the id of the function call
# (in the calling agent's run) that started that run. Never stored: the parent session holds
# none of these events, and the tool's own session is ADK's, thrown away with the call.
PARENT_CALL = "adk_fluent.parent_call_id"
# Which concurrent stream a partial event belongs to, for a UI that must tell interleaved
# streams apart: a race's contender ({"race": name, "contender": child name}; a race's winning
# events, committed when it wins, carry it too) and a map_over's item ({"map_over": name,
# "index": item index}). The innermost race (or map_over) around the event is named.
RACE = "adk_fluent.race"
MAP_OVER = "adk_fluent.map_over"
# The Workflow target's bookkeeping: a Route's choice or a loop's check, which only name the
# graph edge to take (actions.route). Stored, as ADK's own workflow events are; never sent to
# a client by run()/stream(), in either mode: the classic target has no such event.
GRAPH_STEP = "adk_fluent.graph"
# Where filtered mode keeps an event's text when ADK would store what the plugin returns:
# normally an artifact (never streamed), and in the event only its name and version ...
HIDDEN_REF = "adk_fluent.hidden_ref"
# ... or, when the Runner has no artifact service (or it failed), the text itself, in metadata.
HIDDEN_CONTENT = "adk_fluent.hidden_content"


class AgentStates:
    """Where the visibility plugin notes, for a turn of adk-fluent's engine, what the client
    receives besides the Runner's own events, in the order it happened: each agent's start and
    end when the client asked (`run(..., lifecycle=True)`): (state, agent name, its annotations,
    invocation id, time); and each event of an agent tool's run (`SubRunEvent`). Nothing is
    stored: the engine turns the notes into events of the client stream."""

    __slots__ = ("notes", "open", "lifecycle", "wake")

    def __init__(self, lifecycle: bool = True) -> None:
        self.notes: list[tuple[str, str, dict[str, Any], str, float] | SubRunEvent] = []
        self.open = True  # False once the turn is over: a stale reference notes nothing
        self.lifecycle = lifecycle  # whether agents' starts and ends are noted
        # called after a note taken inside an agent tool's run, while the Runner yields
        # nothing: a stream() that waits for its next event hands the notes over now
        self.wake: Callable[[], None] | None = None


class SubRunEvent(NamedTuple):
    """An event of an agent tool's run, as the caller of the turn receives it: the event, its
    annotations (with PARENT_CALL) and the turn's invocation id (the tool's run has its own)."""

    event: Any
    metadata: dict[str, Any]
    invocation_id: str


# The turn's notes, set by the engine around each of its turns; ADK runs the agents (and their
# tasks, and agent tools' sub-runs) in copies of that context.
AGENT_STATES: ContextVar[AgentStates | None] = ContextVar("adk_fluent_agent_states", default=None)
# Inside an agent tool's run during such a turn: (the id of the function call that started it,
# the turn's invocation id). Set by the visibility plugin when the tool is called; ADK runs the
# call in a copy of the context, so the calling agent's own events never see it.
TOOL_CALL: ContextVar[tuple[str, str] | None] = ContextVar("adk_fluent_tool_call", default=None)


def hidden_artifact_name(event_id: str) -> str:
    """The artifact that holds a filtered event's text (session-scoped, one per event)."""
    return f"adk_fluent.hidden.{event_id}.json"


def has_hidden_content(event: Any) -> bool:
    """Whether filtered mode set this event's text aside (in an artifact or in metadata) and the
    event still lacks it (a restored copy has its chat parts back)."""
    metadata = event.custom_metadata or {}
    if HIDDEN_REF not in metadata and HIDDEN_CONTENT not in metadata:
        return False
    return event.content is None or not any(_is_chat_part(p) for p in event.content.parts or [])


def visibility_metadata(info: NodeVisibility) -> dict[str, Any]:
    """The annotations every event gets, from its author's place in the tree."""
    visibility = info.in_caller_stream
    return {
        VISIBILITY: visibility,
        IS_USER_FACING: visibility == "user",
        DEPTH: info.depth,
        PATH: info.path,
    }


def _is_chat_part(part: Any) -> bool:
    """A part a chat UI renders: text (thoughts too), an image, audio or a file."""
    return bool(
        getattr(part, "text", None)
        or getattr(part, "inline_data", None)
        or getattr(part, "file_data", None)
    )


def is_chat_text(event: Any) -> bool:
    """Whether the event carries what a chat UI would show (text, images, files), and is not an
    error, a confirmation or an auth request. Tool calls and results beside that content are
    traffic: they always reach the client (`client_content` keeps them)."""
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
    return any(_is_chat_part(part) for part in content.parts)


def client_content(event: Any) -> Any:
    """A hidden event's content as a client may see it: its tool calls and results only, or
    None when it has nothing else (the store keeps the whole content)."""
    content = event.content
    kept = [part for part in content.parts or [] if not _is_chat_part(part)]
    if not kept:
        return None
    return content.model_copy(update={"parts": kept})


def should_hide(event: Any, visibility: str, mode: str) -> bool:
    """Whether a client must not see this event's text: filtered mode, not user-facing, chat text."""
    return mode == "filtered" and visibility != "user" and is_chat_text(event)


def event_visibility(event: Any) -> str:
    """The visibility an event was annotated with ('user' when it carries none)."""
    return str((event.custom_metadata or {}).get(VISIBILITY, "user"))


def for_client(event: Any, mode: str) -> Any:
    """The event as a client may see it: internal text removed in filtered mode (the stored event
    keeps it); an event left with nothing to say is not sent at all (None), nor is the Workflow
    target's edge bookkeeping (GRAPH_STEP)."""
    if event.custom_metadata and GRAPH_STEP in event.custom_metadata:
        return None
    if not should_hide(event, event_visibility(event), mode):
        return event
    content = client_content(event)
    actions = event.actions
    if content is None and event.partial:
        # a hidden chunk: what it may carry of state (a Workflow puts the node's output_key
        # delta on its partials too) is sent with the final event, the one that is stored
        return None
    if content is None and (
        actions is None
        or not (
            actions.state_delta
            or actions.artifact_delta
            or actions.transfer_to_agent
            or actions.escalate
        )
    ):
        return None
    return event.model_copy(update={"content": content})
