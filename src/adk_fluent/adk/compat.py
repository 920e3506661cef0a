"""Every difference between google-adk releases that adk-fluent hides, and every access to an
ADK attribute that is not public, in one place. Each function says what it decides and why.

Facts are looked up lazily (importing ADK is the slow part) and once per process.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Coroutine, Iterator
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
# Each fork is decided by watching the installed ADK do it (a probe, run once and cached), never
# by its version number: ADK changed some of them inside 1.x (plugin-edit persistence at 1.31.0).


def _in_worker_thread(probe: Callable[[], Coroutine[Any, Any, bool]]) -> bool:
    """Run an async probe to completion on its own event loop in a worker thread, so it works
    whether or not the caller is itself inside a running loop (a probe blocks for milliseconds,
    once per process)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="adk_fluent_probe") as pool:
        return pool.submit(asyncio.run, probe()).result()


async def _run_probe_agent(agent: Any, plugins: list[Any]) -> list[Any]:
    """Run `agent` for one turn through a real in-memory Runner; the session's stored events."""
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    service = InMemorySessionService()
    runner = Runner(
        app=App(name="adk_fluent_probe", root_agent=agent, plugins=plugins),
        session_service=service,
    )
    session = await service.create_session(app_name="adk_fluent_probe", user_id="probe")
    message = types.Content(role="user", parts=[types.Part(text="probe")])
    async for _ in runner.run_async(user_id="probe", session_id=session.id, new_message=message):
        pass
    stored = await service.get_session(
        app_name="adk_fluent_probe", user_id="probe", session_id=session.id
    )
    return list(stored.events) if stored else []


def _probe_agent_class() -> type:
    from google.adk.agents.base_agent import BaseAgent
    from google.adk.events.event import Event
    from google.genai import types

    class _ProbeAgent(BaseAgent):  # type: ignore[misc]
        """Yields one text event and ends."""

        async def _run_async_impl(self, ctx: Any) -> Any:
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                content=types.Content(role="model", parts=[types.Part(text="original")]),
            )

    return _ProbeAgent


@functools.cache
def plugin_edits_are_stored() -> bool:
    """Whether what an `on_event_callback` returns is what the Runner stores (ADK 1.31.0+ and
    2.x), rather than only what it streams while the original is stored (1.25 .. 1.30).

    Probe: an agent yields one text event, a plugin returns an edited copy, and the stored
    session is read back."""
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types

    class _EditPlugin(BasePlugin):  # type: ignore[misc]
        async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
            edited = types.Content(role="model", parts=[types.Part(text="edited")])
            return event.model_copy(update={"content": edited})

    async def probe() -> bool:
        agent = _probe_agent_class()(name="probe_agent")
        events = await _run_probe_agent(agent, [_EditPlugin(name="adk_fluent_probe_edit")])
        texts = [
            part.text
            for event in events
            if event.author == "probe_agent" and event.content
            for part in event.content.parts or []
        ]
        return texts == ["edited"]

    return _in_worker_thread(probe)


@functools.cache
def workflow_agents_warn() -> bool:
    """Whether constructing Sequential/Parallel/LoopAgent warns about Workflow (ADK 2.x).

    Probe: construct one and watch for the deprecation."""
    from google.adk.agents import SequentialAgent

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SequentialAgent(name="adk_fluent_probe")
    return any(
        issubclass(w.category, DeprecationWarning) and "Workflow" in str(w.message) for w in caught
    )


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
