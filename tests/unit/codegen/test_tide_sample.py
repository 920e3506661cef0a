"""The tide sample (noxfile.py's TIDE_RELEASES, what `make tide` runs the suite on) against the
scans: it holds the two ends, the last 1.x and the first 2.x, every release where a behaviour
probe starts answering differently, and at least four releases in between; CI's rotating middle
release comes from it."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from adk_fluent_generated.behaviours import BEHAVIOURS
from adk_fluent_generated.field_versions import SCANNED_ADK_VERSIONS, release_key

NOXFILE = Path(__file__).resolve().parents[3] / "noxfile.py"


def _noxfile_constants() -> dict[str, object]:
    """The noxfile's module-level string and list constants, read without running it."""
    tree = ast.parse(NOXFILE.read_text(encoding="utf-8"))
    values: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if isinstance(node.value, ast.Constant):
                values[name] = node.value.value
            elif isinstance(node.value, ast.List):
                values[name] = [
                    values[e.id] if isinstance(e, ast.Name) else ast.literal_eval(e)
                    for e in node.value.elts
                ]
    return values


CONSTANTS = _noxfile_constants()
SAMPLE: list[str] = CONSTANTS["TIDE_RELEASES"]  # type: ignore[assignment]


def test_the_ends_are_the_oldest_and_newest_scans() -> None:
    assert CONSTANTS["OLDEST_ADK"] == SCANNED_ADK_VERSIONS[0]
    # A newer scan means a new release: move NEWEST_ADK (and the README) to it.
    assert CONSTANTS["NEWEST_ADK"] == SCANNED_ADK_VERSIONS[-1]
    assert CONSTANTS["SUPPORTED_ADK"] == [SCANNED_ADK_VERSIONS[0], SCANNED_ADK_VERSIONS[-1]]


def test_the_sample_is_scanned_releases_in_order_without_repeats() -> None:
    assert set(SAMPLE) <= set(SCANNED_ADK_VERSIONS)
    assert SAMPLE == sorted(set(SAMPLE), key=release_key)
    assert (SAMPLE[0], SAMPLE[-1]) == (SCANNED_ADK_VERSIONS[0], SCANNED_ADK_VERSIONS[-1])


def test_the_sample_holds_the_last_1x_and_the_first_2x() -> None:
    ones = [v for v in SCANNED_ADK_VERSIONS if v.startswith("1.")]
    twos = [v for v in SCANNED_ADK_VERSIONS if v.startswith("2.")]
    assert ones[-1] in SAMPLE and twos[0] in SAMPLE


@pytest.mark.parametrize("probe", sorted(BEHAVIOURS))
def test_every_release_where_a_behaviour_changes_is_in_the_sample(probe: str) -> None:
    for first, _last, value in BEHAVIOURS[probe][1:]:
        assert first in SAMPLE, f"{probe} answers {value!r} from {first}: add it to TIDE_RELEASES"


def test_at_least_four_releases_between_the_ends_and_the_two_lines_edges() -> None:
    edges = {SAMPLE[0], SAMPLE[-1], "1.39.1", "2.0.0"}
    assert len(set(SAMPLE) - edges) >= 4


def test_ci_rotates_through_every_scanned_release_between_the_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import noxfile  # the real helpers; importing registers its sessions with nox, nothing else

    # scanned_releases() reads every committed manifest; read them once, not once a pick
    monkeypatch.setattr(noxfile, "scanned_releases", functools.cache(noxfile.scanned_releases))
    middle = [v for v in SCANNED_ADK_VERSIONS if v not in (SAMPLE[0], SAMPLE[-1])]
    assert set(SAMPLE[1:-1]) < set(middle)  # more than the sample: 2.6.0 broke outside it
    picks = {noxfile.pick_middle(f"{n:08x}") for n in range(len(middle))}
    assert picks == set(middle)  # successive commits walk every scanned middle release
    assert noxfile.pick_middle("0000000a" + "f" * 32) == noxfile.pick_middle("0000000a")
    monkeypatch.setenv("ADK_FLUENT_TIDE_RELEASE", "2.4.0")
    assert noxfile.rotating_middle() == "2.4.0"
