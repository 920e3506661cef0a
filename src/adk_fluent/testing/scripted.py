"""ScriptedModel: a real ADK `BaseLlm` that answers from scripts, for offline, deterministic runs.

Every call goes through ADK's own flow (tools, callbacks, state, session services); only the
model's answers are scripted. Each agent has its own script; a call beyond the script, or a
script not fully consumed, is a test failure with a message saying which agent and which step.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from adk_fluent.errors import ScriptError

SHARED = "*"  # the script used by agents that have none of their own (single-agent tests)


@dataclass(frozen=True)
class FunctionCallStep:
    """A scripted function (tool) call."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


def call(tool_name: str, **args: Any) -> FunctionCallStep:
    """A script step that makes the model call a tool: `call("book", city="Paris")`."""
    return FunctionCallStep(tool_name, args)


def text(value: str) -> str:
    """A script step answering with text (plain strings work too)."""
    return value


def delay(seconds: float, then: Any) -> Callable[[LlmRequest], Any]:
    """A script step that takes `seconds` (asynchronously, so it can be cancelled) and then
    answers `then`. The returned step's `.cancelled` list records each cancellation."""

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


def _usage(prompt: int = 8, output: int = 4) -> types.GenerateContentResponseUsageMetadata:
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt, candidates_token_count=output, total_token_count=prompt + output
    )


def _response_for(step: Any) -> LlmResponse:
    if isinstance(step, LlmResponse):
        return step
    if isinstance(step, FunctionCallStep):
        part = types.Part(function_call=types.FunctionCall(name=step.name, args=step.args))
        return LlmResponse(
            content=types.Content(role="model", parts=[part]), usage_metadata=_usage()
        )
    if isinstance(step, str):
        body = step
    else:
        body = json.dumps(step)
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=body)]), usage_metadata=_usage()
    )


class _ScriptBook:
    """Scripts and recorded requests shared by every per-agent view of one ScriptedModel."""

    def __init__(self, scripts: Mapping[str, Iterable[Any]]) -> None:
        self.scripts: dict[str, list[Any]] = {name: list(steps) for name, steps in scripts.items()}
        self.positions: dict[str, int] = {name: 0 for name in self.scripts}
        self.requests: dict[str, list[LlmRequest]] = {}
        self.calls: list[tuple[str, LlmRequest]] = []

    def next_step(self, agent: str, request: LlmRequest) -> Any:
        self.requests.setdefault(agent, []).append(request)
        self.calls.append((agent, request))
        key = agent if agent in self.scripts else SHARED
        if key not in self.scripts:
            raise ScriptError(
                f"ScriptedModel: agent '{agent}' called the model, but there is no script for it "
                f"(scripted agents: {', '.join(sorted(self.scripts)) or 'none'})."
            )
        position = self.positions[key]
        steps = self.scripts[key]
        if position >= len(steps):
            raise ScriptError(
                f"ScriptedModel: unexpected model call #{position + 1} by agent '{agent}': its script has "
                f"{len(steps)} step(s). Last content in the request: {_last_text(request)!r}"
            )
        self.positions[key] = position + 1
        return steps[position]

    def unconsumed(self) -> dict[str, list[Any]]:
        return {
            name: steps[self.positions[name] :]
            for name, steps in self.scripts.items()
            if self.positions[name] < len(steps)
        }


def _last_text(request: LlmRequest) -> str:
    for content in reversed(request.contents or []):
        for part in content.parts or []:
            if part.text:
                return part.text[:120]
    return ""


class ScriptedModel(BaseLlm):
    """A scripted `BaseLlm`.

    `ScriptedModel(["hi"])` answers any agent from one script; `ScriptedModel({"a": [...], "b": [...]})`
    keeps a script per agent and `.for_agent(name)` gives the model to install on that agent
    (`mock_backend` does this for a whole tree). A step is text, a JSON-able value (sent as JSON
    text), `call(tool, **args)`, an `LlmResponse`, an exception to raise, or a function of the
    `LlmRequest` returning any of those.
    """

    model: str = "scripted-model"
    agent_name: str = SHARED
    _book: _ScriptBook = PrivateAttr()

    def __init__(
        self, scripts: Mapping[str, Iterable[Any]] | Iterable[Any] | None = None, **data: Any
    ) -> None:
        book = data.pop("book", None)
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
        """Every LlmRequest received, per agent, in order."""
        return self._book.requests

    @property
    def calls(self) -> list[tuple[str, LlmRequest]]:
        """Every (agent, LlmRequest) in call order."""
        return self._book.calls

    @property
    def scripted_agents(self) -> frozenset[str]:
        return frozenset(self._book.scripts)

    def assert_consumed(self) -> None:
        """Fail when any script has steps left (the run did less than the test expected)."""
        left = self._book.unconsumed()
        if left:
            detail = "; ".join(
                f"agent '{name}': {len(steps)} left, next {steps[0]!r}"
                for name, steps in left.items()
            )
            raise ScriptError(f"ScriptedModel: scripted steps were never used: {detail}")

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"scripted-.*"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        step = self._book.next_step(self.agent_name, llm_request)
        if callable(step) and not isinstance(step, FunctionCallStep | LlmResponse):
            step = step(llm_request)
            if inspect.isawaitable(step):
                step = await step
        if isinstance(step, BaseException):
            raise step
        response = _response_for(step)
        if stream and isinstance(step, str) and step:
            words = step.split(" ")
            for index in range(len(words)):
                chunk = " ".join(words[index : index + 1]) + (" " if index < len(words) - 1 else "")
                yield LlmResponse(
                    content=types.Content(role="model", parts=[types.Part(text=chunk)]),
                    partial=True,
                )
        yield response


ScriptStep = (
    str | FunctionCallStep | LlmResponse | BaseException | Callable[[LlmRequest], Any] | Any
)
