"""Facts about the installed google-adk, looked up lazily (importing ADK is the slow part)."""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from adk_fluent_generated.compile_cases import adk_class
from adk_fluent_generated.field_versions import FIELD_VERSIONS


@functools.cache
def adk_version() -> str:
    """The installed google-adk version string."""
    # Once ADK is loaded its own version module is free; importing it here would load all of
    # ADK 1.x (its package __init__ is eager), so otherwise read the package metadata.
    loaded = sys.modules.get("google.adk.version")
    if loaded is not None and hasattr(loaded, "__version__"):
        return str(loaded.__version__)
    from importlib.metadata import version

    return version("google-adk")


@functools.cache
def adk_major() -> int:
    return int(adk_version().split(".", 1)[0])


@functools.cache
def installed_class(class_name: str) -> Any:
    """The installed ADK class for a scanned agent class name (imported once)."""
    return adk_class(class_name)


@functools.cache
def installed_fields(class_name: str) -> frozenset[str]:
    """Field names the installed ADK's class has."""
    return frozenset(installed_class(class_name).model_fields)


def versions_with_field(class_name: str, field: str) -> tuple[str, ...]:
    """Scanned ADK versions whose `class_name` has `field` (empty when none)."""
    return FIELD_VERSIONS.get(class_name, {}).get(field, ())


@contextmanager
def quiet_workflow_deprecation() -> Iterator[None]:
    """Hide ADK 2.x's 'SequentialAgent is deprecated in favor of Workflow' while WE construct one.

    The user asked for a Pipeline, not a SequentialAgent: the warning is about our choice of
    compile target, so it must not reach them. Only that message is filtered, only here.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message=r".*(SequentialAgent|ParallelAgent|LoopAgent) is deprecated in favor of Workflow.*",
            category=DeprecationWarning,
        )
        yield
