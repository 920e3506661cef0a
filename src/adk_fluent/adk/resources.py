"""Scoped resources for tools (`inject(db=per_invocation(open_db, close=close_db))`): one value
per invocation or per session, made at its first use and torn down when its scope ends.

* Invocation scope: one value per ADK invocation (a turn; an agent tool's run is one of its
  own), shared by every call in it. Torn down when the invocation ends: by the visibility
  plugin's after_run callback (and ADK's on_run_error callback, where ADK has it) for any Runner,
  and by adk-fluent's engine when its turn ends however it ends (finished, failed, cancelled,
  timed out). A plain Runner on an ADK without on_run_error leaves a failed run's value to
  the bound below.
* Session scope: one value per (app, user, session) in this process, never shared between
  sessions. Torn down by `close_session_stores()`, when more than SESSIONS_KEPT sessions hold
  values (the least recently used goes first), and, for closers that need no event loop, at
  interpreter exit.

Teardown is the `close` given (a function, sync or async, of the value), else the value's own
`aclose()` or `close()`; an error in it is logged, never raised into the run.
"""

from __future__ import annotations

import asyncio
import atexit
import inspect
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

logger = logging.getLogger(__name__)

INVOCATIONS_KEPT = 1024  # invocations holding values at once (older ones are torn down)
SESSIONS_KEPT = 1024  # sessions holding values at once in this process


@dataclass(frozen=True, eq=False)
class Scoped:
    """A resource made once per `scope` ("invocation" or "session") and torn down after it."""

    factory: Callable[[], Any]
    close: Callable[[Any], Any] | None
    scope: Literal["invocation", "session"]

    def __repr__(self) -> str:
        name = getattr(self.factory, "__name__", type(self.factory).__name__)
        return f"per_{self.scope}({name})"


@dataclass(frozen=True)
class _Made:
    value: Any


# scope key -> {resource: its value, or the future of a value being made (concurrent first uses
# wait for it, and one value is made); a value outlives its loop (ask_sync runs a loop a turn)}
_Held = dict[Scoped, "_Made | asyncio.Future[Any]"]
_invocations: OrderedDict[str, _Held] = OrderedDict()
_sessions: OrderedDict[tuple[str, str, str], _Held] = OrderedDict()
# the invocations a turn of adk-fluent's engine used, to tear down when the turn ends
TURN_INVOCATIONS: ContextVar[set[str] | None] = ContextVar(
    "adk_fluent_turn_invocations", default=None
)


def _key(resource: Scoped, tool_context: Any) -> tuple[OrderedDict[Any, _Held], Any]:
    if resource.scope == "invocation":
        return _invocations, tool_context.invocation_id
    session = tool_context.session
    return _sessions, (session.app_name, session.user_id, session.id)


async def acquire(resource: Scoped, tool_context: Any) -> Any:
    """The value of `resource` in the scope of this tool call, made at its first use."""
    table, key = _key(resource, tool_context)
    held = table.get(key)
    if held is None:
        held = table[key] = {}
        limit = INVOCATIONS_KEPT if table is _invocations else SESSIONS_KEPT
        while len(table) > limit:
            _, evicted = table.popitem(last=False)
            await _tear_down(evicted)
    else:
        table.move_to_end(key)
    if resource.scope == "invocation":
        turn = TURN_INVOCATIONS.get()
        if turn is not None:
            turn.add(key)
    found = held.get(resource)
    if isinstance(found, _Made):
        return found.value
    if found is not None:  # being made by a concurrent call: the same value
        return await asyncio.shield(found)
    future = held[resource] = asyncio.get_running_loop().create_future()
    try:
        value = resource.factory()
        if inspect.isawaitable(value):
            value = await value
    except BaseException as error:
        del held[resource]  # the next use tries again
        future.set_exception(error)
        future.exception()  # retrieved: no "never retrieved" warning for other waiters
        raise
    future.set_result(value)
    held[resource] = _Made(value)
    return value


def holding_invocations() -> bool:
    """Whether any invocation holds a value (the plugin's after_run asks, at no other cost)."""
    return bool(_invocations)


async def end_invocations(keys: Iterable[str]) -> None:
    """Tear down the values of these invocations (their runs have ended)."""
    for key in list(keys):
        held = _invocations.pop(key, None)
        if held:
            await _tear_down(held)


async def end_sessions() -> None:
    """Tear down every session's values (the process is done with its sessions)."""
    while _sessions:
        _, held = _sessions.popitem(last=False)
        await _tear_down(held)


async def _tear_down(held: _Held) -> None:
    for resource, made in list(held.items()):
        if not isinstance(made, _Made):
            continue  # still being made, or failed: nothing to close
        try:
            result = _closer(resource)(made.value)
            if inspect.isawaitable(result):
                await result
        except Exception:  # teardown never fails the run it follows
            logger.exception("adk-fluent: tearing down %r failed", resource)
    held.clear()


def _closer(resource: Scoped) -> Callable[[Any], Any]:
    if resource.close is not None:
        return resource.close

    def own(value: Any) -> Any:
        method = getattr(value, "aclose", None) or getattr(value, "close", None)
        return method() if callable(method) else None

    return own


@atexit.register
def _at_exit() -> None:
    """Closers that need no event loop run at exit; awaitable ones are left (no loop runs)."""
    for table in (_invocations, _sessions):
        for held in table.values():
            for resource, made in held.items():
                if isinstance(made, _Made):
                    try:
                        result = _closer(resource)(made.value)
                    except Exception:
                        continue
                    if inspect.iscoroutine(result):
                        result.close()
        table.clear()
