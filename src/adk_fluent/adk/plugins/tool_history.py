"""UnansweredCallsPlugin: no model request carries a function call without its response.

A call stays unanswered when its tool raised (the turn ends with the error) or when adk-fluent's
`timeout` cancelled the tool while it ran. The call event is stored, so every later request of
that agent carries it; ADK 1.25 to 2.9.2 send it as it is, with no function
response after it, and Gemini refuses such a request (400). Newer releases leave an unanswered
call out of the request and keep the stored event whole. This plugin does the same on releases
that need it (decided by the probe `adk.compat.unanswered_calls_reach_the_model`): it edits only
the outgoing request, never the session, so history stays complete in every store.

The rule is ADK's own (2.x): a call is unanswered when it has an id, no function response in
the session has that id, and it is not a long-running call waiting for its answer.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from google.adk.plugins.base_plugin import BasePlugin

from adk_fluent.adk.bounded import remember

_SCANNED_SESSIONS = 1024  # sessions whose calls are remembered between model requests


class _Scan:
    """What a session's first `count` events say of its calls, so that each model request
    reads only the events added since the last one, not the whole history again."""

    def __init__(self) -> None:
        self.count = 0
        self.last_id: str | None = None  # the id of event #count, to see the history is the same
        self.answered: set[str] = set()
        self.waiting: set[str] = set()
        self.calls: dict[str, Any] = {}  # call id -> call, in the order the calls were made

    def read(self, events: list[Any]) -> None:
        for event in events[self.count :]:
            self.answered.update(r.id for r in event.get_function_responses() if r.id)
            self.waiting.update(event.long_running_tool_ids or ())
            for call in event.get_function_calls():
                if call.id:
                    self.calls.setdefault(call.id, call)
        self.count = len(events)
        self.last_id = events[-1].id if events else None

    def continues(self, events: list[Any]) -> bool:
        """Whether `events` starts with the events read so far (no rewind, not another copy)."""
        if self.count > len(events):
            return False
        return self.count == 0 or events[self.count - 1].id == self.last_id

    def unanswered(self) -> list[Any]:
        return [
            call
            for call_id, call in self.calls.items()
            if call_id not in self.answered and call_id not in self.waiting
        ]


def unanswered_calls(events: list[Any]) -> list[Any]:
    """The function calls in `events` that no event answers (long-running calls excepted)."""
    scan = _Scan()
    scan.read(events)
    return scan.unanswered()


def _same_call(call: Any, other: Any) -> bool:
    # The request drops ADK's own "adk-" ids on the way out, so name and arguments decide.
    if call.id and other.id:
        return bool(call.id == other.id)
    return bool(call.name == other.name and (call.args or {}) == (other.args or {}))


def _answered_in(call: Any, content: Any) -> bool:
    for part in (content.parts if content is not None else None) or []:
        response = part.function_response
        if response is not None and (
            response.id == call.id if call.id and response.id else response.name == call.name
        ):
            return True
    return False


def drop_unanswered(contents: list[Any], unanswered: list[Any]) -> list[Any]:
    """`contents` (a model request's) without the function-call parts of `unanswered` that no
    following function response answers; a content left with no part is left out."""
    left = list(unanswered)
    kept: list[Any] = []
    for index, content in enumerate(contents):
        following = contents[index + 1] if index + 1 < len(contents) else None
        parts = list(content.parts or [])
        remaining = []
        for part in parts:
            call = part.function_call
            match = (
                next((c for c in left if _same_call(c, call)), None) if call is not None else None
            )
            if match is not None and not _answered_in(call, following):
                left.remove(match)
                continue
            remaining.append(part)
        if len(remaining) == len(parts):
            kept.append(content)
        elif remaining:
            kept.append(content.model_copy(update={"parts": remaining}))
    return kept


class UnansweredCallsPlugin(BasePlugin):
    """Leaves function calls that never got a response out of each model request."""

    def __init__(self) -> None:
        super().__init__(name="adk_fluent_unanswered_calls")
        self._scans: OrderedDict[tuple[str, str, str], _Scan] = OrderedDict()

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        session = callback_context.session
        key = (session.app_name, session.user_id, session.id)
        scan = self._scans.get(key)
        events = session.events
        if scan is None or not scan.continues(events):
            scan = _Scan()
        scan.read(events)
        remember(self._scans, key, scan, _SCANNED_SESSIONS)
        unanswered = scan.unanswered()
        if unanswered:
            llm_request.contents = drop_unanswered(list(llm_request.contents or []), unanswered)
        return None  # edited in place: later plugins and the agent's callbacks still run
