"""The `adk-fluent` command."""

from adk_fluent.cli.main import main

__all__ = ["main"]
