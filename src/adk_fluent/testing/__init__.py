"""Test doubles and helpers: scripted models, a mock backend, a harness, a pytest plugin."""

from adk_fluent.testing.harness import AgentHarness, HarnessResponse
from adk_fluent.testing.mock import MockBackend, mock_backend
from adk_fluent.testing.scripted import (
    DEFAULT_MODEL,
    RepeatStep,
    ScriptedModel,
    StreamStep,
    call,
    delay,
    repeat,
    streamed,
    text,
    user_message,
    with_usage,
)

__all__ = [
    "DEFAULT_MODEL",
    "AgentHarness",
    "HarnessResponse",
    "MockBackend",
    "RepeatStep",
    "ScriptedModel",
    "StreamStep",
    "call",
    "delay",
    "mock_backend",
    "repeat",
    "streamed",
    "text",
    "user_message",
    "with_usage",
]
