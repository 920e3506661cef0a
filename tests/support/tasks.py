"""Tasks a test left pending: what a stream that was closed (or failed) may not leave behind."""

from __future__ import annotations

import asyncio
import gc

SETTLE_TURNS = 50  # event-loop turns a closed stream's clean-up may take


def running() -> set[asyncio.Task]:
    """Every task of the loop but the caller's."""
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


async def left_after(before: set[asyncio.Task]) -> set[asyncio.Task]:
    """The tasks not in `before` still pending once the loop has run what a closed stream
    scheduled. ADK's classic agents close at once; a Workflow (the workflow target) cancels its
    node tasks a few turns later, so this waits up to SETTLE_TURNS turns, no time at all."""
    left: set[asyncio.Task] = set()
    for _ in range(SETTLE_TURNS):
        gc.collect()
        await asyncio.sleep(0)
        left = running() - before
        if not left:
            break
    return left
