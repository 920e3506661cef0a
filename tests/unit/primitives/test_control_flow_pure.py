"""A gate's approve and reject words must not overlap (refused at build)."""

from __future__ import annotations

import pytest

from adk_fluent import (
    gate,
)


def test_gate_words_must_not_overlap():
    from adk_fluent import BuildError

    with pytest.raises(BuildError, match="field 'reject'.*would both approve and reject"):
        gate(True, "?", approve=("ok",), reject=("OK",))
