"""The generated setters carry ADK's own field docs, as an IDE shows them (`inspect.getdoc`).

* `Agent("a").include_contents`: ADK's whole doc for the field (every paragraph, read from the
  installed ADK's source by the generator's docstring harvester), the ADK type and the releases
  that have the field.
* Every generated setter of every builder (Agent, Pipeline, FanOut, Loop): the doc of the newest
  scanned release that has the field, paragraph by paragraph (read from the manifests, not from
  the generator's model), and the releases line; a field the installed ADK lacks too.
* How a doc becomes a docstring body (codegen's docstring_text): it reads back as ADK wrote it,
  whatever quotes and backslashes it holds, with no trailing whitespace and no line wider than
  the generated module allows, except code and what cannot be broken.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import adk_fluent_generated.builder_bases as builder_bases
import pytest
from adk_fluent_codegen.docstrings import class_attribute_docs
from adk_fluent_codegen.manifest import load_manifests
from adk_fluent_codegen.model import DOC_WIDTH, describe_spans, docstring_text, spans_of
from adk_fluent_codegen.targets import SETTER_RENAMES

from adk_fluent import Agent, FanOut, Loop, Pipeline
from adk_fluent.adk.compat import installed_class, installed_fields
from tests.support.codegen import REPO_ROOT

BUILDERS = (Agent, Pipeline, FanOut, Loop)
# ADK's Google-style headings that describe the callback, which the setter docs name for it
# ("Args:" reads "Callback arguments:"), so an API reference does not take them for the setter's.
SIGNATURE_HEADING = re.compile(
    r"^(?:args|arguments|params|parameters|keyword args|keyword arguments|returns|raises|"
    r"exceptions|yields|receives|warns|warnings):\s*$",
    re.IGNORECASE | re.MULTILINE,
)


def words(text: str) -> str:
    """The text with every run of whitespace as one space (wrapping changes only whitespace)."""
    return " ".join(text.split())


def prose_lines(doc: str) -> list[str]:
    """The lines of a docstring outside its ``` code blocks (which are kept as ADK wrote them)."""
    lines, in_code = [], False
    for line in doc.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif not in_code:
            lines.append(line)
    return lines


def setters_class(builder: type) -> Any:
    (base,) = [c for c in builder.__mro__ if c.__module__ == builder_bases.__name__]
    return base


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    return load_manifests(REPO_ROOT / "generated" / "manifests")


def newest_doc_and_releases(
    manifests: list[dict[str, Any]], adk_class: str, field: str
) -> tuple[str, str]:
    """The field's doc in the newest scanned release that has it, and where it exists."""
    having = [m for m in manifests if field in m["classes"].get(adk_class, {}).get("fields", {})]
    assert having, f"no scanned release has {adk_class}.{field}"
    versions = [m["adk_version"] for m in manifests]
    spans = spans_of([m["adk_version"] for m in having], versions)
    doc = having[-1]["classes"][adk_class]["fields"][field]["doc"]
    return doc, describe_spans(spans, versions[-1])


def scanned_fields(manifests: list[dict[str, Any]], adk_class: str) -> dict[str, str]:
    """Setter name -> ADK field, for every field any scanned release has."""
    return {
        SETTER_RENAMES.get(field, field): field
        for m in manifests
        for field in m["classes"].get(adk_class, {}).get("fields", {})
    }


def test_include_contents_shows_adks_whole_doc_from_the_installed_adk(
    manifests: list[dict[str, Any]],
) -> None:
    llm_agent = installed_class("LlmAgent")
    owner = next(
        c for c in llm_agent.__mro__ if "include_contents" in vars(c).get("__annotations__", {})
    )
    adk_doc = class_attribute_docs(owner)["include_contents"]
    paragraphs = [p for p in adk_doc.split("\n\n") if p.strip()]
    assert len(paragraphs) >= 2, f"ADK's doc is one paragraph now, pick another field: {adk_doc!r}"
    _, releases = newest_doc_and_releases(manifests, "LlmAgent", "include_contents")

    doc = inspect.getdoc(Agent("a").include_contents)

    assert doc is not None
    assert doc.startswith(paragraphs[0].splitlines()[0])
    assert words(adk_doc) in words(doc)
    assert "\nOptions:\n  default: Model receives relevant conversation history\n" in doc
    assert doc.endswith(f"ADK type: `Literal['default', 'none']`.\nIn google-adk {releases}.")


def test_the_setters_classes_are_the_builders_bases() -> None:
    generated = {
        obj
        for name, obj in vars(builder_bases).items()
        if inspect.isclass(obj) and name.endswith("Setters")
    }
    assert generated == {setters_class(b) for b in BUILDERS}


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda b: b.__name__)
def test_every_generated_setter_shows_the_newest_adk_doc_and_its_releases(
    builder: type, manifests: list[dict[str, Any]]
) -> None:
    base = setters_class(builder)
    field_of = scanned_fields(manifests, base._ADK_CLASS)
    assert base._GENERATED_SETTERS
    for setter in sorted(base._GENERATED_SETTERS):
        adk_doc, releases = newest_doc_and_releases(manifests, base._ADK_CLASS, field_of[setter])
        doc = inspect.getdoc(getattr(builder, setter))
        assert doc, f"{builder.__name__}.{setter} has no docstring"
        assert words(f"In google-adk {releases}.") in words(doc), f"{builder.__name__}.{setter}"
        # each paragraph (split where ADK's signature headings were renamed) reads as ADK wrote it
        for chunk in re.split(r"\n\s*\n|" + SIGNATURE_HEADING.pattern, adk_doc, flags=re.I | re.M):
            if chunk and chunk.strip():
                assert words(chunk) in words(doc), f"{builder.__name__}.{setter} lacks {chunk!r}"
        assert not SIGNATURE_HEADING.search(doc), f"{builder.__name__}.{setter}: {doc}"
        assert all(len(line) <= DOC_WIDTH for line in prose_lines(doc)), f"{setter}: {doc}"


def test_callback_setters_name_adks_signature_headings_for_the_callback() -> None:
    doc = inspect.getdoc(Agent.before_model_callback)

    assert doc is not None
    assert "\nCallback arguments:\n  callback_context:" in doc
    assert "\nCallback returns:\n" in doc
    assert "Accumulates: each call adds callbacks, run in order." in doc


def test_a_field_the_installed_adk_lacks_still_has_its_doc(
    manifests: list[dict[str, Any]],
) -> None:
    missing = [
        (builder, setter, field)
        for builder in BUILDERS
        for setter, field in scanned_fields(manifests, setters_class(builder)._ADK_CLASS).items()
        if setter in setters_class(builder)._GENERATED_SETTERS
        and field not in installed_fields(setters_class(builder)._ADK_CLASS)
    ]
    # google-adk 1.25 lacks the 2.x fields (mode, timeout, ...); 2.13 lacks 1.27.2's `version`
    assert missing, "every scanned field is installed: nothing to check on this release"
    for builder, setter, field in missing:
        adk_class = setters_class(builder)._ADK_CLASS
        adk_doc, releases = newest_doc_and_releases(manifests, adk_class, field)
        doc = inspect.getdoc(getattr(builder, setter)) or ""
        assert words(adk_doc.split("\n\n")[0]) in words(doc), f"{builder.__name__}.{setter}"
        assert words(f"In google-adk {releases}.") in words(doc)


def round_trip(body: str) -> str | None:
    """The docstring Python reads back from a setter whose docstring has this body (indented
    as builder_bases.py indents it)."""
    source = 'def setter():\n    """' + body.replace("\n", "\n    ") + '\n\n    Type.\n    """\n'
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # noqa: S102 - our own text
    return inspect.getdoc(namespace["setter"])


@pytest.mark.parametrize(
    "doc",
    [
        'Quotes """inside""" and a backslash \\ and \\n, kept.',
        '"Quoted" at the start.',
        'Ends with a quote: "x"',
        "Tabs\tare spaces.",
    ],
)
def test_a_doc_reads_back_as_written(doc: str) -> None:
    assert round_trip(docstring_text(doc)) == inspect.cleandoc(doc.expandtabs(4)) + "\n\nType."


def test_docstring_text_keeps_paragraphs_and_code_and_wraps_long_prose() -> None:
    long_line = " ".join(["word"] * 40)
    url = "See: https://example.com/" + "x" * 100
    code = "    " + "call(" + "argument, " * 12 + ")"
    doc = f"Summary.  \n\n\n\n{long_line}\n- {long_line}\n{url}\n\n```python\n{code}\n```\n"

    text = docstring_text(doc)
    lines = text.splitlines()

    assert all(line == line.rstrip() for line in lines)
    assert "\n\n\n" not in text
    assert words(text) == words(doc)
    assert url in lines and code in lines  # cannot be broken / code is never wrapped
    assert all(len(line) <= DOC_WIDTH for line in lines if line not in (url, code))
    bullet = lines.index(next(line for line in lines if line.startswith("- ")))
    assert lines[bullet + 1].startswith("  word")  # a list item's lines stay under its text


def test_a_doc_that_changed_between_releases_says_whose_text_it_shows(
    manifests: list[dict[str, Any]],
) -> None:
    # `model`'s doc names ADK's built-in default model, which changed with the release: a
    # reader of the setter's doc must learn that the text is the newest release's only.
    docs = {
        m["classes"]["LlmAgent"]["fields"]["model"]["doc"]
        for m in manifests
        if "model" in m["classes"].get("LlmAgent", {}).get("fields", {})
    }
    assert len(docs) > 1
    newest = manifests[-1]["adk_version"]
    text = " ".join((inspect.getdoc(Agent("a").model) or "").split())
    assert f"The text above is google-adk {newest}'s; earlier releases document" in text
    unchanged = " ".join((inspect.getdoc(Agent("a").include_contents) or "").split())
    assert "The text above is" not in unchanged
