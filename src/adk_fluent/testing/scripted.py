"""ScriptedModel: a real ADK `BaseLlm` that answers from scripts, for offline, deterministic runs.

Every call goes through ADK's own flow (tools, callbacks, state, session services); only the
model's answers are scripted. Each agent has its own script; a call beyond the script, or a
script not fully consumed, is a test failure with a message saying which agent and which step.

Streaming (`RunConfig(streaming_mode=SSE)`, `stream(..., streaming="sse")`): a text step is
answered as one partial response per word and then the whole reply; `streamed(...)` shapes the
partial stream itself (given chunks, a pause before each, an error part way through).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from adk_fluent.arguments import checked_count, checked_instance, checked_seconds, checked_text
from adk_fluent.errors import BuildError, ScriptError, describe_value
from adk_fluent.testing.live import (
    LIVE_ANSWERS,
    InterruptStep,
    LiveTurn,
    ScriptedConnection,
    live_step_kinds,
)

SHARED = "*"  # the script used by agents that have none of their own (single-agent tests)

# The default model name: ADK's built-in Gemini tools (google_search, url_context, built-in code
# execution) look at the request's model name (google.adk.utils.model_name_utils) and refuse a
# non-Gemini one; on the oldest supported ADK url_context and code execution also want Gemini 2
# or later. "gemini-2.5-flash-scripted" passes every one of those checks on both ends, and its
# "-scripted" suffix keeps it from passing for a real model in logs and traces.
DEFAULT_MODEL = "gemini-2.5-flash-scripted"


@dataclass(frozen=True)
class FunctionCallStep:
    """A scripted function (tool) call."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


def call(tool_name: str, **args: Any) -> FunctionCallStep:
    """A script step that makes the model call a tool: `call("book", city="Paris")`."""
    return FunctionCallStep(tool_name, args)


@dataclass(frozen=True)
class RepeatStep:
    """A group of script steps answered again and again (`repeat(...)`); `times=None` is every
    later call."""

    steps: tuple[Any, ...]
    times: int | None = None

    def __repr__(self) -> str:
        shown = ", ".join(repr(step) for step in self.steps)
        return f"repeat({shown}, times={self.times})"


def repeat(step: Any, *more: Any, times: int | None = None) -> RepeatStep:
    """A script step answered repeatedly: `repeat("ok")` answers every later call with "ok";
    `repeat(call("lookup", q="x"), "Found it.", times=3)` plays that pair three times (six
    model calls). A step may be a function of the LlmRequest, called afresh for each call.

    `times=None` (the default) never runs out, so nothing can follow it in a script; such a
    repeat counts as consumed (`assert_consumed()`) once it has answered at least once, and a
    repeat that never answered is reported as unused. A repeat with a count is consumed when
    all its rounds have been played."""
    if times is not None:
        checked_count(
            times,
            None,
            "times",
            least=1,
            hint="repeat(step, times=3) answers three times; repeat(step) answers every later "
            "call; leave out a step that should never answer.",
        )
    steps = (step, *more)
    if any(isinstance(inner, RepeatStep) for inner in steps):
        raise BuildError(
            "a repeat cannot hold another repeat",
            field="repeat",
            hint="put the steps of one round side by side: repeat(a, b, times=n).",
        )
    return RepeatStep(steps, times)


def text(value: str) -> str:
    """A script step answering with text (plain strings work too)."""
    return value


def delay(seconds: float, then: Any) -> Callable[[LlmRequest], Any]:
    """A script step that takes `seconds` (asynchronously, so it can be cancelled) and then
    answers `then`: any step, a function of the request too (it is called after the wait). The
    returned step's `.cancelled` list records each cancellation."""
    checked_seconds(
        seconds, None, "seconds", positive=False, hint="e.g. delay(0.5, 'Late reply.')."
    )
    cancelled: list[float] = []

    async def step(request: LlmRequest) -> Any:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            cancelled.append(seconds)
            raise
        return then

    step.cancelled = cancelled  # type: ignore[attr-defined]
    return step


@dataclass(frozen=True)
class StreamStep:
    """A script step answered chunk by chunk (`streamed`): the chunks, the pause before each,
    and an optional error raised after the last chunk instead of the whole reply."""

    chunks: tuple[str, ...]
    gap: float = 0.0
    error: BaseException | None = None
    cancelled: list[float] = field(default_factory=list, compare=False, repr=False)

    @property
    def text(self) -> str:
        """The whole reply: the chunks joined."""
        return "".join(self.chunks)

    def __repr__(self) -> str:
        shown = ", ".join(repr(chunk) for chunk in self.chunks)
        return f"streamed({shown}, gap={self.gap:g})"


def streamed(*chunks: str, gap: float = 0.0, error: BaseException | None = None) -> StreamStep:
    """A script step answered in the given chunks: `streamed("Hel", "lo ", "there", gap=0.05)`.

    In a streaming run (SSE) each chunk is a partial response, sent `gap` seconds after the one
    before (the first `gap` seconds after the call), and then the whole reply (the chunks
    joined) is the final response, as a real model streams. Without streaming the model waits
    as long in all (`gap` per chunk) and answers the whole reply. With `error=`, that exception
    is raised after the last chunk instead of the whole reply (a model failing mid-stream). The
    waits can be cancelled; the step's `.cancelled` list records the seconds it had left to
    wait in all at each cancellation."""
    if not chunks:
        raise BuildError(
            "streamed() needs at least one chunk of text",
            field="chunks",
            hint='e.g. streamed("Hello ", "there", gap=0.05).',
        )
    for index, chunk in enumerate(chunks):
        if not isinstance(chunk, str) or not chunk:
            raise BuildError(
                f"chunk #{index + 1} of streamed() is {describe_value(chunk)}; each chunk is "
                "non-empty text",
                field="chunks",
                hint="pass the chunks one by one: streamed(*chunks)."
                if isinstance(chunk, list | tuple)
                else 'e.g. streamed("Hello ", "there"); for a tool call use call(...).',
            )
    gap = checked_seconds(
        gap, None, "gap", positive=False, hint='e.g. streamed("Hello ", "there", gap=0.05).'
    )
    if error is not None:
        checked_instance(
            error,
            None,
            "error",
            BaseException,
            what="an exception to raise mid-stream",
            hint='e.g. streamed("Hel", "lo", error=RuntimeError("model down")).',
        )
    return StreamStep(tuple(chunks), gap, error)


@dataclass(frozen=True)
class UsageStep:
    """A script step answered with given token counts (`with_usage`)."""

    step: Any
    input: int
    output: int
    cached: int = 0
    thinking: int = 0


def with_usage(
    step: Any, *, input: int, output: int, cached: int = 0, thinking: int = 0
) -> UsageStep:
    """A script step whose response reports these token counts in its `usage_metadata`
    (`input` is the whole prompt, `cached` of it served from a context cache, as Gemini counts
    them); other steps report 8 input and 4 output tokens."""
    counts = {"input": input, "output": output, "cached": cached, "thinking": thinking}
    for name, value in counts.items():
        checked_count(
            value, None, name, least=0, hint="e.g. with_usage('Done.', input=1200, output=80)."
        )
    if cached > input:
        raise BuildError(
            f"cached ({cached}) cannot exceed input ({input}): the prompt count includes them",
            field="cached",
            hint="e.g. with_usage('Done.', input=1200, cached=1000, output=80).",
        )
    if isinstance(step, UsageStep | RepeatStep):
        raise BuildError(
            "with_usage wraps one answer, not another with_usage or a repeat",
            field="step",
            hint="repeat(with_usage('ok', input=10, output=2), times=3).",
        )
    return UsageStep(step, input, output, cached, thinking)


def _usage(
    prompt: int = 8, output: int = 4, cached: int = 0, thinking: int = 0
) -> types.GenerateContentResponseUsageMetadata:
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt,
        candidates_token_count=output,
        cached_content_token_count=cached or None,
        thoughts_token_count=thinking or None,
        total_token_count=prompt + output + thinking,
    )


def _response_for(step: Any, agent: str = SHARED) -> LlmResponse:
    if isinstance(step, LlmResponse):
        return step
    if isinstance(step, FunctionCallStep):
        part = types.Part(function_call=types.FunctionCall(name=step.name, args=step.args))
        return LlmResponse(
            content=types.Content(role="model", parts=[part]), usage_metadata=_usage()
        )
    if isinstance(step, str):
        body = step
    elif isinstance(step, StreamStep):
        body = step.text
    else:
        try:
            body = json.dumps(step)
        except (TypeError, ValueError):
            raise BuildError(
                f"a function step answered {describe_value(step)}, which is no step",
                agent=None if agent == SHARED else agent,
                field="script",
                hint=_STEP_KINDS,
            ) from None
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=body)]), usage_metadata=_usage()
    )


def _check_script(agent: str, steps: list[Any]) -> None:
    """Every step is one (checked when the script is made, not at the call that reaches it); a
    repeat without a count answers every later call: a step after it could never run."""
    for index, step in enumerate(steps):
        for inner in step.steps if isinstance(step, RepeatStep) else (step,):
            if isinstance(inner, UsageStep):
                inner = inner.step
            if not _is_step(inner):
                raise BuildError(
                    f"script step #{index + 1} is {describe_value(inner)}, which is no step",
                    agent=None if agent == SHARED else agent,
                    field="script",
                    hint=_STEP_KINDS,
                )
    for index, step in enumerate(steps[:-1]):
        if isinstance(step, RepeatStep) and step.times is None:
            raise BuildError(
                f"script step #{index + 2} follows an endless repeat and could never answer",
                agent=None if agent == SHARED else agent,
                field="script",
                hint="give the repeat a count (repeat(step, times=3)) or make it the last step.",
            )


_STEP_KINDS = (
    "a step is text, a JSON value, call(...), an LlmResponse, an exception, delay(...), "
    "streamed(...), with_usage(...) or a function of the request returning one of those."
)


def _is_step(step: Any) -> bool:
    """Whether the kit can answer with `step` (a function's answer is checked when it comes)."""
    if isinstance(step, str | FunctionCallStep | LlmResponse | StreamStep | BaseException):
        return True
    if isinstance(step, live_step_kinds()):
        return True
    if callable(step):  # a function, delay(...), an exception class
        return True
    try:
        json.dumps(step)
    except (TypeError, ValueError):
        return False
    return True


@dataclass
class _Cursor:
    """Where one script stands: the step, and inside a repeat the round and the step of it."""

    position: int = 0
    rounds: int = 0  # rounds of the current repeat finished
    within: int = 0  # steps of the current round played
    calls: int = 0  # model calls this script has answered


class _ScriptBook:
    """Scripts and recorded requests shared by every per-agent view of one ScriptedModel."""

    def __init__(self, scripts: Mapping[str, Iterable[Any]]) -> None:
        self.scripts: dict[str, list[Any]] = {name: list(steps) for name, steps in scripts.items()}
        for name, steps in self.scripts.items():
            _check_script(name, steps)
        self.cursors: dict[str, _Cursor] = {name: _Cursor() for name in self.scripts}
        self.requests: dict[str, list[LlmRequest]] = {}
        self.calls: list[tuple[str, LlmRequest]] = []
        self.live_inputs: dict[str, list[tuple[Any, ...]]] = {}  # what live connections were sent

    def next_step(self, agent: str, request: LlmRequest) -> Any:
        self.requests.setdefault(agent, []).append(request)
        self.calls.append((agent, request))
        key = agent if agent in self.scripts else SHARED
        if key not in self.scripts:
            raise ScriptError(
                f"ScriptedModel: agent '{agent}' called the model, but there is no script for it "
                f"(scripted agents: {', '.join(sorted(self.scripts)) or 'none'})."
            )
        cursor = self.cursors[key]
        steps = self.scripts[key]
        if cursor.position >= len(steps):
            raise ScriptError(
                f"ScriptedModel: unexpected model call #{cursor.calls + 1} by agent '{agent}': its "
                f"script has {_answers(steps)}. Last content in the request: "
                f"{_last_text(request)!r}"
            )
        cursor.calls += 1
        step = steps[cursor.position]
        if not isinstance(step, RepeatStep):
            cursor.position += 1
            return step
        answer = step.steps[cursor.within]
        cursor.within += 1
        if cursor.within == len(step.steps):  # a round is over
            cursor.within = 0
            cursor.rounds += 1
            if step.times is not None and cursor.rounds == step.times:
                cursor.position, cursor.rounds = cursor.position + 1, 0
        return answer

    def unconsumed(self) -> dict[str, list[Any]]:
        """Per script, the steps never used: an endless repeat counts as used once it has
        answered (a round it left half-played reports the rest of that round)."""
        left: dict[str, list[Any]] = {}
        for name, steps in self.scripts.items():
            cursor = self.cursors[name]
            rest = steps[cursor.position :]
            current = rest[0] if rest else None
            if isinstance(current, RepeatStep) and (cursor.rounds or cursor.within):
                rest = [*_rest_of_repeat(current, cursor), *rest[1:]]
            if rest:
                left[name] = rest
        return left


def _rest_of_repeat(step: RepeatStep, cursor: _Cursor) -> list[Any]:
    """What a started repeat still owes: the rest of the round being played, then the rounds
    to come (none for an endless repeat: it is consumed once it has answered)."""
    rest: list[Any] = list(step.steps[cursor.within :]) if cursor.within else []
    if step.times is not None:
        rounds = step.times - cursor.rounds - (1 if cursor.within else 0)
        if rounds:
            rest.append(RepeatStep(step.steps, rounds))
    return rest


def _answers(steps: list[Any]) -> str:
    """How many model calls a script answers, for the 'unexpected call' message."""
    total = sum(
        len(step.steps) * (step.times or 0) if isinstance(step, RepeatStep) else 1 for step in steps
    )
    if total == len(steps):
        return f"{total} step(s)"
    return f"{len(steps)} step(s), {total} answer(s) in all"


def _last_text(request: LlmRequest) -> str:
    for content in reversed(request.contents or []):
        for part in content.parts or []:
            if part.text:
                return part.text[:120]
    return ""


def _check_model_name(model: Any) -> None:
    """The scripted model's name: text ADK can put in a request (its built-in tools read it)."""
    checked_text(
        model,
        None,
        "model",
        what="non-empty text",
        shown="a scripted model's name",
        hint=f"leave it out for the default {DEFAULT_MODEL!r} (ADK's built-in Gemini tools "
        "accept it), or pass a name such as model='my-local-model'.",
    )


# The user's message of each request a scripted agent was sent, by the request's id (with a weak
# reference that drops the entry when the request is gone, so an id is never read for another).
_heard: dict[int, tuple[weakref.ref[LlmRequest], str]] = {}


def user_message(request: LlmRequest) -> str:
    """The text of the user's own message in the turn `request` belongs to: what they sent to
    `run()` / `ask()` (inside an agent tool, the request the calling agent sent it).

    A request's contents hold it among other user-role contents: other agents' replies (ADK
    shows them to a model as user-role context) and tool results. So "the last user-role text"
    can be another agent's words; this is the user's, for a function step or an assertion:

        mock_backend({"writer": lambda request: f"About {user_message(request)}."})

    Known for the requests of agents adk-fluent compiled with a scripted model (mock_backend,
    or a ScriptedModel given to an Agent); ScriptError for another request."""
    entry = _heard.get(id(request))
    if entry is None or entry[0]() is not request:
        raise ScriptError(
            "user_message(request): this request was not sent to a scripted agent adk-fluent "
            "compiled (run it with backend=mock_backend({...}), or give the Agent a "
            "ScriptedModel); ADK's own agents built elsewhere are not told the user's message."
        )
    return entry[1]


def _forget(request_id: int) -> Callable[[Any], None]:
    def forget(_: Any) -> None:
        _heard.pop(request_id, None)

    return forget


class ScriptedModel(BaseLlm):
    """A scripted `BaseLlm`.

    `ScriptedModel(["hi"])` answers any agent from one script; `ScriptedModel({"a": [...], "b": [...]})`
    keeps a script per agent and `.for_agent(name)` gives the model to install on that agent
    (`mock_backend` does this for a whole tree). A step is text, a JSON-able value (sent as JSON
    text), `call(tool, **args)`, an `LlmResponse`, an exception to raise, a function of the
    `LlmRequest` returning any of those, `streamed(chunk, ..., gap=s)` (text answered in given
    chunks, paced, in streaming runs) or `repeat(step, ..., times=n)`.

    `model=` is the name ADK sees (in every LlmRequest, and where its built-in tools check it).
    The default, "gemini-2.5-flash-scripted", is one ADK's Gemini-only tools (google_search,
    url_context, built-in code execution) accept, so agents using them run offline; ADK then
    treats the model as a Gemini 2.5 wherever it decides by name (e.g. with
    GOOGLE_GENAI_USE_VERTEXAI set, an output_schema is paired with tools as on Vertex). Pass
    another name to see what ADK does for that model (a non-Gemini name makes those tools
    refuse, as they would for a real one).
    """

    model: str = DEFAULT_MODEL
    agent_name: str = SHARED
    _book: _ScriptBook = PrivateAttr()

    def __init__(
        self, scripts: Mapping[str, Iterable[Any]] | Iterable[Any] | None = None, **data: Any
    ) -> None:
        book = data.pop("book", None)
        if "model" in data:
            _check_model_name(data["model"])
        super().__init__(**data)
        if book is None:
            if scripts is None:
                scripts = {}
            if not isinstance(scripts, Mapping):
                scripts = {SHARED: list(scripts)}
            book = _ScriptBook(scripts)
        self._book = book

    def for_agent(self, agent_name: str) -> ScriptedModel:
        """The view of this model to install on agent `agent_name` (shares scripts and records)."""
        return ScriptedModel(model=self.model, agent_name=agent_name, book=self._book)

    @property
    def requests(self) -> dict[str, list[LlmRequest]]:
        """Every LlmRequest received, per agent, in order (a live connection's request once
        per answer it gave)."""
        return self._book.requests

    @property
    def live_inputs(self) -> dict[str, list[tuple[Any, ...]]]:
        """What live connections were sent, per agent, in order (adk_fluent.testing.live)."""
        return self._book.live_inputs

    @contextlib.asynccontextmanager
    async def connect(self, llm_request: LlmRequest) -> AsyncIterator[Any]:
        """A live connection answering from this agent's script (`Runner.run_live`,
        `pipeline.live()`): adk_fluent.testing.live says what each step answers."""
        agent = self.agent_name
        connection = ScriptedConnection(
            lambda: self._book.next_step(agent, llm_request),
            lambda step: _play_live(step, llm_request, agent),
            self._book.live_inputs.setdefault(agent, []),
        )
        try:
            yield connection
        finally:
            await connection.close()

    @property
    def calls(self) -> list[tuple[str, LlmRequest]]:
        """Every (agent, LlmRequest) in call order."""
        return self._book.calls

    @property
    def scripted_agents(self) -> frozenset[str]:
        return frozenset(self._book.scripts)

    def assert_consumed(self) -> None:
        """Fail when any script has steps left (the run did less than the test expected).

        A `repeat(...)` with a count is used up when all its rounds were played; an endless one
        (`times=None`) counts as used once it has answered at least once, and is reported when
        it never answered (the agent it scripts never called the model)."""
        left = self._book.unconsumed()
        if left:
            detail = "; ".join(
                f"agent '{name}': {len(steps)} left, next {steps[0]!r}"
                for name, steps in left.items()
            )
            raise ScriptError(f"ScriptedModel: scripted steps were never used: {detail}")

    def note_user_message(self, callback_context: Any, llm_request: LlmRequest) -> None:
        """Remember the run's user message for `user_message(llm_request)` (adk-fluent's
        compiler installs this as the agent's last before-model callback)."""
        content = getattr(callback_context, "user_content", None)
        parts = getattr(content, "parts", None) or []
        text = "".join(part.text for part in parts if part.text and not part.thought)
        _heard[id(llm_request)] = (weakref.ref(llm_request, _forget(id(llm_request))), text)

    @classmethod
    def supported_models(cls) -> list[str]:
        """Names this class answers to in ADK's model registry, if someone registers it: the
        scripted names only (never a real Gemini name, which must reach the real model)."""
        return [r"scripted-.*", r".*-scripted"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        step, counted = await resolve_step(
            self._book.next_step(self.agent_name, llm_request), llm_request, self.agent_name
        )
        if isinstance(step, BaseException) or (
            isinstance(step, type) and issubclass(step, BaseException)
        ):
            raise step
        if isinstance(step, live_step_kinds()):
            raise ScriptError(
                f"ScriptedModel: agent '{self.agent_name}' was called outside a live run, but "
                f"its next step is {step!r}, which only a live connection answers "
                "(pipeline.live(...))"
            )
        response = _response_for(step, self.agent_name)
        if counted is not None:
            response = response.model_copy(
                update={
                    "usage_metadata": _usage(
                        counted.input, counted.output, counted.cached, counted.thinking
                    )
                }
            )
        if isinstance(step, StreamStep):
            async for partial in _stream_of(step, stream):
                yield partial
        elif stream and isinstance(step, str) and step:
            words = step.split(" ")
            for index, word in enumerate(words):
                yield _partial(word + (" " if index < len(words) - 1 else ""))
        yield response


_MAX_RESOLUTIONS = 16  # functions answering functions: more is a loop, not a script


async def resolve_step(step: Any, request: LlmRequest, agent: str) -> tuple[Any, UsageStep | None]:
    """The answer a script step stands for: its function called (awaited) until it answers a
    step, and its `with_usage` counts apart."""
    counted: UsageStep | None = None
    for _ in range(_MAX_RESOLUTIONS):
        if isinstance(step, UsageStep) and counted is None:
            counted, step = step, step.step
        elif _is_function_step(step):
            step = step(request)  # a function, delay(...) too: what it answers is a step
            if inspect.isawaitable(step):
                step = await step
        else:
            break
    else:
        raise ScriptError(
            f"ScriptedModel: a function step of agent '{agent}' kept answering "
            f"with functions ({_MAX_RESOLUTIONS} in a row); a function step answers a step."
        )
    if isinstance(step, RepeatStep):
        raise BuildError(
            "a function step answered repeat(...), which belongs in the script itself",
            agent=None if agent == SHARED else agent,
            field="script",
            hint="put the repeat in the script: repeat(my_function) calls the function for "
            "every call.",
        )
    return step, counted


def _is_function_step(step: Any) -> bool:
    """A step to call with the request: a function (or delay(...)), not a step of the kit's own
    (call(...), an LlmResponse) nor an exception class (raised, as an instance would be)."""
    return (
        callable(step)
        and not isinstance(step, FunctionCallStep | LlmResponse | StreamStep | UsageStep)
        and not (isinstance(step, type) and issubclass(step, BaseException))
    )


async def _play_live(step: Any, request: LlmRequest, agent: str) -> AsyncIterator[LlmResponse]:
    """The responses of one step answered live (adk_fluent.testing.live), paced as a model
    would: a turn's answers in order, its `with_usage` counts on its last content, and
    `turn_complete` at its end unless it ends with a tool call or an interruption."""
    step, counted = await resolve_step(step, request, agent)
    if isinstance(step, BaseException) or (
        isinstance(step, type) and issubclass(step, BaseException)
    ):
        raise step
    parts = step.parts if isinstance(step, LiveTurn) else (step,)
    held: LlmResponse | None = None  # a content response that may carry the turn's counts
    for part in parts:
        async for response in _live_responses(part, agent):
            if held is not None:
                yield held
            held = response if response.content is not None and not response.partial else None
            if held is None:
                yield response
    if held is not None:
        if counted is not None:
            held.usage_metadata = _usage(
                counted.input, counted.output, counted.cached, counted.thinking
            )
        yield held
    if not isinstance(parts[-1], FunctionCallStep | InterruptStep):
        yield LlmResponse(turn_complete=True)


async def _live_responses(part: Any, agent: str) -> AsyncIterator[LlmResponse]:
    if isinstance(part, LIVE_ANSWERS):
        for response in part.responses():  # type: ignore[attr-defined]
            yield response
    elif isinstance(part, StreamStep):
        for index, chunk in enumerate(part.chunks):
            await _wait(part, part.gap, part.gap * (len(part.chunks) - index))
            yield _partial(chunk)
        if part.error is not None:
            raise part.error
        yield _response_for(part.text, agent)
    elif isinstance(part, BaseException):
        raise part
    else:
        yield _response_for(part, agent)


def _partial(chunk: str) -> LlmResponse:
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=chunk)]), partial=True
    )


async def _stream_of(step: StreamStep, stream: bool) -> AsyncGenerator[LlmResponse, None]:
    """The partial responses of a `streamed` step (none without streaming, after as long a
    wait); raises the step's error after the last chunk."""
    if not stream:
        await _wait(step, step.gap * len(step.chunks), step.gap * len(step.chunks))
    else:
        for index, chunk in enumerate(step.chunks):
            await _wait(step, step.gap, step.gap * (len(step.chunks) - index))
            yield _partial(chunk)
    if step.error is not None:
        raise step.error


async def _wait(step: StreamStep, seconds: float, left: float) -> None:
    """Sleep (cancellably); a cancellation records the seconds the step had `left` to wait."""
    if not seconds:
        return
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        step.cancelled.append(left)
        raise
