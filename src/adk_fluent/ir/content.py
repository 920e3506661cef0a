"""Multimodal content contracts: what an agent accepts and produces (`Agent.accepts()`,
`Agent.produces_modality()`), as plain frozen values the IR holds and the checker reads.

    Agent("vision").accepts("image", "text").produces_modality("text")

A modality is what a part of a message carries. Text, structured output (JSON) and code all
travel in text parts, so any model reads them; images, audio, video, PDFs and other files
travel as `inline_data` (bytes) or `file_data` (a URI), each with a MIME type, and a model
reads only those it was made for. `parts_modalities` reads them off google.genai Parts by
attribute (this room imports no google package): `image/*` is an image, `audio/*` audio,
`video/*` video, `application/pdf` a PDF and any other MIME type a file. Function calls and
responses and a model's thoughts are not content: no other agent is shown them as such.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from adk_fluent_generated.sentinel import UNSET

from adk_fluent.arguments import checked_count, checked_instance, checked_some
from adk_fluent.errors import BuildError, did_you_mean


class Modality(Enum):
    """What one part of a message carries."""

    TEXT = "text"
    IMAGE = "image"
    AUDIO = "audio"
    VIDEO = "video"
    PDF = "pdf"
    FILE = "file"  # any other file: text/csv, application/json, octet-stream, ...
    STRUCTURED = "structured"  # JSON text (an agent with an output_schema)
    CODE = "code"  # executable code and its results (code execution)

    def __repr__(self) -> str:
        return f"Modality.{self.name}"


# Carried in text parts: every model request carries text (the agent's instruction at least), so
# every LLM agent reads these, whatever it declared.
TEXTUAL: frozenset[Modality] = frozenset({Modality.TEXT, Modality.STRUCTURED, Modality.CODE})
# Carried as bytes or a URI with a MIME type: a model reads only those it was made for.
MEDIA: frozenset[Modality] = frozenset(
    {Modality.IMAGE, Modality.AUDIO, Modality.VIDEO, Modality.PDF, Modality.FILE}
)

_ORDER = {modality: index for index, modality in enumerate(Modality)}
_NAMES = tuple(m.value for m in Modality)
_LISTED = ", ".join(_NAMES)


def ordered(modalities: Iterable[Modality]) -> tuple[Modality, ...]:
    """Modalities in the enum's order (for stable messages)."""
    return tuple(sorted(set(modalities), key=_ORDER.__getitem__))


def names(modalities: Iterable[Modality]) -> str:
    """'image, audio' (in the enum's order)."""
    return ", ".join(m.value for m in ordered(modalities))


def modality_of_mime(mime_type: Any) -> Modality:
    """The modality of a MIME type: image/*, audio/*, video/*, application/pdf, else a file."""
    mime = str(mime_type or "").split(";", 1)[0].strip().lower()
    kind = mime.split("/", 1)[0]
    if kind in ("image", "audio", "video"):
        return Modality(kind)
    if mime == "application/pdf":
        return Modality.PDF
    return Modality.FILE


def part_modality(part: Any) -> Modality | None:
    """What a google.genai Part carries; None when it is not content passed on to another
    model: a function call or response, a thought, an empty part."""
    if getattr(part, "thought", None):
        return None
    for attribute in ("inline_data", "file_data"):
        data = getattr(part, attribute, None)
        if data is not None:
            return modality_of_mime(getattr(data, "mime_type", None))
    if getattr(part, "executable_code", None) is not None:
        return Modality.CODE
    if getattr(part, "code_execution_result", None) is not None:
        return Modality.CODE
    if getattr(part, "function_call", None) is not None:
        return None
    if getattr(part, "function_response", None) is not None:
        return None
    if getattr(part, "text", None) is not None:
        return Modality.TEXT
    return None


def parts_modalities(parts: Iterable[Any] | None) -> frozenset[Modality]:
    """The modalities of a list of google.genai Parts (a Content's `parts`)."""
    found = (part_modality(part) for part in parts or ())
    return frozenset(m for m in found if m is not None)


def parse_modality(value: Any, *, agent: str | None = None, field: str = "content") -> Modality:
    """A Modality from a member or its name (case-insensitive); a BuildError with a
    did-you-mean (or the modality a MIME type stands for) otherwise."""
    if isinstance(value, Modality):
        return value
    hint = f'e.g. .accepts("image", "text") or .accepts(Modality.IMAGE); modalities: {_LISTED}.'
    checked_instance(value, agent, field, str, what="a Modality or its name", hint=hint)
    name = value.strip().lower()
    if name in _NAMES:
        return Modality(name)
    if "/" in name:  # a MIME type: name the modality it stands for
        suggestion = modality_of_mime(name).value
        hint = f'"{value[:60]}" is a MIME type: declare its modality, "{suggestion}"'
    else:
        guess = did_you_mean(name, _NAMES)
        hint = (guess + " " if guess else "") + f"modalities: {_LISTED}"
    raise BuildError(f"unknown modality {value[:60]!r}", agent=agent, field=field, hint=hint + ".")


def parse_modalities(
    values: Iterable[Any], *, agent: str | None = None, field: str = "content"
) -> frozenset[Modality]:
    """Modalities from members or names; at least one."""
    found = frozenset(parse_modality(value, agent=agent, field=field) for value in values)
    hint = f'e.g. .accepts("image", "text"); modalities: {_LISTED}.'
    shown = f".{field}()" if agent is not None else "ContentSpec"
    checked_some(found, agent, field, shown=shown, items="modality", hint=hint)
    return found


@dataclass(frozen=True)
class ContentSpec:
    """What an LLM agent accepts and produces. `None` means not declared: an agent that declared
    nothing accepts anything (the checker says nothing about it) and produces text (structured
    text with an output_schema). Text, structured text and code are always accepted (every
    request carries text); `accepts` decides for images, audio, video, PDFs and files.

    `max_input_tokens` / `max_output_tokens` are declared bounds the checker compares (a
    consumer's input bound against the output bounds of the replies it sees); they do not
    configure the model."""

    accepts: frozenset[Modality] | None = None
    produces: frozenset[Modality] | None = None
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None

    def __post_init__(self) -> None:
        # a hand-made spec is checked (and names become members) here, like the builder's
        for name in ("accepts", "produces"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, str | Modality) or not isinstance(value, Iterable):
                value = (value,)
            object.__setattr__(self, name, parse_modalities(value))
        for name in ("max_input_tokens", "max_output_tokens"):
            if getattr(self, name) is not None:
                hint = "a number of tokens, e.g. max_tokens=8000, or leave it out."
                checked_count(getattr(self, name), None, "content", least=1, hint=hint, shown=name)

    def takes(self, modality: Modality) -> bool:
        """Whether an agent with this spec may be shown `modality`."""
        return self.accepts is None or modality in TEXTUAL or modality in self.accepts

    def describe(self) -> str:
        """'accepts image, text; produces text' (what was declared)."""
        said = []
        if self.accepts is not None:
            said.append(f"accepts {names(self.accepts)}")
        if self.produces is not None:
            said.append(f"produces {names(self.produces)}")
        if self.max_input_tokens is not None:
            said.append(f"at most {self.max_input_tokens} input tokens")
        if self.max_output_tokens is not None:
            said.append(f"at most {self.max_output_tokens} output tokens")
        return "; ".join(said) or "nothing declared"


def content_spec_of(node: Any) -> ContentSpec | None:
    """The ContentSpec an IR node declares (only LLM agents have one)."""
    spec = getattr(node, "content_spec", None)
    return spec if isinstance(spec, ContentSpec) else None


def produced_modalities(node: Any) -> frozenset[Modality]:
    """What an LLM agent's reply carries: what it declared, or text; structured too when it
    has an output_schema (its reply is then JSON text)."""
    spec = content_spec_of(node)
    found = set(spec.produces) if spec is not None and spec.produces is not None else set()
    if not found:
        found.add(Modality.TEXT)
    schema = getattr(node, "output_schema", None)
    if schema is not None and schema is not UNSET:
        found.add(Modality.STRUCTURED)
    return frozenset(found)
