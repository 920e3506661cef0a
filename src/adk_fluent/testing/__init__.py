"""Test doubles and helpers: scripted models, a mock backend, a harness, a pytest plugin."""

from adk_fluent.testing.harness import AgentHarness, HarnessResponse
from adk_fluent.testing.mock import MockBackend, mock_backend
from adk_fluent.testing.scripted import ScriptedModel, call, delay, text

__all__ = [
    "AgentHarness",
    "HarnessResponse",
    "MockBackend",
    "ScriptedModel",
    "call",
    "delay",
    "mock_backend",
    "text",
]
