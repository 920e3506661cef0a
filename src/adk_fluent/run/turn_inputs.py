"""What a turn is given, checked before anything is compiled or stored: the prompt, the ids,
state, the run options and services; and how the checked options become ADK's RunConfig."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from adk_fluent.arguments import checked_choice, checked_instance, checked_text
from adk_fluent.errors import BuildError, did_you_mean, with_article
from adk_fluent.ir.nodes import Node
from adk_fluent.ir.options import (
    BuildOptions,
    ExecutionConfig,
    VisibilityMode,
)
from adk_fluent.ir.state_keys import GATE_KEY_PREFIX, RESUME_KEY_PREFIX, key_problem
from adk_fluent.ir.values import storable_copy
from adk_fluent.run.stores import (
    is_session_service,
)


def loop_running() -> bool:
    """Whether this thread is inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def user_message(prompt: Any) -> Any:
    """A prompt as ADK's user Content: text, a Content, or a list of parts (text, images, files)."""
    from google.genai import types

    if isinstance(prompt, str):
        if not prompt.strip():
            raise BuildError(
                "the prompt is empty",
                field="prompt",
                hint="send the user's words, e.g. pipeline.run('Paris please'); a model "
                "cannot answer an empty message.",
            )
        return types.Content(role="user", parts=[types.Part(text=prompt)])
    if isinstance(prompt, types.Content):
        if not prompt.parts:
            raise BuildError(
                "the prompt Content has no parts",
                field="prompt",
                hint="give it at least one part, e.g. types.Part(text='hello').",
            )
        return prompt
    if isinstance(prompt, list | tuple):
        if not prompt:
            raise BuildError(
                "the prompt is an empty list",
                field="prompt",
                hint="give at least one part: text or a google.genai Part.",
            )
        parts = []
        for index, part in enumerate(prompt):
            if isinstance(part, str):
                parts.append(types.Part(text=part))
            elif isinstance(part, types.Part):
                parts.append(part)
            else:
                raise BuildError(
                    f"prompt[{index}] is {with_article(type(part).__name__)}; a prompt list "
                    "holds text and google.genai Parts only",
                    field="prompt",
                    hint=f"convert it first, e.g. str(value), or "
                    f"types.Part.from_bytes(data=..., mime_type=...) for a file "
                    f"(prompt[{index}]).",
                )
        return types.Content(role="user", parts=parts)
    raise BuildError(
        f"a prompt must be text, a google.genai Content or a list of parts, "
        f"not {type(prompt).__name__}",
        field="prompt",
        hint="e.g. pipeline.run('Paris please') or a list of google.genai Parts.",
    )


MAX_ID_LENGTH = 128  # characters ADK's database schema holds in an id column


def check_ids(user_id: Any, session_id: Any, *, session_required: bool = False) -> None:
    for field, value, example in (
        ("user_id", user_id, "user_id='alice' (the default is 'user')"),
        ("session_id", session_id, "session_id='chat-42', or leave it out for a new session"),
    ):
        if value is None and field == "session_id" and not session_required:
            continue
        checked_text(value, None, field, hint=f"pass a non-empty string, e.g. {example}.")
        if len(value) > MAX_ID_LENGTH:
            raise BuildError(
                f"{field} is {len(value)} characters long; session stores hold up to "
                f"{MAX_ID_LENGTH}",
                field=field,
                hint="use a shorter id, e.g. a uuid4 hex or a hash of the long one.",
            )


_STATE_EXAMPLE = "e.g. state={'city': 'Paris', 'user:language': 'fr'}"


def checked_state(state: Any) -> dict[str, Any] | None:
    """`run(state=...)`, checked before anything is stored: a mapping of usable state keys to
    JSON values, returned as a copy (tuples as lists: what a database store gives back)."""
    if state is None:
        return None
    if not isinstance(state, Mapping):
        raise BuildError(
            f"state must be a dict of state keys to values, not {type(state).__name__}",
            field="state",
            hint=f"{_STATE_EXAMPLE}.",
        )
    checked: dict[str, Any] = {}
    for key, value in state.items():
        problem = key_problem(key)
        if problem is not None:
            raise BuildError(
                f"state has the key {key!r}: {problem}",
                field="state",
                hint=f"state keys are non-empty names, {_STATE_EXAMPLE}.",
            )
        if key.startswith("temp:"):
            # temp: state lasts one invocation and is never stored; and ADK releases differ on
            # whether a caller's temp: keys reach the agents at all (1.25 drops them).
            raise BuildError(
                f"state has the key {key!r}: temp: keys are never stored, and not every ADK "
                "release shows a caller's temp: keys to the agents",
                field="state",
                hint=f"give it as a session key, state={{{key[len('temp:') :]!r}: ...}}, or set "
                "it inside the pipeline (S.set, a tool, a callback).",
            )
        if key.startswith((GATE_KEY_PREFIX, RESUME_KEY_PREFIX)):
            raise BuildError(
                f"state has the key {key!r}, which adk-fluent keeps for its gates",
                field="state",
                hint="choose another name; a gate's record is set by the gate itself.",
            )
        copied, unstorable = storable_copy(value)
        if unstorable is not None:
            raise BuildError(
                f"{unstorable.describe(key)} (session stores keep state as JSON)",
                field="state",
                hint=f"{unstorable.hint}.",
            )
        checked[key] = copied
    return checked


_SERVICES = ("session_service", "artifact_service", "memory_service", "credential_service")
# the keyword options of run() / stream() / ask() / ask_sync(), and of session() / rewind()
SESSION_OPTIONS = ("user_id", "config", "session_store", "backend", *_SERVICES)
RUN_OPTIONS = (
    "user_id",
    "session_id",
    "state",
    "config",
    "session_store",
    "backend",
    "run_config",
    "streaming",
    "lifecycle",
    *_SERVICES,
)
STREAMING_MODES = ("none", "sse")


def check_streaming(streaming: Any, run_config: Any) -> None:
    """`streaming=` is "sse" or "none" (or left out), and not given beside a run_config."""
    if streaming is None:
        return
    checked_choice(
        streaming,
        None,
        "streaming",
        STREAMING_MODES,
        hint="streaming='sse' sends partial replies as the models produce them.",
    )
    if run_config is not None:
        raise BuildError(
            "both streaming and run_config were given",
            field="streaming",
            hint="set streaming_mode on the RunConfig you pass, or leave run_config out.",
        )


def check_lifecycle(lifecycle: Any) -> None:
    """`lifecycle=` is True or False."""
    checked_instance(
        lifecycle,
        None,
        "lifecycle",
        bool,
        what="True or False",
        hint="lifecycle=True adds an event when each agent starts and ends.",
    )


def check_settings(
    config: Any,
    backend: Any,
    run_config: Any,
    session_store: Any,
    services: dict[str, Any],
    known: tuple[str, ...],
) -> None:
    """Every run option has the type it needs; unknown names get a did-you-mean among `known`."""
    _check_services(services, known)
    check_config(config)
    if backend is not None and not callable(getattr(backend, "model_for", None)):
        raise BuildError(
            f"backend must be a test backend such as mock_backend(...), not "
            f"{type(backend).__name__}",
            field="backend",
            hint="from adk_fluent.testing import mock_backend; "
            "backend=mock_backend({'agent': 'reply'}).",
        )
    if run_config is not None:
        from google.adk.agents.run_config import RunConfig

        checked_instance(
            run_config,
            None,
            "run_config",
            RunConfig,
            what="ADK's RunConfig",
            hint="from google.adk.agents.run_config import RunConfig; or set "
            "streaming and max_llm_calls on ExecutionConfig instead.",
        )
    if session_store is not None and services.get("session_service") is not None:
        raise BuildError(
            "both session_store and session_service were given",
            field="session_store",
            hint="give one: session_store='sqlite:///s.db' opens a store, "
            "session_service=... uses one you built.",
        )


def check_config(config: Any) -> None:
    """`config` (of run(), to_app(), to_runner()) is None or an ExecutionConfig."""
    if config is not None:
        checked_instance(
            config,
            None,
            "config",
            ExecutionConfig,
            what="an ExecutionConfig",
            hint="e.g. config=ExecutionConfig(app_name='support', max_llm_calls=20).",
        )


def _check_services(services: dict[str, Any], known: tuple[str, ...]) -> None:
    from google.adk.artifacts import BaseArtifactService
    from google.adk.auth.credential_service.base_credential_service import (
        BaseCredentialService,
    )
    from google.adk.memory import BaseMemoryService

    kinds = {
        "artifact_service": BaseArtifactService,
        "memory_service": BaseMemoryService,
        "credential_service": BaseCredentialService,
    }
    for name, value in services.items():
        if name not in _SERVICES:
            raise BuildError(
                f"unknown run option {name!r}",
                field=name,
                hint=did_you_mean(name, known) or f"the options are: {', '.join(known)}.",
            )
        if value is None:
            continue
        if name == "session_service":
            if not is_session_service(value):
                raise BuildError(
                    f"session_service must be an ADK session service, not {type(value).__name__}",
                    field=name,
                    hint="e.g. InMemorySessionService(), or session_store='sqlite:///s.db'.",
                )
        else:
            kind = kinds[name].__name__
            checked_instance(
                value,
                None,
                name,
                kinds[name],
                what=f"an ADK {kind}",
                hint=f"pass an instance of {with_article(kind)} subclass, or leave it out.",
            )


def adk_run_config(config: ExecutionConfig, streaming: str | None = None) -> Any:
    """The turn's RunConfig; None for ADK's default one (the Runner makes it then, as for raw
    ADK: the same object, at no extra cost)."""
    mode = streaming or config.streaming_mode
    if mode != "sse" and config.max_llm_calls is None and config.telemetry is None:
        return None
    from google.adk.agents.run_config import RunConfig, StreamingMode

    settings: dict[str, Any] = {
        "streaming_mode": StreamingMode.SSE if mode == "sse" else StreamingMode.NONE
    }
    if config.max_llm_calls is not None:
        settings["max_llm_calls"] = config.max_llm_calls
    if config.telemetry is not None:
        from adk_fluent.adk.compat import run_content_capture

        # message content on ADK's spans, where ADK takes it per run (2.x); elsewhere the
        # exporters the config names are kept from it (telemetry/runtime.py)
        telemetry = run_content_capture(config.telemetry.capture_content)
        if telemetry is not None:
            settings["telemetry"] = telemetry
    return RunConfig(**settings)


def with_backend_middleware(config: ExecutionConfig | None, backend: Any) -> Any:
    """The config with the backend's own middleware first (a replaying backend answers tool
    calls from its recording through one); unchanged for a backend without any."""
    extra = tuple(getattr(backend, "middleware", None) or ()) if backend is not None else ()
    if not extra:
        return config
    from dataclasses import replace

    config = config or ExecutionConfig()
    return replace(config, middleware=(*extra, *config.middleware))


def new_session_id() -> str:
    import uuid

    return f"session_{uuid.uuid4().hex[:12]}"


def model_for(backend: Any) -> Any:
    return None if backend is None else backend.model_for


def checked_tree(
    ir: Node, options: BuildOptions, backend: Any, mode: VisibilityMode | None
) -> Node:
    """The tree, once the backend's own check and `.strict()`'s contract check accept it."""
    if backend is not None and hasattr(backend, "check_tree"):
        backend.check_tree(ir)
    if options.strict is not None:  # `.strict()`: contract errors refuse the build
        from adk_fluent.adk.compat import adk_version, behaviour
        from adk_fluent.analysis.contracts import enforce_strict

        enforce_strict(
            ir, options.strict, mode or options.visibility_mode, adk_version(), behaviour
        )
    return ir
