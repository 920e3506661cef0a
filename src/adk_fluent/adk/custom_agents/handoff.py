"""Event streams run in tasks of their own and handed over one event at a time.

One mechanism for three needs: the engine's stream of ADK's Runner (so ADK's generator, and
the tracing context it opens, is closed in the task that opened it when a caller breaks out),
`timeout` (a deadline on waiting for the child's next event) and a gate-aware FanOut (branches
interleaved as their events come).

A producer waits until the consumer asks for the next event before it goes on: nothing runs
ahead of what the consumer took, and an agent's event is persisted by the Runner before that
agent continues, exactly as if it ran inline.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import Any

_DONE = object()


class DeadlinePassed(Exception):
    """The deadline passed while waiting for the next event (every stream was cancelled)."""


async def handed_over(
    streams: Sequence[AsyncGenerator[Any, None]], *, deadline: float | None = None
) -> AsyncGenerator[Any, None]:
    """The streams' events, interleaved as they come; each stream runs in a task of its own.

    An exception raised by a stream is raised here (the other streams are cancelled). When
    `deadline` (the running loop's clock) passes while waiting for an event, DeadlinePassed is
    raised. However this generator ends (exhausted, an error, the deadline, or the consumer
    closing it), every task is cancelled and awaited before it returns: each stream is closed
    inside its own task, and nothing is left pending.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[Any, Any]] = asyncio.Queue()

    async def drive(stream: AsyncGenerator[Any, None]) -> None:
        outcome: BaseException | None = None
        try:
            async with aclosing(stream) as events:
                async for event in events:
                    taken = asyncio.Event()
                    await queue.put((event, taken))
                    await taken.wait()  # until the consumer asks for the next event
        except asyncio.CancelledError:
            raise  # the consumer has gone: nobody waits for an outcome
        except BaseException as error:  # handed to the consumer, raised there
            outcome = error
        queue.put_nowait((_DONE, outcome))

    tasks = [loop.create_task(drive(stream)) for stream in streams]
    try:
        running = len(tasks)
        while running:
            if deadline is None:
                item, payload = await queue.get()
            else:
                try:
                    item, payload = await asyncio.wait_for(
                        queue.get(), timeout=max(deadline - loop.time(), 0)
                    )
                except TimeoutError:
                    raise DeadlinePassed from None
            if item is _DONE:
                running -= 1
                if payload is not None:
                    raise payload
                continue
            yield item  # closed here (GeneratorExit): the producers are cancelled, not resumed
            payload.set()
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        for task in tasks:
            if not task.cancelled():
                task.exception()  # retrieved: an error already raised is not logged again
