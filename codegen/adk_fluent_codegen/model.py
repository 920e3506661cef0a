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
    deprecated: str | None
    structural: bool

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
                deprecated=field["deprecated"],
                structural=name in STRUCTURAL_FIELDS,
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
        class_name: {f.name: f.versions for f in union_fields(manifests, class_name)}
        for class_name in sorted({c for m in manifests for c in m["classes"]})
    }
    versions = [m["adk_version"] for m in manifests]
    return {
        "versions": versions,
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
        "plugin_callbacks": {
            name: [m["adk_version"] for m in manifests if name in m["plugin_callbacks"]]
            for name in sorted({n for m in manifests for n in m["plugin_callbacks"]})
        },
    }
