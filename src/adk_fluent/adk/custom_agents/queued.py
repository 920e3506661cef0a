"""An execution boundary served by a pool of queue workers, on Redis Streams.

The caller's side (`QueuedBoundaryAgent`, compiled from a RemoteAgentNode whose `card` is a
redis:// URL) and the protocol both sides speak; the workers are `adk_fluent.remote.worker`.

One service `S` uses these Redis keys:

* `adk-fluent:S:jobs`: a stream, read by the consumer group `workers`. A turn that reaches the
  boundary adds one job: a JSON object with its id (new for each call), the caller's user and
  session, the user's message, the declared state it sends, the keys it wants back and the
  time past which nobody waits for the answer.
* `adk-fluent:S:reply:<job>`: a stream of one entry, the answer, that the caller waits on
  (the boundary's timeout) and deletes once read.
* `adk-fluent:S:done:<job>`: the answer again, kept for a day, so a job delivered twice (a
  worker that died after answering but before acknowledging) is answered again, not run again.
* `adk-fluent:S:parked`: jobs given up on (failed on every try, or past their deadline).

Only JSON crosses: the message and replies as google-genai Content JSON, state values as JSON,
so a worker on another ADK release reads the same job.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.events import Event, EventActions
from google.genai import types

from adk_fluent.adk.custom_agents.steps import (
    STATE_NOT_SENDABLE,
    failure,
    json_values,
    state_of,
)
from adk_fluent.errors import BuildError, install_extra, redacted

# The error codes of a queued call (docs/errors.md).
UNREACHABLE = "QUEUE_UNREACHABLE"
TIMED_OUT = "QUEUE_TIMEOUT"
TASK_FAILED = "QUEUE_TASK_FAILED"
POISONED = "QUEUE_POISONED"

GROUP = "workers"
PROTOCOL = 1
DONE_SECONDS = 24 * 3600  # how long an answer is kept for a job delivered again
_POLL_SECONDS = 1.0  # one blocking read; a dropped connection is retried after it
_CONNECT_SECONDS = 5.0


def jobs_key(service: str) -> str:
    """The stream of a service's jobs."""
    return f"adk-fluent:{service}:jobs"


def reply_key(service: str, job: str) -> str:
    """The stream the answer to one job is put on."""
    return f"adk-fluent:{service}:reply:{job}"


def done_key(service: str, job: str) -> str:
    """Where the answer to one job is kept, for a second delivery of it."""
    return f"adk-fluent:{service}:done:{job}"


def parked_key(service: str) -> str:
    """The stream of the jobs a service's workers gave up on."""
    return f"adk-fluent:{service}:parked"


def broker(url: str, *, owner: str | None = None) -> Any:
    """A redis.asyncio client for `url` (no connection yet); BuildError without the extra."""
    try:
        from redis.asyncio import Redis
    except ImportError:
        raise BuildError(
            "a queue boundary needs the redis client, which is not installed",
            agent=owner,
            field="url",
            hint=f"install the queue extra: {install_extra('queue')}.",
        ) from None
    return Redis.from_url(
        url,
        socket_connect_timeout=_CONNECT_SECONDS,
        health_check_interval=30,
        decode_responses=True,
    )


def content_json(content: types.Content | None) -> dict[str, Any] | None:
    """A Content as JSON every google-genai release reads."""
    return None if content is None else content.model_dump(mode="json", exclude_none=True)


def content_of(value: Any) -> types.Content | None:
    """The Content a job or an answer carried."""
    return None if not isinstance(value, dict) else types.Content.model_validate(value)


class QueuedBoundaryAgent(BaseAgent):
    """The caller's side of a queue boundary: puts one job on the service's stream with the
    declared keys, waits at most `timeout` seconds for the answer, then yields the service's
    replies (as its own, as a RemoteAgent does) with the declared keys it sent back as the last
    event's state delta. Failures are one coded error event that ends the turn."""

    url: str
    service: str
    timeout: float = 600.0
    sends: tuple[str, ...] = ()
    receives: tuple[str, ...] = ()

    async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Event, None]:
        state = state_of(ctx)
        values, problem = json_values({k: state[k] for k in self.sends if k in state}, self.name)
        if problem is not None:
            yield failure(ctx, self.name, STATE_NOT_SENDABLE, problem)
            return
        session = ctx.session
        job = uuid.uuid4().hex
        deadline = time.time() + self.timeout
        body = {
            "v": PROTOCOL,
            "job": job,
            "service": self.service,
            "user_id": session.user_id,
            "session_id": session.id,
            "invocation_id": ctx.invocation_id,
            "message": content_json(ctx.user_content),
            "state": values,
            "receives": list(self.receives),
            "deadline": deadline,
        }
        client = broker(self.url, owner=self.name)
        try:
            try:
                await client.xadd(jobs_key(self.service), {"job": json.dumps(body)})
            except Exception as error:  # the redis client's connection and timeout errors
                yield failure(
                    ctx,
                    self.name,
                    UNREACHABLE,
                    f"'{self.name}': the queue at {redacted(self.url)} did not take the job "
                    f"({type(error).__name__}: {redacted(str(error))}). Fix: start the broker, or "
                    "check the boundary's URL.",
                )
                return
            answer = await self._answer(client, job, deadline)
        finally:
            await client.aclose()
        if answer is None:
            yield failure(
                ctx,
                self.name,
                TIMED_OUT,
                f"'{self.name}': no worker answered within {self.timeout:g}s on the queue at "
                f"{redacted(self.url)}. Fix: start workers (adk-fluent worker ... --boundary "
                f"{self.service}), or give the boundary a longer timeout.",
            )
            return
        for event in self._events(ctx, answer):
            yield event

    async def _answer(self, client: Any, job: str, deadline: float) -> dict[str, Any] | None:
        """The worker's answer, or None past the deadline. A dropped connection (the broker
        restarted) is retried until then."""
        key = reply_key(self.service, job)
        while (left := deadline - time.time()) > 0:
            try:
                found = await client.xread(
                    {key: "0"}, count=1, block=max(1, int(min(left, _POLL_SECONDS) * 1000))
                )
            except Exception:  # not answering now: the deadline bounds the retries
                await asyncio.sleep(min(0.2, max(0.0, deadline - time.time())))
                continue
            if found:
                _, entries = found[0]
                with contextlib.suppress(Exception):  # else it expires (DONE_SECONDS)
                    await client.delete(key)
                answer: dict[str, Any] = json.loads(entries[0][1]["reply"])
                return answer
        return None

    def _events(self, ctx: Any, answer: dict[str, Any]) -> list[Event]:
        if not answer.get("ok"):
            code = str(answer.get("code") or TASK_FAILED)
            return [failure(ctx, self.name, code, str(answer.get("message") or ""))]
        wanted = set(self.receives)
        delta = {k: v for k, v in (answer.get("state") or {}).items() if k in wanted}
        events = [
            Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
                content=content_of(content),
            )
            for content in answer.get("replies") or ()
        ]
        if not events:
            events.append(
                Event(author=self.name, invocation_id=ctx.invocation_id, branch=ctx.branch)
            )
        events[-1].actions = EventActions(state_delta=delta)
        return events
