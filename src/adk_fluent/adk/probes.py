"""Probes: watch the installed google-adk do something whose outcome changed between releases.

Each probe runs a tiny scenario through the real ADK (a Runner over an in-memory session, a
scripted model, no network) and returns what it saw as a plain JSON value. adk-fluent never
forks on ADK's version number; it forks on these answers (`adk.compat.behaviour`).

The scans record every probe's answer on every scanned release (`adk-fluent-codegen
scan-releases` runs `python -m adk_fluent.adk.probes` in each release's environment), so the
generated table `adk_fluent_generated.behaviours` knows where each behaviour changed without
running anything, and docs/compatibility.md lists it.

This module imports only ADK (lazily) and the standard library: it must run in a bare
throwaway environment, and importing it must not import ADK.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

# The workflow agents' deprecation on ADK 2.x. 2.0 says "X is deprecated and will be removed
# in future versions. Please use Workflow instead."; 2.13 says "X is deprecated in favor of
# Workflow". Both name the class first and Workflow later.
WORKFLOW_DEPRECATION = r"(Sequential|Parallel|Loop)Agent is deprecated\b.*Workflow"

# What a probe's scripted user says, and what its agents answer: distinct words, so a probe can
# tell where each one ended up.
_USER_TEXT = "probe-user-message"
_FIRST_REPLY = "probe-first-reply"


def _in_worker_thread(probe: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run an async probe to completion on its own event loop in a worker thread, so it works
    whether or not the caller is itself inside a running loop (milliseconds, once a process)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="adk_fluent_probe") as pool:
        return pool.submit(asyncio.run, probe()).result()


async def _run_once(agent: Any, plugins: Sequence[Any] = ()) -> list[Any]:
    """Run `agent` for one turn through a real in-memory Runner; the session's stored events."""
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    service = InMemorySessionService()
    runner = Runner(
        app=App(name="adk_fluent_probe", root_agent=agent, plugins=list(plugins)),
        session_service=service,
    )
    session = await service.create_session(app_name="adk_fluent_probe", user_id="probe")
    message = types.Content(role="user", parts=[types.Part(text=_USER_TEXT)])
    async for _ in runner.run_async(user_id="probe", session_id=session.id, new_message=message):
        pass
    stored = await service.get_session(
        app_name="adk_fluent_probe", user_id="probe", session_id=session.id
    )
    return list(stored.events) if stored else []


def _quietly(build: Callable[[], Any]) -> Any:
    """Construct ADK objects without their deprecation warnings reaching the caller."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return build()


def _text_event(author: str, ctx: Any, text: str, state_delta: dict[str, Any] | None = None) -> Any:
    from google.adk.events.event import Event
    from google.adk.events.event_actions import EventActions
    from google.genai import types

    return Event(
        author=author,
        invocation_id=ctx.invocation_id,
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(state_delta or {})),
    )


def _scripted_model(replies: list[Any], requests: list[Any]) -> Any:
    """A BaseLlm that records each request and answers with the next of `replies` (a text, or
    a `(tool name, args)` function call)."""
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types

    class _ProbeModel(BaseLlm):  # type: ignore[misc]
        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            requests.append(llm_request)
            reply = replies.pop(0) if replies else "done"
            if isinstance(reply, tuple):
                part = types.Part(function_call=types.FunctionCall(name=reply[0], args=reply[1]))
            else:
                part = types.Part(text=reply)
            yield LlmResponse(
                content=types.Content(role="model", parts=[part]),
                usage_metadata=types.GenerateContentResponseUsageMetadata(
                    prompt_token_count=1, candidates_token_count=1, total_token_count=2
                ),
            )

    return _ProbeModel(model="adk-fluent-probe-model")


def _request_texts(request: Any) -> list[str]:
    return [
        part.text
        for content in request.contents or []
        for part in content.parts or []
        if getattr(part, "text", None)
    ]


# -- the probes ------------------------------------------------------------------------------


def plugin_edits_are_stored() -> bool:
    """Whether what an `on_event_callback` returns is what the Runner stores, rather than only
    what it streams while the original event is stored.

    Scenario: an agent yields one text event; a plugin returns an edited copy; the stored
    session is read back."""
    from google.adk.agents.base_agent import BaseAgent
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types

    class _Speaker(BaseAgent):  # type: ignore[misc]
        async def _run_async_impl(self, ctx: Any) -> Any:
            yield _text_event(self.name, ctx, "original")

    class _EditPlugin(BasePlugin):  # type: ignore[misc]
        async def on_event_callback(self, *, invocation_context: Any, event: Any) -> Any:
            edited = types.Content(role="model", parts=[types.Part(text="edited")])
            return event.model_copy(update={"content": edited})

    async def probe() -> bool:
        events = await _run_once(
            _Speaker(name="probe_agent"), [_EditPlugin(name="adk_fluent_probe_edit")]
        )
        texts = [
            part.text
            for event in events
            if event.author == "probe_agent" and event.content
            for part in event.content.parts or []
        ]
        return texts == ["edited"]

    return bool(_in_worker_thread(probe))


def workflow_agents_warn() -> bool:
    """Whether constructing a SequentialAgent warns that it is deprecated in favour of Workflow.

    Scenario: construct one and watch the warnings."""
    import re

    from google.adk.agents import SequentialAgent

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SequentialAgent(name="adk_fluent_probe")
    return any(
        issubclass(w.category, DeprecationWarning)
        and re.match(WORKFLOW_DEPRECATION, str(w.message), re.IGNORECASE)
        for w in caught
    )


def temp_keys_carry_over() -> bool:
    """Whether a `temp:` key one agent writes (through its event's state delta) is in the state
    the next agent of the same invocation reads.

    Scenario: a sequence of two agents; the first writes temp:probe, the second reports what
    it finds."""
    from google.adk.agents import SequentialAgent
    from google.adk.agents.base_agent import BaseAgent

    seen: list[Any] = []

    class _Writer(BaseAgent):  # type: ignore[misc]
        async def _run_async_impl(self, ctx: Any) -> Any:
            yield _text_event(self.name, ctx, "wrote", {"temp:adk_fluent_probe": "carried"})

    class _Reader(BaseAgent):  # type: ignore[misc]
        async def _run_async_impl(self, ctx: Any) -> Any:
            seen.append(ctx.session.state.get("temp:adk_fluent_probe"))
            yield _text_event(self.name, ctx, "read")

    async def probe() -> bool:
        root = _quietly(
            lambda: SequentialAgent(
                name="probe_sequence", sub_agents=[_Writer(name="writer"), _Reader(name="reader")]
            )
        )
        await _run_once(root)
        return seen == ["carried"]

    return bool(_in_worker_thread(probe))


def _second_agents_request(second_kwargs: dict[str, Any]) -> Any:
    """Run `first >> second` (LLM agents, one scripted model each); the second's request."""
    from google.adk.agents import LlmAgent, SequentialAgent

    requests: list[Any] = []

    async def probe() -> None:
        first = LlmAgent(name="first", model=_scripted_model([_FIRST_REPLY], []))
        second = LlmAgent(name="second", model=_scripted_model(["done"], requests), **second_kwargs)
        root = _quietly(lambda: SequentialAgent(name="probe_sequence", sub_agents=[first, second]))
        await _run_once(root)

    _in_worker_thread(probe)
    return requests[0]


def other_agent_reply_format() -> str:
    """How another agent's reply appears in an LLM agent's request: 'for_context' (a user-role
    "For context: [first] said: ..." part) or 'quoted' (a user-role part between
    BEGIN/END_QUOTED_AGENT_CONTENT markers); 'other' when neither.

    Scenario: `first >> second`, both LLM agents; read the second's request."""
    texts = _request_texts(_second_agents_request({}))
    carrying = "\n".join(text for text in texts if _FIRST_REPLY in text)
    if "QUOTED_AGENT_CONTENT" in carrying:
        return "quoted"
    if "[first] said:" in carrying and any(t.startswith("For context") for t in texts):
        return "for_context"
    return "other"


def include_contents_none_keeps() -> str:
    """What an LLM agent with include_contents='none' sees of the turn so far, after another
    agent replied: 'latest_agent_reply' (the other agent's reply, not the user's message),
    'whole_turn' (both), 'user_message' or 'nothing'.

    Scenario: `first >> second(include_contents='none')`; read the second's request."""
    joined = "\n".join(_request_texts(_second_agents_request({"include_contents": "none"})))
    saw_user, saw_reply = _USER_TEXT in joined, _FIRST_REPLY in joined
    if saw_user and saw_reply:
        return "whole_turn"
    if saw_reply:
        return "latest_agent_reply"
    return "user_message" if saw_user else "nothing"


def callback_keywords() -> dict[str, tuple[str, ...]]:
    """The keyword names ADK passes to each agent, model and tool callback.

    Scenario: an LLM agent whose model calls one tool and then answers, with every one of
    those callbacks taking `**kwargs` and recording the names it was given."""
    from google.adk.agents import LlmAgent

    seen: dict[str, tuple[str, ...]] = {}

    def recorder(field: str) -> Callable[..., Any]:
        def callback(*args: Any, **kwargs: Any) -> None:
            seen[field] = (*sorted(kwargs), *(["<positional>"] if args else []))
            return None

        return callback

    def probe_tool(value: str) -> str:
        """Echo the value."""
        return value

    fields = (
        "before_agent_callback",
        "after_agent_callback",
        "before_model_callback",
        "after_model_callback",
        "before_tool_callback",
        "after_tool_callback",
    )

    async def probe() -> None:
        callbacks: dict[str, Any] = {field: recorder(field) for field in fields}
        agent = LlmAgent(
            name="probe_agent",
            model=_scripted_model([("probe_tool", {"value": "x"}), "done"], []),
            tools=[probe_tool],
            **callbacks,
        )
        await _run_once(agent)

    _in_worker_thread(probe)
    return {field: seen.get(field, ()) for field in fields}


def workflow_runs_transfers() -> bool:
    """Whether an agent of an ADK Workflow graph (run in chat mode, alone in a one-node Workflow,
    as the workflow target places it) runs the agent it transfers to inside the graph; False
    where there are no Workflow graphs or LlmAgent has no `mode` (ADK 1.x).

    Scenario: `lead` transfers to its sub-agent `helper`, which replies; is helper's reply
    stored?"""
    from google.adk.agents import LlmAgent

    try:
        from google.adk.workflow import START, Workflow
    except ImportError:
        return False
    if "mode" not in LlmAgent.model_fields:
        return False

    helper = LlmAgent(
        name="helper", model=_scripted_model(["probe-helper-reply"], []), description="Helps."
    )
    lead = LlmAgent(
        name="lead",
        mode="chat",
        model=_scripted_model([("transfer_to_agent", {"agent_name": "helper"})], []),
        sub_agents=[helper],
    )
    root = Workflow(
        name="probe_root", edges=[(START, Workflow(name="lead", edges=[(START, lead)]))]
    )

    async def probe() -> bool:
        events = await _run_once(root)
        return any(e.author == "helper" and e.content for e in events)

    with warnings.catch_warnings():  # ADK's experimental-feature notes are not the caller's
        warnings.simplefilter("ignore")
        return bool(_in_worker_thread(probe))


def runner_takes_state_delta() -> bool:
    """Whether `Runner.run_async(state_delta=...)` puts the delta in the session when the root
    is an LlmAgent.

    2.0.0 and 2.1.0 run an LlmAgent (or Workflow) root through their node runner, which takes
    the argument and drops it; 1.x and 2.2 and later store it with the user's message."""
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    async def probe() -> bool:
        agent = LlmAgent(name="probe_agent", model=_scripted_model([_FIRST_REPLY], []))
        service = InMemorySessionService()
        runner = Runner(app=App(name="adk_fluent_probe", root_agent=agent), session_service=service)
        session = await service.create_session(app_name="adk_fluent_probe", user_id="probe")
        message = types.Content(role="user", parts=[types.Part(text=_USER_TEXT)])
        async for _ in runner.run_async(
            user_id="probe",
            session_id=session.id,
            new_message=message,
            state_delta={"probe_key": "probe-value"},
        ):
            pass
        stored = await service.get_session(
            app_name="adk_fluent_probe", user_id="probe", session_id=session.id
        )
        return stored is not None and stored.state.get("probe_key") == "probe-value"

    with warnings.catch_warnings():  # ADK's experimental-feature notes are not the caller's
        warnings.simplefilter("ignore")
        return bool(_in_worker_thread(probe))


def confirmation_redelivery_accepted() -> bool:
    """Whether ADK takes a tool-confirmation answer delivered a second time (a client retry)
    without failing, when the confirmation was requested from a before_tool callback.

    Scenario: an LLM agent's callback asks to confirm its tool call; the user approves, the tool
    runs; the user sends the same answer again. Some 2.x releases (2.6) look only at the call's
    latest response for the request and raise "Tool ... does not require confirmation"."""
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    def probe_tool() -> str:
        """Do the probed thing."""
        return "ran"

    def ask_first(tool: Any, args: Any, tool_context: Any) -> Any:
        if getattr(tool_context, "tool_confirmation", None) is None:
            tool_context.request_confirmation(hint="probe")
            return {"error": "pending"}
        return None

    async def probe() -> bool:
        agent = LlmAgent(
            name="probe_agent",
            model=_scripted_model([("probe_tool", {}), "done", "done", "done"], []),
            tools=[probe_tool],
            before_tool_callback=ask_first,
        )
        service = InMemorySessionService()
        runner = Runner(app=App(name="adk_fluent_probe", root_agent=agent), session_service=service)
        session = await service.create_session(app_name="adk_fluent_probe", user_id="probe")

        async def turn(parts: list[Any]) -> list[Any]:
            message = types.Content(role="user", parts=parts)
            return [
                event
                async for event in runner.run_async(
                    user_id="probe", session_id=session.id, new_message=message
                )
            ]

        asked = [
            call.id
            for event in await turn([types.Part(text=_USER_TEXT)])
            for call in event.get_function_calls()
            if call.name == "adk_request_confirmation"
        ]
        if not asked:
            return True  # nothing to deliver twice: nothing can fail on it
        answer = types.Part(
            function_response=types.FunctionResponse(
                id=asked[0], name="adk_request_confirmation", response={"confirmed": True}
            )
        )
        await turn([answer])
        try:
            await turn([answer])
        except Exception:  # noqa: BLE001 - however a release reports it, the retry failed
            return False
        return True

    with warnings.catch_warnings():  # ADK's experimental-feature notes are not the caller's
        warnings.simplefilter("ignore")
        return bool(_in_worker_thread(probe))


def unanswered_calls_reach_the_model() -> bool:
    """Whether a function call that never got its response (the tool raised, or its task was
    cancelled) is still in the agent's next model request, unanswered: Gemini refuses such a
    request (400). Newer releases leave the call out of the request (the stored event keeps it).

    Scenario: an agent's tool raises in one turn; the user says something in the next turn; is
    the call in that turn's model request without a response after it?"""
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    requests: list[Any] = []

    def probe_tool() -> str:
        """Fail."""
        raise RuntimeError("probe-tool-failure")

    async def probe() -> bool:
        agent = LlmAgent(
            name="probe_agent",
            model=_scripted_model([("probe_tool", {}), "done"], requests),
            tools=[probe_tool],
        )
        service = InMemorySessionService()
        runner = Runner(app=App(name="adk_fluent_probe", root_agent=agent), session_service=service)
        session = await service.create_session(app_name="adk_fluent_probe", user_id="probe")
        for text in (_USER_TEXT, _USER_TEXT + "-again"):
            message = types.Content(role="user", parts=[types.Part(text=text)])
            try:
                async for _ in runner.run_async(
                    user_id="probe", session_id=session.id, new_message=message
                ):
                    pass
            except Exception:  # noqa: BLE001 - the first turn ends with the tool's error, raised
                pass  # however the release wraps it
        contents = list(requests[-1].contents or [])
        for index, content in enumerate(contents):
            answered = [
                part.function_response.name
                for part in (contents[index + 1].parts if index + 1 < len(contents) else []) or []
                if part.function_response
            ]
            for part in content.parts or []:
                if part.function_call and part.function_call.name not in answered:
                    return True
        return False

    with warnings.catch_warnings():  # ADK's own notes (and the logged failure) are not ours
        warnings.simplefilter("ignore")
        return bool(_in_worker_thread(probe))


# name -> probe; the names are the keys of adk_fluent_generated.behaviours.BEHAVIOURS
PROBES: dict[str, Callable[[], Any]] = {
    "plugin_edits_are_stored": plugin_edits_are_stored,
    "workflow_agents_warn": workflow_agents_warn,
    "temp_keys_carry_over": temp_keys_carry_over,
    "other_agent_reply_format": other_agent_reply_format,
    "include_contents_none_keeps": include_contents_none_keeps,
    "callback_keywords": callback_keywords,
    "workflow_runs_transfers": workflow_runs_transfers,
    "runner_takes_state_delta": runner_takes_state_delta,
    "confirmation_redelivery_accepted": confirmation_redelivery_accepted,
    "unanswered_calls_reach_the_model": unanswered_calls_reach_the_model,
}


def run_all() -> dict[str, Any]:
    """Every probe's answer on the installed ADK."""
    return {name: probe() for name, probe in sorted(PROBES.items())}


def answers_in_child_process(timeout: float = 120.0) -> dict[str, Any]:
    """Every probe's answer on the installed ADK, asked in a child process of this Python: for a
    release the scans do not cover. A probe runs real ADK turns, and in this process their
    spans, metric points and log lines would reach the user's telemetry (a tracer or meter
    provider the user installed): the child runs them with OpenTelemetry's SDK disabled and
    prints only the answers. OSError, subprocess.SubprocessError or ValueError when the child
    cannot answer (no Python at sys.executable, a probe that fails, output that is not JSON)."""
    import os
    import subprocess

    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    env["OTEL_SDK_DISABLED"] = "true"  # a provider the child sets up itself records nothing
    result = subprocess.run(
        [sys.executable, "-m", "adk_fluent.adk.probes"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        tail = " | ".join(result.stderr.strip().splitlines()[-3:])
        raise subprocess.SubprocessError(f"the probes exited with {result.returncode}: {tail}")
    answers = json.loads(result.stdout)
    if not isinstance(answers, dict):
        raise ValueError("the probes printed something other than a JSON object")
    return {name: _frozen(value) for name, value in answers.items()}


def _frozen(value: Any) -> Any:
    """A JSON answer as the scans' table holds it: lists become tuples (JSON has no tuples)."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    return value


if __name__ == "__main__":  # `python -m adk_fluent.adk.probes`: the answers as JSON, for scans
    import logging

    logging.disable(logging.WARNING)  # ADK's own warnings would only clutter the scan's output
    json.dump(run_all(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
