"""Values in a recording: JSON with a type tag for what JSON cannot hold, and ADK's request,
response and content objects in that form.

JSON holds text, numbers, booleans, null, lists and objects with text keys. Anything else is
stored with a tag, `{"$type": <kind>, ...}`, and comes back as it was on load: bytes (base64),
tuples, sets, non-finite floats, datetimes, decimals, UUIDs, dicts with non-text keys. A
pydantic model or a dataclass is stored as its fields (`{"$type": "object", "class": ...}`) and
comes back as a dict; a class as its name. A value of any other type is never written as a
repr: it is replaced by `{"$type": "unstorable", "class": ...}` and noted as a problem, and
`Recording.save()` refuses such a recording, naming where the value was.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import json
import math
import uuid
from collections.abc import Callable
from typing import Any

from adk_fluent.errors import RecordingError

TAG = "$type"
# Function-call ids ADK makes up when a model gives none ("adk-<uuid>"): noise, not content
ADK_ID_PREFIX = "adk-"


def _class_name(value: Any) -> str:
    kind = value if isinstance(value, type) else type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def canonical(value: Any) -> str:
    """One line of JSON, keys sorted: equal values give equal text (for sorting, comparing)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def encode(value: Any, where: str, problems: list[str]) -> Any:
    """`value` as JSON data (type tags where JSON cannot hold it). A value that cannot be
    stored becomes an `unstorable` tag and a line in `problems` naming `where` it was."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, enum.Enum):
        return encode(value.value, where, problems)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {TAG: "float", "value": "nan" if math.isnan(value) else repr(value)}
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value) and TAG not in value:
            return {key: encode(item, f"{where}[{key!r}]", problems) for key, item in value.items()}
        pairs = [
            [encode(key, f"{where} key", problems), encode(item, f"{where}[{key!r}]", problems)]
            for key, item in value.items()
        ]
        return {TAG: "dict", "pairs": pairs}
    if isinstance(value, list):
        return [encode(item, f"{where}[{index}]", problems) for index, item in enumerate(value)]
    if isinstance(value, tuple):
        items = [encode(item, f"{where}[{index}]", problems) for index, item in enumerate(value)]
        return {TAG: "tuple", "items": items}
    if isinstance(value, set | frozenset):
        items = sorted((encode(item, f"{where} item", problems) for item in value), key=canonical)
        return {TAG: "frozenset" if isinstance(value, frozenset) else "set", "items": items}
    if isinstance(value, bytes | bytearray):
        return {TAG: "bytes", "base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, datetime.datetime):
        return {TAG: "datetime", "iso": value.isoformat()}
    if isinstance(value, datetime.date):
        return {TAG: "date", "iso": value.isoformat()}
    if isinstance(value, datetime.time):
        return {TAG: "time", "iso": value.isoformat()}
    if isinstance(value, decimal.Decimal):
        return {TAG: "decimal", "value": str(value)}
    if isinstance(value, uuid.UUID):
        return {TAG: "uuid", "value": str(value)}
    if isinstance(value, type):
        return {TAG: "class", "name": _class_name(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump) or dataclasses.is_dataclass(value):  # a pydantic model or a dataclass
        fields = (
            dump(mode="python", exclude_none=True)
            if callable(dump)
            else {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        )
        return {
            TAG: "object",
            "class": _class_name(value),
            "value": encode(fields, where, problems),
        }
    problems.append(f"{where}: a {_class_name(value)}, which a recording cannot hold")
    return {TAG: "unstorable", "class": _class_name(value)}


def decode(value: Any, where: str = "recording") -> Any:
    """The value `encode()` stored (a tagged object as what it was; see the module docstring)."""
    if isinstance(value, list):
        return [decode(item, where) for item in value]
    if not isinstance(value, dict):
        return value
    if TAG not in value:
        return {key: decode(item, where) for key, item in value.items()}
    kind = value[TAG]
    try:
        return _decode_tagged(kind, value, where)
    except RecordingError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise RecordingError(
            f"{where}: a {kind!r} value that cannot be read ({error})",
            field=TAG,
            hint="the file was edited by hand or damaged; record the run again.",
        ) from None


# the tags of single values: the field holding the value, and what reads it back
_READERS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "bytes": ("base64", lambda text: base64.b64decode(text, validate=True)),
    "float": ("value", float),
    "datetime": ("iso", datetime.datetime.fromisoformat),
    "date": ("iso", datetime.date.fromisoformat),
    "time": ("iso", datetime.time.fromisoformat),
    "decimal": ("value", decimal.Decimal),
    "uuid": ("value", uuid.UUID),
    "class": ("name", str),
}


def _decode_tagged(kind: Any, value: dict[str, Any], where: str) -> Any:
    if isinstance(kind, str) and kind in _READERS:
        field, read = _READERS[kind]
        return read(value[field])
    if kind == "tuple":
        return tuple(decode(item, where) for item in value["items"])
    if kind == "set":
        return {_hashable(decode(item, where)) for item in value["items"]}
    if kind == "frozenset":
        return frozenset(_hashable(decode(item, where)) for item in value["items"])
    if kind == "dict":
        return {_hashable(decode(k, where)): decode(v, where) for k, v in value["pairs"]}
    if kind == "object":
        return decode(value["value"], where)
    if kind == "unstorable":
        raise RecordingError(
            f"{where}: holds a {value.get('class')} that was never stored",
            field=TAG,
            hint="such a recording cannot be saved; this file was written by other means.",
        )
    raise RecordingError(
        f"{where}: unknown value type {kind!r}",
        field=TAG,
        hint="the file comes from a newer adk-fluent or was edited by hand; "
        "upgrade adk-fluent or record the run again.",
    )


def _hashable(value: Any) -> Any:
    return tuple(_hashable(item) for item in value) if isinstance(value, list) else value


# -- ADK's objects -----------------------------------------------------------------------------
def _without_adk_ids(part: dict[str, Any]) -> dict[str, Any]:
    for key in ("function_call", "function_response"):
        inner = part.get(key)
        if isinstance(inner, dict) and str(inner.get("id", "")).startswith(ADK_ID_PREFIX):
            part[key] = {k: v for k, v in inner.items() if k != "id"}
    return part


def part_json(part: Any, where: str, problems: list[str]) -> Any:
    """One google.genai Part with every field it has (inline data as base64 with its mime
    type); function-call ids ADK made up are left out (they differ on every run)."""
    fields = _without_adk_ids(part.model_dump(mode="python", exclude_none=True))
    return encode(fields, where, problems)


def content_json(content: Any, where: str, problems: list[str]) -> dict[str, Any] | None:
    """A google.genai Content: its role and every part."""
    if content is None:
        return None
    parts = [
        part_json(part, f"{where} part #{index + 1}", problems)
        for index, part in enumerate(content.parts or [])
    ]
    shown: dict[str, Any] = {"parts": parts}
    if content.role is not None:
        shown["role"] = content.role
    return shown


def tool_names(request: Any) -> list[str]:
    """The names of the tools a model request declares: its function declarations, ADK's tools
    by name, and built-in tools (google_search, ...) as `builtin:<kind>`."""
    names: set[str] = set(getattr(request, "tools_dict", None) or {})
    config = getattr(request, "config", None)
    for tool in getattr(config, "tools", None) or []:
        declarations = getattr(tool, "function_declarations", None) or []
        names.update(d.name for d in declarations if getattr(d, "name", None))
        dump = getattr(tool, "model_dump", None)
        if callable(dump):
            names.update(
                f"builtin:{kind}"
                for kind in dump(exclude_none=True)
                if kind != "function_declarations"
            )
    return sorted(names)


def _instruction(config: Any) -> Any:
    value = getattr(config, "system_instruction", None)
    if value is None or isinstance(value, str):
        return value
    texts = [getattr(p, "text", None) or "" for p in getattr(value, "parts", None) or []]
    return "".join(texts) if texts else str(value)


_CONFIG_LEFT_OUT = {"system_instruction", "tools", "http_options", "labels"}


def request_json(request: Any, where: str, problems: list[str]) -> dict[str, Any]:
    """A model request (ADK's LlmRequest) as a recording holds it: the model name, the system
    instruction, every content with every part, the tools' names and the other settings of its
    config (temperature, response schema, ...)."""
    config = getattr(request, "config", None)
    shown: dict[str, Any] = {
        "contents": [
            content_json(content, f"{where} content #{index + 1}", problems)
            for index, content in enumerate(request.contents or [])
        ],
        "tools": tool_names(request),
    }
    model = getattr(request, "model", None)
    if isinstance(model, str):
        shown["model"] = model
    instruction = _instruction(config)
    if instruction is not None:
        shown["instruction"] = instruction
    if config is not None:
        settings = config.model_dump(mode="python", exclude_none=True, exclude=_CONFIG_LEFT_OUT)
        for key in ("response_schema", "response_json_schema"):
            schema = getattr(config, key, None)
            if isinstance(schema, type) and hasattr(schema, "model_json_schema"):
                settings[key] = schema.model_json_schema()
        if settings:
            shown["config"] = encode(settings, f"{where} config", problems)
    return dict(sorted(shown.items()))


def response_json(response: Any, where: str, problems: list[str]) -> dict[str, Any]:
    """A model response (ADK's LlmResponse) with every field it has: content, usage, finish
    reason, error code and message, partial flag, ..."""
    fields = response.model_dump(mode="python", exclude_none=True, exclude={"content"})
    shown = encode(fields, where, problems)
    if response.content is not None:
        shown["content"] = content_json(response.content, f"{where} content", problems)
    return dict(sorted(shown.items()))


def response_from_json(data: dict[str, Any], where: str) -> Any:
    """The ADK LlmResponse a `response_json()` value holds."""
    from google.adk.models.llm_response import LlmResponse

    try:
        return LlmResponse.model_validate(decode(data, where))
    except ValueError as error:  # pydantic's ValidationError is a ValueError
        raise RecordingError(
            f"{where}: not a model response this google-adk can read ({_first_line(error)})",
            field="responses",
            hint="the recording was made with another google-adk release or edited by hand; "
            "record the run again with this one.",
        ) from None


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0][:160] if str(error) else type(error).__name__


def error_json(error: BaseException) -> dict[str, str]:
    """An exception as a recording holds it: its type's name and its message."""
    return {"type": _class_name(error), "message": str(error)}
