"""Misuse of the visibility and App settings: App names the servers could not look sessions up
by, unknown visibility modes, and replaying filtered text without the store that holds it."""

from __future__ import annotations

import pytest
from google.adk.events.event import Event

from adk_fluent import Agent, ExecutionConfig, restore_content
from adk_fluent.errors import AdkFluentError, BuildError
from tests.support.misuse import case, check, ids


def _app(**config):
    return lambda: (Agent("a") >> Agent("b")).to_app(ExecutionConfig(**config))


def _hidden_event() -> Event:
    reference = {"artifact": "adk_fluent.hidden.e1.json", "version": 0}
    return Event(author="planner", custom_metadata={"adk_fluent.hidden_ref": reference})


def _kept_in_session_store() -> Event:
    reference = {"session": "adk_fluent_app.adk_fluent_hidden"}
    return Event(author="planner", custom_metadata={"adk_fluent.hidden_ref": reference})


CASES = [
    case("visibility-app-name-user", _app(app_name="user"), "app_name", "user", error=BuildError),
    case("visibility-app-name-dash", _app(app_name="my-app"), "app_name", "my-app"),
    case("visibility-app-name-number", _app(app_name=42), "app_name", "42"),
    case("visibility-app-name-empty", _app(app_name=""), "app_name"),
    case("visibility-mode-unknown", _app(visibility="hidden"), "visibility", "hidden"),
    case(
        "visibility-mode-unknown-over-builder",
        lambda: (Agent("a") >> Agent("b")).filtered().to_app(ExecutionConfig(visibility="loud")),
        "visibility",
        "loud",
    ),
    case(
        "visibility-restore-without-artifact-service",
        lambda: restore_content(_hidden_event()),
        "planner",
        "adk_fluent.hidden.e1.json",
        "artifact_service",
        error=AdkFluentError,
    ),
    case(
        "visibility-restore-without-session-service",
        lambda: restore_content(_kept_in_session_store()),
        "planner",
        "adk_fluent_app.adk_fluent_hidden",
        "session_service",
        error=AdkFluentError,
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
