"""The scanner on small synthetic pydantic models covering every field shape ADK uses."""

from __future__ import annotations

from typing import Any

import pytest
from adk_fluent_codegen.scan import scan_model

from tests.support.codegen import load_fixture_module


@pytest.fixture(scope="module")
def scanned() -> dict[str, Any]:
    models = load_fixture_module("synthetic_models")
    return scan_model(models.SyntheticAgent)


@pytest.fixture(scope="module")
def fields(scanned: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return scanned["fields"]


def test_class_entry_has_module_bases_and_extra(scanned: dict[str, Any]) -> None:
    assert scanned["module"] == "adk_fluent_codegen_fixture_synthetic_models"
    assert scanned["bases"] == ["SyntheticBase"]
    assert scanned["extra"] == "forbid"


def test_fields_are_sorted_and_complete(fields: dict[str, dict[str, Any]]) -> None:
    models = load_fixture_module("synthetic_models")
    assert list(fields) == sorted(models.SyntheticAgent.model_fields)
    for name, field in fields.items():
        assert set(field) == {
            "alias",
            "annotation",
            "declared_in",
            "default",
            "default_factory",
            "deprecated",
            "doc",
            "required",
        }, name


@pytest.mark.parametrize(
    ("name", "annotation"),
    [
        ("optional_text", "str | None"),
        ("union_typing", "int | str"),
        ("union_pipe", "int | str | None"),
        ("mode", "Literal['chat', 'task']"),
        ("enum_mode", "Mode"),
        ("tools", "list[Callable[..., Any]]"),
        ("on_error", "Callable[[Context, Exception], Content | None] | None"),
        ("tags", "list[str]"),
        ("settings", "dict[str, Any]"),
        ("content", "Content"),
    ],
)
def test_annotations_are_normalised(
    fields: dict[str, dict[str, Any]], name: str, annotation: str
) -> None:
    assert fields[name]["annotation"] == annotation


def test_callback_or_list_of_callbacks(fields: dict[str, dict[str, Any]]) -> None:
    single = "Callable[[Context, Content], Awaitable[Content | None] | Content | None]"
    assert fields["before_callback"]["annotation"] == f"{single} | list[{single}] | None"


def test_defaults(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["description"]["default"] == {"value": ""}
    assert fields["optional_text"]["default"] == {"value": None}
    assert fields["union_typing"]["default"] == {"value": 0}
    assert fields["mode"]["default"] == {"value": "chat"}
    assert fields["enum_mode"]["default"] == {"enum": "Mode.CHAT"}
    assert fields["name"]["default"] is None and fields["name"]["required"] is True
    assert fields["required_count"]["required"] is True
    assert fields["description"]["required"] is False


def test_default_factories(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["tools"]["default_factory"] == "list"
    assert fields["settings"]["default_factory"] == "dict"
    assert fields["created"]["default_factory"] == "time"
    assert fields["stamp"]["default_factory"] == "SyntheticAgent.<lambda>"
    assert fields["content"]["default_factory"] == "Content"
    for name in ("tools", "settings", "created", "stamp", "content"):
        assert fields[name]["default"] is None
        assert fields[name]["required"] is False


def test_alias(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["display_name"]["alias"] == "displayName"
    assert fields["description"]["alias"] is None


def test_deprecation(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["old_flag"]["deprecated"] == "Use `new_flag` instead."
    assert fields["legacy"]["deprecated"] == "deprecated"
    # Only the docstring says so: its first line is kept.
    assert fields["retries"]["deprecated"] == "Deprecated: set `retry_policy` instead."
    assert fields["mode"]["deprecated"] is None


def test_docstrings_harvested_with_libcst(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["optional_text"]["doc"] == "typing.Optional."
    assert fields["name"]["doc"] == "The agent's name.\n\nMust be unique in the tree."
    assert (
        fields["retries"]["doc"]
        == "Deprecated: set `retry_policy` instead.\n\nOnly the docstring says so."
    )
    # No attribute docstring: Field(description=...) is the fallback, else empty.
    assert fields["described"]["doc"] == "Documented with Field(description=...)."
    assert fields["settings"]["doc"] == ""


def test_inherited_fields_name_their_declaring_class(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["name"]["declared_in"] == "SyntheticBase"
    assert fields["description"]["declared_in"] == "SyntheticBase"
    assert fields["tools"]["declared_in"] == "SyntheticAgent"


def test_scan_model_is_deterministic() -> None:
    models = load_fixture_module("synthetic_models")
    assert scan_model(models.SyntheticAgent) == scan_model(models.SyntheticAgent)
    assert "0x" not in repr(scan_model(models.SyntheticAgent))
