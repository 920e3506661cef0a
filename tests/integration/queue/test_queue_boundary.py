"""An execution boundary served by a pool of `adk-fluent worker` processes over a real Redis,
with every session in a real PostgreSQL that the callers and the workers share.

    S.capture >> a >> (b >> S.set(heavy_done=True)).execution_boundary("heavy", url=redis) >> c

The caller (the split's root App under ADK's Runner, here) puts each turn's "heavy" step on the
queue; workers in processes of their own run it (tests/support/queue_pipeline.py has the
scripted models; each call of b's model is marked with the worker's pid). The tests kill a
worker mid-step, deliver a job twice, poison one, run 50 turns at once on 4 workers, restart
the broker, and serve the boundary from a worker on the other ADK release.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from google.adk.runners import Runner
from google.genai import types

from adk_fluent import prepare_session_store
from adk_fluent.adk.custom_agents.queued import done_key, jobs_key, parked_key, reply_key
from adk_fluent.remote import to_apps
from adk_fluent.run.stores import ready, shared_session_service
from tests.support import postgres, redis_broker
from tests.support.queue_pipeline import build
from tests.support.queue_workers import WorkerProcess, marks_of
from tests.support.servers import REPO

postgres_server = postgres.postgres_server
postgres_url = postgres.postgres_url
redis_server = redis_broker.redis_server

pytestmark = pytest.mark.filterwarnings("ignore:.*EXPERIMENTAL.*:UserWarning")

# A turn's bound in the test, past the boundary's own timeout: a hang fails the test, a slow
# shared machine (50 turns at once on 2 cores, with 4 workers and PostgreSQL) does not.
MARGIN_SECONDS = 60


class Caller:
    """The split's root App under ADK's Runner, on the shared store."""

    def __init__(self, queue: str, store: str, *, timeout: float = 60.0) -> None:
        self.split = to_apps(build(queue, timeout=timeout))
        self.bound = timeout + MARGIN_SECONDS
        self.app = self.split.root
        self.service_app = self.split.services["heavy"].name
        self.sessions = shared_session_service(store)
        self.runner = Runner(app=self.app, session_service=self.sessions)

    async def new_session(self, user: str = "u") -> str:
        await ready(self.sessions)
        session = await self.sessions.create_session(app_name=self.app.name, user_id=user)
        return session.id

    async def turn(self, session_id: str, text: str, user: str = "u") -> list[Any]:
        message = types.Content(role="user", parts=[types.Part(text=text)])

        async def run() -> list[Any]:
            return [
                event
                async for event in self.runner.run_async(
                    user_id=user, session_id=session_id, new_message=message
                )
            ]

        return await asyncio.wait_for(run(), self.bound)

    async def stored(self, session_id: str, user: str = "u") -> Any:
        return await self.sessions.get_session(
            app_name=self.app.name, user_id=user, session_id=session_id
        )

    async def job_sessions(self, user: str = "u") -> list[Any]:
        """Every job's session the workers stored (one per call of the boundary)."""
        listed = await self.sessions.list_sessions(app_name=self.service_app, user_id=user)
        return [
            await self.sessions.get_session(
                app_name=self.service_app, user_id=user, session_id=s.id
            )
            for s in listed.sessions
        ]


def said(events: list[Any]) -> list[tuple[str, str]]:
    return [
        (e.author, "".join(p.text or "" for p in e.content.parts))
        for e in events
        if e.content and e.content.parts and not e.partial
    ]


def texts(session: Any) -> list[str]:
    return [
        "".join(p.text or "" for p in e.content.parts)
        for e in session.events
        if e.content and e.content.parts
    ]


@pytest.fixture
def workers(tmp_path: Path):
    """Starts worker processes (stopped by PID at the end)."""
    started: list[WorkerProcess] = []
    prepared: set[str] = set()

    def start(queue: str, store: str, **options: Any) -> WorkerProcess:
        if store not in prepared:  # as a deploy does, before processes race to create tables
            postgres._in_thread(lambda: prepare_session_store(store))
            prepared.add(store)
        log = tmp_path / f"worker{len(started)}.log"
        worker = WorkerProcess(queue, store, log, **options)
        started.append(worker)
        worker.wait_serving()
        return worker

    yield start
    for worker in started:
        worker.stop()
        print(f"--- {worker.log.name}\n{worker.output()[-4000:]}")  # shown when a test fails


async def test_the_split_pipeline_gives_what_one_process_gives(
    redis_server, postgres_url, workers, tmp_path
):
    marks = tmp_path / "marks"
    workers(redis_server.url, postgres_url, marks=marks)
    caller = Caller(redis_server.url, postgres_url)
    session = await caller.new_session()
    first = await caller.turn(session, "refund my cat food")
    second = await caller.turn(session, "and the dog's too")

    one = build(redis_server.url)  # the same pipeline in one process: the boundary runs in place
    whole = [await one.run(q, session_id="s") for q in ("refund my cat food", "and the dog's too")]

    assert said(first)[-2:] == [
        ("heavy", "worked on topic of refund my cat food"),
        ("c", "answer: worked on topic of refund my cat food"),
    ]
    assert said(second)[-1] == ("c", "answer: worked on topic of and the dog's too")
    assert [said(t)[-1][1] for t in (first, second)] == [t[-1].content for t in whole]
    state = (await caller.stored(session)).state
    single = (await one.session("s")).state
    assert {k: state[k] for k in ("question", "topic", "result", "heavy_done")} == {
        k: single[k] for k in ("question", "topic", "result", "heavy_done")
    }
    # each call ran once, in its own job session in the shared store, with the keys it was sent
    assert [q for _, q in marks_of(marks)] == ["refund my cat food", "and the dog's too"]
    jobs = await caller.job_sessions()
    assert sorted(texts(j)[-1] for j in jobs) == [
        "worked on topic of and the dog's too",
        "worked on topic of refund my cat food",
    ]
    assert all(j.state["heavy_done"] is True and "topic" in j.state for j in jobs)


async def test_a_worker_killed_mid_step_has_its_job_redelivered_and_stored_once(
    redis_server, postgres_url, workers, tmp_path
):
    marks = tmp_path / "marks"
    first = workers(redis_server.url, postgres_url, marks=marks, visibility_timeout=2)
    second = workers(redis_server.url, postgres_url, marks=marks, visibility_timeout=2)
    caller = Caller(redis_server.url, postgres_url)
    session = await caller.new_session()
    turn = asyncio.create_task(caller.turn(session, "slow 3 cats"))
    deadline = time.monotonic() + 60
    while not marks_of(marks) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert marks_of(marks), "no worker took the job"
    victim = marks_of(marks)[0][0]
    os.kill(victim, signal.SIGKILL)  # mid-step: its model call sleeps for 3 seconds
    events = await turn

    survivor = second if victim == first.pid else first
    assert [pid for pid, _ in marks_of(marks)] == [victim, survivor.pid]  # ran again, elsewhere
    assert said(events)[-2:] == [
        ("heavy", "worked on topic of slow 3 cats"),
        ("c", "answer: worked on topic of slow 3 cats"),
    ]
    stored = await caller.stored(session)
    assert texts(stored).count("worked on topic of slow 3 cats") == 1
    (job,) = await caller.job_sessions()  # the killed try left nothing behind
    assert texts(job) == ["slow 3 cats", "worked on topic of slow 3 cats"]


async def test_a_job_delivered_again_after_its_answer_is_answered_not_run_again(
    redis_server, postgres_url, workers, tmp_path
):
    import redis.asyncio as redis

    marks = tmp_path / "marks"
    workers(redis_server.url, postgres_url, marks=marks)
    caller = Caller(redis_server.url, postgres_url)
    session = await caller.new_session()
    await caller.turn(session, "dogs")
    (job,) = await caller.job_sessions()
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        answer = json.loads(await client.get(done_key("heavy", job.id)))
        # the same job again, as after a worker died between answering and acknowledging
        again = {"v": 1, "job": job.id, "service": "heavy", "user_id": "u", "session_id": session}
        again |= {"message": None, "state": {}, "receives": ["result"]}
        again["deadline"] = time.time() + 30
        await client.xadd(jobs_key("heavy"), {"job": json.dumps(again)})
        found = await client.xread({reply_key("heavy", job.id): "0"}, count=1, block=30_000)
    finally:
        await client.aclose()
    assert json.loads(found[0][1][0][1]["reply"]) == answer
    assert [q for _, q in marks_of(marks)] == ["dogs"]  # answered from the stored answer
    assert len(await caller.job_sessions()) == 1


async def test_a_poison_job_ends_the_turn_with_a_code_and_is_parked(
    redis_server, postgres_url, workers, tmp_path
):
    import redis.asyncio as redis

    marks = tmp_path / "marks"
    workers(redis_server.url, postgres_url, marks=marks, visibility_timeout=1, max_tries=2)
    caller = Caller(redis_server.url, postgres_url)
    session = await caller.new_session()
    events = await caller.turn(session, "poison pill")

    assert (events[-1].author, events[-1].error_code) == ("heavy", "QUEUE_POISONED")
    assert "failed on 2 tries" in events[-1].error_message
    assert "the heavy step always fails" in events[-1].error_message
    assert [q for _, q in marks_of(marks)] == ["poison pill", "poison pill"]  # bounded tries
    assert not [e for e in events if e.author == "c"]  # the turn ended there
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        parked = await client.xrange(parked_key("heavy"))
        pending = await client.xpending(jobs_key("heavy"), "workers")
    finally:
        await client.aclose()
    assert len(parked) == 1 and "failed on 2 tries" in parked[0][1]["reason"]
    assert json.loads(parked[0][1]["job"])["message"]["parts"][0]["text"] == "poison pill"
    assert pending["pending"] == 0  # acknowledged: never retried again
    await asyncio.sleep(2.5)  # past the visibility timeout: nobody takes it again
    assert len(marks_of(marks)) == 2


async def test_four_workers_serve_fifty_turns_at_once(
    redis_server, postgres_url, workers, tmp_path
):
    marks = tmp_path / "marks"
    pool = workers(redis_server.url, postgres_url, marks=marks, processes=4, concurrency=4)
    caller = Caller(redis_server.url, postgres_url, timeout=300)
    sessions = [await caller.new_session(f"user{i}") for i in range(50)]
    turns = await asyncio.gather(
        *(caller.turn(s, f"question {i}", f"user{i}") for i, s in enumerate(sessions))
    )
    for i, events in enumerate(turns):
        assert said(events)[-1] == ("c", f"answer: worked on topic of question {i}")
    calls = marks_of(marks)
    assert sorted(q for _, q in calls) == sorted(f"question {i}" for i in range(50))
    assert len({pid for pid, _ in calls}) > 1  # the pool shared the work
    assert pool.process.poll() is None


async def test_broker_down_at_start_names_the_url(postgres_url, tmp_path):
    from tests.support.servers import free_port

    url = f"redis://:s3cret@127.0.0.1:{free_port()}/0"
    command = [sys.executable, "-m", "adk_fluent.cli", "worker"]
    command += ["tests.support.queue_pipeline:pipeline", "--boundary", "heavy", "--queue", url]
    done = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 1
    assert f"127.0.0.1:{url.rsplit(':', 1)[1]}" in done.stderr and "does not answer" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout

    caller = Caller(url, postgres_url, timeout=10)
    session = await caller.new_session()
    events = await caller.turn(session, "cats")
    assert (events[-1].author, events[-1].error_code) == ("heavy", "QUEUE_UNREACHABLE")
    assert "127.0.0.1" in events[-1].error_message and "s3cret" not in events[-1].error_message


async def test_a_broker_restarted_mid_turn_fails_the_turn_clearly_within_its_timeout(
    redis_server, postgres_url, workers, tmp_path
):
    marks = tmp_path / "marks"
    workers(redis_server.url, postgres_url, marks=marks)
    caller = Caller(redis_server.url, postgres_url, timeout=8)
    session = await caller.new_session()
    turn = asyncio.create_task(caller.turn(session, "slow 3 birds"))
    while not marks_of(marks):
        await asyncio.sleep(0.05)
    redis_server.restart()  # no persistence: the job and its group are gone
    events = await turn  # bounded by the caller's timeout and a margin: a hang fails the test
    last = events[-1]
    if last.error_code:
        assert (last.author, last.error_code) == ("heavy", "QUEUE_TIMEOUT")
        assert "no worker answered within 8s" in last.error_message
    else:  # the worker answered on the new broker before the caller gave up
        assert said(events)[-1] == ("c", "answer: worked on topic of slow 3 birds")
    # the workers carry on with the new broker
    assert said(await caller.turn(session, "fish"))[-1] == ("c", "answer: worked on topic of fish")


def _other_release_python() -> str | None:
    """A Python of this checkout's environments whose google-adk is not the one running here."""
    from adk_fluent.adk.compat import adk_version

    here = str(adk_version())
    for candidate in (REPO / ".venv/bin/python", REPO / ".nox/tests-1-25-0/bin/python"):
        if not candidate.exists():
            continue
        found = subprocess.run(
            [str(candidate), "-c", "import google.adk, redis; print(google.adk.__version__)"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if found.returncode == 0 and found.stdout.strip() and found.stdout.strip() != here:
            return str(candidate)
    return None


async def test_a_worker_on_the_other_adk_release_serves_the_boundary(
    redis_server, postgres_url, workers, tmp_path
):
    python = _other_release_python()
    if python is None:
        if os.environ.get("ADK_FLUENT_REQUIRE_REDIS"):
            pytest.fail("CI has both ADK ends installed (.venv and .nox/tests-1-25-0)")
        pytest.skip("no environment with the other ADK release (make test builds both)")
    marks = tmp_path / "marks"
    worker = workers(redis_server.url, postgres_url, marks=marks, python=python)
    caller = Caller(redis_server.url, postgres_url)
    session = await caller.new_session()
    events = await caller.turn(session, "otters")
    assert said(events)[-2:] == [
        ("heavy", "worked on topic of otters"),
        ("c", "answer: worked on topic of otters"),
    ]
    assert marks_of(marks) == [(worker.pid, "otters")]
    assert (await caller.stored(session)).state["heavy_done"] is True


async def test_a_value_json_cannot_carry_is_refused_before_the_job_is_queued():
    from datetime import datetime

    from google.adk.sessions import InMemorySessionService

    from adk_fluent import Agent
    from adk_fluent.testing import ScriptedModel
    from tests.support.servers import free_port

    # nothing listens there: a refusal after queueing would be QUEUE_UNREACHABLE instead
    url = f"redis://127.0.0.1:{free_port()}/0"
    worker = Agent("planner").model(ScriptedModel(["Booked."])).instruct("Book for {when}.")
    split = to_apps(worker.execution_boundary("booking", url=url, timeout=5))
    assert split.crossing("booking").sends == ("when",)
    sessions = InMemorySessionService()  # a store that holds any object, as a tool may write one
    await sessions.create_session(
        app_name=split.root.name, user_id="u", session_id="s", state={"when": datetime(2025, 1, 2)}
    )
    runner = Runner(app=split.root, session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="book it")])
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]

    assert [(e.author, e.error_code) for e in events] == [("booking", "REMOTE_STATE_NOT_SENDABLE")]
    assert "'when'" in events[0].error_message and "datetime" in events[0].error_message


async def test_filtered_text_of_an_agent_inside_the_boundary_crosses_in_no_payload(redis_server):
    import redis.asyncio as redis
    from google.adk.sessions import InMemorySessionService

    from adk_fluent import Agent, ExecutionConfig
    from adk_fluent.testing import mock_backend

    inner = Agent("secret").instruct("Draft.").outputs("draft") >> Agent("speaker").instruct(
        "Say {draft}."
    ).outputs("said")
    pipeline = Agent("intake").instruct("Take it.").outputs("ask") >> inner.execution_boundary(
        "voice", url=redis_server.url, timeout=30
    )
    backend = mock_backend({"intake": ["noted"], "secret": ["SECRET DRAFT"], "speaker": ["Hi!"]})
    split = to_apps(pipeline, config=ExecutionConfig(visibility="filtered"), backend=backend)
    worker = split.worker("voice")  # in this process: the broker is what crosses
    serving = asyncio.create_task(worker.run())
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=split.root.name, user_id="u")
    runner = Runner(app=split.root, session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="hello")])
    try:
        events = [
            e
            async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
        ]
    finally:
        worker.stop()
        await serving
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        answers = [
            json.loads(await client.get(key))
            async for key in client.scan_iter("adk-fluent:voice:done:*")
        ]
    finally:
        await client.aclose()

    assert said(events)[-1] == ("voice", "Hi!")
    texts = [p.text for e in events if e.content for p in e.content.parts or () if p.text]
    assert "SECRET DRAFT" not in texts  # the client never sees the internal agent's text
    (answer,) = answers  # nor does the broker carry it as a reply (state is declared: it crosses)
    assert "SECRET" not in json.dumps(answer["replies"])
    assert answer["state"] == {"draft": "SECRET DRAFT", "said": "Hi!"}
