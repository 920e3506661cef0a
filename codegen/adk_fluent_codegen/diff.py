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
    kind: str  # class_added, class_removed, class_module, class_extra, added, removed, annotation,
    # default, required, alias, deprecated, callback_added, callback_removed, callback_signature
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


# Generic types whose parameters only describe what they contain: X[A] accepts everything
# X[B] accepts when A is covered by B. (Callable is not here: its parameters are contravariant.)
_COVARIANT_GENERICS = frozenset(
    {"list", "set", "frozenset", "tuple", "dict", "type", "Sequence", "Mapping", "Awaitable"}
)
_TOP_TYPES = frozenset({"Any", "object"})


def _split_generic(member: str) -> tuple[str, list[str]]:
    """`dict[str, list[int]]` -> ('dict', ['str', 'list[int]']); a plain name has no arguments."""
    if not member.endswith("]") or "[" not in member:
        return member, []
    head, inner = member.split("[", 1)
    args, depth, start = [], 0, 0
    inner = inner[:-1]
    for i, ch in enumerate(inner):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(inner[start:i].strip())
            start = i + 1
    args.append(inner[start:].strip())
    return head, args


def _member_covered(member: str, new_members: list[str], supertypes: dict[str, list[str]]) -> bool:
    if member in new_members or _TOP_TYPES & set(new_members):
        return True
    # A scanned class is covered by any of its scanned base classes (BaseAgent by BaseNode).
    if any(base in new_members for base in supertypes.get(member, ())):
        return True
    head, args = _split_generic(member)
    if not args:
        return False
    # type[X] is covered by a bare `type`; list[X] by a bare `list`, and so on.
    if head in new_members:
        return True
    # dict[str, object] is covered by dict[str, Any]: same container, each argument covered.
    if head in _COVARIANT_GENERICS:
        for candidate in new_members:
            new_head, new_args = _split_generic(candidate)
            if (
                new_head == head
                and len(new_args) == len(args)
                and all(is_widening(a, b, supertypes) for a, b in zip(args, new_args, strict=True))
            ):
                return True
    return False


def is_widening(old: str, new: str, supertypes: dict[str, list[str]] | None = None) -> bool:
    """True when every value the old annotation accepted is still accepted by the new one.

    `supertypes` maps a class name to its base classes (from the newer manifest), so that
    replacing a class by one of its bases counts as a widening.
    """
    new_members = union_members(new)
    return all(_member_covered(m, new_members, supertypes or {}) for m in union_members(old))


# A field's documentation and the class that declares it change without changing the field.
_NOT_COMPARED = frozenset({"doc", "declared_in"})


def _same(old: Any, new: Any) -> bool:
    """Equal and of the same type all the way down: 1 and True, or 1 and 1.0, differ. What
    DeepDiff found for a manifest field's values (tests/integration/codegen/test_oracles.py
    compares them over every scanned release); DeepDiff itself took longer to import than the
    rest of a regen's diffing, and ~3 ms a comparison."""
    if type(old) is not type(new):
        return False
    if isinstance(old, dict):
        return old.keys() == new.keys() and all(_same(old[k], new[k]) for k in old)
    if isinstance(old, list | tuple):
        return len(old) == len(new) and all(map(_same, old, new))
    return bool(old == new)


def changed_keys(old: dict[str, Any], new: dict[str, Any]) -> set[str]:
    """The keys of a field's manifest entry whose values differ (see `_same`), doc and
    declaring class aside."""
    return {
        key
        for key in old.keys() | new.keys()
        if key not in _NOT_COMPARED
        and (key not in old or key not in new or not _same(old[key], new[key]))
    }


def _field_changes(
    class_name: str,
    name: str,
    old: dict[str, Any],
    new: dict[str, Any],
    supertypes: dict[str, list[str]],
) -> list[Change]:
    touched = changed_keys(old, new)
    changes: list[Change] = []
    if "annotation" in touched and set(union_members(old["annotation"])) != set(
        union_members(new["annotation"])
    ):
        widening = is_widening(old["annotation"], new["annotation"], supertypes)
        changes.append(
            Change(
                class_name,
                name,
                "annotation",
                not widening,
                old["annotation"],
                new["annotation"],
                "widening" if widening else "narrowing or incompatible",
            )
        )
    if "required" in touched:
        widening = old["required"] and not new["required"]
        changes.append(
            Change(
                class_name,
                name,
                "required",
                not widening,
                old["required"],
                new["required"],
                "widening: no longer required" if widening else "now required",
            )
        )
    # A change of `required` implies the default appeared or vanished; report it once.
    if ("default" in touched or "default_factory" in touched) and "required" not in touched:
        changes.append(
            Change(
                class_name,
                name,
                "default",
                True,
                old["default"] or old["default_factory"],
                new["default"] or new["default_factory"],
                "default value changed",
            )
        )
    if "alias" in touched:
        changes.append(
            Change(class_name, name, "alias", True, old["alias"], new["alias"], "alias changed")
        )
    if "deprecated" in touched and new["deprecated"]:
        changes.append(
            Change(
                class_name,
                name,
                "deprecated",
                False,
                old["deprecated"],
                new["deprecated"],
                "newly deprecated",
            )
        )
    return changes


# pydantic's `extra` settings, strictest first; None is pydantic's default, 'ignore'.
_EXTRA_STRICTNESS = {"forbid": 0, "ignore": 1, None: 1, "allow": 2}


def _class_changes(class_name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Class-level changes: the module it is imported from, and how it treats unknown fields."""
    changes: list[Change] = []
    if old.get("module") != new.get("module"):
        changes.append(
            Change(
                class_name,
                None,
                "class_module",
                True,
                old.get("module"),
                new.get("module"),
                "class moved to another module",
            )
        )
    old_extra, new_extra = old.get("extra"), new.get("extra")
    if old_extra != new_extra:
        looser = _EXTRA_STRICTNESS.get(new_extra, 1) >= _EXTRA_STRICTNESS.get(old_extra, 1)
        changes.append(
            Change(
                class_name,
                None,
                "class_extra",
                not looser,
                old_extra,
                new_extra,
                "widening: unknown fields no longer rejected"
                if looser
                else "unknown fields now rejected",
            )
        )
    return changes


def report_pairs(manifests: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (old, new) manifest pairs that get a report and pass the gate: one step per minor
    line (releases.minor_steps: the oldest, then the newest patch of each line) plus
    oldest..newest (the whole supported range at a glance)."""
    from .releases import minor_steps

    by_version = {m["adk_version"]: m for m in manifests}
    return gate_pairs([by_version[v] for v in minor_steps(list(by_version))])


def gate_pairs(manifests: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The pairs the CI gate checks: every consecutive pair of `manifests` (of all scanned
    releases: a change that came and went inside one minor line still reached the users of its
    patch releases) plus oldest..newest."""
    pairs = list(zip(manifests, manifests[1:], strict=False))
    if len(manifests) > 2:
        pairs.append((manifests[0], manifests[-1]))
    return pairs


def diff_manifests(old: dict[str, Any], new: dict[str, Any]) -> DiffReport:
    """Every change from `old` to `new`, classified, in a stable order."""
    changes: list[Change] = []
    old_classes, new_classes = old["classes"], new["classes"]
    supertypes = {name: list(entry.get("bases", [])) for name, entry in new_classes.items()}
    for class_name in sorted(set(old_classes) | set(new_classes)):
        if class_name not in new_classes:
            changes.append(Change(class_name, None, "class_removed", True, label="class removed"))
            continue
        if class_name not in old_classes:
            count = len(new_classes[class_name]["fields"])
            changes.append(
                Change(class_name, None, "class_added", False, None, f"{count} fields", "new class")
            )
            continue
        changes.extend(_class_changes(class_name, old_classes[class_name], new_classes[class_name]))
        old_fields = old_classes[class_name]["fields"]
        new_fields = new_classes[class_name]["fields"]
        for name in sorted(set(old_fields) | set(new_fields)):
            if name not in new_fields:
                changes.append(
                    Change(
                        class_name,
                        name,
                        "removed",
                        True,
                        old_fields[name]["annotation"],
                        None,
                        "field removed",
                    )
                )
            elif name not in old_fields:
                field = new_fields[name]
                changes.append(
                    Change(
                        class_name,
                        name,
                        "added",
                        field["required"],
                        None,
                        field["annotation"],
                        "new required field" if field["required"] else "new optional field",
                    )
                )
            elif old_fields[name] != new_fields[name]:
                changes.extend(
                    _field_changes(class_name, name, old_fields[name], new_fields[name], supertypes)
                )
    old_cb, new_cb = old["plugin_callbacks"], new["plugin_callbacks"]
    for name in sorted(set(old_cb) | set(new_cb)):
        if name not in new_cb:
            changes.append(
                Change(
                    "BasePlugin", name, "callback_removed", True, label="plugin callback removed"
                )
            )
        elif name not in old_cb:
            changes.append(
                Change(
                    "BasePlugin",
                    name,
                    "callback_added",
                    False,
                    None,
                    _signature_text(new_cb[name]),
                    "new plugin callback",
                )
            )
        elif _signature_text(old_cb[name]) != _signature_text(new_cb[name]):
            changes.append(
                Change(
                    "BasePlugin",
                    name,
                    "callback_signature",
                    True,
                    _signature_text(old_cb[name]),
                    _signature_text(new_cb[name]),
                    "signature changed",
                )
            )
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
