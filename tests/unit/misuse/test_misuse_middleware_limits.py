"""Misuse of the model-layer middleware (rate_limiter, token_budget, cache): each wrong argument
is refused when the middleware is made, naming the middleware, the field and a hint; a cache
key function returning something other than text is refused when it is first used."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from google.adk.models.llm_request import LlmRequest

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware.cache import InMemoryCacheStore, cache
from adk_fluent.middleware.limits import rate_limiter, token_budget
from tests.support.misuse import case, check, ids


class SyncStoreWithoutSet:
    def get(self, key):
        return None


def _key_returning(value):
    middleware = cache(key=lambda request: value)
    context = SimpleNamespace(invocation_id="i", agent_name="a", state={})
    return lambda: middleware.before_model_callback(
        callback_context=context, llm_request=LlmRequest(model="m")
    )


CASES = [
    # rate_limiter
    case("mw-limits-rate-no-limit", lambda: rate_limiter(), "rate_limiter", "calls_per_second"),
    case("mw-limits-rate-cps-zero", lambda: rate_limiter(0), "calls_per_second", "more than 0"),
    case("mw-limits-rate-cps-negative", lambda: rate_limiter(-2), "calls_per_second", "-2"),
    case("mw-limits-rate-cps-text", lambda: rate_limiter("5"), "calls_per_second", "str"),
    case("mw-limits-rate-cps-bool", lambda: rate_limiter(True), "calls_per_second", "True"),
    case("mw-limits-rate-cps-nan", lambda: rate_limiter(float("nan")), "calls_per_second", "nan"),
    case(
        "mw-limits-rate-tpm-zero",
        lambda: rate_limiter(tokens_per_minute=0),
        "tokens_per_minute",
        "more than 0",
    ),
    case(
        "mw-limits-rate-tpm-inf",
        lambda: rate_limiter(tokens_per_minute=float("inf")),
        "tokens_per_minute",
        "inf",
    ),
    case(
        "mw-limits-rate-per-session",
        lambda: rate_limiter(1, per="session"),
        "per",
        "'model', 'app'",
    ),
    case("mw-limits-rate-per-typo", lambda: rate_limiter(1, per="modle"), "per", "did you mean"),
    case(
        "mw-limits-rate-burst-zero",
        lambda: rate_limiter(1, burst=0),
        "burst",
        "positive whole number",
    ),
    case("mw-limits-rate-burst-float", lambda: rate_limiter(1, burst=1.5), "burst", "whole"),
    case(
        "mw-limits-rate-burst-without-calls",
        lambda: rate_limiter(tokens_per_minute=1000, burst=3),
        "burst",
        "calls_per_second",
    ),
    case("mw-limits-rate-clock-number", lambda: rate_limiter(1, clock=0.0), "clock", "function"),
    case("mw-limits-rate-sleep-text", lambda: rate_limiter(1, sleep="sleep"), "sleep", "function"),
    case("mw-limits-rate-priority-text", lambda: rate_limiter(1, priority="-20"), "priority"),
    case("mw-limits-rate-scope-number", lambda: rate_limiter(1, scope=5), "scope", "int"),
    # token_budget
    case("mw-limits-budget-zero", lambda: token_budget(0), "token_budget", "max_tokens"),
    case("mw-limits-budget-negative", lambda: token_budget(-10), "max_tokens", "-10"),
    case("mw-limits-budget-float", lambda: token_budget(1000.5), "max_tokens", "whole"),
    case("mw-limits-budget-bool", lambda: token_budget(True), "max_tokens", "True"),
    case("mw-limits-budget-text", lambda: token_budget("50k"), "max_tokens", "str"),
    case(
        "mw-limits-budget-per-turn",
        lambda: token_budget(100, per="turn"),
        "per",
        "'session', 'invocation'",
    ),
    case(
        "mw-limits-budget-per-typo",
        lambda: token_budget(100, per="invocaton"),
        "per",
        "did you mean 'invocation'",
    ),
    case("mw-limits-budget-per-none", lambda: token_budget(100, per=None), "per", "None"),
    case(
        "mw-limits-budget-scope-not-in-tree",
        lambda: (Agent("writer") >> Agent("critic")).to_app(
            ExecutionConfig(middleware=(token_budget(100, scope="wirter"),))
        ),
        "wirter",
        "did you mean 'writer'",
    ),
    # cache
    case("mw-limits-cache-ttl-zero", lambda: cache(ttl=0), "cache", "ttl"),
    case("mw-limits-cache-ttl-negative", lambda: cache(ttl=-5), "ttl", "-5"),
    case("mw-limits-cache-ttl-text", lambda: cache(ttl="5m"), "ttl", "str"),
    case("mw-limits-cache-ttl-bool", lambda: cache(ttl=True), "ttl", "True"),
    case("mw-limits-cache-ttl-inf", lambda: cache(ttl=float("inf")), "ttl", "ttl=None"),
    case("mw-limits-cache-key-text", lambda: cache(key="model"), "key", "function"),
    case("mw-limits-cache-max-entries-zero", lambda: cache(max_entries=0), "max_entries", "1"),
    case("mw-limits-cache-max-entries-bool", lambda: cache(max_entries=False), "max_entries"),
    case("mw-limits-cache-clock-number", lambda: cache(clock=1.0), "clock", "function"),
    case("mw-limits-cache-store-dict", lambda: cache(store={}), "store", "get", "set"),
    case(
        "mw-limits-cache-store-class",
        lambda: cache(store=InMemoryCacheStore),
        "store",
        "InMemoryCacheStore",
    ),
    case("mw-limits-cache-store-without-set", lambda: cache(store=SyncStoreWithoutSet()), "store"),
    case(
        "mw-limits-cache-store-max-entries-negative",
        lambda: InMemoryCacheStore(max_entries=-1),
        "InMemoryCacheStore",
        "max_entries",
    ),
    case("mw-limits-cache-key-returns-int", _key_returning(42), "key", "int", "None"),
    case("mw-limits-cache-key-returns-bytes", _key_returning(b"k"), "key", "bytes"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
