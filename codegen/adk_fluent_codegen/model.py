"""The render model: the union of scanned ADK versions, shaped for the templates."""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from .annotations import union_members
from .manifest import manifest_filename
from .targets import (
    BUILDER_TARGETS,
    CONTROL_NODES,
    IR_EXTENSIONS,
    SETTER_RENAMES,
    STRUCTURAL_FIELDS,
    BuilderTarget,
)
from .typemap import list_item_type, python_type


@dataclass(frozen=True)
class FieldSpec:
    """One ADK field as the templates see it (taken from the newest version that has it)."""

    name: str
    setter: str
    annotation: str
    py_type: str
    item_type: str
    kind: str  # "value" | "list" | "callback"
    doc: str
    versions: tuple[str, ...]
    spans: tuple[tuple[str, str], ...]  # runs of consecutive scanned releases that have it
    deprecated: str | None
    structural: bool
    newest: str = ""  # the newest scanned release (a span reaching it is open-ended)
    doc_changed: bool = False  # older releases that have the field document it differently

    @property
    def releases(self) -> str:
        """'1.25.0 and newer', '2.0.0 to 2.4.0', ... (for docstrings and the compatibility page)."""
        return describe_spans(self.spans, self.newest)

    @property
    def adk_line(self) -> str:
        """The docstring's last lines: the ADK type, then the releases that have the field (and
        ADK's deprecation note), each wrapped like the doc above them."""
        releases = f"In google-adk {self.releases}."
        if self.deprecated:
            releases += f" Deprecated: {self.deprecated.rstrip('.')}."
        if self.doc_changed:  # e.g. `model`: the default it names changed with the release
            releases += (
                f" The text above is google-adk {self.versions[-1]}'s; earlier releases "
                "document the field differently."
            )
        return docstring_text(f"ADK type: `{self.annotation}`.") + "\n" + docstring_text(releases)

    @property
    def doc_text(self) -> str:
        """ADK's whole field doc (every paragraph) as a docstring body; see docstring_text."""
        owner = "Callback" if self.kind == "callback" else "Value"
        return docstring_text(self.doc, owner=owner) or f"Sets ADK's `{self.name}`."


# A setter's docstring sits 8 spaces deep in builder_bases.py, whose lines ruff keeps to 100.
DOC_WIDTH = 92
_BULLET = re.compile(r"([-*+]|\d+[.)])\s+")
# Google-style headings that describe a function's signature. In ADK's field docs they describe
# the callback (or the callable value) the field holds, not the setter; left as they are, an
# API reference that reads Google docstrings (mkdocstrings) takes them for the setter's own
# parameters and return value, and warns that the setter has no such parameters.
_SIGNATURE_HEADING = re.compile(r"^(?P<word>[A-Za-z][\w -]*):\s*$")
_SIGNATURE_WORDS = {
    "args": "arguments",
    "arguments": "arguments",
    "params": "arguments",
    "parameters": "arguments",
    "keyword args": "keyword arguments",
    "keyword arguments": "keyword arguments",
    "returns": "returns",
    "raises": "raises",
    "exceptions": "raises",
    "yields": "yields",
    "receives": "receives",
    "warns": "warnings",
    "warnings": "warnings",
}


def escape_docstring(text: str) -> str:
    """`text` safe inside a triple-quoted (non-raw) docstring, reading back as `text`."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return "\\" + text if text.startswith('"') else text


def docstring_text(doc: str, width: int = DOC_WIDTH, owner: str = "Callback") -> str:
    """ADK's doc as a docstring body: its paragraphs, lists and code blocks as ADK wrote them,
    with no trailing whitespace, one blank line between paragraphs, lines longer than `width`
    wrapped at their own indentation (code blocks and lines that cannot fit, such as a long
    URL, are kept whole), signature headings named for `owner` ("Args:" becomes
    "Callback arguments:"), and escaped for a triple-quoted docstring."""
    lines: list[str] = []
    in_code = False
    for raw in inspect.cleandoc(doc.expandtabs(4)).splitlines():
        line = raw.rstrip()
        fence = line.lstrip().startswith("```")
        if fence:
            in_code = not in_code
        if not line:
            if lines and lines[-1]:
                lines.append("")
            continue
        heading = None if in_code else _SIGNATURE_HEADING.match(line)
        if heading and heading["word"].lower() in _SIGNATURE_WORDS:
            line = f"{owner} {_SIGNATURE_WORDS[heading['word'].lower()]}:"
        if in_code or fence or len(line) <= width:
            lines.append(line)
            continue
        body = line.lstrip()
        indent = line[: len(line) - len(body)]
        bullet = _BULLET.match(body)
        wrapped = textwrap.wrap(
            body,
            width,
            initial_indent=indent,
            subsequent_indent=indent + " " * (bullet.end() if bullet else 0),
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines += wrapped if all(len(part) <= width for part in wrapped) else [line]
    return escape_docstring("\n".join(lines).strip("\n"))


@dataclass(frozen=True)
class TargetSpec:
    target: BuilderTarget
    module: str
    fields: tuple[FieldSpec, ...]

    @property
    def setter_fields(self) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if not f.structural)


def spans_of(present: list[str], ordered: list[str]) -> tuple[tuple[str, str], ...]:
    """The runs of consecutive releases of `ordered` that are in `present`, as (first, last)."""
    have = set(present)
    runs: list[tuple[str, str]] = []
    start = last = None
    for version in ordered:
        if version in have:
            start = start or version
            last = version
        elif start is not None:
            runs.append((start, last or start))
            start = last = None
    if start is not None:
        runs.append((start, last or start))
    return tuple(runs)


def describe_spans(spans: tuple[tuple[str, str], ...], newest: str) -> str:
    """Readable releases: '1.25.0 and newer', '1.30.0 to 1.39.1', '2.4.0 only'; joined by ', '.
    A span that reaches the newest scan is open-ended ('2.13.0 and newer', not '2.13.0 only')."""
    parts = []
    for first, last in spans:
        if last == newest:
            parts.append(f"{first} and newer")
        elif first == last:
            parts.append(f"{first} only" if len(spans) == 1 else first)
        else:
            parts.append(f"{first} to {last}")
    return ", ".join(parts) or "no scanned release"


def _field_kind(name: str, annotation: str) -> str:
    members = union_members(annotation)
    if name.endswith("_callback") and any(
        m.startswith(("Callable", "list[Callable")) for m in members
    ):
        return "callback"
    if len(members) == 1 and members[0].startswith("list["):
        return "list"
    return "value"


def union_fields(manifests: list[dict[str, Any]], class_name: str) -> tuple[FieldSpec, ...]:
    """Fields of `class_name` across all manifests, each described by its newest version."""
    newest: dict[str, dict[str, Any]] = {}
    versions: dict[str, list[str]] = {}
    docs: dict[str, set[str]] = {}
    for manifest in manifests:  # oldest first, so later versions overwrite
        entry = manifest["classes"].get(class_name)
        if entry is None:
            continue
        for name, field in entry["fields"].items():
            newest[name] = field
            docs.setdefault(name, set()).add(field["doc"])
            versions.setdefault(name, []).append(manifest["adk_version"])
    ordered = [m["adk_version"] for m in manifests]
    specs = []
    for name in sorted(newest):
        field = newest[name]
        kind = _field_kind(name, field["annotation"])
        specs.append(
            FieldSpec(
                name=name,
                setter=SETTER_RENAMES.get(name, name),
                annotation=field["annotation"],
                py_type=python_type(field["annotation"]),
                item_type=list_item_type(field["annotation"]),
                kind=kind,
                doc=field["doc"],
                versions=tuple(versions[name]),
                spans=spans_of(versions[name], ordered),
                deprecated=field["deprecated"],
                structural=name in STRUCTURAL_FIELDS,
                newest=ordered[-1],
                doc_changed=len(docs[name]) > 1,
            )
        )
    return tuple(specs)


def render_context(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the templates may refer to."""
    newest = manifests[-1]
    targets = []
    for target in BUILDER_TARGETS:
        entry = newest["classes"].get(target.adk_class)
        module = entry["module"] if entry else ""
        targets.append(TargetSpec(target, module, union_fields(manifests, target.adk_class)))
    field_versions = {
        class_name: {f.name: f.spans for f in union_fields(manifests, class_name)}
        for class_name in sorted({c for m in manifests for c in m["classes"]})
    }
    versions = [m["adk_version"] for m in manifests]
    return {
        "versions": versions,
        "oldest": versions[0],
        "newest": versions[-1],
        "manifest_names": [manifest_filename(v) for v in versions],
        "targets": targets,
        "field_versions": field_versions,
        "ir_extensions": IR_EXTENSIONS,
        "control_nodes": CONTROL_NODES,
        "control_node_modules": sorted(
            {
                module: tuple(n.name for n in CONTROL_NODES if n.module == module)
                for module in {n.module for n in CONTROL_NODES}
            }.items()
        ),
        "plugin_callbacks": plugin_callback_spans(manifests),
        "behaviours": behaviour_runs(manifests),
    }


def plugin_callback_spans(
    manifests: list[dict[str, Any]],
) -> dict[str, tuple[tuple[str, str], ...]]:
    """BasePlugin hook name -> the runs of scanned releases that have it."""
    versions = [m["adk_version"] for m in manifests]
    return {
        name: spans_of(
            [m["adk_version"] for m in manifests if name in m["plugin_callbacks"]], versions
        )
        for name in sorted({n for m in manifests for n in m["plugin_callbacks"]})
    }


def behaviour_runs(manifests: list[dict[str, Any]]) -> dict[str, list[tuple[str, str, Any]]]:
    """Probe name -> runs of consecutive scanned releases that gave the same answer, as
    (first, last, answer). Releases scanned without probes interrupt no run: they are skipped."""
    runs: dict[str, list[tuple[str, str, Any]]] = {}
    probed = [m for m in manifests if m.get("behaviours")]
    for name in sorted({n for m in probed for n in m["behaviours"]}):
        current: list[tuple[str, str, Any]] = []
        for manifest in probed:
            version = manifest["adk_version"]
            if name not in manifest["behaviours"]:
                continue
            value = manifest["behaviours"][name]
            if current and current[-1][2] == value:
                current[-1] = (current[-1][0], version, value)
            else:
                current.append((version, version, value))
        runs[name] = current
    return runs
