"""The render model: the union of scanned ADK versions, shaped for the templates."""

from __future__ import annotations

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

    @property
    def releases(self) -> str:
        """'1.25.0 and newer', '2.0.0 to 2.4.0', ... (for docstrings and the compatibility page)."""
        return describe_spans(self.spans, self.newest)

    @property
    def summary(self) -> str:
        """The docstring's first paragraph, on one line, safe inside triple quotes."""
        first = self.doc.split("\n\n", 1)[0].replace("\n", " ").strip()
        return first.replace("\\", "\\\\").replace('"""', "'''") or f"Sets ADK's `{self.name}`."


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
    for manifest in manifests:  # oldest first, so later versions overwrite
        entry = manifest["classes"].get(class_name)
        if entry is None:
            continue
        for name, field in entry["fields"].items():
            newest[name] = field
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
