"""The scanner on the installed google-adk, in process (the suite runs on both 1.25.0 and the
newest 2.x): the manifest's header, classes, fields and plugin callbacks, deterministic output."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from adk_fluent_codegen.manifest import manifest_filename
from adk_fluent_codegen.scan import dumps, scan

from tests.support.codegen import ADK_MAJOR, ADK_VERSION, REPO_ROOT

CORE_CLASSES = {
    "LlmAgent",
    "App",
    "RunConfig",
    "Event",
    "EventActions",
    "BaseAgent",
    "SequentialAgent",
    "ParallelAgent",
    "LoopAgent",
}
CORE_PLUGIN_HOOKS = {
    "on_user_message_callback",
    "before_run_callback",
    "on_event_callback",
    "after_run_callback",
    "close",
    "before_agent_callback",
    "after_agent_callback",
    "before_model_callback",
    "after_model_callback",
    "on_model_error_callback",
    "before_tool_callback",
    "after_tool_callback",
    "on_tool_error_callback",
}
# Plugin hooks per scanned release: 13 in 1.25.0; 2.13.0 adds two error notifications
# (see generated/manifests/).
EXPECTED_PLUGIN_HOOKS = {
    "1.25.0": CORE_PLUGIN_HOOKS,
    "2.13.0": CORE_PLUGIN_HOOKS | {"on_agent_error_callback", "on_run_error_callback"},
}


def test_manifest_header(installed_manifest: dict[str, Any]) -> None:
    assert installed_manifest["schema_version"] == 1
    assert installed_manifest["package"] == "google-adk"
    assert installed_manifest["adk_version"] == ADK_VERSION


def test_scans_the_classes_adk_fluent_needs(installed_manifest: dict[str, Any]) -> None:
    classes = set(installed_manifest["classes"])
    assert CORE_CLASSES <= classes
    if ADK_MAJOR >= 2:
        assert "Workflow" in classes
    else:
        assert "Workflow" not in classes


def test_plugin_callbacks(installed_manifest: dict[str, Any]) -> None:
    hooks = set(installed_manifest["plugin_callbacks"])
    assert CORE_PLUGIN_HOOKS <= hooks
    if ADK_VERSION in EXPECTED_PLUGIN_HOOKS:
        assert hooks == EXPECTED_PLUGIN_HOOKS[ADK_VERSION]
        assert len(hooks) == {"1.25.0": 13, "2.13.0": 15}[ADK_VERSION]
    event = installed_manifest["plugin_callbacks"]["on_event_callback"]
    assert event["async"] is True
    assert [p["text"] for p in event["params"]] == [
        "invocation_context: InvocationContext",
        "event: Event",
    ]
    assert event["returns"] == "Event | None"


def test_llm_agent_fields_per_version(installed_manifest: dict[str, Any]) -> None:
    fields = installed_manifest["classes"]["LlmAgent"]["fields"]
    for name in (
        "name",
        "model",
        "instruction",
        "tools",
        "output_key",
        "output_schema",
        "sub_agents",
        "before_model_callback",
        "include_contents",
    ):
        assert name in fields
    assert fields["name"]["required"] is True
    assert fields["include_contents"]["annotation"] == "Literal['default', 'none']"
    assert fields["instruction"]["doc"]  # harvested from ADK's source
    two_x_only = {"mode", "state_schema", "retry_config", "timeout", "parallel_worker"}
    if ADK_MAJOR >= 2:
        assert two_x_only <= set(fields)
        assert fields["output_schema"]["annotation"] != "type[BaseModel] | None"
    else:
        assert not two_x_only & set(fields)
        assert fields["output_schema"]["annotation"] == "type[BaseModel] | None"


def test_app_root_agent_per_version(installed_manifest: dict[str, Any]) -> None:
    root_agent = installed_manifest["classes"]["App"]["fields"]["root_agent"]
    if ADK_MAJOR >= 2:
        assert root_agent["required"] is False
        assert root_agent["annotation"].endswith("| None")
    else:
        assert (root_agent["annotation"], root_agent["required"]) == ("BaseAgent", True)


def test_scan_is_deterministic_and_machine_independent(installed_manifest: dict[str, Any]) -> None:
    text = dumps(installed_manifest)
    assert dumps(scan()) == text
    assert "0x" not in text  # no memory addresses
    assert sys.prefix not in text and str(REPO_ROOT) not in text and "site-packages" not in text
    assert list(installed_manifest["classes"]) == sorted(installed_manifest["classes"])
    assert json.loads(text) == installed_manifest


def test_scan_matches_committed_manifest(installed_manifest: dict[str, Any]) -> None:
    """`make regen` on an unchanged ADK must leave the committed manifest byte-identical."""
    committed = REPO_ROOT / "generated" / "manifests" / manifest_filename(ADK_VERSION)
    if not committed.exists():
        pytest.skip(f"no committed manifest for google-adk {ADK_VERSION}")
    assert dumps(installed_manifest) == committed.read_text(encoding="utf-8")
