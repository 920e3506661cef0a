"""Release scanning and its tables: which google-adk releases count (PyPI listing, pre-releases,
yanked files, the supported floor), the per-minor chain the reports walk and the pairs the gate
checks, field spans and behaviour runs, the Python literals and stale files the renderer
produces, and the lookups the generated behaviour and field tables answer."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from adk_fluent_codegen.diff import gate_pairs, report_pairs
from adk_fluent_codegen.errors import CodegenError
from adk_fluent_codegen.layout import Layout
from adk_fluent_codegen.manifest import version_key
from adk_fluent_codegen.model import behaviour_runs, describe_spans, spans_of
from adk_fluent_codegen.releases import (
    is_final_release,
    minor_line,
    minor_steps,
    published_releases,
    supported,
)
from adk_fluent_codegen.render import python_literal, stale_outputs, write_outputs
from adk_fluent_generated.behaviours import (
    BEHAVIOURS,
    UnknownBehaviour,
    behaviour_on,
    first_release_where,
)
from adk_fluent_generated.field_versions import SCANNED_ADK_VERSIONS, release_key, releases_in

RELEASES = ["1.25.0", "1.25.1", "1.26.0", "1.27.1", "1.27.5", "2.0.0", "2.4.0", "2.13.0"]
STEPS = ["1.25.0", "1.25.1", "1.26.0", "1.27.5", "2.0.0", "2.4.0", "2.13.0"]
SHUFFLES = [
    RELEASES[::-1],
    ["2.4.0", "1.27.5", "1.25.1", "2.13.0", "1.25.0", "2.0.0", "1.27.1", "1.26.0"],
]
PROBES = sorted(BEHAVIOURS)


@pytest.mark.parametrize(
    ("version", "final"),
    [("1.39.1", True), ("2.0.0", True), ("2.0.0a1", False), ("2.0.0rc1", False)]
    + [("1.2.dev0", False), ("1.2", False), ("1.2.3.4", False)],
)
def test_is_final_release(version: str, final: bool) -> None:
    assert is_final_release(version) is final


def test_supported_keeps_final_releases_from_the_floor_sorted_once() -> None:
    versions = ["1.30.0", "1.24.9", "2.0.0rc1", "1.25.0", "1.9.0", "1.30.0", "1.100.0"]
    assert supported(versions) == ["1.25.0", "1.30.0", "1.100.0"]
    assert supported(versions, oldest="1.9.0") == ["1.9.0", "1.24.9", "1.25.0", "1.30.0", "1.100.0"]


def test_published_releases_skips_yanked_empty_pre_and_too_old(tmp_path: Path) -> None:
    live = [{"filename": "a.whl", "yanked": False}]
    document = {
        "releases": {
            "1.24.0": live,
            "1.25.0": live * 2,
            "1.26.0": [{"yanked": True}, {"yanked": True}],  # every file yanked
            "1.27.0": [],  # no files
            "1.27.1": [{"yanked": True}, {"yanked": False}],  # one file left: still live
            "1.28.0": [{"filename": "b.whl"}],  # no "yanked" key: live
            "2.0.0a1": live,
            "2.0.0rc1": live,
            "2.0.0": live,
        }
    }
    (tmp_path / "google-adk.json").write_text(json.dumps(document))
    url = (tmp_path / "google-adk.json").as_uri()
    assert published_releases(url=url) == ["1.25.0", "1.27.1", "1.28.0", "2.0.0"]
    assert published_releases("1.24.0", url=url)[0] == "1.24.0"
    assert published_releases("2.0.0", url=url) == ["2.0.0"]
    (tmp_path / "empty.json").write_text("{}")
    assert published_releases(url=(tmp_path / "empty.json").as_uri()) == []


def test_published_releases_unreachable_raises_with_a_hint() -> None:
    url = "file:///nonexistent/x.json"
    with pytest.raises(CodegenError) as error:
        published_releases(url=url)
    assert url in error.value.message
    assert error.value.hint is not None and "scan-releases" in error.value.hint
    assert "Hint:" in str(error.value)


@pytest.mark.parametrize(
    ("version", "line"), [("1.27.5", (1, 27)), ("2.13.0", (2, 13)), ("2.0.0rc1", (2, 0))]
)
def test_minor_line(version: str, line: tuple[int, int]) -> None:
    assert minor_line(version) == line


@pytest.mark.parametrize(
    ("versions", "steps"),
    [(shuffled, STEPS) for shuffled in SHUFFLES]
    + [([], []), (["1.30.2"], ["1.30.2"]), (["1.25.0", "1.25.0"], ["1.25.0"])]
    + [
        (["1.27.5", "1.27.1"], ["1.27.1", "1.27.5"]),
        (["2.0.0", "1.10.0", "1.9.0"], ["1.9.0", "1.10.0", "2.0.0"]),
    ],
)
def test_minor_steps_take_the_oldest_and_each_lines_newest_patch(
    versions: list[str], steps: list[str]
) -> None:
    assert minor_steps(versions) == steps


ORDER = ["1.25.0", "1.26.0", "1.27.0", "2.0.0", "2.1.0"]


@pytest.mark.parametrize(
    ("present", "spans"),
    [
        (ORDER, (("1.25.0", "2.1.0"),)),
        (["1.25.0", "1.26.0", "2.0.0", "2.1.0"], (("1.25.0", "1.26.0"), ("2.0.0", "2.1.0"))),
        (["2.1.0"], (("2.1.0", "2.1.0"),)),
        (["1.27.0"], (("1.27.0", "1.27.0"),)),
        ([], ()),
        (["9.9.9", "1.25.0"], (("1.25.0", "1.25.0"),)),  # a release not scanned is ignored
    ],
)
def test_spans_of(present: list[str], spans: tuple[tuple[str, str], ...]) -> None:
    assert spans_of(present, ORDER) == spans


@pytest.mark.parametrize(
    ("spans", "text"),
    [
        ((("1.25.0", "2.1.0"),), "1.25.0 and newer"),
        ((("2.1.0", "2.1.0"),), "2.1.0 and newer"),  # reaching the newest scan: open-ended
        ((("1.26.0", "1.26.0"),), "1.26.0 only"),
        ((("1.25.0", "1.27.0"),), "1.25.0 to 1.27.0"),
        ((("1.25.0", "1.26.0"), ("2.0.0", "2.1.0")), "1.25.0 to 1.26.0, 2.0.0 and newer"),
        (
            (("1.25.0", "1.25.0"), ("1.27.0", "1.27.0"), ("2.1.0", "2.1.0")),
            "1.25.0, 1.27.0, 2.1.0 and newer",
        ),
        ((), "no scanned release"),
    ],
)
def test_describe_spans(spans: tuple[tuple[str, str], ...], text: str) -> None:
    assert describe_spans(spans, "2.1.0") == text


def _probed(version: str, **answers: Any) -> dict[str, Any]:
    return {"adk_version": version, "behaviours": answers}


def test_behaviour_runs_merge_equal_answers_and_skip_unprobed_scans() -> None:
    shape = {"after": ["ctx"], "before": ["ctx", "req"]}
    manifests = [
        _probed("1.25.0", flag=False, shape=shape, flip="one"),
        _probed("1.26.0", flag=False, shape=dict(reversed(shape.items())), flip="two"),
        {"adk_version": "1.27.0"},  # scanned without probes: interrupts no run
        _probed("1.28.0", flag=True, shape={**shape}, flip="one"),
        _probed("2.0.0", flag=True, shape=json.loads(json.dumps(shape))),  # no "flip" answer
    ]
    runs = behaviour_runs(manifests)
    assert list(runs) == ["flag", "flip", "shape"]
    assert runs["flag"] == [("1.25.0", "1.26.0", False), ("1.28.0", "2.0.0", True)]
    assert runs["flip"] == [
        ("1.25.0", "1.25.0", "one"),
        ("1.26.0", "1.26.0", "two"),
        ("1.28.0", "1.28.0", "one"),
    ]
    assert runs["shape"] == [("1.25.0", "2.0.0", shape)]
    assert behaviour_runs([]) == {}
    assert behaviour_runs([{"adk_version": "1.25.0"}, _probed("1.26.0")]) == {}


def _versions(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[str, str]]:
    return [(old["adk_version"], new["adk_version"]) for old, new in pairs]


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        (shuffled, [*zip(STEPS, STEPS[1:], strict=False), ("1.25.0", "2.13.0")])
        for shuffled in SHUFFLES
    ]
    + [([], []), (["1.25.0"], []), (["1.27.5", "1.27.1"], [("1.27.1", "1.27.5")])],
)
def test_report_pairs_walk_the_minor_steps_then_the_whole_range(
    versions: list[str], expected: list[tuple[str, str]]
) -> None:
    manifests = [{"adk_version": v} for v in versions]
    pairs = report_pairs(manifests)
    assert _versions(pairs) == expected
    assert all(m in manifests for pair in pairs for m in pair)


@pytest.mark.parametrize(
    ("versions", "expected"),
    [([], []), (["1.25.0"], []), (["1.25.0", "1.25.1"], [("1.25.0", "1.25.1")])]
    + [(RELEASES[:4], [*zip(RELEASES[:3], RELEASES[1:4], strict=True), ("1.25.0", "1.27.1")])],
)
def test_gate_pairs_are_every_consecutive_pair_plus_the_whole_range(
    versions: list[str], expected: list[tuple[str, str]]
) -> None:
    assert _versions(gate_pairs([{"adk_version": v} for v in versions])) == expected


def _tuples(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "None"), (True, "True"), (3, "3"), (1.5, "1.5"), ("it's", '"it\'s"'), ({}, "{}")]
    + [([], "()"), (["a"], "('a', )"), ([1, [2, 3]], "(1, (2, 3, ), )")]
    + [({"b": 1, "a": [True, None]}, "{'a': (True, None, ), 'b': 1}")]
    + [({"z": {"y": 1, "x": ["q"]}}, "{'z': {'x': ('q', ), 'y': 1}}")],
)
def test_python_literal(value: Any, text: str) -> None:
    assert python_literal(value) == text
    assert ast.literal_eval(text) == _tuples(value)


def _checkout(tmp_path: Path) -> tuple[Layout, dict[Path, str], list[Path], list[Path]]:
    """A fake checkout; returns (layout, outputs, the stale files, files never stale)."""
    layout = Layout(tmp_path)
    layout.package.mkdir(parents=True)
    layout.diffs.mkdir()
    pkg, diffs = layout.package, layout.diffs
    kept = [pkg / "notes.txt", layout.acks, diffs / "README.md"]  # never stale
    stale = sorted([pkg / "old.py", diffs / "1.20.0..1.25.0.md", diffs / "1.20.0..1.25.0.json"])
    same, report = pkg / "__init__.py", diffs / "1.25.0..1.26.0.json"
    for path in [*kept, *stale, same, report, pkg / "node.py", diffs / "1.25.0..1.26.0.md"]:
        path.write_text("old\n")
    outputs = {same: "old\n", report: "old\n", pkg / "node.py": "new\n"}
    outputs |= {pkg / "new.py": "x = 1\n", diffs / "1.25.0..1.26.0.md": "new\n"}
    return layout, outputs, stale, kept


def test_stale_outputs_are_unproduced_modules_and_reports(tmp_path: Path) -> None:
    layout, outputs, stale, _ = _checkout(tmp_path)
    assert stale_outputs(layout, outputs) == stale
    assert stale_outputs(Layout(tmp_path / "empty"), {}) == []


def test_write_outputs_writes_then_deletes_exactly_the_stale_files(tmp_path: Path) -> None:
    layout, outputs, stale, kept = _checkout(tmp_path)
    before = {path: path.read_text() for path in kept}
    changed, removed = write_outputs(layout, outputs)
    pkg, diffs = layout.package, layout.diffs
    assert sorted(changed) == sorted([pkg / "node.py", pkg / "new.py", diffs / "1.25.0..1.26.0.md"])
    assert removed == stale
    assert {path: path.read_text() for path in outputs} == outputs
    assert not any(path.exists() for path in stale)
    assert {path: path.read_text() for path in kept} == before
    assert write_outputs(layout, outputs) == ([], [])


def _inside(first: str, last: str) -> list[str]:
    return [
        v for v in SCANNED_ADK_VERSIONS if release_key(first) <= release_key(v) <= release_key(last)
    ]


def _next_patch(version: str) -> str:
    major, minor, patch = release_key(version)
    return f"{major}.{minor}.{patch + 1}"


@pytest.mark.parametrize("name", PROBES)
def test_every_scanned_release_inside_a_run_answers_its_value(name: str) -> None:
    runs = BEHAVIOURS[name]
    for (_, last, value), (first, _, following) in zip(runs, runs[1:], strict=False):
        assert release_key(last) < release_key(first) and value != following  # else one run
    for first, last, value in runs:
        inside = _inside(first, last)
        assert first in inside and last in inside
        for version in inside:
            assert behaviour_on(name, version) == value
            assert behaviour_on(name, version, scanned_only=False) == value


@pytest.mark.parametrize("name", PROBES)
def test_unscanned_releases_need_scanned_only_false(name: str) -> None:
    runs = BEHAVIOURS[name]
    for version in ("0.1.0", "99.0.0", *(_next_patch(last) for _, last, _ in runs)):
        if version not in SCANNED_ADK_VERSIONS:
            with pytest.raises(UnknownBehaviour):
                behaviour_on(name, version)
    assert behaviour_on(name, "99.0.0", scanned_only=False) == runs[-1][2]
    with pytest.raises(UnknownBehaviour):
        behaviour_on(name, "0.1.0", scanned_only=False)
    for (_, last, _), (first, _, _) in zip(runs, runs[1:], strict=False):
        between = _next_patch(last)  # after one run, before the next, which answers otherwise
        if release_key(between) < release_key(first):
            with pytest.raises(UnknownBehaviour):
                behaviour_on(name, between, scanned_only=False)
    for first, last, value in runs:
        inside = _inside(first, last)
        for a, b in zip(inside, inside[1:], strict=False):
            gap = _next_patch(a)  # between two consecutive scans of one run: unscanned
            if release_key(gap) < release_key(b):
                assert behaviour_on(name, gap, scanned_only=False) == value
                with pytest.raises(UnknownBehaviour):
                    behaviour_on(name, gap)


def test_an_unknown_probe_is_unknown_everywhere() -> None:
    assert issubclass(UnknownBehaviour, LookupError)
    for scanned_only in (True, False):
        with pytest.raises(UnknownBehaviour, match="no_such_probe"):
            behaviour_on("no_such_probe", SCANNED_ADK_VERSIONS[0], scanned_only=scanned_only)
    assert first_release_where("no_such_probe", True) is None


@pytest.mark.parametrize("name", PROBES)
def test_first_release_where_is_the_newest_runs_start(name: str) -> None:
    runs = BEHAVIOURS[name]
    assert first_release_where(name, runs[-1][2]) == runs[-1][0]
    assert first_release_where(name, object()) is None
    for _, _, value in runs[:-1]:
        if value != runs[-1][2]:
            assert first_release_where(name, value) is None


def test_releases_in() -> None:
    scanned = SCANNED_ADK_VERSIONS
    assert len(scanned) >= 3 and list(scanned) == sorted(set(scanned), key=release_key)
    assert releases_in(((scanned[1], scanned[-2]),)) == scanned[1:-1]
    assert releases_in(((scanned[0], scanned[0]),)) == scanned[:1]
    ends = ((scanned[0], scanned[0]), (scanned[-1], scanned[-1]))
    assert releases_in(ends) == (scanned[0], scanned[-1])
    assert releases_in((("0.1.0", "99.0.0"),)) == scanned
    assert releases_in(()) == ()


def test_release_key_orders_numerically() -> None:
    assert release_key("1.9.0") < release_key("1.10.0") < release_key("2.0.0")
    assert sorted(["2.0.0", "1.10.0", "1.9.0"], key=release_key) == ["1.9.0", "1.10.0", "2.0.0"]


@pytest.mark.parametrize("key", [release_key, version_key])
def test_a_pre_release_sorts_with_its_release(key: Any) -> None:
    assert key("2.0.0rc1") == key("2.0.0") < key("2.0.1")
