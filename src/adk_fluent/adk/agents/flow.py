"""Module-level ADK agents for control flow: Route and map_over (gates live in gates.py)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.agents.steps import make_event, state_of
from adk_fluent.ir.route_rules import matches, normalise_label


class RouteAgent(BaseAgent):
    """Runs the first sub-agent whose rule matches state[key]; the last is `otherwise` if present."""

    key: str
    rules: tuple[Any, ...] = ()
    has_otherwise: bool = False
    normalize: Any = True

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = state_of(ctx)
        value = state.get(self.key)
        chosen = None
        if value is not None:
            label = normalise_label(value, self.normalize)
            for index, rule in enumerate(self.rules):
                if matches(rule, label, value, self.normalize, state):
                    chosen = self.sub_agents[index]
                    break
        if chosen is None and self.has_otherwise:
            chosen = self.sub_agents[-1]
        if chosen is None:
            reason = (
                f"state has no '{self.key}'"
                if value is None
                else f"no rule matched {self.key}={value!r}"
            )
            yield make_event(
                ctx,
                self.name,
                error=(
                    "ROUTE_NO_MATCH" if value is not None else "ROUTE_KEY_MISSING",
                    f"Route '{self.name}': {reason}, and the route has no .otherwise(...) branch.",
                ),
            )
            return
        async for event in chosen.run_async(ctx):
            yield event


class MapOverAgent(BaseAgent):
    """Runs the body once per item of state[list_key] and stores the body's outputs, in order."""

    list_key: str
    item_key: str
    output_key: str
    body_output_key: str | None = None
    concurrency: int = 1

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        items = state_of(ctx).get(self.list_key)
        if not isinstance(items, list | tuple):
            problem = "is missing" if items is None else f"is a {type(items).__name__}, not a list"
            yield make_event(
                ctx,
                self.name,
                error=(
                    "MAP_OVER_NOT_A_LIST",
                    f"map_over '{self.name}': state['{self.list_key}'] {problem}.",
                ),
            )
            return
        results: list[Any] = []
        if self.concurrency > 1:
            async for event in self._concurrent(ctx, list(items), results):
                yield event
        else:
            for item in items:
                yield make_event(ctx, self.name, state_delta={self.item_key: item})
                output: Any = None
                async for event in self.sub_agents[0].run_async(ctx):
                    output = self._output_of(event, output)
                    yield event
                results.append(output)
        yield make_event(
            ctx, self.name, state_delta={self.output_key: results, self.item_key: None}
        )

    def _output_of(self, event: Event, current: Any) -> Any:
        delta = event.actions.state_delta if event.actions else None
        if self.body_output_key:
            return (
                delta[self.body_output_key] if delta and self.body_output_key in delta else current
            )
        if event.is_final_response() and event.content:
            return "".join(p.text or "" for p in event.content.parts or [])
        return current

    async def _concurrent(
        self, ctx: Any, items: list[Any], results: list[Any]
    ) -> AsyncGenerator[Event, None]:
        """Up to `concurrency` items at once, each on a private copy of the session; their events
        are committed to the real session in item order as soon as every earlier item is done."""
        import asyncio

        from adk_fluent.adk.agents.concurrency import run_on_private_copy

        limit = asyncio.Semaphore(self.concurrency)

        async def one(item: Any) -> list[Event]:
            async with limit:
                return await run_on_private_copy(self.sub_agents[0], ctx, {self.item_key: item})

        tasks = [asyncio.create_task(one(item)) for item in items]
        try:
            for item, task in zip(items, tasks, strict=True):
                events = await task
                yield make_event(ctx, self.name, state_delta={self.item_key: item})
                output: Any = None
                for event in events:
                    output = self._output_of(event, output)
                    yield event
                results.append(output)
        finally:
            for task in tasks:
                task.cancel()
