"""Live (bidirectional) runs of a ScriptedModel: `BaseLlm.connect` answered from the same
scripts as `generate_content`, for `Runner.run_live` and `pipeline.live(...)` offline.

A live connection answers each input that asks for an answer with the agent's next script
step: a user message (`send_content`), a function response, the end of the user's activity
(`activity_end`, after audio chunks), and the history a connection opens with when it ends with
a user turn (ADK sends it after a transfer, as Gemini Live answers it). The function responses
of ADK's control tools (`transfer_to_agent`, `task_completed`) get no answer: the connection is
closed and the next agent's opened.

What a step answers, live:

* text: the reply, then `turn_complete`; `streamed(...)`: its chunks as partial replies (paced
  by `gap`), the whole reply, then `turn_complete`;
* `call(tool, **args)`: the function call (the turn goes on with the tool's response);
* `audio(data)`: an audio part (inline data), then `turn_complete`;
* `transcript(text, of="output" | "input")`: a transcription, then `turn_complete`;
* `interrupted()`: the model was interrupted (no `turn_complete`);
* `live_turn(a, b, ...)`: several of those in one turn (one `turn_complete` at its end);
* an exception: raised from the connection's `receive`, as a dropped connection would.

Everything a connection is sent is recorded on the model (`live_inputs`, per agent), in order:
`("history", contents)`, `("content", content)`, `("audio", blob)`, `("activity_start",)`,
`("activity_end",)`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from google.adk.models.base_llm_connection import BaseLlmConnection
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent.arguments import checked_choice, checked_instance, checked_text
from adk_fluent.errors import BuildError, ScriptError

# ADK's own tools whose response closes the connection (a transfer, the end of a live
# sequence's step): Gemini is never asked to answer them.
_CONTROL_TOOLS = frozenset({"transfer_to_agent", "task_completed"})


@dataclass(frozen=True)
class AudioStep:
    """A live answer carrying audio (`audio`)."""

    data: bytes
    mime_type: str

    def responses(self) -> list[LlmResponse]:
        blob = types.Blob(data=self.data, mime_type=self.mime_type)
        part = types.Part(inline_data=blob)
        return [LlmResponse(content=types.Content(role="model", parts=[part]))]


def audio(data: bytes, mime_type: str = "audio/pcm;rate=24000") -> AudioStep:
    """A live script step answering with audio bytes (Gemini Live speaks 24 kHz 16-bit PCM)."""
    checked_instance(
        data, None, "data", bytes, what="bytes", hint="e.g. audio(b'\\x00\\x01' * 2400)."
    )
    checked_text(mime_type, None, "mime_type", hint="e.g. audio(data, 'audio/pcm;rate=24000').")
    return AudioStep(data, mime_type)


@dataclass(frozen=True)
class TranscriptStep:
    """A live answer carrying a transcription (`transcript`)."""

    text: str
    of: str
    finished: bool

    def responses(self) -> list[LlmResponse]:
        transcription = types.Transcription(text=self.text, finished=self.finished)
        if self.of == "output":
            return [LlmResponse(output_transcription=transcription)]
        return [LlmResponse(input_transcription=transcription)]


def transcript(text: str, *, of: str = "output", finished: bool = True) -> TranscriptStep:
    """A live script step answering with a transcription: of the model's speech (`of="output"`)
    or of the user's (`of="input"`)."""
    checked_text(text, None, "text", hint="e.g. transcript('Hello there').")
    checked_choice(
        of,
        None,
        "of",
        ("output", "input"),
        hint="of='output' (what the model said) or of='input' (what the user said).",
    )
    return TranscriptStep(text, of, bool(finished))


@dataclass(frozen=True)
class InterruptStep:
    """A live answer saying the model was interrupted (`interrupted`)."""

    def responses(self) -> list[LlmResponse]:
        return [LlmResponse(interrupted=True)]


def interrupted() -> InterruptStep:
    """A live script step: the model's reply was interrupted (the user spoke over it)."""
    return InterruptStep()


@dataclass(frozen=True)
class LiveTurn:
    """Several live answers in one turn (`live_turn`)."""

    parts: tuple[Any, ...]


def live_turn(*parts: Any) -> LiveTurn:
    """A live script step made of several answers in one turn, e.g.
    `live_turn(transcript("Hi"), audio(pcm), "Hi")`; one `turn_complete` ends it."""
    if not parts:
        raise BuildError(
            "live_turn() needs at least one answer",
            field="parts",
            hint="e.g. live_turn(audio(pcm), transcript('Hello')).",
        )
    for index, part in enumerate(parts):
        if isinstance(part, LiveTurn):
            raise BuildError(
                f"part #{index + 1} of live_turn() is another live_turn",
                field="parts",
                hint="list the answers of one turn in one live_turn(...).",
            )
    return LiveTurn(tuple(parts))


# The live answers that make their own responses (`.responses()`).
LIVE_ANSWERS: tuple[type, ...] = (AudioStep, TranscriptStep, InterruptStep)


def live_step_kinds() -> tuple[type, ...]:
    """The live-only step types (the scripted model accepts them in any script)."""
    return (*LIVE_ANSWERS, LiveTurn)


class ScriptedConnection(BaseLlmConnection):
    """One live connection of a scripted agent (ScriptedModel.connect): `take` gives the
    agent's next step (ScriptError past its end), `play` the responses of a step, `inputs` is
    where what the connection is sent is recorded."""

    def __init__(
        self,
        take: Callable[[], Any],
        play: Callable[[Any], AsyncIterator[LlmResponse]],
        inputs: list[tuple[Any, ...]],
    ) -> None:
        self._take, self._play, self._inputs = take, play, inputs
        # per answer, the async iterator of its responses (played by receive, in order), an
        # error to raise, or None once closed
        self._answers: asyncio.Queue[Any] = asyncio.Queue()
        self._closed = False

    async def send_history(self, history: list[types.Content]) -> None:
        self._inputs.append(("history", list(history)))
        if history and history[-1].role == "user":  # Gemini Live answers a user turn
            self._answer()

    async def send_content(self, content: types.Content) -> None:
        self._inputs.append(("content", content))
        responses = [p.function_response for p in content.parts or () if p.function_response]
        if responses and all(r.name in _CONTROL_TOOLS for r in responses):
            return
        self._answer()

    async def send_realtime(self, input: Any) -> None:  # noqa: A002 - ADK's parameter name
        if isinstance(input, types.ActivityStart):
            self._inputs.append(("activity_start",))
        elif isinstance(input, types.ActivityEnd):
            self._inputs.append(("activity_end",))
            self._answer()
        else:
            self._inputs.append(("audio", input))

    async def receive(self) -> AsyncGenerator[LlmResponse, None]:
        while True:
            item = await self._answers.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            async for response in item:
                yield response

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._answers.put_nowait(None)

    def _answer(self) -> None:
        """Take the agent's next step now (in the order inputs came) and queue its answer."""
        if self._closed:
            return
        try:
            step = self._take()
        except ScriptError as error:  # beyond the script: the run fails with it
            self._answers.put_nowait(error)
            return
        self._answers.put_nowait(self._play(step))
