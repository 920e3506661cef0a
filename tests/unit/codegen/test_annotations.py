"""Annotation normalisation: one text per type, however ADK or Python spells it."""

# ruff: noqa: UP006, UP007, UP035, UP045

from __future__ import annotations

import collections.abc
import typing
from typing import Annotated, Any, Callable, Dict, List, Literal, Optional, Union

import pytest
from adk_fluent_codegen.annotations import normalise_text, render, union_members


class A:
    pass


class B:
    pass


def test_optional_spellings_render_identically() -> None:
    spellings = [Optional[int], Union[int, None], int | None, Union[None, int]]
    assert {render(s) for s in spellings} == {"int | None"}


class First:
    pass


class Second:
    pass


def test_nested_unions_flatten_with_none_last() -> None:
    # Types of this module's own: typing caches Unions by set equality, so Union[int, str]
    # can come back as a Union[str, int] another module in the process made first (the
    # evaluation tests import pandas and the like), and the order of its args with it.
    assert render(Union[First, Union[Second, None]]) == "First | Second | None"
    assert render(Optional[First | Second]) == "First | Second | None"
    assert render(Union[First, First, Second]) == "First | Second"


@pytest.mark.parametrize(
    "text",
    [
        "Optional[types.Content]",
        "Union[types.Content, None]",
        "types.Content | None",
        "typing.Optional[Content]",
    ],
)
def test_string_annotations_normalise(text: str) -> None:
    assert normalise_text(text) == "Content | None"
    assert render(text) == "Content | None"


def test_forward_references_normalise() -> None:
    assert render(typing.ForwardRef("Optional[types.Content]")) == "Content | None"


def test_string_and_object_forms_agree() -> None:
    pairs = [
        (Callable[[A, B], Optional[int]], "Callable[[A, B], Optional[int]]"),
        (List[Dict[str, Any]], "typing.List[typing.Dict[str, typing.Any]]"),
        (tuple[int, ...], "tuple[int, ...]"),
        (Callable[..., Any], "Callable[..., Any]"),
        (type[A], "Type[A]"),
        (Literal["a", "b"], 'Literal["a", "b"]'),
    ]
    for obj, text in pairs:
        assert render(obj) == normalise_text(text), text


@pytest.mark.parametrize(
    ("tp", "expected"),
    [
        (Callable[[A, B], int], "Callable[[A, B], int]"),
        (collections.abc.Callable[[A, B], int | None], "Callable[[A, B], int | None]"),
        (Callable[..., Any], "Callable[..., Any]"),
        (Literal["chat", "task"], "Literal['chat', 'task']"),
        (Annotated[int, "metadata"], "int"),
        (List[Optional[int]], "list[int | None]"),
        (Dict[str, int], "dict[str, int]"),
        (collections.abc.Awaitable[int], "Awaitable[int]"),
        (type[A], "type[A]"),
        (Any, "Any"),
        (None, "None"),
        (type(None), "None"),
        (list, "list"),
    ],
)
def test_render(tp: Any, expected: str) -> None:
    assert render(tp) == expected


def test_union_members_split_only_at_top_level() -> None:
    text = "Callable[[A], B | None] | list[Callable[[A], B | None]] | None"
    assert union_members(text) == [
        "Callable[[A], B | None]",
        "list[Callable[[A], B | None]]",
        "None",
    ]
    assert union_members("int") == ["int"]


def test_unparseable_text_is_kept() -> None:
    assert normalise_text("not a [type") == "not a [type"
