"""Mermaid draws internal agents dashed (the rest of the visibility rules run through the
Runner: tests/behaviour/visibility/test_rules.py)."""

from __future__ import annotations

from adk_fluent import Agent


def test_mermaid_draws_internal_agents_dashed():
    text = (
        Agent("classifier").outputs("intent") >> Agent("booker").instruct("{intent}")
    ).to_mermaid()
    assert "classDef internal stroke-dasharray" in text
    assert "class n0 internal" in text and "n1 internal" not in text
