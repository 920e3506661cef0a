"""rate_limiter through the real Runner, on a fake clock: concurrent sessions queue behind one
bucket (each call starts 1/rate after the one before, the waits are what the bucket asks, the
events say how long each call waited), a token limit makes the call after an expensive reply
wait for the debt, and per="model" keeps a bucket per model while per="app" shares one. The
fake `sleep` records what the limiter asked for and moves the fake clock on: no test waits on
real time or asserts on it. Each compares with the same run without the limiter."""

from __future__ import annotations

import asyncio
from typing import Any

from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware import Middleware
from adk_fluent.middleware.limits import RateLimiter, rate_limiter
from adk_fluent.testing import ScriptedModel, mock_backend, repeat
from tests.support.middleware import user

WAITED = "adk_fluent.rate_limiter"


class FakeTime:
    """A clock that only `sleep` moves; every requested sleep is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)  # let the other sessions run, as a real sleep would


class StartTimes(Middleware):
    """The fake time each model call reaches this middleware: right after the limiter
    (priority -19, the default) it is when the call starts; right before it (-21), when the call
    arrived at the limiter."""

    def __init__(self, time: FakeTime, priority: int = -19) -> None:
        super().__init__(priority=priority)
        self.time = time
        self.starts: list[tuple[str, float]] = []
        self.by_session: dict[str, float] = {}
        self.sessions: list[str] = []  # in the order the calls came

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        self.starts.append((callback_context.agent_name, self.time.now))
        self.by_session[callback_context.session.id] = self.time.now
        self.sessions.append(callback_context.session.id)


def reply(text: str, total_tokens: int) -> LlmResponse:
    usage = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=total_tokens - 2,
        candidates_token_count=2,
        total_token_count=total_tokens,
    )
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=text)]), usage_metadata=usage
    )


def waited(event: Any) -> float | None:
    mark = (event.custom_metadata or {}).get(WAITED)
    return None if mark is None else mark["waited"]


async def concurrent_sessions(middleware: tuple[Any, ...], sessions: int) -> list[list[Any]]:
    """`sessions` sessions of one agent at once through a plain Runner over to_app()."""
    model = ScriptedModel({"solo": [repeat("ok")]})
    app = (
        Agent("solo").model(model.for_agent("solo")).to_app(ExecutionConfig(middleware=middleware))
    )
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)

    async def one(n: int) -> list[Any]:
        await service.create_session(app_name=app.name, user_id="u", session_id=f"s{n}")
        return [
            e
            async for e in runner.run_async(user_id="u", session_id=f"s{n}", new_message=user("hi"))
        ]

    results = await asyncio.gather(*(one(n) for n in range(sessions)))
    assert len(model.requests["solo"]) == sessions
    return results


async def test_plain_runner_concurrent_sessions_wait_their_turn_in_the_bucket():
    time = FakeTime()
    arrivals, starts = StartTimes(time, priority=-21), StartTimes(time)
    limiter = rate_limiter(calls_per_second=2, clock=time.clock, sleep=time.sleep)
    results = await concurrent_sessions((arrivals, limiter, starts), sessions=4)

    # one call every half second, the first at once; each waiter slept exactly what it needed
    assert [at for _, at in starts.starts] == [0.0, 0.5, 1.0, 1.5]
    assert time.sleeps == [0.5, 0.5, 0.5]
    # each event says how long its call waited (queueing behind the others included); the
    # first call did not wait and carries no mark
    for n, events in enumerate(results):
        final = events[-1]
        assert final.content.parts[0].text == "ok"
        session = f"s{n}"
        assert (waited(final) or 0.0) == starts.by_session[session] - arrivals.by_session[session]
    assert sorted(waited(events[-1]) is None for events in results) == [False, False, False, True]
    assert starts.sessions == arrivals.sessions  # first come, first served

    # without the limiter every call starts at once and nothing sleeps
    time = FakeTime()
    starts = StartTimes(time)
    results = await concurrent_sessions((starts,), sessions=4)
    assert [at for _, at in starts.starts] == [0.0, 0.0, 0.0, 0.0]
    assert time.sleeps == [] and all(waited(events[-1]) is None for events in results)


async def test_plain_runner_burst_lets_that_many_go_at_once():
    time = FakeTime()
    starts = StartTimes(time)
    limiter = rate_limiter(calls_per_second=4, burst=2, clock=time.clock, sleep=time.sleep)
    await concurrent_sessions((limiter, starts), sessions=4)
    assert [at for _, at in starts.starts] == [0.0, 0.0, 0.25, 0.5]
    assert time.sleeps == [0.25, 0.25]


def expensive_pipeline() -> Any:
    return (Agent("a") >> Agent("b") >> Agent("c")).named("pipe")


async def test_run_a_token_limit_makes_the_call_after_an_expensive_reply_wait():
    # 60 tokens a minute = 1 a second, one minute's worth at first. a's reply costs 90: the
    # bucket is 30 in debt, so b waits 30 s; b's reply (12) puts it 12 in debt: c waits 12 s.
    time = FakeTime()
    starts = StartTimes(time)
    limiter = rate_limiter(tokens_per_minute=60, clock=time.clock, sleep=time.sleep)
    backend = mock_backend({"a": reply("A.", 90), "b": reply("B.", 12), "c": reply("C.", 12)})
    events = await expensive_pipeline().run(
        "go", backend=backend, config=ExecutionConfig(middleware=(limiter, starts))
    )
    assert time.sleeps == [30.0, 12.0]
    assert starts.starts == [("a", 0.0), ("b", 30.0), ("c", 42.0)]
    assert [(e.author, waited(e.raw)) for e in events if e.content] == [
        ("a", None),
        ("b", 30.0),
        ("c", 12.0),
    ]

    # without the limiter nothing waits
    time = FakeTime()
    starts = StartTimes(time)
    backend = mock_backend({"a": reply("A.", 90), "b": reply("B.", 12), "c": reply("C.", 12)})
    await expensive_pipeline().run(
        "go", backend=backend, config=ExecutionConfig(middleware=(starts,))
    )
    assert time.sleeps == [] and [at for _, at in starts.starts] == [0.0, 0.0, 0.0]


def two_models() -> Any:
    x = ScriptedModel(["X."], model="model-x")
    y = ScriptedModel(["Y."], model="model-y")
    return (Agent("a").model(x) >> Agent("b").model(y)).named("pair")


async def test_ask_per_model_keeps_a_bucket_per_model_and_per_app_shares_one():
    # one call a second: b follows a at once when they use different models (per="model"),
    # and waits a second when the app shares one bucket (per="app")
    for per, sleeps in (("model", []), ("app", [1.0])):
        time = FakeTime()
        limiter = rate_limiter(calls_per_second=1, per=per, clock=time.clock, sleep=time.sleep)
        answer = await two_models().ask("go", config=ExecutionConfig(middleware=(limiter,)))
        assert answer == "Y."
        assert time.sleeps == sleeps, per


class CountingLimiter(RateLimiter):
    """A limiter with an acquire of its own (a quota shared outside the process, say)."""

    def __init__(self, time: FakeTime) -> None:
        super().__init__(1.0, None, clock=time.clock, sleep=time.sleep)
        self.time = time
        self.acquired: list[str] = []

    async def acquire(self, name: str) -> float:
        self.acquired.append(name)
        await self.time.sleep(0.25)
        return 0.25


async def test_run_a_limiter_with_an_acquire_of_its_own_is_asked_before_each_call():
    time = FakeTime()
    limiter = CountingLimiter(time)
    events = await expensive_pipeline().run(
        "go",
        backend=mock_backend({"a": ["1"], "b": ["2"], "c": ["3"]}),
        config=ExecutionConfig(middleware=(limiter,)),
    )
    assert len(limiter.acquired) == 3 and time.sleeps == [0.25, 0.25, 0.25]
    # each reply says how long its call waited: what that acquire said
    assert [waited(event.raw) for event in events if event.content] == [0.25, 0.25, 0.25]
