"""Misuse of the error-layer middleware (retry, fallback_model, circuit_breaker): each wrong
argument is refused when the middleware is made, naming the middleware, the field and a hint."""

from __future__ import annotations

import asyncio

import pytest

from adk_fluent.middleware.breaker import CircuitBreaker, circuit_breaker
from adk_fluent.middleware.fallback import FallbackModel, fallback_model
from adk_fluent.middleware.retry import Retry, retry
from adk_fluent.testing import ScriptedModel
from tests.support.misuse import case, check, ids

CASES = [
    # retry
    case("mw-errors-retry-attempts-zero", lambda: retry(max_attempts=0), "retry", "max_attempts"),
    case("mw-errors-retry-attempts-one", lambda: retry(max_attempts=1), "max_attempts", "never"),
    case("mw-errors-retry-attempts-negative", lambda: retry(max_attempts=-2), "max_attempts"),
    case("mw-errors-retry-attempts-bool", lambda: retry(max_attempts=True), "max_attempts", "True"),
    case("mw-errors-retry-attempts-float", lambda: retry(max_attempts=2.5), "max_attempts", "2.5"),
    case("mw-errors-retry-attempts-text", lambda: retry(max_attempts="3"), "max_attempts", "str"),
    case("mw-errors-retry-backoff-negative", lambda: retry(backoff=-1), "backoff", "at least 0"),
    case("mw-errors-retry-backoff-text", lambda: retry(backoff="1s"), "backoff", "seconds"),
    case("mw-errors-retry-backoff-nan", lambda: retry(backoff=float("nan")), "backoff", "finite"),
    case("mw-errors-retry-backoff-bool", lambda: retry(backoff=False), "backoff", "False"),
    case("mw-errors-retry-jitter-negative", lambda: retry(jitter=-0.1), "jitter"),
    case("mw-errors-retry-jitter-over-one", lambda: retry(jitter=1.5), "jitter", "fraction"),
    case("mw-errors-retry-max-delay-zero", lambda: retry(max_delay=0), "max_delay", "more than"),
    case(
        "mw-errors-retry-max-delay-below-backoff",
        lambda: retry(backoff=5, max_delay=1),
        "max_delay",
        "backoff",
    ),
    case("mw-errors-retry-max-delay-inf", lambda: retry(max_delay=float("inf")), "max_delay"),
    case("mw-errors-retry-on-empty", lambda: retry(on=()), "on", "empty"),
    case("mw-errors-retry-on-instance", lambda: retry(on=TimeoutError()), "on", "TimeoutError"),
    case("mw-errors-retry-on-text", lambda: retry(on=("TimeoutError",)), "on", "str"),
    case(
        "mw-errors-retry-on-base-exception",
        lambda: retry(on=KeyboardInterrupt),
        "KeyboardInterrupt",
        "not an Exception subclass",
    ),
    case(
        "mw-errors-retry-on-cancelled",
        lambda: retry(on=(TimeoutError, asyncio.CancelledError)),
        "CancelledError",
    ),
    case("mw-errors-retry-sleep-not-callable", lambda: retry(sleep=0.1), "sleep", "asyncio.sleep"),
    case("mw-errors-retry-scope-number", lambda: retry(scope=3), "scope", "int"),
    case("mw-errors-retry-scope-empty-tuple", lambda: retry(scope=()), "scope"),
    case("mw-errors-retry-priority-text", lambda: retry(priority="first"), "priority", "int"),
    case("mw-errors-retry-priority-bool", lambda: retry(priority=True), "priority"),
    case("mw-errors-retry-class-too", lambda: Retry(max_attempts=0), "retry", "max_attempts"),
    # fallback_model
    case("mw-errors-fallback-no-models", lambda: fallback_model(), "fallback_model", "at least"),
    case(
        "mw-errors-fallback-unknown-name",
        lambda: fallback_model("gpt-four-turbo"),
        "fallback_model",
        "gpt-four-turbo",
        "LLMRegistry",
    ),
    case(
        "mw-errors-fallback-second-unknown",
        lambda: fallback_model("gemini-2.5-flash", "no-such-model"),
        "models[1]",
        "no-such-model",
    ),
    case("mw-errors-fallback-empty-name", lambda: fallback_model(""), "models[0]", "model name"),
    case("mw-errors-fallback-number", lambda: fallback_model(42), "models[0]", "42"),
    case(
        "mw-errors-fallback-list-not-spread",
        lambda: fallback_model(["gemini-2.5-flash"]),
        "models[0]",
        "list",
    ),
    case(
        "mw-errors-fallback-model-class",
        lambda: fallback_model(ScriptedModel),
        "ScriptedModel",
        "instance",
    ),
    case(
        "mw-errors-fallback-on-empty",
        lambda: fallback_model("gemini-2.5-flash", on=[]),
        "fallback_model",
        "on",
    ),
    case(
        "mw-errors-fallback-scope-number",
        lambda: fallback_model("gemini-2.5-flash", scope=1),
        "scope",
    ),
    case("mw-errors-fallback-class-too", lambda: FallbackModel(), "fallback_model", "models"),
    # circuit_breaker
    case(
        "mw-errors-breaker-failures-zero",
        lambda: circuit_breaker(failures=0),
        "circuit_breaker",
        "failures",
    ),
    case("mw-errors-breaker-failures-float", lambda: circuit_breaker(failures=2.0), "failures"),
    case("mw-errors-breaker-failures-bool", lambda: circuit_breaker(failures=True), "failures"),
    case(
        "mw-errors-breaker-reset-zero",
        lambda: circuit_breaker(reset_after=0),
        "reset_after",
        "more than 0",
    ),
    case(
        "mw-errors-breaker-reset-negative", lambda: circuit_breaker(reset_after=-5), "reset_after"
    ),
    case("mw-errors-breaker-reset-text", lambda: circuit_breaker(reset_after="30s"), "reset_after"),
    case("mw-errors-breaker-per-agent", lambda: circuit_breaker(per="agent"), "per", "'agent'"),
    case("mw-errors-breaker-per-none", lambda: circuit_breaker(per=None), "per", "None"),
    case(
        "mw-errors-breaker-clock-not-callable",
        lambda: circuit_breaker(clock=12.0),
        "clock",
        "time.monotonic",
    ),
    case("mw-errors-breaker-priority-float", lambda: circuit_breaker(priority=-30.5), "priority"),
    case(
        "mw-errors-breaker-class-too",
        lambda: CircuitBreaker(failures=-1),
        "circuit_breaker",
        "failures",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
