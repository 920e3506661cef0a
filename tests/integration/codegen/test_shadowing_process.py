"""No generated setter may shadow (or be shadowed by) a hand-written builder method.

The check reads built classes: the tests hand it fake builders deriving from a class named like a
generated mixin (mixins are matched by name, as the setters about to be generated may not exist
in the installed package yet).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adk_fluent_codegen.errors import CodegenError
from adk_fluent_codegen.layout import Layout
from adk_fluent_codegen.model import render_context
from adk_fluent_codegen.render import render_package

from tests.support.codegen import REPO_ROOT


class LlmAgentSetters:
    """Named like the generated mixin for LlmAgent (whose synthetic setters include `model`,
    `instruction`, `description` and `adk_timeout`)."""


class Other:
    """Not a mixin: its methods only count in a class that also mixes in generated setters."""

    def model(self) -> None:
        return None


def synthetic_targets(synthetic_manifests: list[dict[str, Any]]) -> list[Any]:
    return render_context(synthetic_manifests)["targets"]


def test_shadowing_a_generated_setter_is_refused(
    tmp_path: Path, synthetic_manifests: list[dict[str, Any]]
) -> None:
    class Agent(LlmAgentSetters):
        def model(self) -> str:
            return "mine"

    layout = Layout(tmp_path)
    layout.templates = REPO_ROOT / "templates"
    with pytest.raises(CodegenError) as error:
        render_package(layout, synthetic_manifests, builders=[Agent])
    message = error.value.message
    assert "Agent.model()" in message and "LlmAgentSetters" in message
    assert "ADK field `model`" in message
    assert "SETTER_RENAMES" in (error.value.hint or "")
    assert "targets.py" in (error.value.hint or "")
