"""Values in a recording: JSON where JSON can hold them, a type tag where it cannot (and the
same value back on load), a problem named by place for what no tag can hold; ADK's requests,
responses and parts with every field, inline data as base64 beside its mime type."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import json
import math
import uuid

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import BaseModel

from adk_fluent.errors import RecordingError
from adk_fluent.replay.values import (
    content_json,
    decode,
    encode,
    part_json,
    request_json,
    response_from_json,
    response_json,
)


class Point(BaseModel):
    x: int
    y: int


@dataclasses.dataclass
class Pair:
    left: str
    right: bytes


def round_trip(value):
    problems: list[str] = []
    stored = encode(value, "value", problems)
    assert problems == []
    return decode(json.loads(json.dumps(stored)))


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        3,
        2.5,
        "text",
        [1, "a", None],
        {"a": {"b": [1, 2]}},
        b"\x00\xffbytes",
        (1, "two", (3,)),
        {1, 2, 3},
        frozenset({"a", "b"}),
        {1: "one", (2, 3): "pair"},
        {"$type": "a user's own key"},
        datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        datetime.date(2025, 1, 2),
        datetime.time(12, 30),
        decimal.Decimal("1.10"),
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        float("inf"),
        float("-inf"),
    ],
)
def test_a_value_comes_back_as_it_was(value):
    assert round_trip(value) == value
    assert type(round_trip(value)) is type(value)


def test_nan_comes_back_as_nan_and_bytes_are_base64():
    assert math.isnan(round_trip(float("nan")))
    assert encode(b"hi", "v", []) == {"$type": "bytes", "base64": "aGk="}


def test_models_and_dataclasses_are_stored_as_their_fields_and_come_back_as_dicts():
    stored = encode(Point(x=1, y=2), "v", [])
    assert stored == {"$type": "object", "class": f"{__name__}.Point", "value": {"x": 1, "y": 2}}
    assert round_trip(Point(x=1, y=2)) == {"x": 1, "y": 2}
    assert round_trip(Pair("a", b"b")) == {"left": "a", "right": b"b"}
    assert round_trip(Point) == f"{__name__}.Point"  # a class: by its name


def test_a_value_no_tag_can_hold_is_a_problem_named_by_place_never_a_repr():
    problems: list[str] = []
    stored = encode({"when": [object()]}, "tool 'x' result", problems)
    assert problems == [
        "tool 'x' result['when'][0]: a builtins.object, which a recording cannot hold"
    ]
    assert stored == {"when": [{"$type": "unstorable", "class": "builtins.object"}]}
    with pytest.raises(RecordingError, match="never stored"):
        decode(stored)


def test_an_unknown_tag_is_refused_with_a_hint():
    with pytest.raises(RecordingError, match="unknown value type 'spaceship'") as caught:
        decode({"$type": "spaceship"}, "event #2")
    assert "event #2" in str(caught.value) and "hint" in str(caught.value)


def test_a_part_keeps_every_field_with_inline_data_as_base64_and_its_mime_type():
    part = types.Part(inline_data=types.Blob(data=b"\x89PNG", mime_type="image/png"))
    assert part_json(part, "p", []) == {
        "inline_data": {"data": {"$type": "bytes", "base64": "iVBORw=="}, "mime_type": "image/png"}
    }
    content = types.Content(role="user", parts=[types.Part(text="look"), part])
    stored = content_json(content, "c", [])
    assert stored["role"] == "user" and stored["parts"][0] == {"text": "look"}
    assert types.Content.model_validate(decode(stored)) == content


def test_ids_adk_made_up_are_left_out_and_a_models_own_ids_kept():
    made_up = types.Part(function_call=types.FunctionCall(name="f", args={"a": 1}, id="adk-123"))
    own = types.Part(function_call=types.FunctionCall(name="f", args={}, id="call_7"))
    assert part_json(made_up, "p", []) == {"function_call": {"args": {"a": 1}, "name": "f"}}
    assert part_json(own, "p", [])["function_call"]["id"] == "call_7"


def test_a_request_holds_instruction_contents_tools_model_and_settings():
    request = LlmRequest(
        model="some-model",
        contents=[types.Content(role="user", parts=[types.Part(text="hi")])],
        config=types.GenerateContentConfig(
            system_instruction="Be brief.",
            temperature=0.2,
            tools=[
                types.Tool(function_declarations=[types.FunctionDeclaration(name="book")]),
                types.Tool(google_search=types.GoogleSearch()),
            ],
            response_schema=Point,
        ),
    )
    stored = request_json(request, "r", [])
    assert stored["instruction"] == "Be brief."
    assert stored["model"] == "some-model"
    assert stored["contents"] == [{"parts": [{"text": "hi"}], "role": "user"}]
    assert stored["tools"] == ["book", "builtin:google_search"]
    assert stored["config"]["temperature"] == 0.2
    assert stored["config"]["response_schema"]["title"] == "Point"  # its JSON schema
    assert list(stored) == sorted(stored)


def test_a_response_comes_back_with_content_usage_finish_reason_and_error():
    response = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="Done.")]),
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=10, candidates_token_count=2, total_token_count=12
        ),
        finish_reason=types.FinishReason.STOP,
        partial=False,
    )
    stored = response_json(response, "r", [])
    assert stored["finish_reason"] == "STOP"
    back = response_from_json(json.loads(json.dumps(stored)), "r")
    assert back == response
    failed = LlmResponse(error_code="SAFETY", error_message="blocked")
    assert response_from_json(response_json(failed, "r", []), "r") == failed


def test_a_response_this_adk_cannot_read_is_refused_with_a_hint():
    with pytest.raises(RecordingError, match="not a model response") as caught:
        response_from_json({"content": {"parts": "not a list"}}, "agent 'a' model call #1")
    assert "agent 'a' model call #1" in str(caught.value) and "hint" in str(caught.value)
