"""A generated setter that a hand-written builder method would shadow is refused, through a real
generation run in its own process (the check itself is in tests/unit/codegen/test_shadowing.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adk_fluent_codegen.errors import CodegenError
from adk_fluent_codegen.layout import Layout
from adk_fluent_codegen.render import render_package

from tests.support.codegen import REPO_ROOT


class LlmAgentSetters:
    """Named like the generated mixin for LlmAgent (whose synthetic setters include `model`,
    `instruction`, `description` and `adk_timeout`)."""


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
