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
def redact_parts(redactor: Redactor, content: Any, counts: Counter[str], *, responses: bool) -> Any:
    """A copy of a Content with its text (and, with `responses`, its function responses)
    redacted; the same object when nothing changed."""
    if content is None or not content.parts:
        return content
    parts = list(content.parts)
    changed = False
    for index, part in enumerate(parts):
        if part.text:
            text, found = redactor.redact(part.text)
            if found:
                counts.update(found)
                parts[index] = part.model_copy(update={"text": text})
                changed = True
        elif responses and part.function_response is not None:
            reply = part.function_response
            if reply.name in FRAMEWORK_CALLS or not reply.response:
                continue
            found = Counter[str]()
            response = redactor.redact_value(reply.response, found)
            if found:
                counts.update(found)
                new_reply = reply.model_copy(update={"response": response})
                parts[index] = part.model_copy(update={"function_response": new_reply})
                changed = True
    return content.model_copy(update={"parts": parts}) if changed else content


def redact_instruction(redactor: Redactor, value: Any, counts: Counter[str]) -> Any:
    if isinstance(value, str):
        text, found = redactor.redact(value)
        counts.update(found)
        return text
    if isinstance(value, list):
        return [redact_instruction(redactor, item, counts) for item in value]
    if hasattr(value, "parts"):  # a Content
        return redact_parts(redactor, value, counts, responses=False)
    if getattr(value, "text", None):  # a Part
        text, found = redactor.redact(value.text)
        if found:
            counts.update(found)
            return value.model_copy(update={"text": text})
    return value


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
