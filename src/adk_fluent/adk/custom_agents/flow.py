"""Module-level ADK agents for control flow: Route, map_over and a loop that shows its final
round (gates live in gates.py)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.events.event import Event

from adk_fluent.adk.custom_agents.concurrency import (
    Relay,
    commit_in_order,
    run_on_private_copy,
    tagged,
)
from adk_fluent.adk.custom_agents.halt import halted
from adk_fluent.adk.custom_agents.node import NodeAgent
from adk_fluent.adk.custom_agents.steps import (
    failure,
    make_event,
    output_of,
    raised,
    read_view,
    state_of,
    storable_delta,
)
from adk_fluent.adk.event_visibility import MAP_OVER
from adk_fluent.errors import StepFailed, with_article
from adk_fluent.ir.route_rules import matches, normalise_label
from adk_fluent.ir.steps import STEP_RAISED


class RouteAgent(NodeAgent):
    """Runs the first sub-agent whose rule matches state[key]; the last is `otherwise` if present."""

    key: str
    rules: tuple[Any, ...] = ()
    has_otherwise: bool = False
    normalize: Any = True

    def choose(self, ctx: Any) -> int | Event:
        """The index of the branch the rules pick from state (-1: the otherwise branch, the
        last), or the failure event (no rule matched and no otherwise, the key is missing, or
        a rule raised). A missing key (or None) matches no value rule, but `.when()` predicates
        are still asked: they read the whole state, not the key (docs/control-flow.md)."""
        state = read_view(ctx, f"Route '{self.name}'", self.name)
        value = state.get(self.key)
        try:
            label = None if value is None else normalise_label(value, self.normalize)
            for index, rule in enumerate(self.rules):
                if value is None and rule.op != "when":
                    continue
                if matches(rule, label, value, self.normalize, state):
                    return index
        except Exception as error:  # a .when() predicate or a normalize function
            return failure(ctx, self.name, STEP_RAISED, raised(self.name, "a rule", error))
        if self.has_otherwise:
            return -1  # the otherwise branch is the last
        reason = (
            f"state has no '{self.key}'"
            if value is None
            else f"no rule matched {self.key}={value!r:.100}"
        )
        return failure(
            ctx,
            self.name,
            "ROUTE_NO_MATCH" if value is not None else "ROUTE_KEY_MISSING",
            f"Route '{self.name}': {reason}, and the route has no .otherwise(...) branch. "
            "Add .otherwise(agent) or make sure an earlier step writes a matching value.",
        )

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        chosen = self.choose(ctx)
        if isinstance(chosen, Event):
            yield chosen
            return
        async for event in self.sub_agents[chosen].run_async(ctx):
            yield event


class MapOverAgent(NodeAgent):
    """Runs the body once per item of state[list_key] and stores the body's outputs, in order.

    If an item fails (its body raises or a step in it fails), the item key is cleared before
    the run ends, so no stale item is left in the store; with `concurrency > 1` every task is
    cancelled and awaited before this agent returns, however it ends.

    Streaming: each item's partial events reach the client as they are produced (with
    `concurrency > 1` interleaved across the items running), tagged
    custom_metadata["adk_fluent.map_over"] = {"map_over": name, "index": item index}; the
    complete events are committed in item order, as without streaming.
    """

    list_key: str
    item_key: str
    output_key: str
    body_output_key: str | None = None
    concurrency: int = 1

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        items = state_of(ctx).get(self.list_key)
        if not isinstance(items, list | tuple):
            problem = (
                "is missing"
                if items is None
                else f"is {with_article(type(items).__name__)}, not a list"
            )
            yield failure(
                ctx,
                self.name,
                "MAP_OVER_NOT_A_LIST",
                f"map_over '{self.name}': state['{self.list_key}'] {problem}. "
                f"Write a list to '{self.list_key}' before this step.",
            )
            return
        try:  # each item as the store will hold it, checked before any item runs
            seeds = [storable_delta({self.item_key: item}, self.name) for item in items]
        except StepFailed as failed:
            yield failure(ctx, self.name, failed.code, str(failed))
            return
        results: list[Any] = []
        started = False  # whether an item was written to state[item_key]
        try:
            if self.concurrency > 1:
                runs = self._concurrent(ctx, seeds, results)
            else:
                runs = self._sequential(ctx, seeds, results)
            async with contextlib.aclosing(runs) as events:
                async for event in events:
                    started = True
                    yield event
            if halted(ctx):  # an item's step failed (or a gate waits): stop, clear the item
                yield make_event(ctx, self.name, state_delta={self.item_key: None})
                return
            try:
                delta = storable_delta({self.output_key: results, self.item_key: None}, self.name)
            except StepFailed as failed:
                yield make_event(ctx, self.name, state_delta={self.item_key: None})
                yield failure(ctx, self.name, failed.code, str(failed))
                return
        except Exception:
            if started:  # the body raised: leave no stale item behind, then let ADK report it
                yield make_event(ctx, self.name, state_delta={self.item_key: None})
            raise
        yield make_event(ctx, self.name, state_delta=delta)

    def _tag(self, index: int) -> dict[str, Any]:
        return {"map_over": self.name, "index": index}

    async def _sequential(
        self, ctx: Any, seeds: list[dict[str, Any]], results: list[Any]
    ) -> AsyncGenerator[Event, None]:
        for index, seed in enumerate(seeds):
            yield make_event(ctx, self.name, state_delta=seed)
            output: Any = None
            async with contextlib.aclosing(self.sub_agents[0].run_async(ctx)) as events:
                async for event in events:
                    output = output_of(event, output, self.body_output_key)
                    yield tagged(event, MAP_OVER, self._tag(index)) if event.partial else event
            if halted(ctx):
                return
            results.append(output)

    async def _concurrent(
        self, ctx: Any, seeds: list[dict[str, Any]], results: list[Any]
    ) -> AsyncGenerator[Event, None]:
        """Up to `concurrency` items at once, each on a private copy of the session; their events
        are committed to the real session in item order as soon as every earlier item is done,
        and their partial events (streaming) reach the client as they come, from every item
        running. When an item fails, its events (ending with its error event) are committed at
        once and every other item is dropped: the run ends there."""
        limit = asyncio.Semaphore(self.concurrency)
        failed: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        relay = Relay()

        async def one(index: int, seed: dict[str, Any]) -> list[Event]:
            async with limit:
                if failed.done():
                    return []
                forward = relay.forward(MAP_OVER, self._tag(index))
                events = await run_on_private_copy(self.sub_agents[0], ctx, seed, forward)
            if not failed.done() and any(e.error_code for e in events):
                failed.set_result(index)
            return events

        tasks = [asyncio.create_task(one(i, seed)) for i, seed in enumerate(seeds)]
        try:
            for seed, task in zip(seeds, tasks, strict=True):
                while (partial := await relay.next(task, failed)) is not None:
                    yield partial
                if failed.done():
                    index = failed.result()
                    events = await tasks[index]
                    marker = make_event(ctx, self.name, state_delta=seeds[index])
                    for event in commit_in_order(ctx, [marker, *events]):
                        yield event
                    return
                events = task.result()
                marker = make_event(ctx, self.name, state_delta=seed)
                output: Any = None
                for event in commit_in_order(ctx, [marker, *events]):
                    output = output_of(event, output, self.body_output_key)
                    yield event
                if halted(ctx):
                    return
                results.append(output)
        finally:
            relay.close()
            failed.cancel()
            for task in tasks:
                task.cancel()
            # wait until every task has really ended: nothing is left pending after this step
            await asyncio.gather(*tasks, return_exceptions=True)


# -- a loop that shows its final round: `Loop(...).show("final")` -------------------------------
# Which agent's reply a presentation repeats: {"author": name, "event": id} in its custom_metadata.
PRESENTS = "adk_fluent.presents"


def _chat_parts(event: Event) -> list[Any]:
    """The parts of a reply a person reads (text that is not a thought, images, files)."""
    parts = event.content.parts if event.content is not None else None
    return [
        part
        for part in parts or []
        if (part.text and not part.thought) or part.inline_data or part.file_data
    ]


def _presentation(ctx: Any, loop: str, reply: Event) -> Event:
    """The loop's own event repeating `reply`'s chat parts: the loop speaks to the user."""
    from google.genai import types

    event = make_event(ctx, loop)
    event.content = types.Content(role="model", parts=_chat_parts(reply))
    event.custom_metadata = {PRESENTS: {"author": reply.author, "event": reply.id}}
    return event


async def _run_and_present(
    loop: Any, events: AsyncGenerator[Event, None], ctx: Any
) -> AsyncGenerator[Event, None]:
    """Pass the loop's events on; when it has ended (by its maximum or an escalation, not by a
    failed step or a pause), present each body agent's latest reply, in the order they came."""
    latest: dict[str, tuple[int, Event]] = {}
    paused = False
    should_pause = getattr(ctx, "should_pause_invocation", None)  # ADK 2.x: long-running tools
    async with contextlib.aclosing(events) as running:
        async for count, event in _numbered(running):
            yield event
            if should_pause is not None and should_pause(event):
                paused = True
            if event.partial or event.author == loop.name or event.error_code:
                continue
            if _chat_parts(event):
                latest[event.author] = (count, event)
    if paused or halted(ctx):
        return
    for _, reply in sorted(latest.values(), key=lambda item: item[0]):
        yield _presentation(ctx, loop.name, reply)


async def _numbered(events: AsyncGenerator[Event, None]) -> AsyncGenerator[tuple[int, Event], None]:
    count = 0
    async for event in events:
        yield count, event
        count += 1


@functools.cache
def final_round_loop_agent() -> type:
    """ADK's LoopAgent, which at its end presents each body agent's latest reply as an event of
    its own (the loop's, user-facing: analysis/visibility.py), so a filtered client receives the
    loop's final round while every round stays in the store. Made on first use: subclassing
    LoopAgent warns on ADK 2.x, and the warning is about adk-fluent's choice of class."""
    from google.adk.agents.loop_agent import LoopAgent

    from adk_fluent.adk.compat import quiet_workflow_deprecation

    with quiet_workflow_deprecation():

        class FinalRoundLoopAgent(NodeAgent, LoopAgent):  # type: ignore[misc]
            """A LoopAgent that shows its final round (`Loop(...).show("final")`)."""

            async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
                async for event in _run_and_present(self, super()._run_async_impl(ctx), ctx):
                    yield event

    return FinalRoundLoopAgent
