"""Test doubles and helpers: scripted models, a mock backend, a harness, a pytest plugin."""

from adk_fluent.testing.harness import AgentHarness, HarnessResponse
from adk_fluent.testing.live import audio, interrupted, live_turn, transcript
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
    "audio",
    "call",
    "delay",
    "interrupted",
    "live_turn",
    "mock_backend",
    "repeat",
    "streamed",
    "text",
    "transcript",
    "user_message",
    "with_usage",
]
