"""diff_events: where two runs diverge, event by event (and, for two recordings, model request
by model request and in their trees).

Events are compared by author, text, tool calls (name and arguments), tool results, state
delta, artifact delta, error code, transfer and any other parts (inline data, code, ...).
Ids, timestamps, invocation ids, usage and latency always differ and are never compared;
partial (streamed) events are left out. The user's messages are compared only when both sides
have them (a Recording and a session's history do; a run()'s client events do not).

Events are aligned first (difflib), so an event added or removed is reported once as such and
the events after it still pair up. For two recordings the events of each session are kept
together, sessions in the order they began.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from typing import Any

from adk_fluent.errors import BuildError, describe_value
from adk_fluent.replay.compare import (
    describe_part,
    request_differences,
    shorten,
    text_change,
)
from adk_fluent.replay.fingerprint import tree_changes
from adk_fluent.replay.recording import ModelCall, RecordedEvent, Recording
from adk_fluent.replay.values import canonical, content_json, encode

# the fields of an event's comparable view, in the order differences are reported
_FIELDS = (
    ("author", "author"),
    ("text", "text"),
    ("calls", "tool calls"),
    ("results", "tool results"),
    ("state_delta", "state delta"),
    ("artifact_delta", "artifact delta"),
    ("error_code", "error code"),
    ("transfer_to_agent", "transfer"),
    ("other_parts", "other parts"),
)


@dataclass(frozen=True)
class Difference:
    """One way two runs differ.

    `kind` is "event", "model_request" or "tree"; `what` names the aspect ("text", "tool
    calls", "instruction", "missing", "extra", ...); `where` says where in words. For events
    `index` / `right_index` are the positions (0-based) in each side's list of compared events
    (None on the side that lacks it); for model requests `agent` and `call` (1-based).
    `left` and `right` are the two values (JSON form), `detail` the readable account."""

    kind: str
    what: str
    where: str
    detail: str
    index: int | None = None
    right_index: int | None = None
    agent: str | None = None
    call: int | None = None
    left: Any = None
    right: Any = None

    def __str__(self) -> str:
        return f"{self.where}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        """The difference as JSON data."""
        return asdict(self)


@dataclass(frozen=True)
class EventDiff:
    """The result of diff_events: `differences` in order (events, then model requests, then
    the trees); `empty` when the two runs match; `bool(diff)` is True when they differ."""

    differences: tuple[Difference, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing compared differs."""
        return not self.differences

    def __bool__(self) -> bool:
        return bool(self.differences)

    def __len__(self) -> int:
        return len(self.differences)

    @property
    def first_divergence(self) -> Difference | None:
        """The first event that differs; without one, the first model request; then the tree."""
        for kind in ("event", "model_request", "tree"):
            for difference in self.differences:
                if difference.kind == kind:
                    return difference
        return None

    @property
    def summary(self) -> str:
        """One line: 'no differences', or how many and the first divergence."""
        first = self.first_divergence
        if first is None:
            return "no differences"
        count = len(self.differences)
        head = shorten(" ".join(line.strip() for line in str(first).splitlines()), 200)
        return f"{count} difference{'s' if count != 1 else ''}; first: {head}"

    def __str__(self) -> str:
        if not self.differences:
            return "no differences"
        return "\n".join([self.summary, *(str(d) for d in self.differences)])

    def to_dict(self) -> dict[str, Any]:
        """The diff as JSON data (differences, the first divergence, the summary)."""
        first = self.first_divergence
        return {
            "empty": self.empty,
            "summary": self.summary,
            "first_divergence": None if first is None else first.to_dict(),
            "differences": [d.to_dict() for d in self.differences],
        }


# -- events as compared --------------------------------------------------------------------
def _content_view(content: Any, problems: list[str]) -> dict[str, Any]:
    """text, calls, results, other parts from a recorded-form content."""
    texts: list[str] = []
    calls: list[Any] = []
    results: list[Any] = []
    other: list[Any] = []
    for part in (content or {}).get("parts", []) if isinstance(content, dict) else []:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            if part.get("thought"):
                continue  # a model's thinking differs run to run; the answer is compared
            texts.append(part["text"])
        elif isinstance(part.get("function_call"), dict):
            call = part["function_call"]
            calls.append({"name": call.get("name"), "args": call.get("args", {})})
        elif isinstance(part.get("function_response"), dict):
            response = part["function_response"]
            results.append({"name": response.get("name"), "response": response.get("response")})
        else:
            other.append({k: v for k, v in part.items() if k != "thought_signature"})
    return {
        "text": "".join(texts) if texts else None,
        "calls": calls,
        "results": results,
        "other_parts": other,
    }


def _view(event: Any, side: str, index: int) -> dict[str, Any] | None:
    """An event's comparable view (None: a partial event, left out)."""
    problems: list[str] = []  # a value that cannot be stored still compares by its tag
    from adk_fluent.run.events import AgentEvent

    if isinstance(event, RecordedEvent):
        if event.partial:
            return None
        view = _content_view(event.content, problems)
        return {
            "author": event.author,
            **view,
            "state_delta": event.state_delta or {},
            "artifact_delta": event.artifact_delta or {},
            "error_code": event.error_code,
            "transfer_to_agent": event.transfer_to_agent,
        }
    if isinstance(event, AgentEvent) and event.raw is None:
        if event.is_partial:
            return None
        return {
            "author": event.author,
            "text": event.content,
            "calls": [
                {"name": c.tool_name, "args": encode(c.args, "args", problems)}
                for c in event.tool_calls
            ],
            "results": [
                {"name": r.tool_name, "response": encode(r.result, "result", problems)}
                for r in event.tool_responses
            ],
            "other_parts": [],
            "state_delta": encode(dict(event.state_delta), "state", problems),
            "artifact_delta": dict(event.artifact_delta),
            "error_code": event.error_code,
            "transfer_to_agent": event.transfer_to,
        }
    raw = event.raw if isinstance(event, AgentEvent) else event
    if _is_adk_event(raw):
        if raw.partial:
            return None
        actions = raw.actions
        view = _content_view(content_json(raw.content, "event", problems), problems)
        return {
            "author": raw.author,
            **view,
            "state_delta": encode(dict(actions.state_delta or {}), "state", problems)
            if actions
            else {},
            "artifact_delta": dict(actions.artifact_delta or {}) if actions else {},
            "error_code": getattr(raw, "error_code", None),
            "transfer_to_agent": actions.transfer_to_agent if actions else None,
        }
    raise BuildError(
        f"{side}[{index}] is {describe_value(event)}, not an event",
        field=side,
        hint="diff_events compares two Recordings, or two lists of events: adk-fluent "
        "AgentEvents (from run()), ADK Events (session.events) or recording.events.",
    )


def _is_adk_event(value: Any) -> bool:
    if not (hasattr(value, "author") and hasattr(value, "actions")):
        return False
    from google.adk.events.event import Event

    return isinstance(value, Event)


def _label(view: dict[str, Any]) -> str:
    if view["text"]:
        return repr(shorten(view["text"], 50))
    if view["calls"]:
        return "call " + ", ".join(str(c["name"]) for c in view["calls"])
    if view["results"]:
        return "result of " + ", ".join(str(r["name"]) for r in view["results"])
    if view["error_code"]:
        return f"error {view['error_code']}"
    if view["state_delta"]:
        return "state " + ", ".join(sorted(view["state_delta"]))
    return "no content"


def _field_detail(field: str, left: Any, right: Any) -> str:
    if field == "text" and isinstance(left, str) and isinstance(right, str):
        return "text changed:\n" + text_change(left, right, ("in the first", "in the second"))
    if field == "text":
        shown = [repr(shorten(v, 60)) if isinstance(v, str) else "no text" for v in (left, right)]
        return f"text changed: {shown[0]} -> {shown[1]}"
    if field == "author":
        return f"author changed: '{left}' -> '{right}'"
    if field == "state_delta":
        keys = sorted(
            key
            for key in set(left) | set(right)
            if canonical(left.get(key)) != canonical(right.get(key))
            or (key in left) != (key in right)
        )
        parts = []
        for key in keys[:4]:
            before = shorten(canonical(left[key]), 40) if key in left else "(not written)"
            after = shorten(canonical(right[key]), 40) if key in right else "(not written)"
            parts.append(f"{key}: {before} -> {after}")
        more = f" (and {len(keys) - 4} more)" if len(keys) > 4 else ""
        return "state delta changed: " + "; ".join(parts) + more
    if field in ("calls", "results", "other_parts"):
        name = dict(_FIELDS)[field]
        return f"{name} changed: {_parts_words(field, left)} -> {_parts_words(field, right)}"
    return f"{dict(_FIELDS)[field]} changed: {shorten(canonical(left), 60)} -> {shorten(canonical(right), 60)}"


def _parts_words(field: str, items: list[Any]) -> str:
    if not items:
        return "none"
    key = {"calls": "function_call", "results": "function_response"}.get(field)
    if field == "results":
        items = [{"name": i["name"], "response": i["response"]} for i in items]
    return "; ".join(describe_part({key: item} if key else item) for item in items)


# -- the comparison ------------------------------------------------------------------------
def _events_of(value: Any, side: str) -> list[Any]:
    if isinstance(value, Recording):
        order = {session: n for n, session in enumerate(value.sessions)}
        return sorted(value.events, key=lambda e: (order.get(e.session_id, 0), e.seq))
    if isinstance(value, list | tuple):
        return list(value)
    raise BuildError(
        f"{side} is {describe_value(value)}; diff_events compares two Recordings or two lists "
        "of events",
        field=side,
        hint="e.g. diff_events(recording, Recording.load('new.json')), or "
        "diff_events(events, replayed_events) with the lists run() returned.",
    )


def _compared(events: list[Any], side: str) -> tuple[list[dict[str, Any]], list[int]]:
    views: list[dict[str, Any]] = []
    positions: list[int] = []
    for index, event in enumerate(events):
        view = _view(event, side, index)
        if view is not None:
            views.append(view)
            positions.append(index)
    return views, positions


def _event_where(index: int | None, right: int | None, view: dict[str, Any]) -> str:
    if index is None:
        return f"event #{(right or 0) + 1} of the second ('{view['author']}')"
    if right is None or right == index:
        return f"event #{index + 1} ('{view['author']}')"
    return f"event #{index + 1} ('{view['author']}', #{right + 1} in the second)"


def _pair(a: dict[str, Any], b: dict[str, Any], i: int, j: int) -> list[Difference]:
    found = []
    for field, name in _FIELDS:
        left, right = a[field], b[field]
        if canonical(left) != canonical(right):
            found.append(
                Difference(
                    "event",
                    name,
                    _event_where(i, j, a),
                    _field_detail(field, left, right),
                    index=i,
                    right_index=j,
                    agent=a["author"],
                    left=left,
                    right=right,
                )
            )
    return found


def _alone(view: dict[str, Any], i: int | None, j: int | None) -> Difference:
    """An event only one side has: the first's (`i`, missing) or the second's (`j`, extra)."""
    first = i is not None
    return Difference(
        "event",
        "missing" if first else "extra",
        _event_where(i, j, view),
        f"only in the {'first' if first else 'second'}: {_label(view)}",
        index=i,
        right_index=j,
        agent=view["author"],
        left=view if first else None,
        right=None if first else view,
    )


def _event_differences(left: list[dict[str, Any]], right: list[dict[str, Any]]) -> list[Difference]:
    keys_a = [canonical(v) for v in left]
    keys_b = [canonical(v) for v in right]
    found: list[Difference] = []
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # inside a changed block, events pair up by author (a changed text stays one change)
        authors = difflib.SequenceMatcher(
            None,
            [v["author"] for v in left[i1:i2]],
            [v["author"] for v in right[j1:j2]],
            autojunk=False,
        )
        for inner, a1, a2, b1, b2 in authors.get_opcodes():
            paired = min(a2 - a1, b2 - b1) if inner in ("equal", "replace") else 0
            for k in range(paired):
                i, j = i1 + a1 + k, j1 + b1 + k
                found += _pair(left[i], right[j], i, j)
            for i in range(i1 + a1 + paired, i1 + a2):
                found.append(_alone(left[i], i, None))
            for j in range(j1 + b1 + paired, j1 + b2):
                found.append(_alone(right[j], None, j))
    return found


def _calls_by_agent(recording: Recording) -> dict[tuple[int, str], list[ModelCall]]:
    order = {session: n for n, session in enumerate(recording.sessions)}
    grouped: dict[tuple[int, str], list[ModelCall]] = {}
    for call in recording.model_calls:
        grouped.setdefault((order.get(call.session_id, 0), call.agent), []).append(call)
    return grouped


def _request_differences(a: Recording, b: Recording) -> list[Difference]:
    left, right = _calls_by_agent(a), _calls_by_agent(b)
    several = len(a.sessions) > 1 or len(b.sessions) > 1
    found: list[Difference] = []
    for key in dict.fromkeys([*left, *right]):
        session, agent = key
        mine, theirs = left.get(key, []), right.get(key, [])
        for n in range(max(len(mine), len(theirs))):
            where = f"model request #{n + 1} of '{agent}'" + (
                f" in session #{session + 1}" if several else ""
            )
            if n >= len(theirs) or n >= len(mine):
                only = "first" if n < len(mine) else "second"
                found.append(
                    Difference(
                        "model_request",
                        "missing" if only == "first" else "extra",
                        where,
                        f"only in the {only} recording",
                        agent=agent,
                        call=n + 1,
                    )
                )
                continue
            labels = ("in the first", "in the second")
            for what, detail in request_differences(mine[n].request, theirs[n].request, labels):
                found.append(
                    Difference(
                        "model_request",
                        what,
                        where,
                        detail,
                        agent=agent,
                        call=n + 1,
                        left=mine[n].request.get(what),
                        right=theirs[n].request.get(what),
                    )
                )
    return found


def diff_events(a: Any, b: Any) -> EventDiff:
    """Where two runs diverge: two Recordings (events, model requests and trees compared), or
    two lists of events (adk-fluent AgentEvents, ADK Events or a recording's events)."""
    both_recordings = isinstance(a, Recording) and isinstance(b, Recording)
    if isinstance(a, Recording) != isinstance(b, Recording):
        side = "b" if isinstance(a, Recording) else "a"
        raise BuildError(
            f"{side} is {describe_value(b if side == 'b' else a)} while the other is a "
            "Recording; diff_events compares two Recordings or two lists of events",
            field=side,
            hint="compare recording.events with the list, or record the other run too "
            "(Recorder) and compare the two recordings.",
        )
    left_events, right_events = _events_of(a, "a"), _events_of(b, "b")
    left, _ = _compared(left_events, "a")
    right, _ = _compared(right_events, "b")
    if not (any(v["author"] == "user" for v in left) and any(v["author"] == "user" for v in right)):
        left = [v for v in left if v["author"] != "user"]
        right = [v for v in right if v["author"] != "user"]
    found = _event_differences(left, right)
    if both_recordings:
        found += _request_differences(a, b)
        for change in tree_changes(a.header.tree, b.header.tree):
            found.append(Difference("tree", "tree", "tree", change))
    return EventDiff(tuple(found))
