"""`Agent.accepts()` / `.produces_modality()`: immutable builder methods that put a ContentSpec
in the IR (`LlmAgentNode.content_spec`), and the public names."""

from __future__ import annotations

import pytest

import adk_fluent
from adk_fluent import Agent, ContentSpec, Modality
from adk_fluent.errors import BuildError


def test_the_public_names_are_the_ir_values():
    from adk_fluent.ir.content import ContentSpec as Spec
    from adk_fluent.ir.content import Modality as Mod

    assert adk_fluent.Modality is Mod and adk_fluent.ContentSpec is Spec


def test_declaring_returns_a_new_builder_and_leaves_the_old_one_alone():
    base = Agent("vision").instruct("Describe.")
    seeing = base.accepts("image", Modality.TEXT)
    drawing = seeing.produces_modality("IMAGE", max_tokens=500)
    assert base.to_ir().content_spec is None
    assert seeing.to_ir().content_spec == ContentSpec(accepts={"image", "text"})
    assert drawing.to_ir().content_spec == ContentSpec(
        accepts={"image", "text"}, produces={"image"}, max_output_tokens=500
    )
    assert seeing.to_ir().content_spec.produces is None  # the later call changed no other value


def test_declaring_again_replaces_that_side_only():
    agent = Agent("a").accepts("image", max_tokens=100).produces_modality("audio")
    again = agent.accepts("pdf")
    assert again.to_ir().content_spec == ContentSpec(accepts={"pdf"}, produces={"audio"})
    assert agent.to_ir().content_spec.accepts == {Modality.IMAGE}


def test_a_clone_and_a_pipeline_keep_the_declaration():
    agent = Agent("a").accepts("video")
    assert agent.clone("b").to_ir().content_spec.accepts == {Modality.VIDEO}
    pipeline = agent >> Agent("c")
    assert pipeline.to_ir().children[0].content_spec.accepts == {Modality.VIDEO}


def test_equal_declarations_give_equal_ir():
    one = Agent("a").accepts("image", "text").to_ir()
    two = Agent("a").accepts(Modality.TEXT, "Image").to_ir()
    assert one == two and hash(one) == hash(two)


@pytest.mark.parametrize("method", ["accepts", "produces_modality"])
def test_an_agent_with_a_declaration_still_compiles_to_a_plain_llm_agent(method):
    native = getattr(Agent("a", "gemini-2.5-flash"), method)("image").build()
    assert type(native).__name__ == "LlmAgent" and native.name == "a"


@pytest.mark.parametrize("method", ["accepts", "produces_modality"])
def test_errors_name_the_agent_and_the_method(method):
    with pytest.raises(BuildError) as caught:
        getattr(Agent("vision"), method)("imgae")
    assert f"field '{method}'" in str(caught.value) and "agent 'vision'" in str(caught.value)
    with pytest.raises(BuildError, match="max_tokens must be a positive whole number"):
        getattr(Agent("vision"), method)("image", max_tokens=-1)
