"""Attribute docstrings, harvested from the source with `ast`: which string belongs to which
field is decided by the source's lines, in every shape tests/data/codegen/fixtures/
docstring_shapes.py holds (tests/integration/codegen/test_oracles.py checks the same on ADK's
own sources against libcst's concrete syntax tree, which did the harvesting before)."""

from __future__ import annotations

from adk_fluent_codegen.docstrings import class_attribute_docs

from tests.support.codegen import load_fixture_module


def test_every_shape_of_attribute_docstring() -> None:
    shapes = load_fixture_module("docstring_shapes")
    assert class_attribute_docs(shapes.Plain) == {
        "a": "Plain.",
        "b": "Indented\nand cleaned.",
        "d": "Parenthesised.",
        "e": "Implicitly joined.",
        "h": "A u-prefixed string.",
        "i": "Follows the line of i, not j.",
        "k": "First on its line.",
        "t": "Second wins.",
        "u": "Follows u's line (it ends where v starts).",
    }


def test_a_body_on_the_header_line_and_a_class_without_fields_have_none() -> None:
    shapes = load_fixture_module("docstring_shapes")
    assert class_attribute_docs(shapes.OneLine) == {}
    assert class_attribute_docs(shapes.Empty) == {}


def test_only_classes_at_the_module_top_level_are_read() -> None:
    shapes = load_fixture_module("docstring_shapes")
    nested = type("Nested", (), {"__module__": shapes.__name__})  # defined under an `if`
    assert class_attribute_docs(nested) == {}


def test_a_class_without_a_source_file_has_none() -> None:
    assert class_attribute_docs(int) == {}
