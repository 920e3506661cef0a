"""The error layer's pure parts (no Runner): retry's backoff schedule, the circuit breaker's
state machine on a fake clock, the one-reply call retry and fallback make, and the factories'
defaults. Their behaviour through the Runner is in tests/behaviour/middleware/."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent.ir.middleware import Middleware, check_middleware, implemented_callbacks
from adk_fluent.middleware.breaker import Circuit, CircuitBreaker, circuit_breaker
from adk_fluent.middleware.fallback import FallbackModel, fallback_model
from adk_fluent.middleware.retry import (
    EmptyModelReply,
    Retry,
    backoff_delay,
    one_reply,
    retry,
)
from adk_fluent.testing import ScriptedModel


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


# -- backoff ---------------------------------------------------------------------------------------
def test_backoff_doubles_from_backoff_and_stops_at_max_delay():
    schedule = [
        backoff_delay(n, backoff=0.5, jitter=0.0, max_delay=5.0, rand=lambda: 0.9)
        for n in range(1, 8)
    ]
    assert schedule == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0]


@pytest.mark.parametrize(
    ("rand", "expected"),
    [(0.0, 0.9), (0.5, 1.0), (0.75, 1.05)],  # the shortest, the exact, halfway up
)
def test_jitter_moves_the_wait_by_up_to_its_fraction(rand, expected):
    assert backoff_delay(2, backoff=0.5, jitter=0.1, max_delay=30.0, rand=lambda: rand) == (
        pytest.approx(expected)
    )


def test_jitter_never_goes_past_max_delay_nor_below_zero():
    assert backoff_delay(10, backoff=1.0, jitter=0.5, max_delay=3.0, rand=lambda: 0.999) == 3.0
    assert backoff_delay(1, backoff=1.0, jitter=1.0, max_delay=3.0, rand=lambda: 0.0) == 0.0


def test_zero_backoff_never_waits():
    assert [backoff_delay(n, backoff=0, jitter=0.1, max_delay=1.0) for n in (1, 2, 3)] == [0, 0, 0]


def test_retry_delay_uses_its_own_settings():
    r = retry(backoff=0.25, jitter=0, max_delay=0.6)
    assert [r.delay(n) for n in (1, 2, 3, 4)] == [0.25, 0.5, 0.6, 0.6]


# -- the circuit -----------------------------------------------------------------------------------
def test_a_circuit_opens_after_consecutive_failures_only():
    clock = FakeClock()
    circuit = Circuit(3, 10.0, clock)
    circuit.failure()
    circuit.failure()
    circuit.success()  # a good reply in between: the count starts again
    circuit.failure()
    circuit.failure()
    assert circuit.state == "closed" and circuit.admit() is None
    circuit.failure()
    assert circuit.state == "open" and circuit.failures == 3


def test_an_open_circuit_refuses_with_the_time_left_until_half_open():
    clock = FakeClock()
    circuit = Circuit(1, 10.0, clock)
    circuit.failure()
    assert circuit.admit() == 10.0
    clock.now += 7.5
    assert circuit.admit() == 2.5 and circuit.state == "open"
    clock.now += 2.5
    assert circuit.state == "half-open"


def test_half_open_admits_one_call_then_refuses_until_it_reports():
    clock = FakeClock()
    circuit = Circuit(1, 10.0, clock)
    circuit.failure()
    clock.now += 10.0
    assert circuit.admit() is None  # the trial
    assert circuit.admit() == 10.0  # a second call while the trial is out
    circuit.success()
    assert circuit.state == "closed" and circuit.failures == 0
    assert circuit.admit() is None and circuit.admit() is None


def test_a_failed_trial_opens_the_circuit_for_another_reset_after():
    clock = FakeClock()
    circuit = Circuit(2, 10.0, clock)
    circuit.failure()
    circuit.failure()
    clock.now += 12.0
    assert circuit.admit() is None
    circuit.failure()
    assert circuit.state == "open" and circuit.admit() == 10.0 and circuit.failures == 3


def test_a_trial_that_never_reports_is_given_up_after_reset_after():
    clock = FakeClock()
    circuit = Circuit(1, 10.0, clock)
    circuit.failure()
    clock.now += 10.0
    assert circuit.admit() is None  # then nothing: a later middleware answered it, say
    clock.now += 9.0
    assert circuit.admit() == pytest.approx(1.0)
    clock.now += 1.0
    assert circuit.admit() is None  # a new trial


def test_a_breaker_without_calls_is_closed_and_per_app_has_one_circuit():
    assert circuit_breaker().state("any-model") == "closed"
    breaker = circuit_breaker(per="app")
    assert breaker.state() == "closed" and breaker.state("whatever") == "closed"


# -- one reply from a model ------------------------------------------------------------------------
class Chunks(BaseLlm):
    """A model yielding given responses (or nothing), recording the stream flag it got."""

    model: str = "chunks-scripted"
    replies: list[Any] = []
    streams: list[bool] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.streams.append(stream)
        for reply in self.replies:
            yield reply


def chunk(text: str, partial: bool) -> LlmResponse:
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=text)]), partial=partial
    )


async def test_one_reply_asks_without_streaming_and_keeps_the_last_complete_response():
    model = Chunks(replies=[chunk("Hel", True), chunk("Hello.", False), chunk("lo", True)])
    reply = await one_reply(model, LlmRequest())
    assert reply.content.parts[0].text == "Hello." and model.streams == [False]


async def test_one_reply_from_partials_only_is_the_last_marked_complete():
    model = Chunks(replies=[chunk("Hel", True), chunk("Hello", True)])
    reply = await one_reply(model, LlmRequest())
    assert reply.content.parts[0].text == "Hello" and reply.partial is False


async def test_one_reply_of_nothing_is_an_error_retry_and_fallback_treat_as_a_failure():
    with pytest.raises(EmptyModelReply, match="chunks-scripted"):
        await one_reply(Chunks(replies=[]), LlmRequest())


# -- the factories ---------------------------------------------------------------------------------
def test_factories_give_middleware_with_the_documented_priorities_and_names():
    made = [retry(), fallback_model(ScriptedModel(["x"])), circuit_breaker()]
    assert [type(m) for m in made] == [Retry, FallbackModel, CircuitBreaker]
    assert [(m.name, m.priority, m.scope) for m in made] == [
        ("retry", -10, None),
        ("fallback_model", -5, None),
        ("circuit_breaker", -30, None),
    ]
    for middleware in made:
        assert isinstance(middleware, Middleware)
        check_middleware(middleware, "test")  # accepted by the core


def test_each_implements_the_callbacks_it_needs():
    assert implemented_callbacks(retry()) == (
        "on_event_callback",
        "on_model_error_callback",
        "on_tool_error_callback",
    )
    assert implemented_callbacks(fallback_model(ScriptedModel(["x"]))) == (
        "on_model_error_callback",
    )
    assert implemented_callbacks(circuit_breaker()) == (
        "after_model_callback",
        "before_model_callback",
        "on_model_error_callback",
    )


def test_scope_priority_and_retry_defaults_are_kept():
    r = retry(scope="writer", priority=3)
    assert (r.scope, r.priority) == (("writer",), 3)
    assert (r.max_attempts, r.backoff, r.jitter, r.on, r.max_delay) == (
        3,
        0.5,
        0.1,
        (Exception,),
        30.0,
    )
    assert retry(on=TimeoutError).on == (TimeoutError,)
    assert retry(on=[TimeoutError, OSError]).on == (TimeoutError, OSError)


def test_fallback_takes_names_the_registry_resolves_and_model_instances():
    backup = ScriptedModel(["x"], model="backup-scripted")
    fallback = fallback_model("gemini-2.5-flash", backup)
    assert fallback.model_names() == ("gemini-2.5-flash", "backup-scripted")
