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
from typing import Any, TypeVar, cast

from adk_fluent_generated.behaviours import UnknownBehaviour, behaviour_on
from adk_fluent_generated.compile_cases import adk_class
from adk_fluent_generated.field_versions import (
    FIELD_VERSIONS,
    SCANNED_ADK_VERSIONS,
    release_key,
)

from adk_fluent.adk.probes import WORKFLOW_DEPRECATION

_Callback = TypeVar("_Callback")


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


@functools.cache  # every builder setter asks: after the first call, a lookup with no Python frame
def installed_fields(class_name: str) -> frozenset[str]:
    """Field names the installed ADK's class has."""
    return frozenset(installed_class(class_name).model_fields)


def field_spans(class_name: str, field: str) -> tuple[tuple[str, str], ...]:
    """The runs of scanned releases that have `class_name.field`, as (first, last) pairs."""
    return FIELD_VERSIONS.get(class_name, {}).get(field, ())


def field_was_removed(class_name: str, field: str, version: str) -> bool:
    """Whether every scanned release with `class_name.field` is older than `version`."""
    spans = field_spans(class_name, field)
    return bool(spans) and release_key(spans[-1][1]) < release_key(version)


def field_present_in_newest(class_name: str, field: str) -> bool:
    """Whether the newest scanned release has `class_name.field` (upgrading can bring it)."""
    spans = field_spans(class_name, field)
    return bool(spans) and spans[-1][1] == SCANNED_ADK_VERSIONS[-1]


def field_releases_text(class_name: str, field: str) -> str:
    """Where a field exists, for error hints: '2.0.0 and newer', '1.30.0 to 1.39.1', ''."""
    newest = SCANNED_ADK_VERSIONS[-1]
    return ", ".join(
        f"{first} and newer" if last == newest else first if first == last else f"{first} to {last}"
        for first, last in field_spans(class_name, field)
    )


# -- behaviour that changed between releases -------------------------------------------------
# Each fork is decided by what the installed ADK does, never by its version number: ADK changed
# some of them inside 1.x (plugin-edit persistence and temp: keys between 1.30 and 1.31). The
# scans asked every supported release the probes of adk/probes.py; a release they cover is
# answered from that table. Any other (a release newer than the scans) is asked once per
# process, in a child process: a probe runs real ADK turns, whose spans, metrics and log lines
# must not reach the user's telemetry.


@functools.cache
def behaviour(name: str) -> Any:
    """The installed ADK's answer to probe `name` (adk/probes.py): the scans' answer for a
    scanned release, else the probes' answers asked once per process in a child process."""
    from adk_fluent.adk.probes import PROBES

    if name not in PROBES:
        raise KeyError(f"no behaviour probe named {name!r}; the probes are {sorted(PROBES)}")
    try:
        return behaviour_on(name, adk_version())
    except UnknownBehaviour:
        return _unscanned_answers()[name]


@functools.cache
def _unscanned_answers() -> dict[str, Any]:
    """Every probe's answer on an installed release the scans do not cover, from a child
    process; where no child can answer (an embedded interpreter, say), the probes run here,
    and that once their turns may show in the user's telemetry (said in a warning log line)."""
    import logging
    import subprocess

    from adk_fluent.adk.probes import answers_in_child_process, run_all

    try:
        return answers_in_child_process()
    except (OSError, subprocess.SubprocessError, ValueError) as failure:
        logging.getLogger("adk_fluent").warning(
            "google-adk %s is newer than adk-fluent's scans and its behaviour probes could not "
            "run in a child process (%s); they run in this process once",
            adk_version(),
            failure,
        )
        return run_all()


def plugin_edits_are_stored() -> bool:
    """Whether what an `on_event_callback` returns is what the Runner stores, rather than only
    what it streams while the original is stored (docs/compatibility.md says which releases)."""
    return bool(behaviour("plugin_edits_are_stored"))


def workflow_agents_warn() -> bool:
    """Whether constructing Sequential/Parallel/LoopAgent warns about Workflow (ADK 2.x)."""
    return bool(behaviour("workflow_agents_warn"))


def confirmation_redelivery_accepted() -> bool:
    """Whether ADK takes a tool-confirmation answer delivered again (a client retry) without
    failing (2.6 raises "Tool ... does not require confirmation" on it)."""
    return bool(behaviour("confirmation_redelivery_accepted"))


def temp_keys_carry_over() -> bool:
    """Whether a temp: key one agent writes is visible to the next agent of the invocation."""
    return bool(behaviour("temp_keys_carry_over"))


@contextmanager
def quiet_workflow_deprecation() -> Iterator[None]:
    """Hide ADK 2.x's 'SequentialAgent is deprecated in favor of Workflow' while WE construct one.

    The user asked for a Pipeline, not a SequentialAgent: the warning is about our choice of
    compile target, so it must not reach them. Only that message is filtered, only here.
    """
    with warnings.catch_warnings():
        # 2.0 and 2.13 word it differently; probes.WORKFLOW_DEPRECATION matches both
        warnings.filterwarnings("ignore", message=WORKFLOW_DEPRECATION, category=DeprecationWarning)
        yield


def quiet_workflow_copies() -> None:
    """Hide the same warning when ADK's own runtime copies an agent we compiled.

    ADK 2.x's workflow runner clones agents as it runs them (a transfer to a Pipeline, for
    one); pydantic's copy constructs the class again, and the warning is attributed to
    `pydantic.main`. A filter for exactly that message from exactly that module is added for
    the process (idempotent: Python replaces an identical filter); the user's own
    `SequentialAgent(...)` calls, attributed to their module, still warn.
    """
    warnings.filterwarnings(
        "ignore",
        message=WORKFLOW_DEPRECATION,
        category=DeprecationWarning,
        module=r"pydantic\.main",
    )


# -- attributes ADK does not make public -----------------------------------------------------


def asks_confirmation(tool: Any) -> bool:
    """Whether an ADK tool asks a person to confirm its calls (FunctionTool's
    `require_confirmation`, kept only on the private `_require_confirmation` from 1.25 to 2.x)."""
    return bool(getattr(tool, "_require_confirmation", False))


def session_known(service: Any, app_name: str, user_id: str, session_id: str) -> bool | None:
    """Whether an in-memory session service holds the session, read from its table (its
    `get_session` deep-copies the whole session, history and all, on every release); None for
    another service, which must be asked."""
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    if not isinstance(service, InMemorySessionService):
        return None
    table = getattr(service, "sessions", None)
    if not isinstance(table, dict):
        return None
    return session_id in table.get(app_name, {}).get(user_id, {})


def presigned(callback: _Callback) -> _Callback:
    """`callback` (one adk-fluent installs on an agent) with its signature worked out once: ADK
    2.x inspects an agent callback's signature on every call (google.adk.utils._callback_pipeline
    `_invoke_callback`), some 20 us a call that this saves; earlier releases never look at it.
    A bound method, which takes no attributes, gets a function around it."""
    import inspect

    signature = inspect.signature(callback)  # type: ignore[arg-type]
    signed: Any = callback
    if inspect.ismethod(callback):
        method = callback

        def signed(*args: Any, **kwargs: Any) -> Any:
            return method(*args, **kwargs)

    signed.__signature__ = signature
    return cast(_Callback, signed)


def invocation_of(callback_context: Any) -> Any:
    """The invocation context behind a callback context (None when there is none). Both
    supported ADK lines keep it only on the private `_invocation_context`."""
    return getattr(callback_context, "_invocation_context", None)


def event_actions_of(callback_context: Any) -> Any:
    """The EventActions a callback context records state changes in (None when it has none).
    Both supported ADK lines keep them only on the private `_event_actions`."""
    return getattr(callback_context, "_event_actions", None)


@functools.cache
def adk_records_token_metrics() -> bool:
    """Whether the installed ADK records model token usage as OpenTelemetry metrics itself
    (ADK 2.x, meter `gcp.vertex.agent`), so adk-fluent's cost attribution adds cost only and
    never counts tokens twice. Asked of ADK's private telemetry module: no public API says it."""
    try:
        import importlib

        module = importlib.import_module("google.adk.telemetry._metrics")
    except ImportError:
        return False
    return callable(getattr(module, "record_client_token_usage", None))


def invocation_branch(callback_context: Any) -> str | None:
    """The branch of the invocation a callback runs in (parallel isolation)."""
    return getattr(invocation_of(callback_context), "branch", None)


def state_class() -> type:
    """ADK's session `State` class (what ToolContext / CallbackContext `.state` is)."""
    from google.adk.sessions.state import State

    return State


@functools.cache
def eval_service_takes_app() -> bool:
    """Whether ADK's LocalEvalService runs an App (its plugins included) during inference:
    `LocalEvalService(..., app=App)` (ADK 2.x). Without it, ADK runs the bare root agent and
    drops the App's plugins (google/adk-python#3833, #5503), so adk-fluent runs the turns
    through a Runner of the App itself and hands ADK only the scoring."""
    import inspect

    from google.adk.evaluation.local_eval_service import LocalEvalService

    return "app" in inspect.signature(LocalEvalService.__init__).parameters


@functools.cache
def remote_a2a_agent_class() -> type:
    """ADK's A2A client agent. 2.x moved it to `google.adk.a2a.agent` (the old path still
    imports there, with a warning); 1.x has it in `google.adk.agents.remote_a2a_agent`. Both
    need a2a-sdk (the `a2a` extra): ImportError when it is missing."""
    try:
        from google.adk.a2a.agent import RemoteA2aAgent
    except ImportError:
        from google.adk.agents.remote_a2a_agent import RemoteA2aAgent
    return RemoteA2aAgent  # type: ignore[no-any-return, return-value]


@functools.cache
def classic_agents_available() -> bool:
    """Whether the installed ADK still has SequentialAgent, ParallelAgent and LoopAgent (2.x
    deprecates them for Workflow; the day a release removes them, the default compile target
    becomes 'workflow': adk/targets.py, docs/workflow.md)."""
    try:
        from google.adk.agents import LoopAgent, ParallelAgent, SequentialAgent  # noqa: F401
    except ImportError:
        return False
    return True


def runner_takes_state_delta() -> bool:
    """Whether the installed Runner stores `run_async(state_delta=...)` with the user's message
    (probes.runner_takes_state_delta; 2.0.0 and 2.1.0 drop it for an LlmAgent root)."""
    return bool(behaviour("runner_takes_state_delta"))


def unanswered_calls_reach_the_model() -> bool:
    """Whether a function call left without its response (the tool raised, or adk-fluent's
    timeout cancelled it) stays in the next model request unanswered, which Gemini refuses:
    then adk-fluent's UnansweredCallsPlugin leaves it out of the request, as newer ADK does."""
    return bool(behaviour("unanswered_calls_reach_the_model"))


@functools.cache
def workflow_graphs_missing() -> str | None:
    """Why the installed ADK cannot run the 'workflow' compile target, or None when it can: it
    needs `google.adk.workflow` (Workflow, START, FunctionNode; ADK 2.x) and LlmAgent's `mode`
    (a chat agent as a graph node sees the conversation, adk/workflow_target.py)."""
    try:
        from google.adk.workflow import START, FunctionNode, Workflow  # noqa: F401
    except ImportError:
        return f"google-adk {adk_version()} has no Workflow graphs (google.adk.workflow, ADK 2.x)"
    if "mode" not in installed_fields("LlmAgent"):
        return f"google-adk {adk_version()}'s LlmAgent has no 'mode' to run as a chat node"
    if not behaviour("workflow_runs_transfers"):  # 2.0 ends a node at the transfer (2.4 does not)
        return (
            f"google-adk {adk_version()}'s Workflow ends an agent at a transfer instead of "
            "running the agent it transfers to"
        )
    return None


def hide_adk_wrapper(error: BaseException) -> BaseException:
    """`error` as the user should see it: ADK 2.x re-raises a failed node's exception (a tool's,
    a model's) inside `except DynamicNodeFailError`, a private wrapper whose `.error` is that
    very exception, so the traceback would open with ADK's wrapper and "During handling of the
    above exception, another exception occurred". Such a context is hidden from the traceback
    (as `raise ... from None` does; `__context__` still holds it). A context of the user's own
    (a tool raising inside its own `except`) is left as it is; 1.x raises without a wrapper."""
    context = error.__context__
    if context is not None and getattr(context, "error", None) is error:
        error.__suppress_context__ = True
    return error


@functools.cache
def to_a2a_takes_executor_factory() -> bool:
    """Whether ADK's `to_a2a` takes `agent_executor_factory` (ADK 2.x), through which a served
    pipeline gets adk-fluent's A2A executor (streaming, cancellation, only declared metadata in
    a response). Without it (ADK 1.x) `remote` mounts a2a-sdk's own app around that executor,
    as 1.x's `to_a2a` does around its default one. Needs a2a-sdk (the `a2a` extra)."""
    import inspect

    from google.adk.a2a.utils.agent_to_a2a import to_a2a

    return "agent_executor_factory" in inspect.signature(to_a2a).parameters


@functools.cache
def _run_telemetry_settings() -> Any:
    """ADK's per-run TelemetryConfig class and its content modes, or None (see below)."""
    from google.adk.agents.run_config import RunConfig

    if "telemetry" not in RunConfig.model_fields:
        return None
    try:
        from google.adk.telemetry.context import ContentCapturingMode, TelemetryConfig
    except ImportError:
        return None
    if "capture_message_content" not in TelemetryConfig.model_fields:
        return None
    return TelemetryConfig, ContentCapturingMode


def run_content_capture(capture: bool) -> Any:
    """ADK's per-run telemetry settings saying whether message content goes on the spans
    (`RunConfig.telemetry`, ADK 2.x), or None where the installed ADK has no per-run setting
    (1.x reads only its process-wide environment variable; adk-fluent then keeps the content
    from the exporters it configures instead, telemetry/runtime.py). Found by what RunConfig
    and ADK's TelemetryConfig accept, never by version. Made per turn: ADK's config reads the
    other telemetry environment variables when it is made."""
    settings = _run_telemetry_settings()
    if settings is None:
        return None
    config_class, modes = settings
    mode = modes.SPAN_ONLY if capture else modes.NO_CONTENT
    return config_class(capture_message_content=mode)


@functools.cache
def compaction_settings() -> tuple[frozenset[str], frozenset[str]]:
    """The fields ADK's EventsCompactionConfig has, and those it requires (1.x requires the
    interval pair; token_threshold / event_retention_size came later than some releases):
    asked of the installed class, never of the version."""
    from google.adk.apps.app import EventsCompactionConfig

    fields = EventsCompactionConfig.model_fields
    return frozenset(fields), frozenset(name for name, info in fields.items() if info.is_required())
