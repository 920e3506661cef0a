"""The generator's own readers of ADK against the libraries they replaced (kept here, where their
import time costs nothing): attribute docstrings harvested with `ast` against libcst's concrete
syntax tree, and the field comparison of the diff against DeepDiff."""

from __future__ import annotations

import importlib
import inspect
import warnings
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from adk_fluent_codegen.diff import changed_keys
from adk_fluent_codegen.docstrings import class_attribute_docs
from adk_fluent_codegen.manifest import load_manifests
from adk_fluent_codegen.scan import _import_class
from adk_fluent_codegen.targets import PLUGIN_BASE, SCAN_TARGETS
from deepdiff import DeepDiff

from tests.support.codegen import FIXTURES, REPO_ROOT, load_fixture_module


def libcst_attribute_docs(cls: type) -> dict[str, str]:
    """What the generator harvested with libcst (its code until the switch to `ast`)."""
    path = inspect.getsourcefile(cls)
    assert path
    tree = cst.parse_module(Path(path).read_text(encoding="utf-8"))
    for statement in tree.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == cls.__name__:
            docs: dict[str, str] = {}
            body = list(statement.body.body)
            for current, following in zip(body, body[1:], strict=False):
                if not (
                    isinstance(current, cst.SimpleStatementLine)
                    and current.body
                    and isinstance(current.body[0], cst.AnnAssign)
                    and isinstance(current.body[0].target, cst.Name)
                    and isinstance(following, cst.SimpleStatementLine)
                    and following.body
                    and isinstance(following.body[0], cst.Expr)
                ):
                    continue
                value = following.body[0].value
                if isinstance(value, cst.SimpleString | cst.ConcatenatedString):
                    text = value.evaluated_value
                    if isinstance(text, str):
                        docs[current.body[0].target.value] = inspect.cleandoc(text)
            return docs
    return {}


def _scanned_classes() -> list[type]:
    """Every class a scan of the installed ADK reads docstrings from: the targets and their
    bases, and the shapes fixture's classes."""
    found: dict[type, None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for target in SCAN_TARGETS:
            cls = _import_class(target)
            if cls is not None:
                found.update(dict.fromkeys(k for k in cls.__mro__ if k is not object))
        plugin = getattr(importlib.import_module(PLUGIN_BASE[0]), PLUGIN_BASE[1])
        found.update(dict.fromkeys(k for k in plugin.__mro__ if k is not object))
    shapes = load_fixture_module("docstring_shapes")
    models = load_fixture_module("synthetic_models")
    found.update(dict.fromkeys([shapes.Plain, shapes.OneLine, shapes.Empty]))
    found.update(dict.fromkeys([models.SyntheticBase, models.SyntheticAgent]))
    return [cls for cls in found if _has_source(cls)]


def _has_source(cls: type) -> bool:
    try:
        return bool(inspect.getsourcefile(cls))
    except TypeError:
        return False


@pytest.mark.parametrize("cls", _scanned_classes(), ids=lambda cls: cls.__qualname__)
def test_docstrings_are_those_libcst_found(cls: type) -> None:
    assert class_attribute_docs(cls) == libcst_attribute_docs(cls)


def deepdiff_changed_keys(old: dict[str, Any], new: dict[str, Any]) -> set[str]:
    """The field keys DeepDiff found changed (the diff's code until the switch)."""
    diff = DeepDiff(old, new, exclude_paths=["root['doc']", "root['declared_in']"])
    return {path.split("'")[1] for kind in diff for path in diff[kind]}


def test_field_changes_are_those_deepdiff_found_between_every_scanned_release() -> None:
    committed = load_manifests(REPO_ROOT / "generated" / "manifests")
    synthetic = load_manifests(FIXTURES / "manifests")
    compared = 0
    for manifests in (committed, synthetic):
        pairs = list(zip(manifests, manifests[1:], strict=False)) + [(manifests[0], manifests[-1])]
        for old, new in pairs:
            for class_name in old["classes"].keys() & new["classes"].keys():
                old_fields = old["classes"][class_name]["fields"]
                new_fields = new["classes"][class_name]["fields"]
                for name in old_fields.keys() & new_fields.keys():
                    a, b = old_fields[name], new_fields[name]
                    if a != b:
                        compared += 1
                        assert changed_keys(a, b) == deepdiff_changed_keys(a, b), (class_name, name)
    assert compared > 50  # the releases do differ: the comparison was exercised


@pytest.mark.parametrize(
    "change",
    [
        {"default": {"value": True}},
        {"default": {"value": 1.0}},
        {"default": {"value": []}},
        {"default": None},
        {"default": {"enum": "Mode.A"}},
        {"default": {"value": float("nan")}},
        {"doc": "other"},
        {"declared_in": "Base"},
        {"alias": "a", "required": True},
        {"deprecated": "gone"},
        {"annotation": "int | None", "default_factory": "list"},
    ],
)
def test_edge_values_compare_as_deepdiff_compared_them(change: dict[str, Any]) -> None:
    base = {
        "alias": None,
        "annotation": "int",
        "declared_in": "Agent",
        "default": {"value": 1},
        "default_factory": None,
        "deprecated": None,
        "doc": "",
        "required": False,
    }
    new = {**base, **change}
    assert changed_keys(base, new) == deepdiff_changed_keys(base, new)
    fewer = {k: v for k, v in base.items() if k != "alias"}
    assert changed_keys(base, fewer) == deepdiff_changed_keys(base, fewer) == {"alias"}
