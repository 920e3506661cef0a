"""A gate's question always reaches the person who approves: `.hide()` on a composite that holds
a gate hides the agents around it, never the gate; hiding a gate itself is refused at build."""

from __future__ import annotations

import pytest

from adk_fluent import BuildError, gate, infer_visibility
from tests.support.visibility import hidden_flow


def test_a_gate_inside_a_hidden_composite_still_speaks_to_the_user():
    table = infer_visibility(hidden_flow().to_ir())
    assert table["drafter"] == "internal" and table["sender"] == "internal"
    assert table["check"] == "user"


def test_hiding_a_gate_itself_is_refused_with_the_reason():
    with pytest.raises(BuildError) as caught:
        gate(lambda s: True, "Send it?", name="check").hide()
    assert caught.value.agent == "check" and caught.value.field == "visibility"
    assert "hide the agents around it" in str(caught.value)
