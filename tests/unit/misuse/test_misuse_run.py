"""Misuse of the run methods (run, stream, ask, ask_sync, session, rewind): the prompt, the ids,
the options and the stores. Each is refused with a message naming the field and a hint, when
`stream()` is called or `run()` / `ask()` awaited, before anything is stored.

The cases that open a session store are in tests/behaviour/misuse/test_misuse_run_store.py."""

from __future__ import annotations

import pytest
from google.adk.agents.run_config import RunConfig as _RunConfig
from google.genai import types

from adk_fluent import Agent, CompactionConfig, ExecutionConfig
from adk_fluent.testing import ScriptedModel, delay, mock_backend, repeat
from tests.support.misuse import case, check, ids


def _agent() -> Agent:
    return Agent("greeter", ScriptedModel(["Hello."]))


def _run(prompt="hi", **options):
    return lambda: _agent().run(prompt, **options)


async def _ask_sync_inside_a_loop():
    return _agent().ask_sync("hi")


CASES = [
    # the prompt
    case("run-prompt-list-with-a-number", _run(["hi", 42]), "prompt[1]", "int"),
    case("run-prompt-none", _run(None), "prompt", "NoneType"),
    case("run-prompt-empty", _run(""), "prompt", "empty"),
    case("run-prompt-blank", _run("  \n "), "prompt", "empty"),
    case("run-prompt-empty-list", _run([]), "prompt", "empty list"),
    case("run-prompt-dict", _run({"text": "hi"}), "prompt", "dict"),
    case(
        "run-prompt-content-without-parts",
        _run(types.Content(role="user", parts=[])),
        "prompt",
        "no parts",
    ),
    case("run-stream-prompt-number", lambda: _agent().stream(42), "prompt", "int"),
    case("run-ask-prompt-bytes", lambda: _agent().ask(b"hi"), "prompt", "bytes"),
    # the ids
    case("run-user-id-none", _run(user_id=None), "user_id", "got None"),
    case("run-user-id-empty", _run(user_id=""), "user_id", "empty"),
    case("run-user-id-number", _run(user_id=7), "user_id", "got 7"),
    case("run-session-id-empty", _run(session_id=""), "session_id", "empty"),
    case("run-session-id-number", _run(session_id=42), "session_id", "got 42"),
    case("run-session-id-too-long", _run(session_id="x" * 200), "session_id", "200 characters"),
    case("run-session-lookup-empty-id", lambda: _agent().session(""), "session_id", "empty"),
    case("run-rewind-id-none", lambda: _agent().rewind(None, "inv-1"), "session_id", "got None"),
    # options
    case("run-option-typo", _run(sesion_id="s"), "sesion_id", "did you mean 'session_id'"),
    case("run-option-unknown", _run(temperature=0.2), "temperature", "the options are"),
    case("run-config-not-an-execution-config", _run(config="x"), "config", "ExecutionConfig"),
    case("run-backend-not-a-backend", _run(backend=object()), "backend", "mock_backend"),
    case("run-run-config-dict", _run(run_config={"max_llm_calls": 3}), "run_config", "RunConfig"),
    case("run-streaming-typo", _run(streaming="sce"), "streaming", "'sse'"),
    case(
        "config-streaming-mode-upper-case",
        lambda: ExecutionConfig(streaming_mode="SSE"),
        "streaming_mode",
        "did you mean 'sse'",
    ),
    case(
        "run-with-a-bidi-config",
        _run(config=ExecutionConfig(streaming_mode="bidi")),
        "streaming_mode",
        "live",
    ),
    case("run-streaming-bool", _run(streaming=True), "streaming", "'none', 'sse'"),
    case(
        "run-streaming-and-run-config",
        _run(streaming="sse", run_config=_RunConfig()),
        "streaming",
        "streaming_mode on the RunConfig",
    ),
    case(
        "run-ask-sync-inside-a-loop",
        _ask_sync_inside_a_loop,
        "ask_sync",
        "running event loop",
    ),
    # stores and services
    case("run-store-object", _run(session_store=object()), "session_store", "not an object"),
    case(
        "run-store-sqlite-sync-driver",
        _run(session_store="sqlite+pysqlite:///chats.db"),
        "session_store",
        "'pysqlite'",
        "asynchronous",
        "write session_store='sqlite:///chats.db'",
    ),
    case(
        "run-store-sqlite-unknown-driver",
        _run(session_store="sqlite+fast:///chats.db"),
        "'fast'",
        "write session_store='sqlite:///chats.db'",
    ),
    case(
        "run-store-sqlite-two-slashes",
        _run(session_store="sqlite://chats.db"),
        "three slashes",
        "write session_store='sqlite:///chats.db'",
    ),
    case(
        "run-store-sqlite-a-folder",
        _run(session_store="sqlite:///tests"),
        "names the folder 'tests', not a file",
        "session_store='sqlite:///tests/sessions.db'",
    ),
    case("run-store-bare-file-name", _run(session_store="sessions.db"), "sqlite:///sessions.db"),
    case(
        "run-store-and-service-both",
        _run(session_store="memory", session_service=object()),
        "session_service",
    ),
    case(
        "run-session-service-not-a-service",
        _run(session_service="sqlite:///x.db"),
        "session_service",
        "str",
    ),
    case(
        "run-artifact-service-wrong-type",
        _run(artifact_service="gcs://bucket"),
        "artifact_service",
        "BaseArtifactService",
    ),
    case(
        "run-memory-service-wrong-type",
        _run(memory_service={}),
        "memory_service",
        "BaseMemoryService",
    ),
    case(
        "run-credential-service-wrong-type",
        _run(credential_service="token"),
        "credential_service",
        "an instance of a BaseCredentialService subclass",
    ),
    # the testing kit a run is given (backend=): a script is checked when it is made
    case("kit-delay-seconds-text", lambda: delay("soon", "Late."), "seconds", "'soon'"),
    case("kit-delay-seconds-negative", lambda: delay(-1, "Late."), "seconds", "at least 0"),
    case(
        "kit-script-step-not-a-step",
        lambda: mock_backend({"greeter": ["Hi.", object()]}),
        "agent 'greeter'",
        "script step #2 is an object, which is no step",
        "a function of the request",
    ),
    case(
        "kit-script-step-a-set-in-a-repeat",
        lambda: ScriptedModel([repeat("ok", {1, 2}, times=2)]),
        "script step #1 is a set",
    ),
    # CompactionConfig: each trigger is a pair; at least one trigger
    case(
        "compaction-token-threshold-alone",
        lambda: CompactionConfig(token_threshold=50_000),
        "CompactionConfig",
        "event_retention_size",
        "pair",
    ),
    case(
        "compaction-interval-without-overlap",
        lambda: CompactionConfig(interval=5, overlap=None),
        "CompactionConfig",
        "overlap",
    ),
    case(
        "compaction-no-trigger",
        lambda: CompactionConfig(interval=None, overlap=None),
        "CompactionConfig",
        "no compaction trigger",
    ),
    case(
        "compaction-threshold-zero",
        lambda: CompactionConfig(token_threshold=0, event_retention_size=5),
        "token_threshold",
        "positive whole number",
    ),
    case(
        "compaction-retention-text",
        lambda: CompactionConfig(token_threshold=100, event_retention_size="20"),
        "event_retention_size",
    ),
    # ExecutionConfig(timeout_seconds=)
    case(
        "timeout-seconds-zero",
        lambda: ExecutionConfig(timeout_seconds=0),
        "ExecutionConfig",
        "timeout_seconds",
    ),
    case(
        "timeout-seconds-text",
        lambda: ExecutionConfig(timeout_seconds="30"),
        "timeout_seconds",
        "seconds",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
