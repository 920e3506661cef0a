"""Media parts for the content tests: distinct bytes per part, a scripted reply that carries the
modalities an agent declares, and what a model request (or an event) holds of them."""

from __future__ import annotations

from typing import Any

from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent.ir.content import Modality, part_modality


def blob(mime: str, data: bytes, name: str | None = None) -> types.Part:
    """An inline part (bytes) with a MIME type."""
    return types.Part(inline_data=types.Blob(mime_type=mime, data=data, display_name=name))


def uri(mime: str, address: str) -> types.Part:
    """A file part (a URI) with a MIME type."""
    return types.Part(file_data=types.FileData(file_uri=address, mime_type=mime))


# every byte value, so a lossy text round trip (utf-8, latin-1, base64 twice) shows
USER_IMAGE = blob("image/jpeg", bytes(range(256)) * 4, "photo.jpg")
USER_PDF = uri("application/pdf", "gs://bucket/report.pdf")
USER_AUDIO = blob("audio/wav", b"RIFF" + bytes(range(255, -1, -1)) * 2)
AGENT_IMAGE = blob("image/png", b"\x89PNG\r\n\x1a\n" + bytes(range(256))[::3], "drawing.png")
AGENT_VIDEO = uri("video/mp4", "gs://bucket/clip.mp4")

# one part per modality, for replies that carry what an agent declared
SAMPLES: dict[Modality, types.Part] = {
    Modality.IMAGE: AGENT_IMAGE,
    Modality.AUDIO: blob("audio/ogg", b"OggS" + bytes(range(64))),
    Modality.VIDEO: AGENT_VIDEO,
    Modality.PDF: blob("application/pdf", b"%PDF-1.7\n" + bytes(range(32))),
    Modality.FILE: blob("text/csv", b"a,b\n1,2\n"),
    Modality.CODE: types.Part(executable_code=types.ExecutableCode(code="1", language="PYTHON")),
}


def _usage() -> types.GenerateContentResponseUsageMetadata:
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=5, candidates_token_count=3, total_token_count=8
    )


def reply(*parts: types.Part, text: str | None = "done") -> LlmResponse:
    """A scripted model reply: `text` (when given) and `parts`."""
    content = ([types.Part(text=text)] if text is not None else []) + list(parts)
    return LlmResponse(content=types.Content(role="model", parts=content), usage_metadata=_usage())


def reply_with(modalities: Any, name: str) -> LlmResponse:
    """A reply carrying one sample part of each declared media modality, and text."""
    parts = [SAMPLES[m] for m in sorted(modalities, key=lambda m: m.value) if m in SAMPLES]
    return reply(*parts, text=f"{name} answered")


def media(parts: Any) -> list[tuple[str, Any]]:
    """(mime, bytes or URI) of each media part, in order."""
    found = []
    for part in parts or []:
        if part.inline_data is not None:
            found.append((part.inline_data.mime_type, part.inline_data.data))
        elif part.file_data is not None:
            found.append((part.file_data.mime_type, part.file_data.file_uri))
    return found


def request_media(request: Any) -> list[tuple[str, Any]]:
    """Every media part a model request carries, in order."""
    return [item for content in request.contents or [] for item in media(content.parts)]


def request_modalities(request: Any) -> set[Modality]:
    """The modalities of every part a model request carries."""
    found = set()
    for content in request.contents or []:
        for part in content.parts or []:
            modality = part_modality(part)
            if modality is not None:
                found.add(modality)
    return found


def item(part: types.Part) -> tuple[str, Any]:
    """(mime, bytes or URI) of one part."""
    (found,) = media([part])
    return found
