"""circuit_breaker through the real Runner (src/adk_fluent/middleware/breaker.py): failed model
calls in different sessions of one app open the circuit; then a call fails fast (the model is
not called) with a clear CIRCUIT_OPEN error event the store keeps, and nothing after it runs;
once the (fake) clock passes reset_after one call goes through, and a good reply closes the
circuit. Shown next to the same runs without the breaker, where every call reaches the model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.errors import RunError
from adk_fluent.middleware.breaker import circuit_breaker
from adk_fluent.middleware.retry import retry
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.conftest import fresh_db_service
from tests.support.middleware import no_wait, text_of, user

APP = "breaker_app"
MODEL = "gemini-2.5-flash-scripted"  # ScriptedModel's default name


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class App:
    """One app (one to_app(), one Runner, one session service) and its turns per session."""

    def __init__(self, expr: Any, middleware: tuple[Any, ...], service: Any) -> None:
        app = expr.to_app(ExecutionConfig(app_name=APP, middleware=middleware))
        self.service = service
        self.runner = Runner(app=app, session_service=service)

    async def turn(self, session_id: str, prompt: str = "Check the servers.") -> list[Any]:
        if await self.service.get_session(app_name=APP, user_id="u", session_id=session_id) is None:
            await self.service.create_session(app_name=APP, user_id="u", session_id=session_id)
        return [
            event
            async for event in self.runner.run_async(
                user_id="u", session_id=session_id, new_message=user(prompt)
            )
        ]


def checker_then_reporter(model: ScriptedModel) -> Any:
    return (
        Agent("checker").instruct("Check.").model(model.for_agent("checker"))
        >> Agent("reporter").instruct("Report.").model(model.for_agent("reporter"))
    ).named("ops")


async def test_opens_across_sessions_fails_fast_and_closes_after_reset(sqlite_url):
    clock = FakeClock()
    model = ScriptedModel(
        {"checker": [TimeoutError("a"), TimeoutError("b"), "All up."], "reporter": ["Reported."]}
    )
    breaker = circuit_breaker(failures=2, reset_after=30.0, clock=clock)
    app = App(checker_then_reporter(model), (breaker,), fresh_db_service(sqlite_url))

    with pytest.raises(TimeoutError):
        await app.turn("alice")
    assert breaker.state(MODEL) == "closed"
    with pytest.raises(TimeoutError):
        await app.turn("bob")  # another session of the same app: the second failure in a row
    assert breaker.state(MODEL) == "open" and len(model.calls) == 2

    events = await app.turn("carol")
    assert len(model.calls) == 2  # failed fast: the model was not called
    (error,) = events  # and the reporter did not run
    assert error.author == "checker" and error.error_code == "CIRCUIT_OPEN"
    for fragment in ("ops/checker", f"'{MODEL}'", "2 model calls in a row failed", "30.0 s"):
        assert fragment in error.error_message
    assert error.custom_metadata["adk_fluent.circuit_breaker"] == {
        "model": MODEL,
        "agent": "ops/checker",
        "failures": 2,
        "retry_in": 30.0,
    }
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=APP, user_id="u", session_id="carol"
    )
    assert [(e.author, e.error_code) for e in stored.events] == [
        ("user", None),
        ("checker", "CIRCUIT_OPEN"),
    ]

    clock.advance(29.5)
    (still_open,) = await app.turn("alice")
    assert still_open.error_code == "CIRCUIT_OPEN" and "0.5 s" in still_open.error_message
    assert len(model.calls) == 2

    clock.advance(0.5)  # reset_after has passed: half-open, one call goes through
    assert breaker.state(MODEL) == "half-open"
    events = await app.turn("dave")
    assert [(e.author, text_of(e), e.error_code) for e in events] == [
        ("checker", "All up.", None),
        ("reporter", "Reported.", None),
    ]
    assert breaker.state(MODEL) == "closed"
    model.assert_consumed()


async def test_without_the_breaker_every_call_reaches_the_failing_model(sqlite_url):
    model = ScriptedModel(
        {"checker": [TimeoutError("a"), TimeoutError("b"), TimeoutError("c")], "reporter": []}
    )
    app = App(checker_then_reporter(model), (), fresh_db_service(sqlite_url))
    for session in ("alice", "bob", "carol"):
        with pytest.raises(TimeoutError):
            await app.turn(session)
    assert len(model.calls) == 3


async def test_a_failed_half_open_call_opens_the_circuit_again():
    clock = FakeClock()
    model = ScriptedModel({"checker": [TimeoutError("a"), TimeoutError("b"), "Up again."]})
    breaker = circuit_breaker(failures=1, reset_after=10.0, clock=clock)
    app = App(
        Agent("checker").model(model.for_agent("checker")), (breaker,), InMemorySessionService()
    )
    with pytest.raises(TimeoutError):
        await app.turn("s1")
    clock.advance(10.0)
    with pytest.raises(TimeoutError):
        await app.turn("s2")  # the one half-open call fails
    assert breaker.state(MODEL) == "open" and len(model.calls) == 2
    (error,) = await app.turn("s3")
    assert error.error_code == "CIRCUIT_OPEN" and "10.0 s" in error.error_message
    assert len(model.calls) == 2
    clock.advance(10.0)
    assert [text_of(e) for e in await app.turn("s4")] == ["Up again."]
    assert breaker.state(MODEL) == "closed"


async def test_half_open_lets_one_of_two_concurrent_calls_through():
    clock = FakeClock()
    released = asyncio.Event()

    async def slow_answer(request: Any) -> str:
        await released.wait()
        return "Up."

    model = ScriptedModel({"checker": [TimeoutError("down"), slow_answer]})
    breaker = circuit_breaker(failures=1, reset_after=5.0, clock=clock)
    app = App(
        Agent("checker").model(model.for_agent("checker")), (breaker,), InMemorySessionService()
    )
    with pytest.raises(TimeoutError):
        await app.turn("first")
    clock.advance(5.0)

    async def turn_then_release(session_id: str) -> list[Any]:
        try:
            return await app.turn(session_id)
        finally:
            released.set()  # the refused call ends at once and lets the admitted one answer

    one, two = await asyncio.gather(turn_then_release("a"), turn_then_release("b"))
    outcomes = {(text_of(e), e.error_code) for e in one + two}
    assert outcomes == {(None, "CIRCUIT_OPEN"), ("Up.", None)} and len(one + two) == 2
    assert len(model.calls) == 2  # the first failure and the one half-open call
    assert breaker.state(MODEL) == "closed"


async def test_per_model_keeps_one_circuit_per_model_and_per_app_one_for_all():
    def agent(name: str, model: ScriptedModel) -> Agent:
        return Agent(name).model(model.for_agent(name))

    for per, beta_fails_fast in (("model", False), ("app", True)):
        alpha = ScriptedModel({"alpha": [TimeoutError("down")]}, model="alpha-scripted")
        beta = ScriptedModel({"beta": ["Beta answers."]}, model="beta-scripted")
        config = ExecutionConfig(middleware=(circuit_breaker(failures=1, per=per),))
        with pytest.raises(TimeoutError):
            await agent("alpha", alpha).ask("Go.", config=config)
        events = await agent("beta", beta).run("Go.", config=config)
        if beta_fails_fast:
            assert events[0].error_code == "CIRCUIT_OPEN" and "beta" not in beta.requests
            assert "every model of this app" in events[0].error_message
        else:
            assert [e.content for e in events] == ["Beta answers."]


async def test_through_ask_an_open_circuit_is_a_run_error():
    clock = FakeClock()
    backend = mock_backend({"checker": [TimeoutError("down")]})
    agent = Agent("checker").middleware(circuit_breaker(failures=1, clock=clock))
    with pytest.raises(TimeoutError):
        await agent.ask("Check.", backend=backend)
    with pytest.raises(RunError) as raised:
        await agent.ask("Check.", backend=backend)
    assert raised.value.code == "CIRCUIT_OPEN" and "checker" in raised.value.message
    assert len(backend.requests["checker"]) == 1


# -- with retry: the breaker counts calls that failed after retry ---------------------------------
async def test_with_retry_a_recovered_call_does_not_count_against_the_circuit():
    flaky = [TimeoutError("blip"), "Up."] * 3  # every call fails once, then answers

    clock = FakeClock()
    model = ScriptedModel({"checker": flaky})
    breaker = circuit_breaker(failures=2, clock=clock)
    app = App(
        Agent("checker").model(model.for_agent("checker")),
        (breaker, retry(max_attempts=3, sleep=no_wait)),
        InMemorySessionService(),
    )
    for session in ("a", "b", "c"):
        assert [text_of(e) for e in await app.turn(session)] == ["Up."]
    assert breaker.state(MODEL) == "closed"

    # the breaker alone: the same first attempts fail, each is a failed call, two open it
    model = ScriptedModel({"checker": [TimeoutError("blip"), TimeoutError("blip")]})
    breaker = circuit_breaker(failures=2, clock=clock)
    app = App(
        Agent("checker").model(model.for_agent("checker")), (breaker,), InMemorySessionService()
    )
    for session in ("a", "b"):
        with pytest.raises(TimeoutError):
            await app.turn(session)
    (error,) = await app.turn("c")
    assert error.error_code == "CIRCUIT_OPEN"


async def test_with_retry_the_circuit_opens_after_n_failed_calls_not_n_attempts():
    clock = FakeClock()
    model = ScriptedModel({"checker": [TimeoutError(str(n)) for n in range(6)]})
    breaker = circuit_breaker(failures=2, clock=clock)
    app = App(
        Agent("checker").model(model.for_agent("checker")),
        (retry(max_attempts=3, sleep=no_wait), breaker),  # given in any order: priority decides
        InMemorySessionService(),
    )
    with pytest.raises(TimeoutError):
        await app.turn("a")
    assert breaker.state(MODEL) == "closed" and len(model.calls) == 3  # 3 attempts, 1 failure
    with pytest.raises(TimeoutError):
        await app.turn("b")
    assert breaker.state(MODEL) == "open" and len(model.calls) == 6
    (error,) = await app.turn("c")
    assert error.error_code == "CIRCUIT_OPEN" and len(model.calls) == 6
