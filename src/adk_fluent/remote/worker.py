"""The workers of a queue boundary: a service's part run for each job on its Redis stream.

    split = to_apps(pipeline, urls={"heavy": "redis://queue:6379/0"})
    worker = split.worker("heavy", session_store="postgresql+asyncpg://...")
    await worker.run()           # until worker.stop() (adk-fluent worker runs N of these)

Delivery is at least once, made exactly once where it shows:

* a job is acknowledged only after its answer is stored, so a worker that dies mid-step
  (SIGKILL, a lost machine) leaves it pending; once it has been idle `visibility_timeout`
  seconds another worker claims it (XAUTOCLAIM) and runs it again. A worker running a job
  claims it afresh every third of that time, so a long step is not taken from a live worker;
* each job runs in a session of its own (app: the service, id: the job's id) in the shared
  session store; a second try deletes what the first left there before it starts, so the
  step's events and state are stored once;
* the answer is kept under the job's id for a day: a job delivered again after it was answered
  (a worker died between answering and acknowledging) is answered again, not run again;
* a job that raised on `max_tries` deliveries is parked (its own stream) and its caller gets
  QUEUE_POISONED; a job past its deadline is parked unrun (its caller stopped waiting).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from typing import Any

from google.genai import types

from adk_fluent.adk.custom_agents.queued import (
    DONE_SECONDS,
    GROUP,
    POISONED,
    TASK_FAILED,
    broker,
    content_json,
    content_of,
    done_key,
    jobs_key,
    parked_key,
    reply_key,
)
from adk_fluent.adk.custom_agents.steps import json_values
from adk_fluent.adk.event_visibility import is_chat_text
from adk_fluent.arguments import checked_count, checked_seconds
from adk_fluent.errors import redacted
from adk_fluent.run.stores import ready, shared_session_service

LOGGER = logging.getLogger("adk_fluent.worker")
_READ_MS = 1000  # one blocking read: how soon a stopping worker notices


class BrokerUnreachable(Exception):
    """The broker did not answer when the worker started; the message names its URL."""


class QueueWorker:
    """Runs one service's jobs from its queue: `concurrency` jobs at a time in this process.

    `app` is the service's ADK App (`SplitApps.services[service]`), `url` the broker's,
    `session_store` the store the jobs' sessions live in (shared by every worker and the
    caller: PostgreSQL for several machines)."""

    def __init__(
        self,
        app: Any,
        service: str,
        url: str,
        *,
        session_store: Any = None,
        concurrency: int = 4,
        visibility_timeout: float = 30.0,
        max_tries: int = 3,
        name: str | None = None,
    ) -> None:
        hint = "e.g. concurrency=4, visibility_timeout=30, max_tries=3."
        self.concurrency = checked_count(
            concurrency, service, "concurrency", least=1, hint=hint, where="worker"
        )
        self.visibility_timeout = checked_seconds(
            visibility_timeout, service, "visibility_timeout", positive=True, hint=hint
        )
        self.max_tries = checked_count(
            max_tries, service, "max_tries", least=1, hint=hint, where="worker"
        )
        self.app, self.service, self.url = app, service, url
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.session_store = session_store
        self._sessions: Any = None  # the store's service, opened in run()'s event loop
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """Finish the jobs in hand, take no new one, and return from `run()`."""
        self._stopping.set()

    async def check_broker(self) -> None:
        """Raise BrokerUnreachable (naming the URL) unless the broker answers."""
        client = broker(self.url, owner=self.service)
        try:
            await client.ping()
        except Exception as error:
            raise BrokerUnreachable(
                f"the queue broker at {redacted(self.url)} does not answer "
                f"({type(error).__name__}: {redacted(str(error))}); start it, or check the URL"
            ) from None
        finally:
            await client.aclose()

    async def run(self) -> None:
        """Serve jobs until `stop()`. A broker that goes away is waited for (logged)."""
        from google.adk.runners import Runner

        await self.check_broker()
        self._sessions = shared_session_service(self.session_store)
        await ready(self._sessions)
        runner = Runner(app=self.app, session_service=self._sessions)
        client = broker(self.url, owner=self.service)
        try:
            await self._ensure_group(client)
            loops = [
                asyncio.create_task(self._loop(client, runner, f"{self.name}-{i}"))
                for i in range(self.concurrency)
            ]
            await asyncio.gather(*loops)
        finally:
            await client.aclose()

    async def _ensure_group(self, client: Any) -> None:
        try:
            # from the stream's start: jobs added before the first worker are served too
            await client.xgroup_create(jobs_key(self.service), GROUP, id="0", mkstream=True)
        except Exception as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def _loop(self, client: Any, runner: Any, consumer: str) -> None:
        while not self._stopping.is_set():
            try:
                entry = await self._next(client, consumer)
                if entry is not None:
                    await self._handle(client, runner, consumer, *entry)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if "NOGROUP" in str(error):  # the broker restarted without its data
                    with contextlib.suppress(Exception):
                        await self._ensure_group(client)
                    continue
                LOGGER.warning(
                    "worker %s (%s): %s: %s; trying again",
                    consumer,
                    self.service,
                    type(error).__name__,
                    redacted(str(error)),
                )
                await asyncio.sleep(0.5)

    async def _next(self, client: Any, consumer: str) -> tuple[str, dict[str, str], int] | None:
        """The next job: one another worker left idle too long first, else a new one; with the
        number of times it has been delivered."""
        key = jobs_key(self.service)
        idle_ms = int(self.visibility_timeout * 1000)
        claimed = await client.xautoclaim(key, GROUP, consumer, idle_ms, "0-0", count=1)
        messages = claimed[1] if len(claimed) > 1 else []
        for entry_id, fields in messages:
            if fields:
                return entry_id, fields, await self._deliveries(client, entry_id)
        found = await client.xreadgroup(GROUP, consumer, {key: ">"}, count=1, block=_READ_MS)
        for _, entries in found or ():
            for entry_id, fields in entries:
                return entry_id, fields, 1
        return None

    async def _deliveries(self, client: Any, entry_id: str) -> int:
        pending = await client.xpending_range(
            jobs_key(self.service), GROUP, min=entry_id, max=entry_id, count=1
        )
        return int(pending[0]["times_delivered"]) if pending else 1

    async def _handle(
        self,
        client: Any,
        runner: Any,
        consumer: str,
        entry_id: str,
        fields: dict[str, str],
        tries: int,
    ) -> None:
        try:
            job = json.loads(fields["job"])
            job_id = str(job["job"])
        except (KeyError, TypeError, ValueError):
            await self._park(client, entry_id, fields, "not a job of this protocol")
            return
        done = await client.get(done_key(self.service, job_id))
        if done is not None:  # answered before, not acknowledged: answer again, run nothing
            await self._reply(client, entry_id, job_id, json.loads(done))
            return
        if time.time() > float(job.get("deadline") or 0):
            await self._park(client, entry_id, fields, "past its deadline: nobody waits for it")
            return
        if tries > self.max_tries:
            await self._poisoned(client, entry_id, fields, job_id, tries - 1, "")
            return
        keeper = asyncio.create_task(self._keep(client, consumer, entry_id))
        try:
            answer = await self._run(runner, job, tries)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            reason = f"{type(error).__name__}: {error}"
            LOGGER.warning(
                "worker %s: job %s of '%s' failed on try %d of %d (%s)",
                consumer,
                job_id,
                self.service,
                tries,
                self.max_tries,
                reason,
            )
            if tries >= self.max_tries:
                await self._poisoned(client, entry_id, fields, job_id, tries, reason)
            return  # left pending: claimed again once idle for the visibility timeout
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        # SET NX: when two workers ran one job (one was paused past the visibility timeout),
        # the first answer stands and the second is not sent
        stored = await client.set(
            done_key(self.service, job_id), json.dumps(answer), nx=True, ex=DONE_SECONDS
        )
        if not stored:
            answer = json.loads(await client.get(done_key(self.service, job_id)))
        await self._reply(client, entry_id, job_id, answer)

    async def _keep(self, client: Any, consumer: str, entry_id: str) -> None:
        """Claim the job afresh while it runs, so no other worker takes it from a live one."""
        every = self.visibility_timeout / 3
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(Exception):
                await client.xclaim(
                    jobs_key(self.service), GROUP, consumer, 0, [entry_id], justid=True
                )

    async def _run(self, runner: Any, job: dict[str, Any], tries: int) -> dict[str, Any]:
        """Run the part for one job in the job's own session; the answer to send back."""
        app_name, user_id, session_id = self.app.name, str(job["user_id"]), str(job["job"])
        sessions = self._sessions
        if (
            await sessions.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
            is not None
        ):  # an earlier try died mid-step: what it stored goes
            LOGGER.info("job %s of '%s': try %d starts afresh", session_id, app_name, tries)
            await sessions.delete_session(app_name=app_name, user_id=user_id, session_id=session_id)
        await sessions.create_session(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            state=dict(job.get("state") or {}),
        )
        message = content_of(job.get("message")) or types.Content(
            role="user", parts=[types.Part(text="")]
        )
        replies: list[dict[str, Any]] = []
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=message
        ):
            if event.error_code:
                return {
                    "ok": False,
                    "code": TASK_FAILED,
                    "message": f"'{self.service}' failed: {event.error_code}: "
                    f"{event.error_message}",
                }
            if not event.partial and is_chat_text(event):
                parts = [p for p in event.content.parts if p.text or p.inline_data or p.file_data]
                replies.append(content_json(types.Content(role="model", parts=parts)) or {})
        session = await sessions.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
        state = session.state if session is not None else {}
        wanted = [k for k in job.get("receives") or () if k in state]
        values, problem = json_values({k: state[k] for k in wanted}, self.service)
        if problem is not None:
            return {"ok": False, "code": TASK_FAILED, "message": problem}
        return {"ok": True, "replies": replies, "state": values, "tries": tries}

    async def _reply(self, client: Any, entry_id: str, job_id: str, answer: dict[str, Any]) -> None:
        key = reply_key(self.service, job_id)
        await client.xadd(key, {"reply": json.dumps(answer)})
        await client.expire(key, DONE_SECONDS)  # a caller that stopped waiting never reads it
        await self._finish(client, entry_id)

    async def _poisoned(
        self,
        client: Any,
        entry_id: str,
        fields: dict[str, str],
        job_id: str,
        tries: int,
        reason: str,
    ) -> None:
        why = f"failed on {tries} tries" + (f" (last: {reason})" if reason else "")
        await self._park(client, entry_id, fields, why, ack=False)
        message = (
            f"'{self.service}': the step {why}; the job {job_id} was parked on "
            f"{parked_key(self.service)}. Fix the step, then replay or drop the parked job."
        )
        await self._reply(
            client, entry_id, job_id, {"ok": False, "code": POISONED, "message": message}
        )

    async def _park(
        self, client: Any, entry_id: str, fields: dict[str, str], reason: str, *, ack: bool = True
    ) -> None:
        LOGGER.error("job %s of '%s' parked: %s", entry_id, self.service, reason)
        await client.xadd(parked_key(self.service), {**fields, "reason": reason})
        if ack:
            await self._finish(client, entry_id)

    async def _finish(self, client: Any, entry_id: str) -> None:
        """Acknowledge a job and drop it from the stream: it is never delivered again."""
        await client.xack(jobs_key(self.service), GROUP, entry_id)
        await client.xdel(jobs_key(self.service), entry_id)
