"""Refuse generated setter names that would shadow hand-written builder methods (read with libcst)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .errors import CodegenError


def _class_defs(path: Path, text: str) -> dict[str, tuple[list[str], set[str], str]]:
    """Top-level classes in one file: name -> (base names, method names, file)."""
    import libcst as cst

    found: dict[str, tuple[list[str], set[str], str]] = {}
    for statement in cst.parse_module(text).body:
        if not isinstance(statement, cst.ClassDef):
            continue
        bases = []
        for arg in statement.bases:
            value = arg.value
            if isinstance(value, cst.Name):
                bases.append(value.value)
            elif isinstance(value, cst.Attribute):
                bases.append(value.attr.value)
        methods = {
            item.name.value for item in statement.body.body if isinstance(item, cst.FunctionDef)
        }
        found[statement.name.value] = (bases, methods, str(path))
    return found


def _classes(source_dir: Path, mixins: set[str]) -> dict[str, tuple[list[str], set[str], str]]:
    """class name -> (base names, method names, file) for the hand-written classes that may
    derive from a generated mixin.

    Parsing with libcst is the slow part of `generate`, so only files that mention a mixin, or
    a class already known to derive from one, are parsed (repeated until nothing new turns up).
    A class can only inherit a mixin by naming it or a class deriving from it in its bases, so
    no relevant class is missed.
    """
    found: dict[str, tuple[list[str], set[str], str]] = {}
    if not source_dir.exists():
        return found
    texts = {path: path.read_text(encoding="utf-8") for path in sorted(source_dir.rglob("*.py"))}
    wanted = set(mixins)
    searched: set[str] = set()
    parsed: set[Path] = set()
    while wanted - searched:
        names = wanted - searched
        searched |= names
        pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")
        for path, text in texts.items():
            if path in parsed or not pattern.search(text):
                continue
            parsed.add(path)
            found.update(_class_defs(path, text))
        wanted |= {name for name, (bases, _, _) in found.items() if set(bases) & wanted}
    return found


def check_shadowing(source_dir: Path, targets: list[Any]) -> None:
    """Raise when a hand-written class mixing in generated setters defines a method of the same name."""
    setters_by_mixin = {
        spec.target.builder_base: {f.setter: f.name for f in spec.setter_fields} for spec in targets
    }
    classes = _classes(source_dir, set(setters_by_mixin))

    def ancestry(name: str, seen: set[str]) -> set[str]:
        if name in seen or name not in classes:
            return set()
        seen.add(name)
        result = {name}
        for base in classes[name][0]:
            result |= ancestry(base, seen)
        return result

    problems = []
    for class_name in classes:
        chain = ancestry(class_name, set())
        mixins = {base for c in chain for base in classes[c][0] if base in setters_by_mixin}
        for mixin in sorted(mixins):
            setters = setters_by_mixin[mixin]
            for hand_class in sorted(chain):
                bases, methods, path = classes[hand_class]
                for method in sorted(methods & set(setters)):
                    problems.append(
                        f"{path}: {hand_class}.{method}() would be shadowed by (or shadow) the generated "
                        f"setter for ADK field `{setters[method]}` in {mixin}"
                    )
    if problems:
        unique = sorted(set(problems))
        raise CodegenError(
            "Generated setter names collide with hand-written methods:\n  " + "\n  ".join(unique),
            hint="rename the hand-written method, or give the field another setter name in "
            "SETTER_RENAMES (codegen/adk_fluent_codegen/targets.py), then `make regen`.",
        )
