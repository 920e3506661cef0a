"""What counts when two model requests (or two values) are compared, and how a difference is
told: a replay's request against the recorded one, and two recordings' requests in a diff.

A request is compared by its instruction, its contents (role and every part: text, function
calls and responses by name and value, inline data, files, code) and its tools' names. Ids,
thought signatures and the model's name and settings are left out: they differ from run to
run, or are not what the pipeline asked.
"""

from __future__ import annotations

import difflib
from typing import Any

from adk_fluent.replay.values import canonical

_PART_NOISE = ("thought_signature", "video_metadata")
SHORT = 100  # characters: a text longer than this (or with a newline) is shown as a diff
_DIFF_LINES = 16  # lines of a unified diff shown in a message


def _part_view(part: Any) -> Any:
    if not isinstance(part, dict):
        return part
    view = {key: value for key, value in part.items() if key not in _PART_NOISE}
    for key in ("function_call", "function_response"):
        inner = view.get(key)
        if isinstance(inner, dict):
            view[key] = {k: v for k, v in inner.items() if k != "id"}
    return view


def _content_view(content: Any) -> dict[str, Any]:
    content = content if isinstance(content, dict) else {}
    return {
        "role": content.get("role"),
        "parts": [_part_view(part) for part in content.get("parts", [])],
    }


def request_view(request: dict[str, Any]) -> dict[str, Any]:
    """The parts of a recorded model request that a comparison looks at."""
    return {
        "instruction": request.get("instruction") or "",
        "contents": [_content_view(content) for content in request.get("contents", [])],
        "tools": list(request.get("tools", [])),
    }


def shorten(text: str, limit: int = 80) -> str:
    """`text` on one line, cut to `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


Labels = tuple[str, str]
REPLAY: Labels = ("in the recording", "in this run")  # a replay's request against the recorded one


def text_change(before: str, after: str, labels: Labels = REPLAY) -> str:
    """How a text changed: `- before` / `+ after` for short texts; for long ones the changed
    lines in unified-diff style (`@@` hunk headers when there are several), cut to a few."""
    if len(before) <= SHORT and len(after) <= SHORT and "\n" not in before + after:
        return f"  - {before}\n  + {after}"
    lines = [
        line
        for line in difflib.unified_diff(
            before.splitlines(), after.splitlines(), labels[0], labels[1], n=0, lineterm=""
        )
        if not line.startswith(("---", "+++"))
    ]
    if sum(1 for line in lines if line.startswith("@@")) == 1:
        lines = [line for line in lines if not line.startswith("@@")]
    if len(lines) > _DIFF_LINES:
        lines = [*lines[:_DIFF_LINES], f"... ({len(lines) - _DIFF_LINES} more lines)"]
    return "\n".join(
        f"  {line[:1]} {line[1:]}" if line[:1] in "+-" else f"  {line}" for line in lines
    )


def describe_part(part: Any) -> str:
    """A part in a few words: its text, its call, its response, or its kind."""
    if not isinstance(part, dict):
        return shorten(canonical(part))
    if isinstance(part.get("text"), str):
        return repr(shorten(part["text"], 60)) + (" (thought)" if part.get("thought") else "")
    call = part.get("function_call")
    if isinstance(call, dict):
        return f"call {call.get('name')}({shorten(canonical(call.get('args', {})), 60)})"
    response = part.get("function_response")
    if isinstance(response, dict):
        return (
            f"result of {response.get('name')}: {shorten(canonical(response.get('response')), 60)}"
        )
    inline = part.get("inline_data")
    if isinstance(inline, dict):
        return f"inline data ({inline.get('mime_type')})"
    kinds = ", ".join(sorted(part)) or "empty"
    return f"a part with {kinds}"


def _part_change(before: Any, after: Any, labels: Labels) -> str:
    if isinstance(before, dict) and isinstance(after, dict):
        if isinstance(before.get("text"), str) and isinstance(after.get("text"), str):
            return "text changed:\n" + text_change(before["text"], after["text"], labels)
        for key in ("function_call", "function_response"):
            if isinstance(before.get(key), dict) and isinstance(after.get(key), dict):
                what = "function call" if key == "function_call" else "function response"
                return f"{what} changed: {describe_part(before)} -> {describe_part(after)}"
    return f"changed: {describe_part(before)} -> {describe_part(after)}"


def _message(index: int, content: dict[str, Any]) -> str:
    return f"message #{index + 1} ({content.get('role') or 'no role'})"


def contents_difference(before: list[Any], after: list[Any], labels: Labels = REPLAY) -> str | None:
    """The first difference between two lists of contents, told in words (None: equal)."""
    for index, (old, new) in enumerate(zip(before, after, strict=False)):
        if old == new:
            continue
        if old.get("role") != new.get("role"):
            return (
                f"contents: {_message(index, old)} has role {old.get('role')!r} "
                f"{labels[0]}, {new.get('role')!r} {labels[1]}"
            )
        old_parts, new_parts = old.get("parts", []), new.get("parts", [])
        for number, (a, b) in enumerate(zip(old_parts, new_parts, strict=False)):
            if a != b:
                return f"contents: {_message(index, old)} part #{number + 1} " + _part_change(
                    a, b, labels
                )
        # the parts agree as far as both go: one side has more
        side, shared = _longer(old_parts, new_parts)
        only = (old_parts, new_parts)[side][shared]
        return (
            f"contents: {_message(index, old)} part #{shared + 1} is only "
            f"{labels[side]}: {describe_part(only)}"
        )
    if len(before) == len(after):
        return None
    side, shared = _longer(before, after)
    only = (before, after)[side][shared]
    parts = ", ".join(describe_part(p) for p in only.get("parts", [])[:2])
    return (
        f"contents: {len(before)} messages {labels[0]}, {len(after)} {labels[1]}; "
        f"{_message(shared, only)} is only {labels[side]}: {parts}"
    )


def _longer(before: list[Any], after: list[Any]) -> tuple[int, int]:
    """Which of two lists is longer (0: `before`, 1: `after`), and how long the shorter is."""
    return (0 if len(before) > len(after) else 1), min(len(before), len(after))


def request_differences(
    recorded: dict[str, Any], current: dict[str, Any], labels: Labels = REPLAY
) -> list[tuple[str, str]]:
    """Every aspect in which two recorded-form model requests differ, in the order
    instruction, contents, tools: [(aspect, told in words)]; [] when they match."""
    before, after = request_view(recorded), request_view(current)
    if before == after:
        return []
    found: list[tuple[str, str]] = []
    if before["instruction"] != after["instruction"]:
        change = text_change(before["instruction"], after["instruction"], labels)
        found.append(("instruction", "instruction changed:\n" + change))
    contents = contents_difference(before["contents"], after["contents"], labels)
    if contents is not None:
        found.append(("contents", contents))
    if before["tools"] != after["tools"]:
        found.append(
            (
                "tools",
                f"tools changed: {before['tools']} {labels[0]}, {after['tools']} {labels[1]}",
            )
        )
    return found


def request_difference(recorded: dict[str, Any], current: dict[str, Any]) -> str | None:
    """The first difference between a recorded request and a replayed one (None: a match)."""
    found = request_differences(recorded, current)
    return found[0][1] if found else None
