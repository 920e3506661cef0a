"""The committed generated package against the installed ADK and the manifests: every field has a
setter, the field table, IR nodes mirror ADK's fields, compile cases build native agents."""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import Any

import pytest
from adk_fluent_codegen.manifest import load_manifests, version_key
from adk_fluent_codegen.targets import BUILDER_TARGETS, SETTER_RENAMES, STRUCTURAL_FIELDS

from tests.support.codegen import ADK_VERSION, REPO_ROOT


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    return load_manifests(REPO_ROOT / "generated" / "manifests")


def test_every_llm_agent_field_of_the_newest_adk_has_a_setter(
    manifests: list[dict[str, Any]],
) -> None:
    from adk_fluent_generated.builder_bases import LlmAgentSetters

    newest = manifests[-1]
    fields = set(newest["classes"]["LlmAgent"]["fields"]) - STRUCTURAL_FIELDS
    assert fields, "no LlmAgent fields scanned"
    for name in sorted(fields):
        setter = SETTER_RENAMES.get(name, name)
        assert callable(getattr(LlmAgentSetters, setter, None)), f"no setter for LlmAgent.{name}"
        assert setter in LlmAgentSetters._GENERATED_SETTERS
    assert "adk_timeout" in LlmAgentSetters._GENERATED_SETTERS
    assert "timeout" not in LlmAgentSetters._GENERATED_SETTERS
    for structural in STRUCTURAL_FIELDS:
        assert not hasattr(LlmAgentSetters, structural)


def test_every_agent_class_field_of_every_version_has_a_setter(
    manifests: list[dict[str, Any]],
) -> None:
    import adk_fluent_generated.builder_bases as builder_bases

    for target in BUILDER_TARGETS:
        mixin = getattr(builder_bases, target.builder_base)
        for manifest in manifests:
            for name in set(manifest["classes"][target.adk_class]["fields"]) - STRUCTURAL_FIELDS:
                assert SETTER_RENAMES.get(name, name) in mixin._GENERATED_SETTERS, (
                    target.adk_class,
                    name,
                )


def test_field_versions(manifests: list[dict[str, Any]]) -> None:
    from adk_fluent_generated.field_versions import (
        FIELD_VERSIONS,
        PLUGIN_CALLBACK_VERSIONS,
        SCANNED_ADK_VERSIONS,
        field_present,
        releases_in,
    )

    scanned = tuple(m["adk_version"] for m in manifests)
    assert scanned == SCANNED_ADK_VERSIONS
    assert list(scanned) == sorted(scanned, key=version_key)
    two_x = tuple(v for v in scanned if v.startswith("2."))
    assert two_x and releases_in(FIELD_VERSIONS["LlmAgent"]["mode"]) == two_x
    assert FIELD_VERSIONS["LlmAgent"]["instruction"] == ((scanned[0], scanned[-1]),)
    assert "close" in PLUGIN_CALLBACK_VERSIONS
    if ADK_VERSION in scanned:  # the installed release's fields are exactly the table's
        assert {
            name
            for name in FIELD_VERSIONS["LlmAgent"]
            if field_present("LlmAgent", name, ADK_VERSION)
        } == _installed_fields("LlmAgent")


def _installed_fields(class_name: str) -> set[str]:
    module = {"LlmAgent": "google.adk.agents.llm_agent"}[class_name]
    return set(getattr(importlib.import_module(module), class_name).model_fields)


def test_installed_adk_fields_are_all_known() -> None:
    """Every LlmAgent field the installed ADK has is in the generated table (else: make regen)."""
    from adk_fluent_generated.field_versions import FIELD_VERSIONS, field_present

    installed = _installed_fields("LlmAgent")
    assert installed <= set(FIELD_VERSIONS["LlmAgent"])
    assert field_present("LlmAgent", "mode", ADK_VERSION) in (None, "mode" in installed)


def test_ir_nodes_mirror_the_adk_fields() -> None:
    from dataclasses import FrozenInstanceError

    from adk_fluent_generated.builder_bases import LlmAgentSetters
    from adk_fluent_generated.ir_nodes import ADK_NODE_TYPES, LlmAgentNode
    from adk_fluent_generated.sentinel import UNSET

    names = LlmAgentNode.FIELDS
    for extension in (
        "name",
        "children",
        "reads_keys",
        "writes_keys",
        "produces_type",
        "consumes_type",
        "visibility",
        "context",
    ):
        assert extension in names
    setter_fields = {
        "timeout" if s == "adk_timeout" else s for s in LlmAgentSetters._GENERATED_SETTERS
    }
    assert setter_fields == LlmAgentNode.ADK_FIELDS and setter_fields <= names
    assert LlmAgentNode.REQUIRED == frozenset()  # only the name, given positionally

    # A node holds only what was set; everything else reads as its class default.
    node = LlmAgentNode("helper")
    assert node.set_fields() == {"name": "helper"}
    assert all(getattr(node, f) is UNSET for f in setter_fields)
    assert node.children == () and node.reads_keys == frozenset()
    given = node.replace(instruction="Be brief.", output_key=None, model=UNSET)
    assert given.set_fields() == {"name": "helper", "instruction": "Be brief.", "output_key": None}
    assert node.set_fields() == {"name": "helper"}  # replace() made a new node
    with pytest.raises(FrozenInstanceError):
        node.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError, match="no field"):
        LlmAgentNode("helper", no_such_field=1)
    assert LlmAgentNode in ADK_NODE_TYPES and len(ADK_NODE_TYPES) == len(BUILDER_TARGETS)


def test_field_kinds_cover_every_generated_node() -> None:
    from adk_fluent_generated.compile_cases import ADK_MODULES, FIELD_KINDS
    from adk_fluent_generated.ir_nodes import ADK_NODE_TYPES

    assert set(FIELD_KINDS) == set(ADK_MODULES) == {t.adk_class for t in BUILDER_TARGETS}
    for node_type in ADK_NODE_TYPES:
        kinds = FIELD_KINDS[node_type.ADK_CLASS]
        assert set(kinds) == node_type.ADK_FIELDS
        assert set(kinds.values()) <= {"value", "list", "callback"}
    llm = FIELD_KINDS["LlmAgent"]
    assert (llm["before_agent_callback"], llm["tools"], llm["instruction"]) == (
        "callback",
        "list",
        "value",
    )


def test_compile_kwargs_builds_a_native_adk_agent() -> None:
    """The one generic compile passes only the fields that were set: callbacks as a list when
    several (one alone as itself), list fields as lists, adk-fluent's extensions never."""
    from adk_fluent_generated.compile_cases import adk_class, compile_kwargs
    from adk_fluent_generated.ir_nodes import LlmAgentNode, SequentialAgentNode

    def before(callback_context: Any) -> None:
        return None

    def after(callback_context: Any) -> None:
        return None

    node = LlmAgentNode(
        "helper",
        instruction="Be brief.",
        before_agent_callback=(before, after),
        tools=(len,),
        output_key=None,  # explicitly set: passed, unlike an unset field
        produces_type=dict,
        writes_keys=frozenset({"answer"}),
        visibility="user",
    )
    kwargs = compile_kwargs("LlmAgent", node, [])
    assert kwargs == {
        "name": "helper",
        "instruction": "Be brief.",
        "before_agent_callback": [before, after],
        "tools": [len],
        "output_key": None,
    }
    single = compile_kwargs("LlmAgent", LlmAgentNode("one", after_agent_callback=(after,)), [])
    assert single == {"name": "one", "after_agent_callback": after}
    assert compile_kwargs("LlmAgent", LlmAgentNode("bare"), []) == {"name": "bare"}
    agent = adk_class("LlmAgent")(**kwargs)
    assert agent.name == "helper" and agent.instruction == "Be brief."
    assert agent.before_agent_callback == [before, after] and agent.tools == [len]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 2.x: SequentialAgent -> Workflow
        pipe = compile_kwargs("SequentialAgent", SequentialAgentNode("pipe"), [agent])
        pipeline = adk_class("SequentialAgent")(**pipe)
    assert pipe == {"name": "pipe", "sub_agents": [agent]}
    assert [a.name for a in pipeline.sub_agents] == ["helper"]
