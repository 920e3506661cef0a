"""The generated field-version table (adk_fluent_generated.field_versions) against its sources.

* The committed manifests (generated/manifests/google-adk-<v>.json, one per release from 1.25.0
  on): for a hand-picked sample of fields, the releases that have each one were read off the
  scans by hand and written down here as runs of releases (including fields that leave a release
  and come back); what changed between three pairs of releases, class by class, likewise; and
  the whole table equals what the manifests say, class by class.
* The installed google-adk: every field the table lists for the installed release is a pydantic
  model field of the installed class, and every model field of the installed class is in the
  table for that release.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from adk_fluent_generated.field_versions import (
    FIELD_VERSIONS,
    SCANNED_ADK_VERSIONS,
    field_present,
    release_key,
    releases_in,
)

from adk_fluent.adk.compat import field_spans

MANIFESTS = Path(__file__).resolve().parents[3] / "generated" / "manifests"

SCANNED = tuple(
    sorted(
        (p.name.removeprefix("google-adk-").removesuffix(".json") for p in MANIFESTS.iterdir()),
        key=release_key,
    )
)
OLDEST, NEWEST = "1.25.0", "2.13.0"
ALL = ((OLDEST, NEWEST),)
TWO_X = (("2.0.0", NEWEST),)


def since(first: str) -> tuple[tuple[str, str], ...]:
    return ((first, NEWEST),)


# Where each scanned class lives in the installed ADK (Workflow exists from 2.0.0 only).
MODULES = {
    "App": "google.adk.apps.app",
    "BaseAgent": "google.adk.agents.base_agent",
    "Event": "google.adk.events.event",
    "EventActions": "google.adk.events.event_actions",
    "LlmAgent": "google.adk.agents.llm_agent",
    "LoopAgent": "google.adk.agents.loop_agent",
    "ParallelAgent": "google.adk.agents.parallel_agent",
    "RunConfig": "google.adk.agents.run_config",
    "SequentialAgent": "google.adk.agents.sequential_agent",
    "Workflow": "google.adk.workflow",
}


@cache
def manifest_fields(version: str) -> dict[str, frozenset[str]]:
    """Class -> field names, as the committed manifest of `version` records them."""
    data = json.loads((MANIFESTS / f"google-adk-{version}.json").read_text(encoding="utf-8"))
    assert data["adk_version"] == version
    return {name: frozenset(cls["fields"]) for name, cls in data["classes"].items()}


def releases_in_manifests(adk_class: str, field: str) -> tuple[str, ...]:
    return tuple(v for v in SCANNED if field in manifest_fields(v).get(adk_class, ()))


def test_the_table_covers_every_committed_manifest_in_release_order() -> None:
    assert SCANNED_ADK_VERSIONS == SCANNED
    assert (SCANNED[0], SCANNED[-1]) == (OLDEST, NEWEST)
    assert len(SCANNED) >= 50  # every final release from 1.25.0 to 2.13.0 (1.27.0 was yanked)
    assert {"1.27.0"} & set(SCANNED) == set()
    assert {"1.25.1", "1.27.2", "1.39.1", "2.0.0", "2.6.3", "2.9.2"} <= set(SCANNED)
    assert set(FIELD_VERSIONS) == set(MODULES)


# (class, field) -> the runs of releases that have it, read off generated/manifests/ by hand
SAMPLE_FIELDS: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {
    ("App", "root_agent"): ALL,
    ("App", "plugins"): ALL,
    ("BaseAgent", "parent_agent"): ALL,
    ("BaseAgent", "timeout"): TWO_X,
    ("BaseAgent", "version"): (("1.27.2", "1.27.2"),),  # one patch release only
    ("LlmAgent", "instruction"): ALL,
    ("LlmAgent", "static_instruction"): ALL,
    ("LlmAgent", "mode"): TWO_X,
    ("LlmAgent", "parallel_worker"): TWO_X,
    ("LlmAgent", "timeout"): TWO_X,
    ("SequentialAgent", "wait_for_output"): TWO_X,
    ("ParallelAgent", "input_schema"): TWO_X,
    ("LoopAgent", "max_iterations"): ALL,
    ("LoopAgent", "retry_config"): TWO_X,
    ("Workflow", "edges"): TWO_X,
    ("Workflow", "max_concurrency"): TWO_X,
    ("Event", "invocation_id"): ALL,
    ("Event", "go_away"): since("1.29.0"),
    ("Event", "live_session_id"): since("1.31.0"),
    ("Event", "turn_complete_reason"): (("1.34.2", "1.39.1"), ("2.2.0", NEWEST)),
    ("Event", "isolation_scope"): TWO_X,
    ("Event", "environment_id"): since("2.4.0"),
    ("Event", "voice_activity"): since("2.5.0"),
    ("EventActions", "state_delta"): ALL,
    ("EventActions", "render_ui_widgets"): since("1.27.1"),
    ("EventActions", "route"): TWO_X,
    ("EventActions", "transfer_reason"): since("2.9.0"),
    ("RunConfig", "max_llm_calls"): ALL,
    ("RunConfig", "history_config"): (("1.35.0", "1.39.1"), ("2.2.0", NEWEST)),
    ("RunConfig", "avatar_config"): since("1.30.0"),
    ("RunConfig", "telemetry"): since("2.3.0"),
    ("RunConfig", "service_tier"): since("2.10.0"),
}


@pytest.mark.parametrize(
    ("adk_class", "field", "expected"),
    [(c, f, v) for (c, f), v in SAMPLE_FIELDS.items()],
    ids=[f"{c}.{f}" for c, f in SAMPLE_FIELDS],
)
def test_a_sample_field_is_in_exactly_the_releases_written_down(
    adk_class: str, field: str, expected: tuple[tuple[str, str], ...]
) -> None:
    releases = releases_in(expected)
    assert releases_in_manifests(adk_class, field) == releases  # the hand reading holds
    assert FIELD_VERSIONS[adk_class][field] == expected  # and the generated table agrees
    assert field_spans(adk_class, field) == expected  # as the library reads it
    for version in SCANNED:
        assert field_present(adk_class, field, version) is (version in releases)


@pytest.mark.parametrize(
    ("adk_class", "field"),
    [
        ("LlmAgent", "instuct"),
        ("LlmAgent", "adk_timeout"),  # the setter's name, not a field
        ("App", "timeout"),
        ("Workflow", "tools"),
        ("NoSuchAgent", "name"),
    ],
    ids=["typo", "setter-name", "other-class-field", "workflow-tools", "unknown-class"],
)
def test_a_field_no_scanned_release_has_has_no_releases(adk_class: str, field: str) -> None:
    assert field_spans(adk_class, field) == ()
    assert releases_in_manifests(adk_class, field) == ()


# What each release changed, class by class (classes not listed did not change), by hand.
CHANGES: dict[tuple[str, str], dict[str, tuple[set[str], set[str]]]] = {
    ("1.25.0", "1.39.1"): {
        "Event": ({"go_away", "live_session_id", "turn_complete_reason"}, set()),
        "EventActions": ({"render_ui_widgets"}, set()),
        "RunConfig": ({"avatar_config", "get_session_config", "history_config"}, set()),
    },
    ("1.39.1", "2.0.0"): {
        **{
            name: (
                {
                    "input_schema",
                    "output_schema",
                    "rerun_on_resume",
                    "retry_config",
                    "state_schema",
                    "timeout",
                    "wait_for_output",
                },
                set(),
            )
            for name in ("BaseAgent", "SequentialAgent", "ParallelAgent", "LoopAgent")
        },
        # LlmAgent had input_schema and output_schema already
        "LlmAgent": (
            {
                "mode",
                "parallel_worker",
                "rerun_on_resume",
                "retry_config",
                "state_schema",
                "timeout",
                "wait_for_output",
            },
            set(),
        ),
        "Event": ({"isolation_scope", "node_info", "output"}, {"turn_complete_reason"}),
        "EventActions": ({"route", "set_model_response"}, set()),
        "RunConfig": (set(), {"history_config"}),
        "Workflow": (
            {
                "description",
                "edges",
                "graph",
                "input_schema",
                "max_concurrency",
                "name",
                "output_schema",
                "rerun_on_resume",
                "retry_config",
                "state_schema",
                "timeout",
                "wait_for_output",
            },
            set(),
        ),
    },
    ("2.0.0", "2.13.0"): {
        "Event": (
            {"environment_id", "interaction_status", "turn_complete_reason", "voice_activity"},
            set(),
        ),
        "EventActions": ({"transfer_reason"}, set()),
        "RunConfig": (
            {
                "explicit_vad_signal",
                "history_config",
                "http_options",
                "include_thoughts_from_other_agents",
                "labels",
                "model_input_context",
                "service_tier",
                "telemetry",
                "translation_config",
            },
            set(),
        ),
    },
}


@pytest.mark.parametrize(
    ("old", "new"), list(CHANGES), ids=[f"{old}->{new}" for old, new in CHANGES]
)
def test_each_release_adds_and_removes_the_fields_written_down(old: str, new: str) -> None:
    changed = {}
    for adk_class, fields in FIELD_VERSIONS.items():
        at_old = {f for f in fields if field_present(adk_class, f, old)}
        at_new = {f for f in fields if field_present(adk_class, f, new)}
        added, removed = at_new - at_old, at_old - at_new
        if added or removed:
            changed[adk_class] = (added, removed)
    assert changed == CHANGES[(old, new)]


@pytest.mark.parametrize("adk_class", sorted(MODULES))
def test_the_table_equals_the_committed_manifests(adk_class: str) -> None:
    every_field = set().union(*(manifest_fields(v).get(adk_class, ()) for v in SCANNED))
    expected = {field: releases_in_manifests(adk_class, field) for field in every_field}
    assert {f: releases_in(spans) for f, spans in FIELD_VERSIONS[adk_class].items()} == expected


def _installed_model_fields(adk_class: str) -> frozenset[str] | None:
    """The installed class's pydantic fields, or None when the installed ADK has no such class."""
    try:
        cls: Any = getattr(importlib.import_module(MODULES[adk_class]), adk_class)
    except (ImportError, AttributeError):
        return None
    return frozenset(cls.model_fields)


@pytest.mark.parametrize("adk_class", sorted(MODULES))
def test_the_installed_adk_has_exactly_the_fields_the_table_gives_its_release(
    adk_class: str,
) -> None:
    installed = importlib.metadata.version("google-adk")
    if installed not in SCANNED_ADK_VERSIONS:
        pytest.skip(f"google-adk {installed} is not a scanned release (make regen)")
    listed = {f for f in FIELD_VERSIONS[adk_class] if field_present(adk_class, f, installed)}
    actual = _installed_model_fields(adk_class)
    if not listed:  # the table gives this release no field of the class: ADK has no such class
        assert actual is None
        return
    assert actual is not None, f"the installed google-adk has no {adk_class}"
    assert sorted(listed - actual) == [], "the table lists fields the installed ADK lacks"
    assert sorted(actual - listed) == [], "the installed ADK has fields the table lacks"
