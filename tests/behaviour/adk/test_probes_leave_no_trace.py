"""On a scanned release no behaviour probe runs while a user's pipeline runs or compiles: the
scans' table answers (docs/telemetry.md promises adk-fluent adds no trace of its own, and a
probe runs real ADK turns). The unscanned case is tests/integration/adk/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from adk_fluent_generated.behaviours import UnknownBehaviour, behaviour_on

from adk_fluent import Agent, available_targets
from adk_fluent.adk import compat, probes
from adk_fluent.testing import mock_backend
from tests.support.otel import span_exporter


def _cached() -> list:
    return [compat.behaviour, compat._unscanned_answers, compat.workflow_graphs_missing]


@pytest.fixture
def probes_refused(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every probe replaced by one that records its name and fails; the process's answers
    forgotten, as in a fresh process."""
    try:
        behaviour_on("runner_takes_state_delta", compat.adk_version())
    except UnknownBehaviour:
        pytest.skip(f"google-adk {compat.adk_version()} has no committed scan (make regen)")
    ran: list[str] = []

    def refusing(name: str):
        def probe():
            ran.append(name)
            raise AssertionError(f"probe {name} ran on a scanned release")

        return probe

    for name in probes.PROBES:
        monkeypatch.setitem(probes.PROBES, name, refusing(name))
        monkeypatch.setattr(probes, name, refusing(name))
    for cached in _cached():
        cached.cache_clear()
    yield ran
    for cached in _cached():
        cached.cache_clear()


async def test_the_first_run_with_state_asks_no_probe_and_leaves_no_probe_span(probes_refused):
    exporter = span_exporter()
    backend = mock_backend({"desk": "Noted."})
    events = (
        await Agent("desk")
        .instruct("Note {plan}.")
        .run("hello", state={"plan": "gold"}, backend=backend)
    )
    assert events[-1].content == "Noted."
    assert "gold" in str(backend.requests["desk"][0].config.system_instruction)
    assert probes_refused == []
    names = [span.name for span in exporter.get_finished_spans()]
    assert names and not [n for n in names if "probe" in n], names


def test_building_for_the_workflow_target_asks_no_probe(probes_refused):
    exporter = span_exporter()
    targets = available_targets()  # asks workflow_graphs_missing(): the table answers
    if "workflow" in targets:
        (Agent("a") >> Agent("b")).to_app(target="workflow")
    assert probes_refused == []
    assert not [s.name for s in exporter.get_finished_spans() if "probe" in s.name]
