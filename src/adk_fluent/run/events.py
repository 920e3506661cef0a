"""AgentEvent: a backend-agnostic view of one ADK event, keeping the raw event at hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adk_fluent.adk.event_visibility import (
    DEPTH,
    IS_USER_FACING,
    MAP_OVER,
    PARENT_CALL,
    RACE,
    VISIBILITY,
)


@dataclass(frozen=True)
class ToolCallInfo:
    tool_name: str
    args: dict[str, Any]
    call_id: str | None


@dataclass(frozen=True)
class ToolResponseInfo:
    tool_name: str
    result: Any
    call_id: str | None


@dataclass(frozen=True)
class AgentEvent:
    """One event as the client receives it; `raw` is ADK's own Event."""

    author: str
    content: str | None = None
    state_delta: dict[str, Any] = field(default_factory=dict)
    artifact_delta: dict[str, int] = field(default_factory=dict)
    transfer_to: str | None = None
    escalate: bool = False
    tool_calls: tuple[ToolCallInfo, ...] = ()
    tool_responses: tuple[ToolResponseInfo, ...] = ()
    is_final: bool = False
    is_partial: bool = False
    end_of_agent: bool = False
    # "started" / "ended" on an agent lifecycle event (`run(..., lifecycle=True)`: in the
    # client stream only, never stored, `raw` None); None on every event ADK produced
    agent_state: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    invocation_id: str = ""
    id: str = ""
    timestamp: float = 0.0
    raw: Any = field(default=None, compare=False, repr=False)

    @property
    def visibility(self) -> str:
        """'user', 'internal' or 'zero_cost' (from adk-fluent's annotation; 'user' when absent)."""
        return str(self.metadata.get(VISIBILITY, "user"))

    @property
    def is_user_facing(self) -> bool:
        return bool(self.metadata.get(IS_USER_FACING, True))

    @property
    def depth(self) -> int:
        """Where the event comes from in the call tree: 0 for the agent the user talks to (and
        every step a pipeline hands on to), one more for a sub-agent or an agent tool's run."""
        return int(self.metadata.get(DEPTH, 0))

    @property
    def parent_call_id(self) -> str | None:
        """On an event of an agent tool's run (which run() and stream() pass on before the
        call's result): the id of the function call that started that run, as in the calling
        agent's `tool_calls`; None on the turn's own events."""
        call = self.metadata.get(PARENT_CALL)
        return None if call is None else str(call)

    @property
    def race_contender(self) -> tuple[str, str] | None:
        """(race name, contender name) for a race contender's partial event, or for an event
        of the race's winner; None otherwise (docs/streaming.md)."""
        tag = self.metadata.get(RACE)
        if not isinstance(tag, dict):
            return None
        return str(tag.get("race")), str(tag.get("contender"))

    @property
    def map_item(self) -> tuple[str, int] | None:
        """(map_over name, item index) for a partial event of a map_over's item; None
        otherwise (docs/streaming.md)."""
        tag = self.metadata.get(MAP_OVER)
        if not isinstance(tag, dict):
            return None
        return str(tag.get("map_over")), int(tag.get("index", 0))

    @property
    def media(self) -> tuple[Any, ...]:
        """The event's images, audio, video and files, as the google.genai Parts that carry
        them (`part.inline_data` bytes and mime type, or `part.file_data` a URI)."""
        content = getattr(self.raw, "content", None)
        if content is None or not content.parts:
            return ()
        return tuple(p for p in content.parts if p.inline_data or p.file_data)

    @property
    def is_turn_complete(self) -> bool:
        """True for the event that ends the model's turn in a live session."""
        return bool(getattr(self.raw, "turn_complete", False))

    @property
    def is_interrupted(self) -> bool:
        """True when the model's reply in a live session was interrupted (the user spoke)."""
        return bool(getattr(self.raw, "interrupted", False))

    @property
    def transcription(self) -> tuple[str, str] | None:
        """A live session's transcription: ("output", text) of the model's speech or
        ("input", text) of the user's; None for other events."""
        for source in ("output", "input"):
            found = getattr(self.raw, f"{source}_transcription", None)
            if found is not None and found.text:
                return source, str(found.text)
        return None

    @property
    def is_error(self) -> bool:
        """True for an error event: a failed step (docs/errors.md) or an error ADK reported."""
        return self.error_code is not None or self.error_message is not None

    @classmethod
    def from_adk(cls, event: Any) -> AgentEvent:
        """Convert an ADK `Event`. A partial chunk carries no state or artifact delta: no
        session store applies one, and on the Workflow target ADK 2.x gives a reply's chunks
        the final reply's actions object, so what they held depended on when it was read."""
        actions = event.actions
        partial = bool(event.partial)
        deltas = actions is not None and not partial
        text = None
        calls: list[ToolCallInfo] = []
        responses: list[ToolResponseInfo] = []
        content = event.content
        if content is not None and content.parts:
            texts = []
            for part in content.parts:  # one pass: every event of every turn comes through here
                if part.text and not part.thought:
                    texts.append(part.text)
                call = part.function_call
                if call is not None:
                    calls.append(ToolCallInfo(call.name or "", dict(call.args or {}), call.id))
                answer = part.function_response
                if answer is not None:
                    responses.append(
                        ToolResponseInfo(answer.name or "", answer.response, answer.id)
                    )
            text = "".join(texts) if texts else None
        return cls(
            author=event.author,
            content=text,
            state_delta=dict(actions.state_delta or {}) if deltas else {},
            artifact_delta=dict(actions.artifact_delta or {}) if deltas else {},
            transfer_to=actions.transfer_to_agent if actions else None,
            escalate=bool(actions.escalate) if actions else False,
            tool_calls=tuple(calls),
            tool_responses=tuple(responses),
            is_final=bool(event.is_final_response()),
            is_partial=partial,
            end_of_agent=bool(getattr(actions, "end_of_agent", False)) if actions else False,
            error_code=event.error_code,
            error_message=event.error_message,
            metadata=dict(event.custom_metadata or {}),
            invocation_id=event.invocation_id or "",
            id=event.id or "",
            timestamp=float(event.timestamp or 0.0),
            raw=event,
        )


def final_text(events: list[AgentEvent]) -> str:
    """The last final response's text in an event list ('' when there is none).

    A final response may be a tool's result (a tool that skips summarization, such as
    `agent_tool(..., skip_summarization=True)`): some ADK releases put the result's text beside
    the function response and some do not, so the text of a `{"result": "..."}` response
    counts as the answer on every release."""
    for event in reversed(events):
        if not event.is_final:
            continue
        if event.content:
            return event.content
        results = [
            response.result["result"]
            for response in event.tool_responses
            if isinstance(response.result, dict) and isinstance(response.result.get("result"), str)
        ]
        if results:
            return "".join(results)
    return ""


def first_error(events: list[AgentEvent]) -> AgentEvent | None:
    """The first error event of a turn (a failed step ends the turn, so it is also the last
    of adk-fluent's own), or None. An agent tool's run is not the turn: its error is the
    tool's result, which the calling agent answers."""
    return next(
        (event for event in events if event.is_error and PARENT_CALL not in event.metadata), None
    )
