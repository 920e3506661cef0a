"""A google.genai Content kept as a session artifact (JSON bytes in one Part): how adk-fluent
sets text aside where no client receives it (an event's artifact_delta carries only names and
versions, never content)."""

from __future__ import annotations

import json
from typing import Any

MIME = "application/json"


def content_as_part(content: Any) -> Any:
    """The Part an artifact service stores for `content`."""
    from google.genai import types

    payload = json.dumps(content.model_dump(mode="json", exclude_none=True))
    return types.Part.from_bytes(data=payload.encode("utf-8"), mime_type=MIME)


def content_from_part(part: Any) -> Any:
    """The Content a stored Part holds (the reverse of content_as_part)."""
    from google.genai import types

    return types.Content.model_validate(json.loads(part.inline_data.data))
