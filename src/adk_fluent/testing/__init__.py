"""Test doubles and helpers: scripted models, a mock backend, a harness, a pytest plugin."""

from .harness import AgentHarness, HarnessResponse
from .mock import MockBackend, mock_backend
from .scripted import ScriptedModel, call, delay, text

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
