"""Diff classification on synthetic manifests, acknowledgements, and the CI gate."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from adk_fluent_codegen import gate
from adk_fluent_codegen.diff import (
    Change,
    diff_manifests,
    is_widening,
    load_acknowledgements,
    report_pairs,
    unacknowledged,
)
from adk_fluent_codegen.errors import CodegenError

from tests.support.codegen import REPO_ROOT


def field(annotation: str = "str", **overrides: Any) -> dict[str, Any]:
    base = {
        "alias": None,
        "annotation": annotation,
        "declared_in": "Agent",
        "default": {"value": None},
        "default_factory": None,
        "deprecated": None,
        "doc": "",
        "required": False,
    }
    return {**base, **overrides}


def manifest(
    version: str,
    fields: dict[str, dict[str, Any]],
    callbacks: dict[str, Any] | None = None,
    **class_overrides: Any,
) -> dict[str, Any]:
    entry = {
        "module": "adk.agent",
        "bases": [],
        "extra": "forbid",
        "kind": "agent",
        "fields": fields,
    }
    entry.update(class_overrides)
    return {
        "schema_version": 1,
        "package": "google-adk",
        "adk_version": version,
        "classes": {"Agent": entry},
        "plugin_callbacks": callbacks or {},
    }


def callback(*params: str, returns: str = "None") -> dict[str, Any]:
    return {
        "async": True,
        "doc": "",
        "params": [{"kind": "KEYWORD_ONLY", "text": p} for p in params],
        "returns": returns,
    }


def changes_between(old_fields: dict[str, Any], new_fields: dict[str, Any]) -> list[Change]:
    return list(
        diff_manifests(manifest("1.0.0", old_fields), manifest("2.0.0", new_fields)).changes
    )


def only(changes: list[Change]) -> Change:
    assert len(changes) == 1, changes
    return changes[0]


def test_no_change_no_report() -> None:
    assert changes_between({"a": field()}, {"a": field()}) == []


def test_doc_and_declaring_class_are_not_changes() -> None:
    assert (
        changes_between({"a": field(doc="old")}, {"a": field(doc="new", declared_in="Base")}) == []
    )


def test_reordered_union_is_not_a_change() -> None:
    assert changes_between({"a": field("int | str | None")}, {"a": field("str | int | None")}) == []


def test_added_optional_field_is_safe() -> None:
    change = only(changes_between({}, {"a": field("int | None")}))
    assert (change.kind, change.breaking, change.new, change.label) == (
        "added",
        False,
        "int | None",
        "new optional field",
    )


def test_added_required_field_is_breaking() -> None:
    change = only(changes_between({}, {"a": field(required=True, default=None)}))
    assert (change.kind, change.breaking, change.label) == ("added", True, "new required field")


def test_removed_field_is_breaking() -> None:
    change = only(changes_between({"a": field("int")}, {}))
    assert (change.kind, change.breaking, change.old, change.new) == ("removed", True, "int", None)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("int", "int | str"),
        ("int", "int | None"),
        ("type[BaseModel] | None", "dict[Any, Any] | type | None"),
        ("dict[str, object]", "dict[str, Any]"),
        ("list[int]", "list[int | str]"),
        ("int", "Any"),
        ("Child", "Parent | None"),
    ],
)
def test_annotation_widening_is_safe(old: str, new: str) -> None:
    assert is_widening(old, new, {"Child": ["Parent"]})
    old_manifest = manifest("1.0.0", {"a": field(old)})
    new_manifest = manifest("2.0.0", {"a": field(new)})
    new_manifest["classes"]["Child"] = {
        "module": "m",
        "bases": ["Parent"],
        "extra": None,
        "kind": "model",
        "fields": {},
    }
    old_manifest["classes"]["Child"] = copy.deepcopy(new_manifest["classes"]["Child"])
    change = only(list(diff_manifests(old_manifest, new_manifest).changes))
    assert (change.kind, change.breaking, change.label) == ("annotation", False, "widening")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("int | str", "int"),
        ("int | None", "int"),
        ("list[str]", "list[Modality]"),
        ("Callable[[CallbackContext], None]", "Callable[[Context], None]"),
        ("Parent", "Child"),
        ("dict", "dict[str, Any]"),
    ],
)
def test_annotation_narrowing_is_breaking(old: str, new: str) -> None:
    assert not is_widening(old, new, {"Child": ["Parent"]})
    change = only(changes_between({"a": field(old)}, {"a": field(new)}))
    assert (change.kind, change.breaking, change.old, change.new) == ("annotation", True, old, new)
    assert change.label == "narrowing or incompatible"


def test_required_to_optional_is_a_widening() -> None:
    old = field("int", required=True, default=None)
    new = field("int", default={"value": 1})
    change = only(changes_between({"a": old}, {"a": new}))
    assert (change.kind, change.breaking, change.label) == (
        "required",
        False,
        "widening: no longer required",
    )


def test_optional_to_required_is_breaking() -> None:
    change = only(
        changes_between({"a": field("int")}, {"a": field("int", required=True, default=None)})
    )
    assert (change.kind, change.breaking, change.label) == ("required", True, "now required")


def test_default_change_is_breaking() -> None:
    change = only(
        changes_between(
            {"a": field(default={"value": 500})}, {"a": field(default=None, default_factory="_f")}
        )
    )
    assert (change.kind, change.breaking, change.old, change.new) == (
        "default",
        True,
        {"value": 500},
        "_f",
    )


def test_alias_change_is_breaking() -> None:
    change = only(changes_between({"a": field(alias="A")}, {"a": field(alias="aa")}))
    assert (change.kind, change.breaking, change.old, change.new) == ("alias", True, "A", "aa")


def test_newly_deprecated_is_reported_but_safe() -> None:
    change = only(changes_between({"a": field()}, {"a": field(deprecated="use b")}))
    assert (change.kind, change.breaking, change.new) == ("deprecated", False, "use b")


def test_callback_signature_changes() -> None:
    old = manifest(
        "1.0.0",
        {},
        {
            "before_run_callback": callback("ctx: CallbackContext", returns="Content | None"),
            "gone_callback": callback(),
        },
    )
    new = manifest(
        "2.0.0",
        {},
        {
            "before_run_callback": callback("ctx: Context", returns="Content | None"),
            "on_run_error_callback": callback("error: Exception"),
        },
    )
    by_name = {c.field: c for c in diff_manifests(old, new).changes}
    assert by_name["before_run_callback"].kind == "callback_signature"
    assert by_name["before_run_callback"].breaking
    assert by_name["before_run_callback"].old == "(ctx: CallbackContext) -> Content | None"
    assert by_name["before_run_callback"].new == "(ctx: Context) -> Content | None"
    assert (by_name["on_run_error_callback"].kind, by_name["on_run_error_callback"].breaking) == (
        "callback_added",
        False,
    )
    assert (by_name["gone_callback"].kind, by_name["gone_callback"].breaking) == (
        "callback_removed",
        True,
    )
    assert {c.class_name for c in by_name.values()} == {"BasePlugin"}


def test_class_level_changes() -> None:
    old = manifest("1.0.0", {})
    old["classes"]["Gone"] = copy.deepcopy(old["classes"]["Agent"])
    new = manifest("2.0.0", {}, extra="ignore", module="adk.moved")
    new["classes"]["Workflow"] = copy.deepcopy(new["classes"]["Agent"])
    by_kind = {c.kind: c for c in diff_manifests(old, new).changes}
    assert set(by_kind) == {"class_removed", "class_added", "class_module", "class_extra"}
    assert by_kind["class_removed"].breaking and by_kind["class_module"].breaking
    assert not by_kind["class_added"].breaking
    assert not by_kind["class_extra"].breaking  # forbid -> ignore accepts more
    stricter = diff_manifests(new, manifest("3.0.0", {}, module="adk.moved")).changes
    assert [(c.kind, c.breaking) for c in stricter if c.kind == "class_extra"] == [
        ("class_extra", True)
    ]


def test_report_summary_and_json() -> None:
    report = diff_manifests(
        manifest("1.0.0", {"a": field("int"), "b": field("int"), "c": field("int")}),
        manifest("2.0.0", {"a": field("int | str"), "b": field("str"), "d": field()}),
    )
    assert report.summary() == {"added": 1, "removed": 1, "changed": 1, "widened": 1, "breaking": 2}
    data = report.to_json()
    assert (data["old_version"], data["new_version"]) == ("1.0.0", "2.0.0")
    assert [c["field"] for c in data["changes"]] == ["a", "b", "c", "d"]
    json.dumps(data)  # serialisable


def test_report_pairs_are_consecutive_plus_the_whole_range() -> None:
    ms = [manifest(v, {}) for v in ("1.0.0", "1.5.0", "2.0.0")]
    assert [(a["adk_version"], b["adk_version"]) for a, b in report_pairs(ms)] == [
        ("1.0.0", "1.5.0"),
        ("1.5.0", "2.0.0"),
        ("1.0.0", "2.0.0"),
    ]
    assert len(report_pairs(ms[:2])) == 1
    assert report_pairs(ms[:1]) == []


def test_acknowledgements_filter_breaking_changes(tmp_path: Path) -> None:
    report = diff_manifests(manifest("1.0.0", {"a": field(), "b": field()}), manifest("2.0.0", {}))
    assert [c.field for c in unacknowledged(report, set())] == ["a", "b"]
    acks_file = tmp_path / "acknowledged.toml"
    acks_file.write_text(
        '[[change]]\nclass = "Agent"\nfield = "a"\nkind = "removed"\nreviewed = "fine"\n'
    )
    acks = load_acknowledgements(acks_file)
    assert acks == {("Agent", "a", "removed")}
    assert [c.field for c in unacknowledged(report, acks)] == ["b"]


def test_acknowledgement_of_a_class_level_change_omits_field(tmp_path: Path) -> None:
    acks_file = tmp_path / "acknowledged.toml"
    acks_file.write_text('[[change]]\nclass = "Gone"\nkind = "class_removed"\nreviewed = "ok"\n')
    old = manifest("1.0.0", {})
    old["classes"]["Gone"] = copy.deepcopy(old["classes"]["Agent"])
    report = diff_manifests(old, manifest("2.0.0", {}))
    assert unacknowledged(report, load_acknowledgements(acks_file)) == []


def test_missing_acknowledgement_file_means_none(tmp_path: Path) -> None:
    assert load_acknowledgements(tmp_path / "absent.toml") == set()
    assert load_acknowledgements(None) == set()


def test_acknowledgement_needs_a_review_note(tmp_path: Path) -> None:
    acks_file = tmp_path / "acknowledged.toml"
    acks_file.write_text('[[change]]\nclass = "Agent"\nfield = "a"\nkind = "removed"\n')
    with pytest.raises(CodegenError, match="lacks reviewed"):
        load_acknowledgements(acks_file)


def test_invalid_toml_is_a_codegen_error(tmp_path: Path) -> None:
    acks_file = tmp_path / "acknowledged.toml"
    acks_file.write_text("[[change]\n")
    with pytest.raises(CodegenError, match="not valid TOML"):
        load_acknowledgements(acks_file)


# The gate on the committed manifests.


def _gate_root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "generated" / "manifests", root / "generated" / "manifests")
    (root / "diffs").mkdir()
    shutil.copy(REPO_ROOT / "diffs" / "acknowledged.toml", root / "diffs" / "acknowledged.toml")
    return root


def test_gate_passes_on_the_committed_manifests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gate.run(_gate_root(tmp_path)) == 0
    assert "unacknowledged" not in capsys.readouterr().out


def test_gate_fails_on_a_dropped_field_until_acknowledged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _gate_root(tmp_path)
    manifests = sorted((root / "generated" / "manifests").glob("google-adk-*.json"))
    newest = max(manifests, key=lambda p: tuple(int(x) for x in p.stem.split("-")[-1].split(".")))
    data = json.loads(newest.read_text())
    del data["classes"]["LlmAgent"]["fields"]["output_key"]
    newest.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")

    assert gate.run(root) == 1
    captured = capsys.readouterr()
    assert "LlmAgent.output_key: removed (field removed)" in captured.out
    assert "acknowledged.toml" in captured.err

    with (root / "diffs" / "acknowledged.toml").open("a") as handle:
        handle.write(
            '\n[[change]]\nclass = "LlmAgent"\nfield = "output_key"\nkind = "removed"\n'
            'reviewed = "test: adk-fluent writes the key itself"\n'
        )
    assert gate.run(root) == 0


def test_gate_main_reports_errors_in_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    (root / "generated" / "manifests").mkdir(parents=True)
    (root / "generated" / "manifests" / "google-adk-1.0.0.json").write_text("{not json")
    with pytest.raises(SystemExit) as exit_info:
        gate.main([str(root)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Manifest") and "hint:" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"value": 1}, {"value": True}),
        ({"value": 1}, {"value": 1.0}),
        ({"value": []}, {"value": {}}),
        ({"value": None}, None),
        ({"value": "a"}, {"enum": "Mode.A"}),
    ],
    ids=["int-bool", "int-float", "list-dict", "value-none", "value-enum"],
)
def test_a_default_of_another_type_is_a_change_even_when_equal(
    old: dict[str, Any], new: dict[str, Any] | None
) -> None:
    # the alias changes too, so the field differs even where the defaults compare equal
    changes = changes_between({"f": field(default=old)}, {"f": field(default=new, alias="g")})
    assert [(c.field, c.kind) for c in changes] == [("f", "default"), ("f", "alias")]
