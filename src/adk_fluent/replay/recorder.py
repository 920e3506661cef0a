"""Recorder: a middleware that captures a run (model calls, tool calls, events) as a Recording.

It is adk-fluent middleware, so it compiles into the App's one middleware plugin and runs
under `run()` / `stream()` and under a plain Runner (`to_app` / `to_runner`); `as_plugin()`
gives an ADK plugin of its own for an App written by hand. It runs first among middleware
(priority -1_000_000): it sees each model request as adk-fluent and ADK built it and each
response and tool result as the model and the tool gave them, before other middleware edits
them (a replay answers with those, and the same middleware edits them again).

Per call, what it keeps in flight is keyed by (invocation, branch, agent, session copy) for
model calls and by the function call's id for tool calls, so concurrent sessions, FanOut
branches, map_over's items, race's alternatives and parallel tool calls never mix; each record
carries its session and invocation, and the model calls of an agent are numbered per session.

A model call still waiting for its model when the recording is taken (a race's loser or a
FanOut branch cut short by `first_complete`, a call a timeout cancelled: ADK calls no callback
then) is recorded as `unanswered`, with the partial chunks it had streamed: a replay makes the
same call wait until the run cancels it, so the same alternative wins.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_branch, invocation_of
from adk_fluent.adk.plugins.middleware import agent_path, model_call
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.middleware import Middleware, check_middleware
from adk_fluent.replay.fingerprint import tree_summary
from adk_fluent.replay.recording import Header, ModelCall, RecordedEvent, Recording, ToolCall
from adk_fluent.replay.values import (
    ADK_ID_PREFIX,
    content_json,
    encode,
    error_json,
    request_json,
    response_json,
)

RECORDER_PRIORITY = -1_000_000  # before every other middleware (lower runs first)
PLUGIN_NAME = "adk_fluent_recorder"
_MAX_OPEN = 4096  # model calls in flight at once that are remembered


def session_id_of(context: Any) -> str | None:
    """The id of the session a callback's context belongs to (None: it has none)."""
    value = getattr(getattr(context, "session", None), "id", None)
    return value if isinstance(value, str) else None


def _tree_path(context: Any, agent: str) -> str:
    """The agent's path: adk-fluent's (from the IR) inside its plugin, else the chain of the
    native agent's parents (an App written by hand)."""
    path = agent_path(agent)
    if path != agent:
        return path
    current = getattr(invocation_of(context), "agent", None)
    if getattr(current, "name", None) != agent:
        return agent
    names = []
    while current is not None:
        names.append(current.name)
        current = getattr(current, "parent_agent", None)
    return "/".join(reversed(names))


def _state(session_state: Any, delta: Any) -> dict[str, Any]:
    """The session state after an event: what the store holds once its delta is applied
    (`temp:` keys are never stored, so they are left out)."""
    state = dict(session_state or {})
    state.update(delta or {})
    return {key: value for key, value in state.items() if not key.startswith("temp:")}


def _fields(draft: dict[str, Any]) -> dict[str, Any]:
    """A model call's draft as ModelCall's fields (what only the Recorder uses left out)."""
    return {key: value for key, value in draft.items() if key not in ("asked", "responses")}


def _answered(draft: dict[str, Any]) -> bool:
    """Whether a model call got a whole reply (not only partial chunks)."""
    return any(not response.get("partial") for response in draft["responses"])


def _cancelled() -> bool:
    """Whether the current task is being cancelled (Python 3.11+ can tell; 3.10 cannot, and
    ADK 1.x, the only line on 3.10, calls no callback on cancellation)."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return bool(cancelling()) if callable(cancelling) else False


def _check_flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise BuildError(
            f"{field} must be True or False, not {describe_value(value)}",
            agent="Recorder",
            field=field,
            hint="capture_state=True keeps the session state after each event; "
            "partials=True keeps streamed partial events too.",
        )
    return value


class Recorder(Middleware):
    """Captures every model call, tool call and event of the runs it sees.

        recorder = Recorder(tree=pipeline)
        await pipeline.run("hi", config=ExecutionConfig(middleware=[recorder]))
        recorder.recording().save("recordings/hi.json")

    `capture_state=True` also keeps the session state after each event; `partials=True` keeps
    streamed partial events (left out by default: the whole reply follows them). `tree`: the
    pipeline (builder, IR or native agent) whose fingerprint goes in the header. Several turns
    and sessions go into one recording until `clear()`.
    """

    name = "recorder"
    needs_whole_run = True  # it records the user's message (on_user_message)

    def __init__(
        self,
        *,
        capture_state: bool = False,
        partials: bool = False,
        tree: Any = None,
        priority: int = RECORDER_PRIORITY,
    ) -> None:
        super().__init__(priority=priority)
        self.capture_state = _check_flag(capture_state, "capture_state")
        self.partials = _check_flag(partials, "partials")
        self.tree = None if tree is None else tree_summary(tree)
        self.clear()

    # -- the recording -----------------------------------------------------------------------
    def clear(self) -> None:
        """Forget everything recorded so far (the Recorder can then record afresh)."""
        self._seq = 0
        self._model_calls: list[dict[str, Any]] = []
        self._tool_calls: list[dict[str, Any]] = []
        self._events: list[RecordedEvent] = []
        self._problems: list[str] = []
        self._open: OrderedDict[tuple[Any, ...], tuple[dict[str, Any], list[str]]] = OrderedDict()
        self._cut_short: list[tuple[dict[str, Any], list[str]]] = []
        self._tool_index: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._counts: dict[tuple[str | None, str], int] = {}

    def recording(self, *, tree: Any = None) -> Recording:
        """What was recorded so far, as an immutable Recording (`tree` overrides the one given
        to the Recorder)."""
        summary = tree_summary(tree) if tree is not None else self.tree
        header = Header.new(summary, partials=self.partials, state=self.capture_state)
        waiting = self._waiting()
        model_calls = [
            ModelCall(
                **_fields(draft),
                responses=tuple(draft["responses"]),
                unanswered=id(draft) in waiting,
            )
            for draft in self._model_calls
        ]
        problems = list(self._problems)
        unanswered = [draft for draft, _ in waiting.values() if "seq" not in draft]
        for draft, draft_problems in waiting.values():
            if "seq" not in draft:  # never answered: in the place it was asked
                model_calls.append(
                    ModelCall(**_fields(draft), seq=draft["asked"], call=0, unanswered=True)
                )
                problems += draft_problems
        model_calls.sort(key=lambda call: call.seq)
        if unanswered:  # each agent's calls numbered again, the unanswered in their place
            counts: dict[tuple[str | None, str], int] = {}
            for index, model_call_ in enumerate(model_calls):
                counted = (model_call_.session_id, model_call_.agent)
                counts[counted] = counts.get(counted, 0) + 1
                model_calls[index] = replace(model_call_, call=counts[counted])
        tool_calls = tuple(ToolCall(**draft) for draft in self._tool_calls)
        return Recording(
            header, tuple(model_calls), tool_calls, tuple(self._events), tuple(problems)
        )

    def _waiting(self) -> dict[int, tuple[dict[str, Any], list[str]]]:
        """The model calls still in flight, by their draft's id: asked, and given no whole
        reply (partial chunks at most). A call whose agent goes on after a whole reply stays
        open until the agent ends, but is answered."""
        return {
            id(draft): (draft, problems)
            for draft, problems in [*self._cut_short, *self._open.values()]
            if not _answered(draft)
        }

    def save(self, path: str | Path) -> Path:
        """`recording().save(path)`."""
        return self.recording().save(path)

    def as_plugin(self) -> Any:
        """This recorder as an ADK plugin of its own, for an App written by hand:
        `App(root_agent=agent, plugins=[recorder.as_plugin()])`."""
        from adk_fluent.adk.plugins.middleware import MiddlewarePlugin, StackEntry

        check_middleware(self, "Recorder")
        plugin = MiddlewarePlugin([StackEntry(self, None, 0)])
        plugin.name = PLUGIN_NAME
        return plugin

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    # -- model calls -------------------------------------------------------------------------
    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        agent = callback_context.agent_name
        problems: list[str] = []
        draft = {
            "session_id": session_id_of(callback_context),
            "invocation_id": callback_context.invocation_id,
            "agent": agent,
            "path": _tree_path(callback_context, agent),
            "branch": invocation_branch(callback_context),
            "model": llm_request.model if isinstance(llm_request.model, str) else None,
            "request": request_json(llm_request, f"agent '{agent}' model request", problems),
            "responses": [],
            "error": None,
            "asked": self._next_seq(),  # its place if it is never answered
        }
        remember(self._open, model_call(callback_context), (draft, problems), _MAX_OPEN)

    def _commit(self, key: tuple[Any, ...], draft: dict[str, Any], problems: list[str]) -> None:
        """A model call that the model answered enters the recording (a call answered by a
        callback before the model never does: the model was not asked)."""
        if "seq" in draft:
            return
        counted = (draft["session_id"], draft["agent"])
        self._counts[counted] = self._counts.get(counted, 0) + 1
        draft["seq"] = self._next_seq()
        draft["call"] = self._counts[counted]
        self._model_calls.append(draft)
        self._problems += problems

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        key = model_call(callback_context)
        opened = self._open.get(key)
        if opened is None:  # a reply that stands in for a failed call: the error is recorded
            return
        draft, problems = opened
        self._commit(key, draft, problems)
        where = f"agent '{draft['agent']}' model call #{draft['call']} response"
        draft["responses"].append(response_json(llm_response, where, self._problems))

    async def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: BaseException
    ) -> None:
        key = model_call(callback_context)
        opened = self._open.pop(key, None)
        if opened is None:
            return
        draft, problems = opened
        self._commit(key, draft, problems)
        draft["error"] = error_json(error)

    async def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        # its last model call has ended (a call a callback answered never entered) ...
        opened = self._open.pop(model_call(callback_context), None)
        if opened is not None and _cancelled() and not _answered(opened[0]):
            # ... or was cancelled waiting for its model: ADK 2.x calls after_agent then too
            self._cut_short.append(opened)
            del self._cut_short[:-_MAX_OPEN]

    # -- tool calls --------------------------------------------------------------------------
    def _tool_draft(self, tool: Any, tool_args: Any, tool_context: Any) -> dict[str, Any]:
        call_id = getattr(tool_context, "function_call_id", None)
        key = (tool_context.invocation_id, call_id)
        draft = self._tool_index.get(key) if call_id else None
        if draft is not None:
            return draft
        agent = tool_context.agent_name
        name = str(getattr(tool, "name", "") or type(tool).__name__)
        draft = {
            "seq": self._next_seq(),
            "session_id": session_id_of(tool_context),
            "invocation_id": tool_context.invocation_id,
            "agent": agent,
            "path": _tree_path(tool_context, agent),
            "branch": invocation_branch(tool_context),
            "tool": name,
            # ADK's made-up ids differ on every run: kept only when the model gave one
            "call_id": None if str(call_id or "").startswith(ADK_ID_PREFIX) else call_id,
            "args": encode(
                dict(tool_args or {}), f"tool '{name}' of agent '{agent}' args", self._problems
            ),
            "result": None,
            "has_result": False,
            "error": None,
            "actions": {},
        }
        self._tool_calls.append(draft)
        if call_id:
            remember(self._tool_index, key, draft, _MAX_OPEN)
        return draft

    def _actions(self, draft: dict[str, Any], tool_context: Any) -> None:
        actions = getattr(tool_context, "actions", None)
        if actions is None:
            return
        taken = {
            "state_delta": dict(actions.state_delta or {}),
            "transfer_to_agent": actions.transfer_to_agent,
            "escalate": actions.escalate,
            "skip_summarization": actions.skip_summarization,
        }
        taken = {key: value for key, value in taken.items() if value}
        where = f"tool '{draft['tool']}' of agent '{draft['agent']}' actions"
        draft["actions"] = encode(taken, where, self._problems)

    async def after_tool_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, result: Any
    ) -> None:
        draft = self._tool_draft(tool, tool_args, tool_context)
        where = f"tool '{draft['tool']}' of agent '{draft['agent']}' result"
        draft["result"] = encode(result, where, self._problems)
        draft["has_result"] = True
        self._actions(draft, tool_context)

    async def on_tool_error_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, error: BaseException
    ) -> None:
        draft = self._tool_draft(tool, tool_args, tool_context)
        draft["error"] = error_json(error)
        self._actions(draft, tool_context)

    # -- events ------------------------------------------------------------------------------
    def _event(self, invocation_context: Any, **values: Any) -> None:
        session = getattr(invocation_context, "session", None)
        delta = values.get("state_delta") or {}
        where = f"event #{len(self._events) + 1} ({values.get('author')})"
        state = None
        if self.capture_state:
            state = encode(
                _state(getattr(session, "state", None), delta), f"{where} state", self._problems
            )
        self._events.append(
            RecordedEvent(
                seq=self._next_seq(),
                session_id=getattr(session, "id", None),
                invocation_id=getattr(invocation_context, "invocation_id", None),
                state=state,
                **{
                    **values,
                    "state_delta": encode(dict(delta), f"{where} state_delta", self._problems),
                },
            )
        )

    async def on_user_message_callback(self, *, invocation_context: Any, user_message: Any) -> None:
        where = f"event #{len(self._events) + 1} (user)"
        self._event(
            invocation_context,
            author="user",
            content=content_json(user_message, where, self._problems),
        )

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> None:
        if event.partial and not self.partials:
            return
        actions = event.actions
        where = f"event #{len(self._events) + 1} ({event.author})"
        self._event(
            invocation_context,
            author=event.author,
            id=event.id,
            branch=event.branch,
            content=content_json(event.content, where, self._problems),
            state_delta=dict(actions.state_delta or {}) if actions else {},
            artifact_delta=dict(actions.artifact_delta or {}) if actions else {},
            transfer_to_agent=actions.transfer_to_agent if actions else None,
            escalate=bool(actions.escalate) if actions else False,
            error_code=getattr(event, "error_code", None),
            error_message=getattr(event, "error_message", None),
            partial=bool(event.partial),
            final=bool(event.is_final_response()),
        )
