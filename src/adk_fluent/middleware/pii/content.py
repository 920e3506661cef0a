"""The PII filter over ADK content: message parts and instructions redacted, and the original
user message kept in (and read back from) a session artifact."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from adk_fluent.adk.artifact_content import content_from_part
from adk_fluent.errors import AdkFluentError
from adk_fluent.middleware.pii.detection import Redactor
from adk_fluent.middleware.pii.names import (
    FRAMEWORK_CALLS,
)


# -- ADK content ---------------------------------------------------------------------------------
# What was found comes back as a Counter made only when something was (None: nothing): these
# run on every part of every request, event and reply, nearly always finding nothing.
def added(counts: Counter[str] | None, found: Counter[str]) -> Counter[str]:
    """`counts` with `found` added to it; `found` itself while nothing was counted yet."""
    if counts is None:
        return found
    counts.update(found)
    return counts


def redacted_parts(
    redactor: Redactor, content: Any, *, responses: bool
) -> tuple[Any, Counter[str] | None]:
    """A Content with its text (and, with `responses`, its function responses) redacted, and
    the counts of what was found; (the same Content, None) when nothing was."""
    if content is None or not content.parts:
        return content, None
    parts = content.parts
    copied: list[Any] | None = None  # the parts, once one is replaced
    counts: Counter[str] | None = None
    for index, part in enumerate(parts):
        text = part.text
        if text:
            redacted, found = redactor.remembered(text)
            if not found:
                continue
            counts = added(counts, Counter(found))
            if copied is None:
                copied = list(parts)
            copied[index] = part.model_copy(update={"text": redacted})
        elif responses:
            reply = part.function_response
            if reply is None or reply.name in FRAMEWORK_CALLS or not reply.response:
                continue
            if not redactor.finds_in(reply.response):
                continue
            found = Counter()
            response = redactor.redact_value(reply.response, found)
            if not found:
                continue
            counts = added(counts, found)
            new_reply = reply.model_copy(update={"response": response})
            if copied is None:
                copied = list(parts)
            copied[index] = part.model_copy(update={"function_response": new_reply})
    if copied is None:
        return content, None
    return content.model_copy(update={"parts": copied}), counts


def redact_parts(redactor: Redactor, content: Any, counts: Counter[str], *, responses: bool) -> Any:
    """A copy of a Content with its text (and, with `responses`, its function responses)
    redacted, adding what was found to `counts`; the same object when nothing changed."""
    redacted, found = redacted_parts(redactor, content, responses=responses)
    if found:
        counts.update(found)
    return redacted


def redacted_instruction(redactor: Redactor, value: Any) -> tuple[Any, Counter[str] | None]:
    """A system instruction (text, Content, Part or a list of them) redacted, and the counts
    of what was found (None: nothing)."""
    if isinstance(value, str):
        text, found = redactor.remembered(value)
        return text, (Counter(found) if found else None)
    if isinstance(value, list):
        counts: Counter[str] | None = None
        items = []
        for item in value:
            redacted, in_item = redacted_instruction(redactor, item)
            items.append(redacted)
            if in_item:
                counts = added(counts, in_item)
        return items, counts
    if hasattr(value, "parts"):  # a Content
        return redacted_parts(redactor, value, responses=False)
    if getattr(value, "text", None):  # a Part
        text, found = redactor.remembered(value.text)
        if found:
            return value.model_copy(update={"text": text}), Counter(found)
    return value, None


def redact_instruction(redactor: Redactor, value: Any, counts: Counter[str]) -> Any:
    """`redacted_instruction`, adding what was found to `counts`."""
    redacted, found = redacted_instruction(redactor, value)
    if found:
        counts.update(found)
    return redacted


def _digest(content: Any) -> str:
    """A short digest of a (redacted) message's text and function responses: what ties the
    stored user event to the artifact that holds its original."""
    pieces = [
        part.text
        if part.text
        else json.dumps(part.function_response.response, sort_keys=True, default=str)
        for part in content.parts or ()
        if part.text or (part.function_response is not None)
    ]
    return hashlib.sha256("\x00".join(pieces).encode("utf-8")).hexdigest()[:16]


def original_artifact_name(invocation_id: str, redacted: Any) -> str:
    """The session artifact that holds the original of a user message ("artifact" policy)."""
    return f"adk_fluent.pii.{invocation_id}.{_digest(redacted)}.json"


async def original_message(event: Any, *, artifact_service: Any, session: Any) -> Any:
    """The original of a stored user message that `pii_filter(keep_original="artifact")`
    redacted (a google.genai Content), or None when the filter kept none for it."""
    if artifact_service is None or session is None:
        raise AdkFluentError(
            f"original_message needs the artifact service and the stored session of event "
            f"{getattr(event, 'id', '?')}: the original is a session artifact."
            "\n  hint: await original_message(event, artifact_service=runner.artifact_service, "
            "session=session)."
        )
    if event.content is None or event.author != "user":
        return None
    part = await artifact_service.load_artifact(
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        filename=original_artifact_name(event.invocation_id, event.content),
    )
    if part is None or part.inline_data is None:
        return None
    return content_from_part(part)


def counted(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items()))
