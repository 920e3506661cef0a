"""The scanner on the installed google-adk, in process (the suite runs on every release of the
matrix): the manifest's header, classes, fields and plugin callbacks, deterministic output.

What a release should have is asked of the generated field table (`field_present`), never of
the version number: the table comes from the committed scans of every supported release."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from adk_fluent_codegen.manifest import manifest_filename
from adk_fluent_codegen.scan import dumps, scan
from adk_fluent_generated.field_versions import PLUGIN_CALLBACK_VERSIONS, field_present

from tests.support.codegen import ADK_VERSION, REPO_ROOT

COMMITTED = REPO_ROOT / "generated" / "manifests" / manifest_filename(ADK_VERSION)

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
# Plugin hooks of the two ends, read off generated/manifests/ by hand: 13 in 1.25.0; 2.13.0
# adds two error notifications.
EXPECTED_PLUGIN_HOOKS = {
    "1.25.0": CORE_PLUGIN_HOOKS,
    "2.13.0": CORE_PLUGIN_HOOKS | {"on_agent_error_callback", "on_run_error_callback"},
}


def expect_present(found: bool, class_name: str, field: str) -> None:
    """`found` must be what the field table says of the installed release (when it knows)."""
    expected = field_present(class_name, field, ADK_VERSION)
    if expected is not None:
        assert found is expected, (class_name, field, ADK_VERSION)


def test_manifest_header(installed_manifest: dict[str, Any]) -> None:
    assert installed_manifest["schema_version"] == 1
    assert installed_manifest["package"] == "google-adk"
    assert installed_manifest["adk_version"] == ADK_VERSION


def test_scans_the_classes_adk_fluent_needs(installed_manifest: dict[str, Any]) -> None:
    classes = set(installed_manifest["classes"])
    assert CORE_CLASSES <= classes
    expect_present("Workflow" in classes, "Workflow", "name")  # 2.x only


def test_plugin_callbacks(installed_manifest: dict[str, Any]) -> None:
    hooks = set(installed_manifest["plugin_callbacks"])
    assert CORE_PLUGIN_HOOKS <= hooks
    assert hooks <= set(PLUGIN_CALLBACK_VERSIONS)  # else: a new release, `make regen`
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
    for name in ("mode", "state_schema", "retry_config", "timeout", "parallel_worker"):
        expect_present(name in fields, "LlmAgent", name)  # the 2.x additions


def test_fields_match_the_committed_scan_of_this_release(
    installed_manifest: dict[str, Any],
) -> None:
    """Annotations and requiredness that moved inside the range (output_schema widened in 1.3x,
    App.root_agent became optional in 2.x) are what this release's committed scan recorded."""
    if not COMMITTED.exists():
        pytest.skip(f"google-adk {ADK_VERSION} has no committed scan yet (make regen)")
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))["classes"]
    for class_name, field in (("LlmAgent", "output_schema"), ("App", "root_agent")):
        found = installed_manifest["classes"][class_name]["fields"][field]
        recorded = committed[class_name]["fields"][field]
        assert (found["annotation"], found["required"]) == (
            recorded["annotation"],
            recorded["required"],
        )


def test_scan_is_deterministic_and_machine_independent(installed_manifest: dict[str, Any]) -> None:
    text = dumps(installed_manifest)
    assert dumps(scan()) == text
    assert "0x" not in text  # no memory addresses
    assert sys.prefix not in text and str(REPO_ROOT) not in text and "site-packages" not in text
    assert list(installed_manifest["classes"]) == sorted(installed_manifest["classes"])
    assert json.loads(text) == installed_manifest


def test_scan_matches_committed_manifest(installed_manifest: dict[str, Any]) -> None:
    """`make regen` on an unchanged ADK must leave the committed manifest byte-identical (the
    behaviour probes' answers, recorded beside the fields, are checked by the probe tests)."""
    if not COMMITTED.exists():
        pytest.skip(f"no committed manifest for google-adk {ADK_VERSION}")
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    assert "behaviours" in committed  # every committed scan asked the probes
    del committed["behaviours"]
    assert dumps(installed_manifest) == dumps(committed)
