"""The chunked edge: `producer.then(consumer, edge="chunked", by="sentence", key="chunk")`.

`ChunkedEdgeAgent` runs the producer (an LLM agent) and forwards its events as they come. As
the producer's reply text arrives (with SSE, `streaming="sse"`, word by word in partial events;
without it, whole in the final event), every complete chunk goes on a queue; a second stream
takes the chunks in order, writes each to state[key] in a stored state-delta event, and runs
the consumer on it. The two streams run concurrently (adk/custom_agents/handoff.py `handed_over`),
and the consumer's runs are in chunk order. With `buffer` (a token edge's default), at most that
many chunks wait: the producer's stream is read no further until the consumer takes one, so a
slow consumer slows the producer instead of growing memory; without it the producer never waits.

Each runs on a branch of its own (`<edge>.<producer>`, `<edge>.<consumer>`, as ParallelAgent's
branches), so the consumer's model requests show its own earlier replies but not the
producer's reply (which it receives chunk by chunk, through the key), and the producer never
sees the consumer's replies in the middle of its own. Agents after the edge see everything.

When both are done, one event stores the consumer's output key joined over every chunk
(ir/edges.py `join_outputs`) and clears the chunk key. A failed step in either ends the run
there (the other is cancelled); an exception in either is raised, the other cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing, suppress
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.custom_agents.fanout import branch_context
from adk_fluent.adk.custom_agents.halt import halted
from adk_fluent.adk.custom_agents.handoff import handed_over
from adk_fluent.adk.custom_agents.node import NodeAgent
from adk_fluent.adk.custom_agents.steps import (
    failure,
    make_event,
    output_of,
    reply_text,
    storable_delta,
)
from adk_fluent.errors import StepFailed
from adk_fluent.ir.edges import Chunker, join_outputs

_END = object()  # the producer has finished: no more chunks


class _Cutter:
    """Turns the producer's events into chunks. A model turn is the partial events of one
    response and then its final (non-partial) event, whose text is the whole of it: what the
    partials did not already carry is fed from it, and the turn's last chunk is cut there."""

    def __init__(self, by: str | int) -> None:
        self.chunker = Chunker(by)
        self.fed = ""  # the text of the current turn fed so far (from partials)

    def take(self, event: Event) -> list[str]:
        text = reply_text(event)
        if event.partial:
            self.fed += text
            return self.chunker.feed(text)
        if event.content is None or not event.content.parts:
            return []  # a state-only event: no turn ends here
        fed, self.fed = self.fed, ""
        rest = text[len(fed) :] if text.startswith(fed) else ""
        return [*self.chunker.feed(rest), *self.chunker.flush()]

    def finish(self) -> list[str]:
        return self.chunker.flush()


class ChunkedEdgeAgent(NodeAgent):
    """sub_agents = [producer, consumer]; see the module."""

    by: Any = "sentence"
    key: str = "chunk"
    output_key: str | None = None  # the consumer's output key (its outputs are joined there)
    buffer: int | None = None  # chunks waiting for the consumer, at most (None: no bound)

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        producer, consumer = self.sub_agents
        chunks: asyncio.Queue[Any] = asyncio.Queue(maxsize=self.buffer or 0)
        outputs: list[Any] = []
        streams = [
            self._produce(producer, branch_context(ctx, self.name, producer.name), chunks),
            self._consume(ctx, consumer, chunks, outputs),
        ]
        async with aclosing(handed_over(streams)) as events:
            async for event in events:
                yield event
                if halted(ctx) == "failed":  # a step failed: the run ends, the other stops
                    return
        if halted(ctx):
            return
        delta: dict[str, Any] = {self.key: None}
        if self.output_key:
            delta[self.output_key] = join_outputs(outputs, self.by)
        try:
            checked = storable_delta(delta, self.name)
        except StepFailed as failed:  # a consumer output_schema value no store can hold
            yield make_event(ctx, self.name, state_delta={self.key: None})
            yield failure(ctx, self.name, failed.code, str(failed))
            return
        yield make_event(ctx, self.name, state_delta=checked)

    async def _produce(
        self, producer: BaseAgent, producer_ctx: Any, chunks: asyncio.Queue[Any]
    ) -> AsyncGenerator[Event, None]:
        """The producer's events, unchanged; each chunk is queued as soon as it is complete.
        With a bounded buffer, a full queue holds the producer here: its stream (and the
        model's) is not read further until the consumer takes a chunk."""
        cutter = _Cutter(self.by)
        ended = False
        try:
            async with aclosing(producer.run_async(producer_ctx)) as events:
                async for event in events:
                    for chunk in cutter.take(event):
                        await chunks.put(chunk)
                    yield event
            for chunk in cutter.finish():
                await chunks.put(chunk)
            await chunks.put(_END)
            ended = True
        finally:
            if not ended:  # failed or cancelled: the consumer is being stopped too
                with suppress(asyncio.QueueFull):
                    chunks.put_nowait(_END)

    async def _consume(
        self, ctx: Any, consumer: BaseAgent, chunks: asyncio.Queue[Any], outputs: list[Any]
    ) -> AsyncGenerator[Event, None]:
        """For each chunk, in order: store it at the key, then run the consumer on it."""
        consumer_ctx = branch_context(ctx, self.name, consumer.name)
        while True:
            chunk = await chunks.get()
            if chunk is _END:
                return
            yield make_event(ctx, self.name, state_delta={self.key: chunk})
            output: Any = None
            async with aclosing(consumer.run_async(consumer_ctx)) as events:
                async for event in events:
                    output = output_of(event, output, self.output_key)
                    yield event
            if halted(ctx):
                return
            outputs.append(output)
