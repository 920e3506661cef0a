"""The model-layer built-ins without a Runner: the token bucket's arithmetic and the rate
limiter's waits on a fake clock (queueing fairly, per model or per app, across event loops),
counting a reply's tokens, the token budget's bookkeeping, the cache key's stability and
sensitivity, what a stored reply keeps, and the in-memory store's ttl and LRU order. Callback
contexts are stand-ins with the attributes the middleware reads."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import BaseModel

from adk_fluent.middleware.cache import (
    InMemoryCacheStore,
    cache,
    cacheable,
    request_key,
    stored_copy,
)
from adk_fluent.middleware.limits import (
    BUDGET_EXCEEDED,
    INVOCATION_TOKENS_KEY,
    SESSION_TOKENS_KEY,
    TokenBucket,
    rate_limiter,
    reply_tokens,
    token_budget,
)


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def context(invocation: str = "inv-1", agent: str = "a", state: dict | None = None, events=()):
    """A stand-in callback context: ids, a state mapping, the session's stored events."""
    return SimpleNamespace(
        invocation_id=invocation,
        agent_name=agent,
        state=dict(state or {}),
        session=SimpleNamespace(id="s", events=list(events)),
    )


def reply(text: str = "ok", total: int | None = 12, **usage: int) -> LlmResponse:
    metadata = None
    if total is not None or usage:
        metadata = types.GenerateContentResponseUsageMetadata(total_token_count=total, **usage)
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        usage_metadata=metadata,
    )


def model_request(model: str = "m") -> Any:
    return SimpleNamespace(model=model)


# -- the token bucket -------------------------------------------------------------------------
def test_a_bucket_starts_full_refills_at_its_rate_and_never_beyond_its_capacity():
    bucket = TokenBucket(capacity=2.0, rate=0.5, level=2.0)
    assert bucket.refill(10.0) == 2.0  # the first use only sets the time
    bucket.level -= 2.0
    assert bucket.refill(11.0) == 0.5
    assert bucket.wait_for(1.0, 11.0) == 1.0  # 0.5 more at 0.5 a second
    assert bucket.refill(100.0) == 2.0  # capped
    bucket.level = -3.0  # in debt
    assert bucket.wait_for(0.0, 100.0) == 6.0
    assert bucket.refill(99.0) == -3.0  # a clock going back changes nothing


# -- the rate limiter -------------------------------------------------------------------------
async def call(limiter: Any, ctx: Any, request: Any, response: LlmResponse) -> LlmResponse:
    await limiter.before_model_callback(callback_context=ctx, llm_request=request)
    await limiter.after_model_callback(callback_context=ctx, llm_response=response)
    return response


async def test_calls_per_second_spaces_calls_and_refills_while_idle():
    time = FakeTime()
    limiter = rate_limiter(calls_per_second=4, clock=time.clock, sleep=time.sleep)
    replies = [await call(limiter, context(f"i{n}"), model_request(), reply()) for n in range(3)]
    assert time.sleeps == [0.25, 0.25]
    assert [r.custom_metadata for r in replies] == [
        None,
        {"adk_fluent.rate_limiter": {"waited": 0.25}},
        {"adk_fluent.rate_limiter": {"waited": 0.25}},
    ]
    time.now += 10.0  # idle: the bucket is full again, and holds one call (burst=1)
    time.sleeps.clear()
    for n in range(2):
        await call(limiter, context(f"j{n}"), model_request(), reply())
    assert time.sleeps == [0.25]


async def test_burst_lets_that_many_calls_go_at_once():
    time = FakeTime()
    limiter = rate_limiter(calls_per_second=2, burst=3, clock=time.clock, sleep=time.sleep)
    for n in range(5):
        await call(limiter, context(f"i{n}"), model_request(), reply())
    assert time.sleeps == [0.5, 0.5]


async def test_tokens_per_minute_waits_while_the_bucket_is_in_debt():
    time = FakeTime()
    limiter = rate_limiter(tokens_per_minute=120, clock=time.clock, sleep=time.sleep)
    await call(limiter, context("i1"), model_request(), reply(total=100))  # 120 -> 20
    await call(limiter, context("i2"), model_request(), reply(total=50))  # 20 -> -30
    assert time.sleeps == []
    await call(limiter, context("i3"), model_request(), reply(total=1))
    assert time.sleeps == [15.0]  # 30 tokens at 2 a second


async def test_with_both_limits_a_call_waits_for_the_slower_one():
    time = FakeTime()
    limiter = rate_limiter(
        calls_per_second=1, tokens_per_minute=60, clock=time.clock, sleep=time.sleep
    )
    await call(limiter, context("i1"), model_request(), reply(total=65))  # 5 in debt
    await call(limiter, context("i2"), model_request(), reply(total=1))
    assert time.sleeps == [5.0]  # the token debt (5 s) outweighs the call spacing (1 s)


async def test_per_model_keeps_a_bucket_per_model_name_and_per_app_one_for_all():
    for per, sleeps in (("model", [1.0]), ("app", [1.0, 1.0, 1.0])):
        time = FakeTime()
        limiter = rate_limiter(calls_per_second=1, per=per, clock=time.clock, sleep=time.sleep)
        for n, model in enumerate(("x", "y", "x", "y")):
            await call(limiter, context(f"i{n}"), model_request(model), reply())
        # per model: x and y go at 0, the second x waits 1 s, after which y is refilled
        assert time.sleeps == sleeps, per


async def test_waiters_are_served_in_the_order_they_came():
    time = FakeTime()
    limiter = rate_limiter(calls_per_second=10, clock=time.clock, sleep=time.sleep)
    order: list[int] = []

    async def one(n: int) -> None:
        await limiter.before_model_callback(
            callback_context=context(f"i{n}"), llm_request=model_request()
        )
        order.append(n)

    await asyncio.gather(*(one(n) for n in range(6)))
    assert order == list(range(6))
    assert time.sleeps == [pytest.approx(0.1)] * 5


def test_one_limiter_serves_several_event_loops():
    # each asyncio.run is a new loop; an asyncio.Lock made in one cannot be awaited in another
    time = FakeTime()
    limiter = rate_limiter(calls_per_second=1, clock=time.clock, sleep=time.sleep)

    async def three_at_once(tag: str) -> None:
        # the third queues on the lock while the second sleeps in it
        await asyncio.gather(
            *(
                limiter.before_model_callback(
                    callback_context=context(f"{tag}{n}"), llm_request=model_request()
                )
                for n in range(3)
            )
        )

    asyncio.run(three_at_once("a"))
    asyncio.run(three_at_once("b"))
    assert time.sleeps == [1.0] * 5


async def test_a_streamed_chunk_is_neither_debited_nor_marked():
    time = FakeTime()
    limiter = rate_limiter(tokens_per_minute=60, clock=time.clock, sleep=time.sleep)
    ctx = context()
    await limiter.before_model_callback(callback_context=ctx, llm_request=model_request())
    chunk = reply(total=500)
    chunk.partial = True
    await limiter.after_model_callback(callback_context=ctx, llm_response=chunk)
    assert limiter.buckets("m").tokens.level == 60.0
    await limiter.after_model_callback(callback_context=ctx, llm_response=reply(total=10))
    assert limiter.buckets("m").tokens.level == 50.0


def test_reply_tokens_reads_the_total_or_adds_up_the_counts():
    assert reply_tokens(reply(total=42)) == 42
    assert reply_tokens(reply(total=None, prompt_token_count=5, candidates_token_count=3)) == 8
    assert reply_tokens(reply(total=None)) is None


# -- the token budget -------------------------------------------------------------------------
async def test_a_session_budget_adds_every_reply_to_state_and_refuses_at_the_limit():
    budget = token_budget(30)
    ctx = context(state={SESSION_TOKENS_KEY: 20})  # spent in earlier turns
    assert await budget.before_model_callback(callback_context=ctx, llm_request=None) is None
    await budget.after_model_callback(callback_context=ctx, llm_response=reply(total=12))
    assert ctx.state[SESSION_TOKENS_KEY] == 32
    refused = await budget.before_model_callback(callback_context=ctx, llm_request=None)
    assert refused.error_code == BUDGET_EXCEEDED
    assert "32 tokens spent in this session" in refused.error_message
    assert "the budget is 30" in refused.error_message and "'a'" in refused.error_message
    assert refused.custom_metadata == {
        "adk_fluent.token_budget": {"spent": 32, "max": 30, "per": "session"}
    }


async def test_an_invocation_budget_counts_per_invocation_and_forgets_when_the_run_ends():
    budget = token_budget(20, per="invocation")
    first, other = context("inv-1"), context("inv-2")
    for _ in range(2):
        await budget.after_model_callback(callback_context=first, llm_response=reply(total=12))
    assert first.state[INVOCATION_TOKENS_KEY] == 24
    assert (await budget.before_model_callback(callback_context=first, llm_request=None)).error_code
    assert await budget.before_model_callback(callback_context=other, llm_request=None) is None
    await budget.after_run_callback(invocation_context=SimpleNamespace(invocation_id="inv-1"))
    assert budget.spent(first) == 0


def test_a_scoped_budget_keeps_its_own_state_key():
    assert token_budget(5).state_key == SESSION_TOKENS_KEY
    assert token_budget(5, per="invocation").state_key == INVOCATION_TOKENS_KEY
    assert token_budget(5, scope=("w", "c")).state_key == f"{SESSION_TOKENS_KEY}__w_c"


# -- the cache key ----------------------------------------------------------------------------
class Answer(BaseModel):
    city: str


class Other(BaseModel):
    town: str


def llm_request(
    *,
    model: str = "m",
    question: str = "Capital of France?",
    system: str = "Be brief.",
    temperature: float = 0.2,
    properties: tuple[str, ...] = ("city", "country"),
    labels: dict[str, str] | None = None,
    call_id: str | None = None,
    schema: Any = None,
) -> LlmRequest:
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="lookup",
                description="Look up.",
                parameters=types.Schema(
                    type="OBJECT",
                    properties={p: types.Schema(type="STRING") for p in properties},
                ),
            )
        ]
    )
    contents = [types.Content(role="user", parts=[types.Part(text=question)])]
    if call_id is not None:
        contents.append(
            types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_call=types.FunctionCall(id=call_id, name="lookup", args={"q": 1})
                    )
                ],
            )
        )
    return LlmRequest(
        model=model,
        contents=contents,
        config=types.GenerateContentConfig(
            system_instruction=system,
            tools=[tool],
            temperature=temperature,
            labels=labels,
            response_schema=schema,
        ),
    )


def test_the_key_is_a_sha256_equal_for_equal_requests():
    key = request_key(llm_request())
    assert len(key) == 64 and int(key, 16) >= 0
    assert request_key(llm_request()) == key
    # what does not change the answer does not change the key
    assert request_key(llm_request(labels={"adk_agent_name": "x"})) == key
    assert request_key(llm_request(call_id="adk-1")) == request_key(llm_request(call_id="adk-2"))
    assert request_key(llm_request(schema=Answer)) == request_key(llm_request(schema=Answer))


@pytest.mark.parametrize(
    "change",
    [
        {"model": "other"},
        {"question": "Capital of Spain?"},
        {"system": "Be verbose."},
        {"temperature": 0.9},
        {"properties": ("city",)},
        {"schema": Answer},
        {"call_id": "adk-1"},
    ],
    ids=lambda change: next(iter(change)),
)
def test_the_key_changes_with_what_the_model_sees(change):
    assert request_key(llm_request(**change)) != request_key(llm_request())


def test_response_schemas_and_inline_bytes_are_part_of_the_key():
    assert request_key(llm_request(schema=Answer)) != request_key(llm_request(schema=Other))

    def with_bytes(data: bytes) -> LlmRequest:
        part = types.Part(inline_data=types.Blob(mime_type="image/png", data=data))
        return LlmRequest(model="m", contents=[types.Content(role="user", parts=[part])])

    assert request_key(with_bytes(b"one")) == request_key(with_bytes(b"one"))
    assert request_key(with_bytes(b"one")) != request_key(with_bytes(b"two"))


# -- what is stored ---------------------------------------------------------------------------
def test_a_stored_copy_keeps_the_answer_and_drops_what_belongs_to_the_call():
    original = LlmResponse(
        content=types.Content(
            role="model",
            parts=[
                types.Part(text="Paris."),
                types.Part(function_call=types.FunctionCall(id="adk-1", name="f", args={})),
            ],
        ),
        custom_metadata={"adk_fluent.path": "pipe/geo", "adk_fluent.rate_limiter": {}, "own": 1},
        usage_metadata=types.GenerateContentResponseUsageMetadata(total_token_count=12),
        interaction_id="int-1",
        finish_reason=types.FinishReason.STOP,
    )
    copy = stored_copy(original)
    assert copy.custom_metadata == {"own": 1}
    assert copy.usage_metadata is None and copy.interaction_id is None
    assert copy.content.parts[0].text == "Paris." and copy.finish_reason == types.FinishReason.STOP
    assert copy.content.parts[1].function_call.id is None
    # a deep copy: the original is as it was
    copy.content.parts[0].text = "changed"
    assert original.content.parts[0].text == "Paris."
    assert original.content.parts[1].function_call.id == "adk-1"
    assert original.custom_metadata["adk_fluent.path"] == "pipe/geo"


def test_only_final_replies_with_content_are_cacheable():
    assert cacheable(reply("Paris."))
    chunk = reply("Par")
    chunk.partial = True
    assert not cacheable(chunk)
    assert not cacheable(LlmResponse(error_code="OVERLOADED", error_message="later"))
    assert not cacheable(LlmResponse(content=types.Content(role="model", parts=[])))
    interrupted = reply("Pa")
    interrupted.interrupted = True
    assert not cacheable(interrupted)


async def test_a_hit_is_a_deep_copy_marked_hit_with_zero_usage():
    middleware = cache()
    ctx = context()
    request = llm_request()
    assert await middleware.before_model_callback(callback_context=ctx, llm_request=request) is None
    await middleware.after_model_callback(callback_context=ctx, llm_response=reply("Paris."))
    first = await middleware.before_model_callback(
        callback_context=context("i2"), llm_request=request
    )
    second = await middleware.before_model_callback(
        callback_context=context("i3"), llm_request=request
    )
    assert first.custom_metadata == {"adk_fluent.cache": "hit"}
    assert first.usage_metadata.total_token_count == 0
    first.content.parts[0].text = "changed"  # one session's copy is not another's
    assert second.content.parts[0].text == "Paris."


async def test_a_key_function_decides_and_none_leaves_the_request_uncached():
    store = InMemoryCacheStore()
    by_question = cache(key=lambda r: r.contents[0].parts[0].text, store=store)
    ctx = context()
    await by_question.before_model_callback(callback_context=ctx, llm_request=llm_request())
    await by_question.after_model_callback(callback_context=ctx, llm_response=reply("Paris."))
    hit = await by_question.before_model_callback(
        callback_context=context("i2"), llm_request=llm_request(system="Other.")
    )
    assert hit is not None and hit.content.parts[0].text == "Paris."  # the key ignores the rest

    never = cache(key=lambda r: None, store=InMemoryCacheStore())
    await never.before_model_callback(callback_context=ctx, llm_request=llm_request())
    await never.after_model_callback(callback_context=ctx, llm_response=reply("Paris."))
    assert len(never.store) == 0


# -- the in-memory store ----------------------------------------------------------------------
async def test_the_store_forgets_an_entry_after_its_ttl():
    time = FakeTime()
    store = InMemoryCacheStore(clock=time.clock)
    await store.set("k", reply("a").model_dump_json(), 10.0)
    await store.set("forever", reply("b").model_dump_json(), None)
    time.now = 9.9
    assert LlmResponse.model_validate_json(await store.get("k")).content.parts[0].text == "a"
    time.now = 10.0
    assert await store.get("k") is None and len(store) == 1
    time.now = 1e9
    assert await store.get("forever") is not None


async def test_the_store_is_bounded_and_drops_the_least_recently_used():
    store = InMemoryCacheStore(max_entries=2)
    await store.set("a", reply("a").model_dump_json(), None)
    await store.set("b", reply("b").model_dump_json(), None)
    assert await store.get("a") is not None  # a is now the most recently used
    await store.set("c", reply("c").model_dump_json(), None)
    assert len(store) == 2
    assert await store.get("b") is None
    assert await store.get("a") is not None and await store.get("c") is not None


# -- the package's export of `cache` ------------------------------------------------------------
def test_the_package_exports_the_functions_not_their_modules():
    # `cache` and `retry` are also module names: importing those modules by name must not
    # shadow the functions the package exports
    import adk_fluent.middleware.cache
    import adk_fluent.middleware.retry  # noqa: F401
    from adk_fluent.middleware import cache as exported_cache
    from adk_fluent.middleware import retry as exported_retry

    assert callable(exported_cache) and exported_cache.__name__ == "cache"
    assert callable(exported_retry) and exported_retry.__name__ == "retry"
