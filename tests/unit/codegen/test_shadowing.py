"""No generated setter may shadow (or be shadowed by) a hand-written builder method.

The check reads built classes: the tests hand it fake builders deriving from a class named like a
generated mixin (mixins are matched by name, as the setters about to be generated may not exist
in the installed package yet).
"""

from __future__ import annotations

from typing import Any

import pytest
from adk_fluent_codegen import shadowing
from adk_fluent_codegen.errors import CodegenError, CodegenWarning
from adk_fluent_codegen.manifest import load_manifests
from adk_fluent_codegen.model import render_context
from adk_fluent_codegen.shadowing import builder_classes, check_shadowing

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


def test_shadowing_through_an_intermediate_base_is_refused(
    synthetic_manifests: list[dict[str, Any]],
) -> None:
    class BuilderBase(LlmAgentSetters):
        def instruction(self, text: str) -> BuilderBase:
            return self

    class Agent(BuilderBase):
        pass

    with pytest.raises(CodegenError, match=r"BuilderBase\.instruction\(\) \(a base of Agent\)"):
        check_shadowing(synthetic_targets(synthetic_manifests), [Agent])


def test_a_base_before_the_mixin_in_the_mro_is_refused(
    synthetic_manifests: list[dict[str, Any]],
) -> None:
    """`class Agent(Expression, LlmAgentSetters)`: Expression's method would hide the setter."""

    class Expression:
        def description(self) -> str:
            return "mine"

    class Agent(Expression, LlmAgentSetters):
        pass

    with pytest.raises(CodegenError, match=r"Expression\.description\(\) \(a base of Agent\)"):
        check_shadowing(synthetic_targets(synthetic_manifests), [Agent])


def test_renamed_and_unrelated_methods_do_not_collide(
    synthetic_manifests: list[dict[str, Any]],
) -> None:
    class Agent(LlmAgentSetters):
        def timeout(self, seconds: float) -> Agent:  # ADK's `timeout` is generated as adk_timeout
            return self

        def outputs(self, key: str) -> Agent:
            return self

    check_shadowing(synthetic_targets(synthetic_manifests), [Agent, Other])


def test_the_installed_builders_are_found_and_do_not_collide() -> None:
    """The default classes are the installed hand-written builders, checked on every render."""
    from adk_fluent.api.agent import Agent

    found = builder_classes()
    assert Agent in found
    mixed = {
        cls.__name__ for cls in found if any(k.__name__.endswith("Setters") for k in cls.__mro__)
    }
    assert {"Agent", "Pipeline", "FanOut", "Loop"} <= mixed
    manifests = load_manifests(REPO_ROOT / "generated" / "manifests")
    check_shadowing(render_context(manifests)["targets"])


def test_builders_that_do_not_import_skip_the_check_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, synthetic_manifests: list[dict[str, Any]]
) -> None:
    """A stale generated package can break the builders' import; `generate` must still run."""
    monkeypatch.setattr(shadowing, "BUILDER_PACKAGE", "adk_fluent_codegen_no_such_package")
    with pytest.warns(CodegenWarning, match="shadowing check was skipped.*no_such_package"):
        check_shadowing(synthetic_targets(synthetic_manifests))
