"""The contract corpus: broken pipelines produce their expected diagnostics (snapshotted), correct
ones produce no error and no warning. `UPDATE_SNAPSHOTS=1 pytest tests/unit/contracts` rewrites the
snapshots; review the diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adk_fluent import check_contracts
from adk_fluent.analysis.contracts import registered_checks
from tests.unit.contracts.corpus import content, edges, turns  # noqa: F401  (they register cases)
from tests.unit.contracts.corpus.broken import BROKEN
from tests.unit.contracts.corpus.correct import CORRECT

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


def _report(case):
    return check_contracts(case.build(), **case.options)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_pipeline_is_diagnosed(name):
    case = BROKEN[name]
    report = _report(case)
    missing = set(case.expect) - set(report.codes())
    assert not missing, f"{name}: expected {missing} in\n{report.to_text()}"
    for issue in report:
        assert issue.node and issue.path and issue.message and issue.hint, issue
        assert issue.node in issue.path.split("/"), issue
        if issue.key is not None:  # every diagnostic names the key it is about
            assert issue.key in issue.subject + issue.message, issue
    snapshot = SNAPSHOTS / f"{name}.txt"
    text = report.to_text()
    if UPDATE or not snapshot.exists():
        if not UPDATE:
            pytest.fail(f"no snapshot {snapshot.name}; run with UPDATE_SNAPSHOTS=1 to create it")
        snapshot.write_text(text, encoding="utf-8")
    assert text == snapshot.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_pipeline_has_no_error_or_warning(name):
    case = CORRECT[name]
    report = _report(case)
    assert not report.failing(strict=True), report.to_text()
    # it also compiles to native ADK agents: the corpus only holds expressions ADK accepts
    case.build().build()


def test_no_stale_snapshots():
    stale = {p.stem for p in SNAPSHOTS.glob("*.txt")} - set(BROKEN)
    assert not stale, f"snapshots without a corpus case: {sorted(stale)}"


def test_corpus_size_and_coverage():
    assert len(BROKEN) >= 40 and len(CORRECT) >= 20
    produced = set()
    for case in [*BROKEN.values(), *CORRECT.values()]:  # advice (info) codes show in both
        produced |= set(_report(case).codes())
    every_code = {code for spec in registered_checks() for code in spec.codes}
    assert every_code <= produced, f"codes the corpus never exercises: {every_code - produced}"
    places = " ".join(case.where for case in BROKEN.values())
    for kind in (
        "route",
        "fan-out",
        "loop",
        "map_over",
        "fallback",
        "race",
        "gate",
        "timeout",
        "S.",
        "C.",
        "delegate",
        "schema",
    ):
        assert kind in places, f"no broken case inside {kind}"


def test_detection_rate_and_false_positives(capsys):
    detected = sum(set(c.expect) <= set(_report(c).codes()) for c in BROKEN.values())
    false_positives = sum(bool(_report(c).failing(strict=True)) for c in CORRECT.values())
    with capsys.disabled():
        print(
            f"\ncontract corpus: detected {detected}/{len(BROKEN)} broken pipelines "
            f"({100 * detected / len(BROKEN):.0f}%), false positives {false_positives}/"
            f"{len(CORRECT)} correct pipelines"
        )
    assert detected == len(BROKEN)
    assert false_positives == 0
