"""Classify what changed between two manifests: safe additions, widenings, breaking changes."""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .annotations import union_members
from .errors import CodegenError


@dataclass(frozen=True)
class Change:
    """One difference between two scanned ADK versions."""

    class_name: str
    field: str | None  # None for class-level and plugin-level changes
    kind: str  # class_added, class_removed, added, removed, annotation, default, required,
    # alias, deprecated, callback_added, callback_removed, callback_signature
    breaking: bool
    old: Any = None
    new: Any = None
    label: str = ""

    def key(self) -> tuple[str, str, str]:
        return (self.class_name, self.field or "", self.kind)


@dataclass(frozen=True)
class DiffReport:
    old_version: str
    new_version: str
    changes: tuple[Change, ...]

    @property
    def breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.breaking)

    def summary(self) -> dict[str, int]:
        counts = {"added": 0, "removed": 0, "changed": 0, "widened": 0, "breaking": 0}
        for change in self.changes:
            if change.kind in ("added", "class_added", "callback_added"):
                counts["added"] += 1
            elif change.kind in ("removed", "class_removed", "callback_removed"):
                counts["removed"] += 1
            elif change.label == "widening":
                counts["widened"] += 1
            else:
                counts["changed"] += 1
            counts["breaking"] += change.breaking
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "old_version": self.old_version,
            "new_version": self.new_version,
            "summary": self.summary(),
            "changes": [asdict(c) for c in self.changes],
        }


def _member_covered(member: str, new_members: list[str]) -> bool:
    if member in new_members or "Any" in new_members:
        return True
    # type[X] is covered by a bare `type`; list[X] by a bare `list`, and so on.
    head = member.split("[", 1)[0]
    return "[" in member and head in new_members


def is_widening(old: str, new: str) -> bool:
    """True when every value the old annotation accepted is still accepted by the new one."""
    new_members = union_members(new)
    return all(_member_covered(m, new_members) for m in union_members(old))


def _field_changes(class_name: str, name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    from deepdiff import DeepDiff

    diff = DeepDiff(old, new, exclude_paths=["root['doc']", "root['declared_in']"])
    touched = {path.split("'")[1] for kind in diff for path in diff[kind]}
    changes: list[Change] = []
    if "annotation" in touched and set(union_members(old["annotation"])) != set(
        union_members(new["annotation"])
    ):
        widening = is_widening(old["annotation"], new["annotation"])
        changes.append(Change(class_name, name, "annotation", not widening,
                              old["annotation"], new["annotation"], "widening" if widening else "narrowing or incompatible"))
    if "required" in touched:
        widening = old["required"] and not new["required"]
        changes.append(Change(class_name, name, "required", not widening, old["required"], new["required"],
                              "widening: no longer required" if widening else "now required"))
    if ("default" in touched or "default_factory" in touched) and not (
        "required" in touched and old["required"]
    ):
        changes.append(Change(class_name, name, "default", True,
                              old["default"] or old["default_factory"], new["default"] or new["default_factory"],
                              "default value changed"))
    if "alias" in touched:
        changes.append(Change(class_name, name, "alias", True, old["alias"], new["alias"], "alias changed"))
    if "deprecated" in touched and new["deprecated"]:
        changes.append(Change(class_name, name, "deprecated", False, old["deprecated"], new["deprecated"],
                              "newly deprecated"))
    return changes


def diff_manifests(old: dict[str, Any], new: dict[str, Any]) -> DiffReport:
    """Every change from `old` to `new`, classified, in a stable order."""
    changes: list[Change] = []
    old_classes, new_classes = old["classes"], new["classes"]
    for class_name in sorted(set(old_classes) | set(new_classes)):
        if class_name not in new_classes:
            changes.append(Change(class_name, None, "class_removed", True, label="class removed"))
            continue
        if class_name not in old_classes:
            count = len(new_classes[class_name]["fields"])
            changes.append(Change(class_name, None, "class_added", False, None, f"{count} fields", "new class"))
            continue
        old_fields = old_classes[class_name]["fields"]
        new_fields = new_classes[class_name]["fields"]
        for name in sorted(set(old_fields) | set(new_fields)):
            if name not in new_fields:
                changes.append(Change(class_name, name, "removed", True, old_fields[name]["annotation"], None,
                                      "field removed"))
            elif name not in old_fields:
                field = new_fields[name]
                changes.append(Change(class_name, name, "added", field["required"], None, field["annotation"],
                                      "new required field" if field["required"] else "new optional field"))
            else:
                changes.extend(_field_changes(class_name, name, old_fields[name], new_fields[name]))
    old_cb, new_cb = old["plugin_callbacks"], new["plugin_callbacks"]
    for name in sorted(set(old_cb) | set(new_cb)):
        if name not in new_cb:
            changes.append(Change("BasePlugin", name, "callback_removed", True, label="plugin callback removed"))
        elif name not in old_cb:
            changes.append(Change("BasePlugin", name, "callback_added", False, None,
                                  _signature_text(new_cb[name]), "new plugin callback"))
        elif _signature_text(old_cb[name]) != _signature_text(new_cb[name]):
            changes.append(Change("BasePlugin", name, "callback_signature", True, _signature_text(old_cb[name]),
                                  _signature_text(new_cb[name]), "signature changed"))
    return DiffReport(old["adk_version"], new["adk_version"], tuple(changes))


def _signature_text(callback: dict[str, Any]) -> str:
    params = ", ".join(p["text"] for p in callback["params"])
    return f"({params}) -> {callback['returns']}"


def load_acknowledgements(path: Path | None) -> set[tuple[str, str, str]]:
    """The (class, field, kind) triples a maintainer has reviewed, from a TOML file."""
    if path is None or not path.exists():
        return set()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CodegenError(f"Acknowledgement file {path} is not valid TOML: {exc}.") from None
    acks = set()
    for index, entry in enumerate(data.get("change", [])):
        missing = [k for k in ("class", "kind", "reviewed") if k not in entry]
        if missing:
            raise CodegenError(
                f"Acknowledgement #{index + 1} in {path} lacks {', '.join(missing)}.",
                hint="each [[change]] needs class, field (omit for class-level), kind and a `reviewed` note.",
            )
        acks.add((entry["class"], entry.get("field", ""), entry["kind"]))
    return acks


def unacknowledged(report: DiffReport, acks: set[tuple[str, str, str]]) -> list[Change]:
    return [c for c in report.breaking if c.key() not in acks]
