"""Mermaid output (control and data flow, shapes for the primitives) and lazy public names."""

from __future__ import annotations

from adk_fluent import Agent


def test_mermaid_draws_control_and_data_flow():
    pipeline = (
        Agent("classifier").outputs("intent")
        >> (Agent("a").instruct("{intent}") | Agent("b"))
        >> Agent("writer").instruct("{intent}") * 2
    )
    text = pipeline.to_mermaid()
    assert text.startswith("flowchart TD")
    assert "classifier<br/>writes: intent" in text
    assert text.count("-. intent .->") == 2  # classifier -> a, classifier -> writer
    assert "((parallel))" in text and "repeat" in text


def test_mermaid_shapes_for_primitives():
    from adk_fluent import Route, S, gate, map_over, race, tap, timeout

    pipeline = (
        S.capture("q")
        >> Agent("classifier").outputs("intent")
        >> Route("intent").eq("booking", Agent("booker").instruct("{q}")).otherwise(Agent("helper"))
        >> map_over("docs", Agent("s"))
        >> gate(True, "Proceed?")
        >> timeout(Agent("t"), 3)
        >> race(Agent("r1"), Agent("r2"))
        >> tap(print)
    )
    text = pipeline.to_mermaid()
    assert '[/"capture capture_q"/]' in text
    assert (
        '{"route intent"}' in text
        and "-- \"eq 'booking'\" -->" in text
        and '-- "otherwise" -->' in text
    )
    assert '[["map_over docs -> results"]]' in text
    assert '{{"gate: Proceed?"}}' in text
    assert '(["timeout 3s"])' in text and "((race))" in text and '>"tap tap_print"]' in text
    assert "-. intent .->" in text and "-. q .->" in text


def test_every_public_name_resolves_lazily():
    import importlib

    import adk_fluent

    # what a pipeline is composed, configured, run and checked with; the rest is in its room
    assert 40 <= len(adk_fluent.__all__) <= 70, len(adk_fluent.__all__)
    for name, module in adk_fluent._exports().items():
        assert getattr(adk_fluent, name) is getattr(importlib.import_module(module), name)
    assert set(adk_fluent.__all__) <= set(dir(adk_fluent))
    import pytest

    with pytest.raises(AttributeError, match="has no attribute 'Agnet'"):
        adk_fluent.Agnet  # noqa: B018
