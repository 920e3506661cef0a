"""ReplayerBackend: a backend (like mock_backend) that answers every model call, and by default
every tool call, from a Recording: deterministic, offline, with no model and no side effects.

* Models: `model_for(agent)` installs a ReplayModel on each LLM agent. The n-th model call of
  an agent in a session gets the n-th recorded response of that agent in the matching recorded
  session (a FanOut's branches, which run at once, each keep to their own branch; calls of one
  agent that ran at once, map_over's items, each get the recorded call with their request).
  Before it answers, it compares the request with the recorded one (compare.py: instruction,
  contents, tool names; never ids or timestamps).
* Order: a branch's answer waits until the branches beside it have produced the events they
  had produced before it when recorded, so parallel branches reach the session in the recorded
  order (order.py); a call recorded `unanswered` (a race's loser) waits until the run cancels it.
* Tools: the backend's `middleware` (the engine installs it first in the App) answers each tool
  call from its `before_tool_callback` with the recorded result, after replaying the actions
  the call took (state it wrote, a transfer, an escalation). Agent tools still run: their agents'
  model calls are replayed like any other.
* Sessions: a session replays the recorded session of the same id; a session id the recording
  does not have replays the first recorded session not yet replayed, in the order they began.

A mismatch is a request that differs from the recorded one, a call beyond the recording or a
tool call with other arguments: `on_mismatch="error"` raises ReplayMismatchError naming the
agent, the call and the first difference; `"skip"` answers from the recording anyway (or with
an empty reply beyond it) and notes it in `mismatches`; `"live"` asks `live_model` (and runs
the tool) instead.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from pydantic import PrivateAttr

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.compat import invocation_branch
from adk_fluent.arguments import checked_choice
from adk_fluent.errors import (
    BuildError,
    RecordingError,
    ReplayedError,
    ReplayMismatchError,
    describe_value,
    did_you_mean,
)
from adk_fluent.ir.middleware import Middleware
from adk_fluent.ir.nodes import LlmAgentNode, NativeAgentNode, Node
from adk_fluent.replay.compare import request_difference
from adk_fluent.replay.fingerprint import tree_changes, tree_summary
from adk_fluent.replay.order import Order
from adk_fluent.replay.recorder import RECORDER_PRIORITY, session_id_of
from adk_fluent.replay.recording import ModelCall, Recording, ToolCall
from adk_fluent.replay.values import (
    canonical,
    content_json,
    decode,
    encode,
    request_json,
    response_from_json,
)

MODES = ("error", "skip", "live")
REPLAYER_PRIORITY = RECORDER_PRIORITY - 1  # before a Recorder: it sees what the model will
DEFAULT_MODEL_NAME = "replayed-model"
_PENDING = 4096  # model requests seen by the middleware and not yet answered
_NO_SESSION = "(no recorded session left)"


@dataclass(frozen=True)
class Mismatch:
    """One call that did not match the recording (kept by on_mismatch='skip' and 'live')."""

    agent: str
    call: int  # the agent's call number in its session (1-based)
    kind: str  # "model" or "tool"
    difference: str
    session_id: str | None = None
    tool: str | None = None

    def __str__(self) -> str:
        what = f"tool call #{self.call} ({self.tool})" if self.kind == "tool" else "model call"
        number = "" if self.kind == "tool" else f" #{self.call}"
        return f"agent '{self.agent}', {what}{number}: {self.difference}"


class ReplayModel(BaseLlm):
    """The model a ReplayerBackend installs on one agent: it answers from the recording."""

    model: str = DEFAULT_MODEL_NAME
    agent_name: str = ""
    _backend: Any = PrivateAttr(default=None)

    @classmethod
    def supported_models(cls) -> list[str]:
        """None: a replay model is installed on agents, never looked up by name."""
        return []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """The recorded responses of this agent's next call (see ReplayerBackend)."""
        async for response in self._backend._answer(self.agent_name, llm_request, stream):
            yield response


class _Stream:
    """The recorded calls of one agent (or one tool of one agent) in one recorded session,
    and which of them were replayed."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.used: set[int] = set()
        self.made = 0  # calls the replay made

    def pick(
        self,
        branch: str | None,
        args: Any = None,
        by_args: bool = False,
        request: dict[str, Any] | None = None,
    ) -> Any:
        """The next unused call: in the same branch and with the same arguments (tools) or the
        same request (models: calls of one agent that ran at once, as map_over's items, were
        answered in whatever order their models took) when there is one; else in the same
        branch; else the first unused."""
        unused = [n for n in range(len(self.calls)) if n not in self.used]
        if not unused:
            return None
        order: list[list[int]] = []
        if by_args:
            same = [n for n in unused if canonical(self.calls[n].args) == canonical(args)]
            order += [[n for n in same if self.calls[n].branch == branch], same]
        if request is not None:
            alike = [
                n
                for n in unused
                if self.calls[n].branch == branch
                and request_difference(self.calls[n].request, request) is None
            ]
            order.append(alike)
        order += [[n for n in unused if self.calls[n].branch == branch], unused]
        for candidates in order:
            if candidates:
                self.used.add(candidates[0])
                return self.calls[candidates[0]]
        return None  # pragma: no cover - `unused` is not empty


class _ReplayHooks(Middleware):
    """The backend's middleware: it notes which session and branch each model request belongs
    to (the model itself is not told), and answers tool calls from the recording."""

    name = "replayer"
    needs_whole_run = True  # it sees each turn begin (on_user_message)
    from_backend = True  # put before the config's middleware by the engine, not the user's

    def __init__(self, backend: ReplayerBackend) -> None:
        super().__init__(priority=REPLAYER_PRIORITY)
        self._backend = backend

    async def on_user_message_callback(self, *, invocation_context: Any, user_message: Any) -> None:
        message = content_json(user_message, "user message", [])
        self._backend._slot(session_id_of(invocation_context), message)

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        self._backend._seen(callback_context, llm_request)

    async def before_tool_callback(self, *, tool: Any, tool_args: Any, tool_context: Any) -> Any:
        return await self._backend._tool(tool, tool_args, tool_context)

    async def on_event_callback(self, *, invocation_context: Any, event: Any) -> None:
        self._backend._order.seen(getattr(invocation_context, "invocation_id", None), event)

    async def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        self._backend._order.ended(
            callback_context.invocation_id,
            invocation_branch(callback_context),
            callback_context.agent_name,
        )

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        # a tool's mismatch that no later model call of the turn raised
        self._backend._raise_held(session_id_of(invocation_context))


def _is_agent_tool(tool: Any) -> bool:
    from adk_fluent.adk.native import is_adk_agent_tool

    return is_adk_agent_tool(tool)


def _empty_reply() -> LlmResponse:
    from google.genai import types

    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="")]),
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=0, candidates_token_count=0, total_token_count=0
        ),
    )


def _loaded(recording: Any) -> Recording:
    if isinstance(recording, Recording):
        return recording
    if isinstance(recording, str | Path):
        return Recording.load(recording)
    raise RecordingError(
        f"ReplayerBackend needs a Recording or the path of a saved one, not "
        f"{describe_value(recording)}",
        agent="ReplayerBackend",
        field="recording",
        hint="e.g. ReplayerBackend(Recording.load('recordings/run.json')), "
        "ReplayerBackend('recordings/run.json') or ReplayerBackend(recorder.recording()).",
    )


class ReplayerBackend:
    """A backend answering model (and tool) calls from a recording; see the module docstring.

    backend = ReplayerBackend(Recording.load("recordings/run.json"))
    events = await pipeline.run("hi", backend=backend, session_id="s1")
    """

    def __init__(
        self,
        recording: Recording | str | Path,
        *,
        on_mismatch: str = "error",
        live_model: Any = None,
        replay_tools: bool = True,
    ) -> None:
        checked_choice(
            on_mismatch,
            "ReplayerBackend",
            "on_mismatch",
            MODES,
            hint="'error' raises at the first difference, 'skip' answers from the recording "
            "anyway and notes it, 'live' asks live_model instead.",
        )
        if on_mismatch == "live" and live_model is None:
            raise BuildError(
                "on_mismatch='live' needs a live_model to ask when a call does not match",
                agent="ReplayerBackend",
                field="live_model",
                hint="e.g. ReplayerBackend(recording, on_mismatch='live', "
                "live_model=Gemini(model='gemini-2.5-flash')) (or a model name).",
            )
        if live_model is not None and on_mismatch != "live":
            raise BuildError(
                f"live_model is only asked with on_mismatch='live', and on_mismatch is "
                f"{on_mismatch!r}",
                agent="ReplayerBackend",
                field="live_model",
                hint="add on_mismatch='live', or leave live_model out.",
            )
        if live_model is not None and not (
            isinstance(live_model, str) and live_model.strip() or isinstance(live_model, BaseLlm)
        ):
            raise BuildError(
                f"live_model must be an ADK model (a BaseLlm) or a model name, not "
                f"{describe_value(live_model)}",
                agent="ReplayerBackend",
                field="live_model",
                hint="e.g. live_model='gemini-2.5-flash' or live_model=Gemini(...).",
            )
        if not isinstance(replay_tools, bool):
            raise BuildError(
                f"replay_tools must be True or False, not {describe_value(replay_tools)}",
                agent="ReplayerBackend",
                field="replay_tools",
                hint="True answers tool calls from the recording (tools do not run); "
                "False runs the tools.",
            )
        self.recording = _loaded(recording)
        if not self.recording.model_calls:
            raise RecordingError(
                "the recording holds no model calls, so there is nothing to replay",
                agent="ReplayerBackend",
                field="recording",
                hint="record with the Recorder in the run's middleware "
                "(run(..., config=ExecutionConfig(middleware=[recorder]))), then "
                "recorder.recording().",
            )
        self.on_mismatch = on_mismatch
        self.live_model = live_model
        self.replay_tools = replay_tools
        self.middleware: tuple[Any, ...] = (_ReplayHooks(self),)
        self.tree_changes: tuple[str, ...] = ()
        self._order = Order(self.recording, tools=replay_tools)
        self._sessions = self.recording.sessions
        self._first_messages: dict[str | None, str] = {}
        for event in self.recording.events:
            if event.author == "user" and event.session_id not in self._first_messages:
                self._first_messages[event.session_id] = canonical(event.content)
        self.reset()

    # -- what tests and people look at -------------------------------------------------------
    def reset(self) -> None:
        """Start the recording over (forget which calls were replayed, and the mismatches)."""
        self.mismatches: list[Mismatch] = []
        self._order.reset()
        self.requests: dict[str, list[LlmRequest]] = {}
        self._held: dict[str | None, Exception] = {}
        self._claimed: dict[str | None, str | None] = {}
        self._pending: OrderedDict[
            int, tuple[Any, str | None, str | None, dict[str, Any], str | None]
        ] = OrderedDict()
        self._models: dict[tuple[str | None, str], _Stream] = {}
        self._tools: dict[tuple[str | None, str, str], _Stream] = {}
        for call in self.recording.model_calls:
            self._models.setdefault((call.session_id, call.agent), _Stream()).calls.append(call)
        for tool in self.recording.tool_calls:
            key = (tool.session_id, tool.agent, tool.tool)
            self._tools.setdefault(key, _Stream()).calls.append(tool)

    def unused(self) -> list[ModelCall | ToolCall]:
        """The recorded calls no replayed call has used, in the order they were recorded."""
        left: list[ModelCall | ToolCall] = []
        for streams in (self._models, self._tools):
            for stream in streams.values():
                left += [c for n, c in enumerate(stream.calls) if n not in stream.used]
        return sorted(left, key=lambda call: call.seq)

    def assert_consumed(self) -> None:
        """Fail when recorded model calls were never replayed (the run did less than the
        recorded one); tool calls count only when tools are replayed, and a call recorded
        `unanswered` never counts (a race's loser may be cancelled before it asks)."""
        left = [
            c
            for c in self.unused()
            if isinstance(c, ModelCall)
            and not c.unanswered
            or isinstance(c, ToolCall)
            and self.replay_tools
        ]
        if left:
            first = left[0]
            what = (
                f"model call #{first.call}"
                if isinstance(first, ModelCall)
                else f"tool call {first.tool}"
            )
            raise ReplayMismatchError(
                f"replay: {len(left)} recorded call(s) were never replayed; the first is "
                f"agent '{first.agent}', {what}",
                agent=first.agent,
                call=first.call if isinstance(first, ModelCall) else 0,
                difference="never replayed",
                kind="model" if isinstance(first, ModelCall) else "tool",
                hint="the run did less than the recorded one (a changed route, an agent "
                "removed); compare the two with diff_events(recording, new_recording).",
            )

    # -- the backend protocol ----------------------------------------------------------------
    def model_for(self, agent_name: str) -> ReplayModel:
        """The model to install on `agent_name`: named like the model it was recorded with."""
        model = next(
            (c.model for c in self.recording.model_calls if c.agent == agent_name and c.model),
            None,
        ) or next((c.model for c in self.recording.model_calls if c.model), DEFAULT_MODEL_NAME)
        replay = ReplayModel(model=model, agent_name=agent_name)
        replay._backend = self
        return replay

    def check_tree(self, root: Node) -> None:
        """Note how the tree differs from the recorded one (`tree_changes`), and refuse a
        recording made for other agents: none of the tree's agents in it, or (with
        on_mismatch='error') recorded agents the tree does not have."""
        self.tree_changes = tuple(tree_changes(self.recording.header.tree, tree_summary(root)))
        self._order.tree(root)
        names = {n.name for n in root.walk() if isinstance(n, LlmAgentNode)}
        names.update(
            name
            for node in root.walk()
            if isinstance(node, NativeAgentNode)
            for name in node.llm_agents
        )
        recorded = self.recording.agents
        if not names & set(recorded) and self.on_mismatch != "live":
            raise RecordingError(
                "the recording has no model calls for any agent of this tree "
                f"(recorded: {', '.join(recorded)})",
                agent=root.name,
                field="recording",
                hint=did_you_mean(recorded[0], names)
                or "is it the recording of this pipeline? Record it with the Recorder in its "
                "middleware.",
            )
        if self.on_mismatch == "error":
            for agent in recorded:
                if agent not in names:
                    count = sum(1 for c in self.recording.model_calls if c.agent == agent)
                    raise RecordingError(
                        f"the recording has {count} model call(s) for agent '{agent}', which "
                        "this tree does not have",
                        agent=agent,
                        field="recording",
                        hint=did_you_mean(agent, names)
                        or "the tree changed since it was recorded: record it again, or replay "
                        "with on_mismatch='skip' and compare the recordings with diff_events.",
                    )

    # -- sessions ----------------------------------------------------------------------------
    def _slot(self, session_id: str | None, message: Any = None) -> str | None:
        """The recorded session a replayed session replays (see the module docstring): the
        same id; else the first recorded session not yet replayed that began with the same
        user message (`message`, recorded form), else the first not yet replayed."""
        if session_id in self._claimed:
            return self._claimed[session_id]
        taken = set(self._claimed.values())
        if session_id in self._sessions and session_id not in taken:
            slot: str | None = session_id
        else:
            free = [s for s in self._sessions if s not in taken]
            if message is not None:  # an agent tool's sub-run begins with the call's arguments
                said = canonical(message)
                free = [s for s in free if self._first_messages.get(s) == said] + free
            slot = free[0] if free else _NO_SESSION
        self._claimed[session_id] = slot
        return slot

    # -- model calls -------------------------------------------------------------------------
    def _seen(self, callback_context: Any, llm_request: Any) -> None:
        problems: list[str] = []  # values that cannot be stored still compare by their tag
        snapshot = request_json(llm_request, "request", problems)
        remember(
            self._pending,
            id(llm_request),
            (
                llm_request,
                session_id_of(callback_context),
                invocation_branch(callback_context),
                snapshot,
                callback_context.invocation_id,
            ),
            _PENDING,
        )

    def _mismatch(
        self,
        agent: str,
        call: int,
        difference: str,
        session: str | None,
        kind: str = "model",
        tool: str | None = None,
        *,
        recorded_given: bool = False,
    ) -> None:
        # the run goes on from something the recording does not hold (an error raised, a live
        # answer, an empty reply beyond the recording): nothing in the session waits for the
        # recorded order any longer. A recorded answer given anyway ('skip') keeps the order.
        if not (recorded_given and self.on_mismatch == "skip"):
            self._order.diverged(session)
        if self.on_mismatch == "error":
            where = f"tool call #{call} ({tool})" if kind == "tool" else f"model call #{call}"
            raise ReplayMismatchError(
                f"replay: agent '{agent}', {where} does not match the recording: {difference}",
                agent=agent,
                call=call,
                difference=difference,
                kind=kind,
                hint="the pipeline changed since it was recorded: record it again, or replay "
                "with on_mismatch='skip' and compare the recordings (diff_events).",
            )
        self.mismatches.append(Mismatch(agent, call, kind, difference, session, tool))

    def _hold(self, session_id: str | None, error: Exception) -> dict[str, str]:
        """Keep a tool call's error for the session's next model call to raise (or the end of
        its turn), and answer the tool meanwhile: ADK wraps what a plugin raises in a
        RuntimeError and a model's error it does not, so the error reaches the caller as
        itself. The tool never runs."""
        self._held.setdefault(session_id, error)
        return {"error": str(error).splitlines()[0]}

    def _raise_held(self, session_id: str | None) -> None:
        error = self._held.pop(session_id, None)
        if error is not None:
            raise error

    async def _answer(
        self, agent: str, request: LlmRequest, stream: bool
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.setdefault(agent, []).append(request)
        pending = self._pending.pop(id(request), None)
        invocation: str | None = None
        if pending is not None and pending[0] is request:
            _, session_id, branch, current, invocation = pending
        else:  # no middleware saw it (an App without the backend's middleware)
            session_id, branch = None, None
            current = request_json(request, "request", [])
        self._raise_held(session_id)
        slot = self._slot(session_id)
        stream_of = self._models.setdefault((slot, agent), _Stream())
        stream_of.made += 1
        number = stream_of.made
        recorded: ModelCall | None = stream_of.pick(branch, request=current)
        if recorded is None:
            if agent not in self.recording.agents:
                beyond = (
                    f"the recording has no model calls for agent '{agent}' "
                    f"(recorded agents: {', '.join(self.recording.agents)})"
                )
            else:
                beyond = (
                    f"a call beyond the recording: agent '{agent}' has "
                    f"{len(stream_of.calls)} recorded model call(s) in this session"
                )
            self._mismatch(agent, number, beyond, session_id)
            async for response in self._instead(request, stream):
                yield response
            return
        difference = request_difference(recorded.request, current)
        if difference is not None:
            self._mismatch(agent, number, difference, session_id, recorded_given=True)
            if self.on_mismatch == "live":
                async for response in self._instead(request, stream):
                    yield response
                return
        # the reply in the recorded order (order.py): partial chunks that were not recorded as
        # events come at once, the first event the recording holds waits
        waits = pending is not None
        if recorded.unanswered:
            if waits:
                await self._order.wait(session_id, invocation, self._order.needs(recorded))
            async for response in self._unanswered(recorded, request, stream, session_id):
                yield response
            return
        try:
            responses = self._recorded_responses(recorded, stream)
        except ReplayedError:
            if waits:
                await self._order.wait(session_id, invocation, self._order.needs(recorded))
            self._order.answered(recorded)
            raise
        for response in responses:
            if waits and (self._order.partials or not response.partial):
                await self._order.wait(session_id, invocation, self._order.needs(recorded))
                waits = False
                self._order.answered(recorded)
            yield response
        self._order.answered(recorded)

    async def _unanswered(
        self, recorded: ModelCall, request: LlmRequest, stream: bool, session_id: str | None
    ) -> AsyncGenerator[LlmResponse, None]:
        """A call that had no answer when the recording was taken: its partial chunks, then
        it waits, as it did, until the run cancels it. If the run diverges instead, it is a
        mismatch: the run waited for a call the recorded run had given up on."""
        if stream:
            for n, data in enumerate(recorded.responses):
                where = f"agent '{recorded.agent}' model call #{recorded.call} response #{n + 1}"
                yield response_from_json(data, where)
        self._order.answered(recorded)  # asked, as when recorded: what waits for that goes on
        await self._order.hang(session_id)
        self._mismatch(
            recorded.agent,
            recorded.call,
            "the recorded call was never answered (the recorded run cancelled it: a race it "
            "lost, a branch cut short, a timeout), and this run waited for it",
            session_id,
        )
        async for response in self._instead(request, stream):
            yield response

    def _recorded_responses(self, recorded: ModelCall, stream: bool) -> list[LlmResponse]:
        where = f"agent '{recorded.agent}' model call #{recorded.call}"
        if recorded.error is not None and not recorded.responses:
            raise ReplayedError(
                f"replay: {where} failed when it was recorded: {recorded.error.get('type')}: "
                f"{recorded.error.get('message')}",
                original_type=str(recorded.error.get("type")),
                original_message=str(recorded.error.get("message")),
            )
        responses = [
            response_from_json(data, f"{where} response #{n + 1}")
            for n, data in enumerate(recorded.responses)
        ]
        if not stream:  # partial chunks only make sense to a streaming caller
            whole = [response for response in responses if not response.partial]
            responses = whole or responses[-1:]
        return responses

    async def _instead(
        self, request: LlmRequest, stream: bool
    ) -> AsyncGenerator[LlmResponse, None]:
        """What answers a call the recording cannot: an empty reply, or with
        on_mismatch='live' the live model's."""
        if self.on_mismatch != "live":
            yield _empty_reply()
            return
        model: Any = self.live_model
        if isinstance(model, str):
            from google.adk.models.registry import LLMRegistry

            model = self.live_model = LLMRegistry.new_llm(model)
        async for response in model.generate_content_async(request, stream=stream):
            yield response

    # -- tool calls --------------------------------------------------------------------------
    async def _tool(self, tool: Any, tool_args: Any, tool_context: Any) -> Any:
        if not self.replay_tools or _is_agent_tool(tool):
            return None  # an agent tool runs: its agents' model calls are replayed
        try:
            return await self._tool_answer(tool, tool_args, tool_context)
        except (ReplayMismatchError, ReplayedError) as error:
            return self._hold(session_id_of(tool_context), error)

    async def _tool_answer(self, tool: Any, tool_args: Any, tool_context: Any) -> Any:
        agent = tool_context.agent_name
        name = str(getattr(tool, "name", "") or type(tool).__name__)
        session_id = session_id_of(tool_context)
        slot = self._slot(session_id)
        stream_of = self._tools.setdefault((slot, agent, name), _Stream())
        stream_of.made += 1
        number = stream_of.made
        args = encode(dict(tool_args or {}), "args", [])
        recorded: ToolCall | None = stream_of.pick(
            invocation_branch(tool_context), args, by_args=True
        )
        if recorded is None:
            self._mismatch(
                agent,
                number,
                f"a call beyond the recording: tool '{name}' has {len(stream_of.calls)} "
                f"recorded call(s) by agent '{agent}' in this session",
                session_id,
                "tool",
                name,
            )
            if self.on_mismatch == "live":
                return None
            return {"error": f"replay: no recorded result for this call of '{name}'"}
        if canonical(recorded.args) != canonical(args):
            self._mismatch(
                agent,
                number,
                f"arguments changed: recorded {canonical(recorded.args)}, now {canonical(args)}",
                session_id,
                "tool",
                name,
                recorded_given=True,
            )
            if self.on_mismatch == "live":
                return None
        # its result in the recorded order (order.py)
        await self._order.wait(session_id, tool_context.invocation_id, self._order.needs(recorded))
        self._order.answered(recorded)
        return self._recorded_result(recorded, tool_context)

    def _recorded_result(self, recorded: ToolCall, tool_context: Any) -> Any:
        where = f"tool '{recorded.tool}' of agent '{recorded.agent}'"
        actions = decode(recorded.actions or {}, f"{where} actions")
        for key, value in (actions.get("state_delta") or {}).items():
            tool_context.state[key] = value  # into this call's own state_delta, as the tool did
        taken = tool_context.actions
        if actions.get("transfer_to_agent"):
            taken.transfer_to_agent = actions["transfer_to_agent"]
        if actions.get("escalate"):
            taken.escalate = True
        if actions.get("skip_summarization"):
            taken.skip_summarization = True
        if not recorded.has_result:
            error = recorded.error or {}
            raise ReplayedError(
                f"replay: {where} failed when it was recorded: {error.get('type')}: "
                f"{error.get('message')}",
                original_type=str(error.get("type")),
                original_message=str(error.get("message")),
            )
        result = decode(recorded.result, f"{where} result")
        # None would let the tool run; ADK stores a None result as {"result": None} anyway
        return {"result": None} if result is None else result
