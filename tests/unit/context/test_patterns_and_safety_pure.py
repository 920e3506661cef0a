"""C specs without a Runner: C.capture is S.capture, specs compose with `+`, their keys are read
keys, and `.context()` with `.include_contents()` is refused."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C, S


def test_c_capture_is_s_capture():
    assert C.capture("k").to_ir() == S.capture("k").to_ir()


def test_context_and_include_contents_together_is_an_error():
    from adk_fluent import BuildError

    with pytest.raises(BuildError, match="field 'include_contents'.*both"):
        Agent("a").include_contents("none").context(C.user_only()).build()


def test_context_spec_keys_are_read_keys():
    node = Agent("a").context(C.from_state("x") + C.template("{y} {z?}")).to_ir()
    assert node.reads_keys == {"x", "y", "z"}


def test_specs_compose():
    spec = C.user_only() + C.from_state("a") + C.from_state("b") + C.template("t")
    assert (spec.history, spec.state_keys, spec.templates) == ("user_only", ("a", "b"), ("t",))
    assert (C.from_state("a") + C.template("t")).history == "none"
    assert (C.template("t") + C.last_n_turns(2)).history == "last_n_turns"
