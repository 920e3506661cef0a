"""Every difference between google-adk releases that adk-fluent hides, and every access to an
ADK attribute that is not public, in one place. Each function says what it decides and why.

Facts are looked up lazily (importing ADK is the slow part) and once per process.
"""

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


def _major() -> int:
    return int(adk_version().split(".", 1)[0])


@functools.cache
def installed_class(class_name: str) -> Any:
    """The installed ADK class for a scanned agent class name (imported once)."""
    return adk_class(class_name)


_FIELDS: dict[str, frozenset[str]] = {}


def installed_fields(class_name: str) -> frozenset[str]:
    """Field names the installed ADK's class has (a dict lookup after the first call: every
    builder setter asks)."""
    fields = _FIELDS.get(class_name)
    if fields is None:
        fields = _FIELDS[class_name] = frozenset(installed_class(class_name).model_fields)
    return fields


def versions_with_field(class_name: str, field: str) -> tuple[str, ...]:
    """Scanned ADK versions whose `class_name` has `field` (empty when none)."""
    return FIELD_VERSIONS.get(class_name, {}).get(field, ())


# -- behaviour that changed between releases -------------------------------------------------
# These still decide by the major version, as the two tested ends do; ADK changed some of them
# inside 1.x (plugin-edit persistence at 1.31.0), so each is to become a probe of the installed
# ADK's behaviour. Every caller asks here, so that change is one function each.


@functools.cache
def plugin_edits_are_stored() -> bool:
    """Whether what an `on_event_callback` returns is what the Runner stores (ADK 2.x), rather
    than only what it streams while the original is stored (ADK 1.25)."""
    return _major() >= 2


@functools.cache
def callbacks_bind_positionally() -> bool:
    """Whether ADK itself falls back to positional arguments for agent callbacks whose parameter
    names differ from its own (2.x); 1.25 always passes keywords."""
    return _major() >= 2


@functools.cache
def workflow_agents_warn() -> bool:
    """Whether constructing Sequential/Parallel/LoopAgent warns about Workflow (ADK 2.x)."""
    return _major() >= 2


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


# -- attributes ADK does not make public -----------------------------------------------------


def invocation_of(callback_context: Any) -> Any:
    """The invocation context behind a callback context (None when there is none). Both
    supported ADK lines keep it only on the private `_invocation_context`."""
    return getattr(callback_context, "_invocation_context", None)


def invocation_branch(callback_context: Any) -> str | None:
    """The branch of the invocation a callback runs in (parallel isolation)."""
    return getattr(invocation_of(callback_context), "branch", None)


def state_class() -> type:
    """ADK's session `State` class (what ToolContext / CallbackContext `.state` is)."""
    from google.adk.sessions.state import State

    return State
