"""A FanOut that merges its branches' outputs or ends with its first finished branch.

`FanOut(a, b)` without either compiles to ADK's own ParallelAgent; with `.merge(...)` or
`.first_complete()` it compiles to `FanOutAgent`, which runs the branches as ParallelAgent does:
concurrently, on the real session, each on a branch of its own (`<fanout>.<child>` under the
caller's branch, so each branch sees only its own history), every event forwarded as it comes
and stored by the Runner before that branch goes on.

* merge: after every branch has ended, one state-delta event authored by the FanOut stores the
  merged value at `into` (a reducer that raises, or a value no store can hold, is one error
  event instead: FANOUT_MERGE_RAISED, STATE_VALUE_NOT_STORABLE).
* first_complete: when the first branch finishes, the others are cancelled and awaited before
  the FanOut ends; what they already yielded is stored and stays (unlike `race`, whose
  alternatives run on private copies). A branch that raises does not finish: the others go on;
  if every branch raises, the last error is raised. With a merge too, only the finished branch
  is merged.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.events.event import Event

from adk_fluent.adk.custom_agents.halt import halted
from adk_fluent.adk.custom_agents.handoff import handed_over
from adk_fluent.adk.custom_agents.node import NodeAgent
from adk_fluent.adk.custom_agents.steps import (
    failure,
    make_event,
    output_of,
    raised,
    storable_delta,
)
from adk_fluent.errors import StepFailed
from adk_fluent.ir.edges import FIRST_COMPLETE
from adk_fluent.ir.steps import LOGGER_NAME

LOGGER = logging.getLogger(LOGGER_NAME)

MERGE_RAISED = "FANOUT_MERGE_RAISED"


def branch_context(ctx: Any, parent: str, child: str) -> Any:
    """A copy of `ctx` on the branch ParallelAgent gives a sub-agent: `<parent>.<child>` under
    the caller's branch (both supported ADK lines spell it so). Events on a branch are hidden
    from its siblings' model requests; agents after the FanOut see them all."""
    branch_ctx = ctx.model_copy()
    suffix = f"{parent}.{child}"
    branch_ctx.branch = f"{ctx.branch}.{suffix}" if ctx.branch else suffix
    return branch_ctx


@dataclass
class _Ended:
    """The marker a branch's stream yields after its last event: its output, or its error."""

    index: int
    output: Any = None
    error: BaseException | None = None


class FanOutAgent(NodeAgent):
    """Branches run concurrently on their own branches of the real session; see the module."""

    join: str | None = None  # None: every branch; "first_complete": the first to finish
    merge: Any = None  # an ir.edges.FanOutMerge, or None
    branch_names: tuple[str, ...] = ()  # the branches' IR names (the merged dict's keys)
    output_keys: tuple[str | None, ...] = ()  # per branch: the key its output is read from

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        first = self.join == FIRST_COMPLETE
        streams = [
            self._branch(index, child, branch_context(ctx, self.name, child.name), first)
            for index, child in enumerate(self.sub_agents)
        ]
        outputs: dict[int, Any] = {}
        errors: list[BaseException] = []
        async with aclosing(handed_over(streams)) as items:
            async for item in items:
                if not isinstance(item, _Ended):
                    yield item
                    if first and halted(ctx) == "failed":  # a step failed: the run ends here
                        return
                    continue
                if item.error is not None:
                    errors.append(item.error)
                    continue
                outputs[item.index] = item.output
                if first:
                    break  # closing the stream cancels the other branches and awaits them
        if halted(ctx):
            return
        if first and not outputs:
            if errors:
                raise errors[-1]
            return
        if self.merge is not None:
            event = self._merged(ctx, outputs)
            if event is not None:
                yield event

    async def _branch(
        self, index: int, child: BaseAgent, branch_ctx: Any, first: bool
    ) -> AsyncGenerator[Any, None]:
        """One branch's events, then its `_Ended` marker. Under first_complete an exception
        ends the branch without finishing it (the others may still finish)."""
        key = self.output_keys[index] if index < len(self.output_keys) else None
        output: Any = None
        try:
            async with aclosing(child.run_async(branch_ctx)) as events:
                async for event in events:
                    output = output_of(event, output, key)
                    yield event
        except Exception as error:
            if not first:
                raise
            LOGGER.warning(
                "FanOut '%s': branch '%s' raised %s; the other branches go on",
                self.name,
                child.name,
                type(error).__name__,
            )
            yield _Ended(index, error=error)
            return
        yield _Ended(index, output)

    def _merged(self, ctx: Any, outputs: dict[int, Any]) -> Event | None:
        """The one event storing the merged value (or the error event saying why it cannot)."""
        names = self.branch_names or tuple(child.name for child in self.sub_agents)
        by_branch = {names[i]: outputs[i] for i in sorted(outputs)}
        if self.join != FIRST_COMPLETE:  # every branch has a slot, in branch order
            by_branch = {name: outputs.get(i) for i, name in enumerate(names)}
        try:
            value = self.merge.combine(by_branch)
        except Exception as error:  # the user's reducer
            return failure(
                ctx, self.name, MERGE_RAISED, raised(self.name, "the merge reducer", error)
            )
        try:
            delta = storable_delta({self.merge.into: value}, self.name)
        except StepFailed as failed:
            LOGGER.warning("%s", failed)
            return failure(ctx, self.name, failed.code, str(failed))
        return make_event(ctx, self.name, state_delta=delta)
