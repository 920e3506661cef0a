"""rate_limiter / token_budget: how fast, and how much, the model may be called.

`rate_limiter` is a token bucket awaited before each model call (`before_model_callback`). Its
buckets are shared by every session that runs through the middleware (a rate limit protects a
quota, which all sessions draw on): one per model name (`per="model"`) or one for the whole app
(`per="app"`). Waiters queue on an asyncio.Lock (FIFO, so no caller starves) and the one at the
head sleeps exactly as long as its bucket needs; nothing polls. `calls_per_second` refills one
call every 1/rate seconds, at most `burst` calls at once after an idle spell. `tokens_per_minute`
starts full (one minute's worth) and is debited by each reply's `usage_metadata` once it is back
(`after_model_callback`): a call may start while the bucket is not in debt; once replies have
spent more than has refilled, the next call waits until the debt is paid back. (Concurrent calls
that start before any reply is debited all go: the cost of a call is known only afterwards.)
A call that waited carries `adk_fluent.rate_limiter: {"waited": seconds}` in its event's metadata.
With burst=1 calls are never closer than 1/rate; a waiter that wakes late (the event loop was
busy) loses that lateness, since a bucket of one call banks nothing, so under load the achieved
rate sits a little under the limit (bench/bench_rate_limiter.py); a burst of a few absorbs it.

`token_budget` stops spending: each reply's tokens (`usage_metadata.total_token_count`) are
added up, and a model call that would start once `max_tokens` are spent is answered instead by
an error event (`TOKEN_BUDGET_EXCEEDED`) and no later agent of the invocation runs. The spend
is recorded in state through the event's state delta, so it survives a reload:
`adk_fluent_budget__tokens` (per="session", what every turn of the session spent) or
`adk_fluent_budget__invocation_tokens` (per="invocation", what the latest turn spent; the count
itself is kept in the middleware per invocation and forgotten when the run ends).

The spend is written in `after_model_callback`, into the reply's own event. (google-adk 1.25
hands plugins a context there whose writes would be dropped; the middleware plugin moves them
into the reply's event: adk/plugins/middleware.py.)
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from adk_fluent.adk.bounded import remember
from adk_fluent.adk.plugins.middleware import agent_path, model_call, sync_callback
from adk_fluent.arguments import checked_callable, checked_choice, checked_count, checked_number
from adk_fluent.errors import BuildError
from adk_fluent.ir.middleware import Middleware
from adk_fluent.middleware.replies import error_reply, mark, stop_run

_MAX_OPEN = 4096  # model calls / invocations remembered at once (oldest dropped first)
_EPSILON = 1e-9  # float slack when a refilled bucket is compared with what a call needs

SESSION_TOKENS_KEY = "adk_fluent_budget__tokens"
INVOCATION_TOKENS_KEY = "adk_fluent_budget__invocation_tokens"
BUDGET_EXCEEDED = "TOKEN_BUDGET_EXCEEDED"

RateScope = Literal["model", "app"]
BudgetScope = Literal["session", "invocation"]


# -- shared by both ---------------------------------------------------------------------------
def reply_tokens(response: Any) -> int | None:
    """The tokens a model reply cost (`usage_metadata.total_token_count`; the sum of the counts
    it has when the total is missing); None when the reply carries no usage."""
    usage = getattr(response, "usage_metadata", None)
    if usage is None:
        return None
    total = getattr(usage, "total_token_count", None)
    if isinstance(total, int):
        return total
    counts = (
        getattr(usage, name, None)
        for name in (
            "prompt_token_count",
            "candidates_token_count",
            "thoughts_token_count",
            "tool_use_prompt_token_count",
        )
    )
    return sum(count for count in counts if isinstance(count, int))


# -- rate_limiter -----------------------------------------------------------------------------
@dataclass
class TokenBucket:
    """A bucket of `capacity` units refilled at `rate` units a second; `level` may go below 0
    (a debt: what was spent beyond what had refilled). Starts full at its first use."""

    capacity: float
    rate: float
    level: float
    stamp: float | None = None  # when `level` was last brought up to date

    def refill(self, now: float) -> float:
        """Bring `level` up to date at time `now`; the new level."""
        if self.stamp is not None and now > self.stamp:
            self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        if self.stamp is None or now > self.stamp:
            self.stamp = now
        return self.level

    def wait_for(self, needed: float, now: float) -> float:
        """Seconds until the level reaches `needed` (0 when it is there already)."""
        missing = needed - self.refill(now)
        return 0.0 if missing <= _EPSILON else missing / self.rate


@dataclass
class _Buckets:
    calls: TokenBucket | None
    tokens: TokenBucket | None


def _wait(buckets: _Buckets, now: float) -> float:
    """Seconds until `buckets` let one call go at time `now` (0: it may go now)."""
    wait = 0.0
    if buckets.calls is not None:
        wait = buckets.calls.wait_for(1.0, now)
    if buckets.tokens is not None:
        wait = max(wait, buckets.tokens.wait_for(0.0, now))
    return wait


def _take(buckets: _Buckets) -> None:
    """One call goes: its unit leaves the calls bucket (tokens are debited by its reply)."""
    if buckets.calls is not None:
        buckets.calls.level -= 1.0


class RateLimiter(Middleware):
    """Waits before each model call until the call fits `calls_per_second` and
    `tokens_per_minute` (see the module docstring); shared by every session it serves.

    One instance serves runs on one event loop at a time (one after another is fine: each loop
    gets its own lock, the buckets carry over); threads running their own loops at once need
    a limiter each, or a limit shared outside the process."""

    name = "rate_limiter"

    def __init__(
        self,
        calls_per_second: float | None,
        tokens_per_minute: float | None,
        *,
        per: RateScope = "model",
        burst: int | None = None,
        scope: str | tuple[str, ...] | None = None,
        priority: int = -20,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.calls_per_second = calls_per_second
        self.tokens_per_minute = tokens_per_minute
        self.per = per
        self.burst = 1 if burst is None else burst
        self.clock = clock
        self.sleep = sleep
        self._buckets: dict[str, _Buckets] = {}
        # bucket -> (the event loop it serves, its lock): an asyncio.Lock belongs to one loop
        self._locks: dict[str, tuple[weakref.ref[asyncio.AbstractEventLoop], asyncio.Lock]] = {}
        # model call in flight -> (its bucket, seconds it waited)
        self._open: OrderedDict[tuple[Any, ...], tuple[str, float]] = OrderedDict()
        # bucket -> callers between entering its lock's queue and leaving the lock
        self._queued: dict[str, int] = {}

    def bucket_name(self, llm_request: Any) -> str:
        """The bucket a request draws on: its model's name (per="model") or '' (per="app")."""
        if self.per == "app":
            return ""
        model = getattr(llm_request, "model", None)
        return model if isinstance(model, str) else ""

    def buckets(self, name: str) -> _Buckets:
        """The buckets of `name` (made full at first use)."""
        found = self._buckets.get(name)
        if found is None:
            calls = tokens = None
            if self.calls_per_second is not None:
                calls = TokenBucket(float(self.burst), float(self.calls_per_second), self.burst)
            if self.tokens_per_minute is not None:
                per_minute = float(self.tokens_per_minute)
                tokens = TokenBucket(per_minute, per_minute / 60.0, per_minute)
            found = self._buckets[name] = _Buckets(calls, tokens)
        return found

    def _lock(self, name: str) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        held = self._locks.get(name)
        if held is None or held[0]() is not loop:
            held = self._locks[name] = (weakref.ref(loop), asyncio.Lock())
        return held[1]

    async def acquire(self, name: str) -> float:
        """Wait until bucket `name` lets one call go, take it; the seconds waited (queueing
        behind earlier callers included)."""
        started = self.clock()
        buckets = self.buckets(name)
        wait = self._at_once(name, buckets)
        if wait is None or wait > 0.0:
            await self._queue(name, buckets, wait)
        return max(0.0, self.clock() - started)

    def _at_once(self, name: str, buckets: _Buckets) -> float | None:
        """When nobody holds or awaits bucket `name`'s lock, taking it would not yield: its
        first look, without it. The wait that look found (<= 0: the call went, taken), or None
        when others queue."""
        if self._queued.get(name):
            return None
        wait = _wait(buckets, self.clock())
        if wait <= 0.0:
            _take(buckets)
        return wait

    async def _queue(self, name: str, buckets: _Buckets, wait: float | None) -> None:
        """Queue on bucket `name`'s lock (FIFO) until it lets one call go, take it; `wait`:
        what the first look found (None: look once the lock is held)."""
        self._queued[name] = self._queued.get(name, 0) + 1
        try:
            async with self._lock(name):
                while True:
                    if wait is None:
                        wait = _wait(buckets, self.clock())
                    if wait <= 0.0:
                        break
                    # replies debited while we slept may ask for more: hence the loop
                    await self.sleep(wait)
                    wait = None
                _take(buckets)
        finally:
            self._queued[name] -= 1

    def debit(self, name: str, tokens: int) -> None:
        """Take a reply's tokens from bucket `name` (it may go into debt)."""
        bucket = self.buckets(name).tokens
        if bucket is not None and tokens > 0:
            bucket.refill(self.clock())
            bucket.level -= tokens

    @sync_callback
    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Any:
        name = self.bucket_name(llm_request)
        if type(self).acquire is not RateLimiter.acquire:  # a limiter of its own: as it says
            return self._acquired(callback_context, name)
        # acquire(), without a coroutine when the call may go at once
        started = self.clock()
        buckets = self.buckets(name)
        wait = self._at_once(name, buckets)
        if wait is None or wait > 0.0:
            return self._queued_call(callback_context, name, buckets, wait, started)
        self._began(callback_context, name, max(0.0, self.clock() - started))
        return None

    async def _acquired(self, callback_context: Any, name: str) -> None:
        self._began(callback_context, name, await self.acquire(name))

    async def _queued_call(
        self,
        callback_context: Any,
        name: str,
        buckets: _Buckets,
        wait: float | None,
        started: float,
    ) -> None:
        await self._queue(name, buckets, wait)
        self._began(callback_context, name, max(0.0, self.clock() - started))

    def _began(self, callback_context: Any, name: str, waited: float) -> None:
        remember(self._open, model_call(callback_context), (name, waited), _MAX_OPEN)

    @sync_callback
    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        if getattr(llm_response, "partial", False):
            return None  # a streamed chunk: its call goes on (and carries no usage)
        began = self._open.pop(model_call(callback_context), None)
        if began is None:  # a reply that replaced a failed call, or one we did not see begin
            return None
        name, waited = began
        tokens = reply_tokens(llm_response)
        if tokens:
            self.debit(name, tokens)
        if waited > 0.0:
            mark(llm_response, "rate_limiter", {"waited": round(waited, 6)})
        return None  # marked in place: the agent's own after_model callbacks still run

    @sync_callback
    def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        # a call that never ended (answered by a later middleware's before_model)
        if self._open:
            self._open.pop(model_call(callback_context), None)


def rate_limiter(
    calls_per_second: float | None = None,
    tokens_per_minute: float | None = None,
    *,
    per: RateScope = "model",
    burst: int | None = None,
    scope: str | tuple[str, ...] | None = None,
    priority: int = -20,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> RateLimiter:
    """Middleware that makes model calls wait to stay under `calls_per_second` and/or
    `tokens_per_minute`, per model name (per="model") or for the whole app (per="app")."""
    where = RateLimiter.name
    if calls_per_second is None and tokens_per_minute is None:
        raise BuildError(
            "rate_limiter() needs a limit: calls_per_second, tokens_per_minute, or both",
            agent=where,
            field="calls_per_second",
            hint="e.g. rate_limiter(calls_per_second=5) or "
            "rate_limiter(tokens_per_minute=100_000).",
        )
    if calls_per_second is not None:
        checked_number(
            calls_per_second,
            where,
            "calls_per_second",
            positive=True,
            hint="e.g. calls_per_second=5, or 0.5 for one call every two seconds.",
        )
    if tokens_per_minute is not None:
        checked_number(
            tokens_per_minute,
            where,
            "tokens_per_minute",
            positive=True,
            hint="e.g. tokens_per_minute=100_000 (the model's quota).",
        )
    checked_choice(per, where, "per", ("model", "app"), hint="per='model' is the default.")
    if burst is not None:
        if calls_per_second is None:
            raise BuildError(
                "burst applies to calls_per_second, which is not set",
                agent=where,
                field="burst",
                hint="add calls_per_second=..., or drop burst (a token limit already lets "
                "one minute's worth of tokens go at once).",
            )
        checked_count(
            burst,
            where,
            "burst",
            least=1,
            hint="burst=1 (the default) spaces calls evenly; burst=5 lets 5 go at once after a "
            "pause.",
        )
    checked_callable(clock, where, "clock", "a function returning seconds, e.g. time.monotonic.")
    checked_callable(sleep, where, "sleep", "an async function of seconds, e.g. asyncio.sleep.")
    return RateLimiter(
        calls_per_second,
        tokens_per_minute,
        per=per,
        burst=burst,
        scope=scope,
        priority=priority,
        clock=clock,
        sleep=sleep,
    )


# -- token_budget -----------------------------------------------------------------------------
class TokenBudget(Middleware):
    """Refuses model calls once `max_tokens` are spent in the session or the invocation (see
    the module docstring); `state_key` is where the spend is recorded."""

    name = "token_budget"

    def __init__(
        self,
        max_tokens: int,
        *,
        per: BudgetScope = "session",
        scope: str | tuple[str, ...] | None = None,
        priority: int = -40,
    ) -> None:
        super().__init__(scope=scope, priority=priority)
        self.max_tokens = max_tokens
        self.per = per
        base = SESSION_TOKENS_KEY if per == "session" else INVOCATION_TOKENS_KEY
        # a scoped budget counts only its agents' replies: its own key, so that an app-wide
        # budget next to it is not added to twice
        self.state_key = base if self.scope is None else f"{base}__{'_'.join(self.scope)}"
        self._invocations: OrderedDict[str, int] = OrderedDict()  # invocation id -> tokens

    def spent(self, callback_context: Any) -> int:
        """Tokens spent so far in this session (per="session") or invocation."""
        if self.per == "invocation":
            return self._invocations.get(callback_context.invocation_id, 0)
        spent = callback_context.state.get(self.state_key, 0)
        return spent if isinstance(spent, int) and not isinstance(spent, bool) else 0

    @sync_callback
    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Any:
        spent = self.spent(callback_context)
        if spent < self.max_tokens:
            return None
        agent = callback_context.agent_name
        what = "session" if self.per == "session" else "invocation (this turn)"
        hint = (
            "start a new session, or raise token_budget(max_tokens=...)"
            if self.per == "session"
            else "the budget is per turn: the next message starts again from 0; or raise "
            "token_budget(max_tokens=...)"
        )
        stop_run(callback_context)
        return error_reply(
            BUDGET_EXCEEDED,
            f"token budget exceeded: {spent} tokens spent in this {what}, the budget is "
            f"{self.max_tokens}; agent '{agent_path(agent)}' did not call the model and nothing "
            f"after it runs.\n  hint: {hint}.",
            token_budget={"spent": spent, "max": self.max_tokens, "per": self.per},
        )

    @sync_callback
    def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        if getattr(llm_response, "partial", False):
            return None  # streamed chunks carry no usage; the final reply does
        tokens = reply_tokens(llm_response)
        if not tokens:
            return None
        invocation_id = callback_context.invocation_id
        if self.per == "invocation":
            total = self._invocations.get(invocation_id, 0) + tokens
            remember(self._invocations, invocation_id, total, _MAX_OPEN)
        else:
            total = self.spent(callback_context) + tokens
        callback_context.state[self.state_key] = total
        return None

    @sync_callback
    def after_run_callback(self, *, invocation_context: Any) -> None:
        # only an unscoped budget hears the run end; scoped ones forget the oldest beyond
        # _MAX_OPEN invocations instead
        self._invocations.pop(invocation_context.invocation_id, None)


def token_budget(
    max_tokens: int,
    *,
    per: BudgetScope = "session",
    scope: str | tuple[str, ...] | None = None,
    priority: int = -40,
) -> TokenBudget:
    """Middleware that stops the run with a TOKEN_BUDGET_EXCEEDED error event once the model
    replies of the session (per="session") or of the turn (per="invocation") cost `max_tokens`."""
    where = TokenBudget.name
    checked_count(
        max_tokens,
        where,
        "max_tokens",
        least=1,
        hint="e.g. token_budget(50_000): the tokens (prompt + reply) the model calls may cost.",
    )
    checked_choice(
        per, where, "per", ("session", "invocation"), hint="per='session' is the default."
    )
    return TokenBudget(max_tokens, per=per, scope=scope, priority=priority)
