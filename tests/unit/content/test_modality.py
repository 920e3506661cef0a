"""Modality and ContentSpec as values: names parsed case-insensitively with did-you-mean, MIME
types and google.genai Parts read as modalities, what an agent accepts and produces."""

from __future__ import annotations

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_fluent import Agent, ContentSpec, Modality
from adk_fluent.errors import BuildError
from adk_fluent.ir.content import (
    MEDIA,
    TEXTUAL,
    modality_of_mime,
    parse_modality,
    part_modality,
    parts_modalities,
    produced_modalities,
)


def test_every_modality_is_text_or_media_and_named_by_its_value():
    assert TEXTUAL | MEDIA == set(Modality) and not TEXTUAL & MEDIA
    assert [m.value for m in Modality] == [
        "text", "image", "audio", "video", "pdf", "file", "structured", "code"
    ]  # fmt: skip


@pytest.mark.parametrize("given", ["image", "IMAGE", " Image ", Modality.IMAGE])
def test_a_modality_is_a_member_or_its_name_in_any_case(given):
    assert parse_modality(given) is Modality.IMAGE


def test_a_misspelt_modality_gets_a_did_you_mean_and_the_list():
    with pytest.raises(BuildError) as caught:
        parse_modality("imgae", agent="vision", field="accepts")
    text = str(caught.value)
    assert "agent 'vision'" in text and "field 'accepts'" in text
    assert "did you mean 'image'?" in text and "pdf" in text


def test_a_mime_type_names_the_modality_to_declare_instead():
    with pytest.raises(BuildError) as caught:
        parse_modality("application/pdf")
    assert 'declare its modality, "pdf"' in str(caught.value)


@pytest.mark.parametrize("given", [42, None, b"image", ["image"]])
def test_a_modality_that_is_not_text_is_refused(given):
    with pytest.raises(BuildError, match="must be a Modality or its name"):
        parse_modality(given)


@pytest.mark.parametrize(
    ("mime", "expected"),
    [
        ("image/png", Modality.IMAGE),
        ("IMAGE/JPEG", Modality.IMAGE),
        ("audio/pcm;rate=24000", Modality.AUDIO),
        ("video/mp4", Modality.VIDEO),
        ("application/pdf", Modality.PDF),
        ("application/pdf; charset=binary", Modality.PDF),
        ("text/csv", Modality.FILE),
        ("application/json", Modality.FILE),
        ("application/octet-stream", Modality.FILE),
        ("", Modality.FILE),
        (None, Modality.FILE),
    ],
)
def test_mime_types_map_to_modalities(mime, expected):
    assert modality_of_mime(mime) is expected


def _blob(mime: str) -> types.Part:
    return types.Part(inline_data=types.Blob(mime_type=mime, data=b"\x00\x01"))


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        (types.Part(text="hello"), Modality.TEXT),
        (types.Part(text=""), Modality.TEXT),
        (_blob("image/webp"), Modality.IMAGE),
        (_blob("audio/wav"), Modality.AUDIO),
        (
            types.Part(file_data=types.FileData(file_uri="gs://b/a.mp4", mime_type="video/mp4")),
            Modality.VIDEO,
        ),  # fmt: skip
        (
            types.Part(
                file_data=types.FileData(file_uri="gs://b/a.pdf", mime_type="application/pdf")
            ),
            Modality.PDF,
        ),  # fmt: skip
        (_blob("text/csv"), Modality.FILE),
        (
            types.Part(executable_code=types.ExecutableCode(code="print(1)", language="PYTHON")),
            Modality.CODE,
        ),  # fmt: skip
        (
            types.Part(code_execution_result=types.CodeExecutionResult(outcome="OUTCOME_OK")),
            Modality.CODE,
        ),  # fmt: skip
        (types.Part(function_call=types.FunctionCall(name="f", args={})), None),
        (types.Part(function_response=types.FunctionResponse(name="f", response={})), None),
        (types.Part(text="thinking...", thought=True), None),
        (types.Part(), None),
    ],
)
def test_parts_are_read_as_modalities_and_calls_are_not_content(part, expected):
    assert part_modality(part) is expected


def test_a_message_has_the_modalities_of_its_parts():
    parts = [types.Part(text="look"), _blob("image/png"), _blob("image/jpeg"), _blob("audio/mp3")]
    assert parts_modalities(parts) == {Modality.TEXT, Modality.IMAGE, Modality.AUDIO}
    assert parts_modalities(None) == frozenset()


def test_a_hand_made_spec_takes_names_and_is_a_hashable_value():
    spec = ContentSpec(accepts={"Image", Modality.TEXT}, produces="text", max_input_tokens=10)
    assert spec.accepts == {Modality.IMAGE, Modality.TEXT}
    assert spec.produces == {Modality.TEXT}
    assert spec == ContentSpec(accepts=frozenset({Modality.TEXT, Modality.IMAGE}),
                               produces=frozenset({Modality.TEXT}), max_input_tokens=10)  # fmt: skip
    assert len({spec, ContentSpec(accepts=["image", "text"], produces=["text"],
                                  max_input_tokens=10)}) == 1  # fmt: skip
    assert spec.describe() == "accepts text, image; produces text; at most 10 input tokens"


@pytest.mark.parametrize(
    "options",
    [
        {"accepts": ["imgae"]},
        {"accepts": []},
        {"max_input_tokens": 0},
        {"max_output_tokens": True},
        {"max_output_tokens": 1.5},
    ],  # fmt: skip
)
def test_a_hand_made_spec_is_checked(options):
    with pytest.raises(BuildError):
        ContentSpec(**options)


def test_text_structured_and_code_are_always_accepted_media_only_when_declared():
    images = ContentSpec(accepts={"image"})
    assert all(images.takes(m) for m in TEXTUAL)
    assert images.takes(Modality.IMAGE)
    assert not any(images.takes(m) for m in MEDIA - {Modality.IMAGE})
    undeclared = ContentSpec(produces={"image"})
    assert all(undeclared.takes(m) for m in Modality)


class Invoice(BaseModel):
    total: float


def test_what_an_agent_produces():
    assert produced_modalities(Agent("a").to_ir()) == {Modality.TEXT}
    assert produced_modalities(Agent("a").produces_modality("image").to_ir()) == {Modality.IMAGE}
    schema = Agent("a").output_schema(Invoice).to_ir()
    assert produced_modalities(schema) == {Modality.TEXT, Modality.STRUCTURED}
    both = Agent("a").produces_modality("image", "text").output_schema(Invoice).to_ir()
    assert produced_modalities(both) == {Modality.IMAGE, Modality.TEXT, Modality.STRUCTURED}
