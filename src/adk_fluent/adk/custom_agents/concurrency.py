"""Module-level ADK agents that run children concurrently or against a clock: timeout and race,
and what map_over shares with race: private copies of the session, partial events relayed live,
complete events committed in order."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import aclosing
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.custom_agents.halt import halted
from adk_fluent.adk.custom_agents.handoff import DeadlinePassed, handed_over
from adk_fluent.adk.custom_agents.node import NodeAgent
from adk_fluent.adk.custom_agents.steps import failure
from adk_fluent.adk.event_visibility import RACE
from adk_fluent.ir.values import fresh


class TimeoutAgent(NodeAgent):
    """Runs its one sub-agent under a deadline; on expiry cancels it and emits an error event.

    The child runs in its own task and hands over one event at a time, waiting until the
    runner has taken it (and persisted it) before going on, exactly as if run inline.
    """

    seconds: float

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        deadline = asyncio.get_running_loop().time() + self.seconds
        child = self.sub_agents[0]
        try:
            async with aclosing(handed_over([child.run_async(ctx)], deadline=deadline)) as events:
                async for event in events:
                    yield event
        except DeadlinePassed:
            yield failure(
                ctx,
                self.name,
                "TIMEOUT",
                f"step '{child.name}' timed out after {self.seconds:g}s and was cancelled",
            )


Forward = Callable[[Event], Awaitable[None]]


async def run_on_private_copy(
    child: BaseAgent,
    ctx: Any,
    seed: dict[str, Any] | None = None,
    forward: Forward | None = None,
) -> list[Event]:
    """Run `child` against a deep copy of the session (plus `seed` state) and return its events.

    The copy receives each event as the runner would apply it (history and state delta), so
    multi-step agents (tool calls) see their own progress; the real session sees nothing until
    the caller yields the returned events. Partial events (streaming), which no store ever
    holds, are handed to `forward` as they come when it is given (the child waits until it
    returns), and are then not in the returned list.
    """
    private = ctx.session.model_copy(deep=True)
    private.state.update(fresh(seed or {}))  # the copy never shares a value with the caller
    child_ctx = ctx.model_copy(update={"session": private})
    events: list[Event] = []
    # closed here, in this task, even when the task is cancelled while forwarding
    async with aclosing(child.run_async(child_ctx)) as stream:
        async for event in stream:
            if event.partial:
                if forward is not None:
                    await forward(event)
                    continue
            else:
                private.events.append(event)
                for key, value in (event.actions.state_delta or {}).items():
                    private.state[key] = value
            events.append(event)
    return events


def tagged(event: Event, key: str, value: dict[str, Any]) -> Event:
    """A copy of `event` whose custom_metadata[key] is `value`; a tag of that key already there
    (from an inner race or map_over) is kept, as it names the stream more precisely."""
    metadata = dict(event.custom_metadata or {})
    metadata.setdefault(key, value)
    return event.model_copy(update={"custom_metadata": metadata})


class Relay:
    """Partial events of children running concurrently, handed to one consumer as they come.

    A child's `forward` puts its event (tagged) in the queue and waits until the consumer has
    taken it, that is until the consumer asks for the next one (as `handoff.handed_over` does):
    a child runs ahead of what the client received by one event at most, as if it ran inline.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[tuple[Event, asyncio.Event]] = asyncio.Queue()
        self._getter: asyncio.Future[tuple[Event, asyncio.Event]] | None = None
        self._given: asyncio.Event | None = None

    def forward(self, key: str, value: dict[str, Any]) -> Forward:
        """The `forward` of one child: its partial events tagged custom_metadata[key] = value."""

        async def forward(event: Event) -> None:
            taken = asyncio.Event()
            self._queue.put_nowait((tagged(event, key, value), taken))
            await taken.wait()

        return forward

    async def next(self, *waits: asyncio.Future[Any]) -> Event | None:
        """The next partial event, or None once one of `waits` is done (a partial that came
        before is given first). Asking lets the child of the partial given last go on."""
        self._release()
        while not any(wait.done() for wait in waits):
            if self._getter is None:
                self._getter = asyncio.ensure_future(self._queue.get())
            await asyncio.wait([*waits, self._getter], return_when=asyncio.FIRST_COMPLETED)
            if self._getter.done():
                event, self._given = self._getter.result()
                self._getter = None
                return event
        return None

    def _release(self) -> None:
        if self._given is not None:
            self._given.set()
            self._given = None

    def close(self) -> None:
        """Stop waiting for partial events (the children are cancelled by their owner)."""
        self._release()
        if self._getter is not None:
            self._getter.cancel()
            self._getter = None


def commit_in_order(ctx: Any, events: list[Event]) -> Iterator[Event]:
    """Events made on a private copy, stamped in the order they are committed: stores that
    reload by timestamp (DatabaseSessionService) then give back the order the client saw, even
    though the copies ran at once."""
    history = ctx.session.events
    last = history[-1].timestamp if history else 0.0
    for event in events:
        last = max(time.time(), last + 1e-5)
        event.timestamp = last
        yield event


class RaceAgent(NodeAgent):
    """Runs sub-agents concurrently, each against a private copy of the session; the first to
    finish without error wins: its events (and so its output and state) go to the real session,
    the others are cancelled and leave nothing behind. If all fail, the last error is raised.

    Streaming: every contender's partial events reach the client as they are produced, tagged
    custom_metadata["adk_fluent.race"] = {"race": name, "contender": child name} (no store
    holds a partial, so a loser's leave nothing behind either); the complete events are held
    and only the winner's are committed, when it has won, carrying the same tag.
    """

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        relay = Relay()
        finished: asyncio.Queue[tuple[BaseAgent, list[Event] | BaseException]] = asyncio.Queue()

        async def contend(child: BaseAgent) -> None:
            tag = {"race": self.name, "contender": child.name}
            try:
                events = await run_on_private_copy(child, ctx, forward=relay.forward(RACE, tag))
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # handed to the race, which decides
                finished.put_nowait((child, error))
                return
            finished.put_nowait((child, events))

        tasks = [asyncio.create_task(contend(child)) for child in self.sub_agents]
        running = len(tasks)
        last_error: BaseException | None = None
        winner: list[Event] | None = None
        winner_name = ""
        try:
            while running and winner is None:
                outcome = asyncio.ensure_future(finished.get())
                try:
                    while (partial := await relay.next(outcome)) is not None:
                        yield partial
                finally:
                    outcome.cancel()  # when the caller stopped reading: nothing waits for it
                child, result = outcome.result()
                running -= 1
                if isinstance(result, BaseException):
                    last_error = result
                    continue
                # a step in it failed (the run ends: its error stands), or it finished first
                # and was not cut short by another's failure
                if any(e.error_code for e in result) or halted(ctx) != "failed":
                    winner, winner_name = result, child.name
        finally:
            relay.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if winner is None:
            if last_error is None:  # every alternative was cut short by a failure elsewhere
                return
            raise last_error
        tag = {"race": self.name, "contender": winner_name}
        for event in commit_in_order(ctx, [tagged(event, RACE, tag) for event in winner]):
            yield event
