"""cache through the real Runner: a second identical request is answered from the store (one
model call, the same text for both users, the hit marked), entries expire after `ttl` on a fake
clock, a different request misses, error replies are never stored, a cached tool call still
runs the tool, a hit carries none of the first call's annotations while its own visibility is
applied fresh, an agent's context view is part of the key, and under SSE streaming only the
final reply is stored. Each runs under a plain ADK Runner over `to_app()` or `expr.run()` /
`ask()`, and compares with the same runs without the cache (where the model is called again)."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, C, ExecutionConfig
from adk_fluent.errors import ContextKeyError
from adk_fluent.middleware import Middleware
from adk_fluent.middleware.cache import InMemoryCacheStore, cache
from adk_fluent.middleware.replies import mark
from adk_fluent.testing import ScriptedModel, call, mock_backend
from tests.conftest import fresh_db_service, request_texts
from tests.support.middleware import text_of, user

HIT = "adk_fluent.cache"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def runner_turn(
    app: Any,
    service: Any,
    session_id: str,
    prompt: str,
    *,
    state: dict[str, Any] | None = None,
    run_config: RunConfig | None = None,
) -> list[Any]:
    runner = Runner(app=app, session_service=service)
    if await service.get_session(app_name=app.name, user_id="u", session_id=session_id) is None:
        await service.create_session(
            app_name=app.name, user_id="u", session_id=session_id, state=state
        )
    options = {"run_config": run_config} if run_config is not None else {}
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session_id, new_message=user(prompt), **options
        )
    ]


def geographer(model: ScriptedModel, middleware: tuple[Any, ...]) -> Any:
    return (
        Agent("geo")
        .instruct("Answer geography questions.")
        .model(model.for_agent("geo"))
        .to_app(ExecutionConfig(middleware=middleware))
    )


async def test_plain_runner_a_second_identical_request_is_answered_from_the_cache(sqlite_url):
    model = ScriptedModel({"geo": ["Paris.", "Paris, France."]})
    app = geographer(model, (cache(),))
    service = fresh_db_service(sqlite_url)
    first = await runner_turn(app, service, "alice", "Capital of France?")
    second = await runner_turn(app, service, "bob", "Capital of France?")

    assert [text_of(e) for e in first] == [text_of(e) for e in second] == ["Paris."]
    assert len(model.requests["geo"]) == 1  # the model answered once
    assert HIT not in (first[-1].custom_metadata or {})
    assert second[-1].custom_metadata[HIT] == "hit"
    assert second[-1].usage_metadata.total_token_count == 0  # a hit costs nothing

    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id="bob"
    )
    assert (
        text_of(stored.events[-1]) == "Paris." and stored.events[-1].custom_metadata[HIT] == "hit"
    )

    # without the cache the model is called twice
    model = ScriptedModel({"geo": ["Paris.", "Paris, France."]})
    app = geographer(model, ())
    service = InMemorySessionService()
    first = await runner_turn(app, service, "alice", "Capital of France?")
    second = await runner_turn(app, service, "bob", "Capital of France?")
    assert [text_of(e) for e in first + second] == ["Paris.", "Paris, France."]
    assert len(model.requests["geo"]) == 2


async def test_run_entries_expire_after_the_ttl():
    clock = FakeClock()
    config = ExecutionConfig(middleware=(cache(ttl=60, clock=clock),))
    backend = mock_backend({"geo": ["Paris.", "Still Paris."]})
    agent = Agent("geo").instruct("Answer geography questions.")

    answers = []
    for at, session in ((0.0, "s1"), (59.0, "s2"), (61.0, "s3"), (100.0, "s4")):
        clock.now = at
        events = await agent.run(
            "Capital of France?", backend=backend, config=config, session_id=session
        )
        answers.append((events[-1].content, events[-1].raw.custom_metadata.get(HIT)))
    # s2 within the ttl: a hit; s3 after it: the model again, stored anew at 61; s4: a hit
    assert answers == [
        ("Paris.", None),
        ("Paris.", "hit"),
        ("Still Paris.", None),
        ("Still Paris.", "hit"),
    ]
    assert len(backend.requests["geo"]) == 2


async def test_ask_a_different_request_misses_and_the_same_one_hits():
    backend = mock_backend({"geo": ["Paris.", "Madrid."]})
    config = ExecutionConfig(middleware=(cache(),))
    agent = Agent("geo").instruct("Answer geography questions.")
    assert await agent.ask("Capital of France?", backend=backend, config=config) == "Paris."
    assert await agent.ask("Capital of Spain?", backend=backend, config=config) == "Madrid."
    assert await agent.ask("Capital of France?", backend=backend, config=config) == "Paris."
    assert len(backend.requests["geo"]) == 2

    # another instruction is another request, though the question is the same
    other = Agent("geo").instruct("Answer in French.")
    backend2 = mock_backend({"geo": ["Paris (fr)."]})
    assert await other.ask("Capital of France?", backend=backend2, config=config) == "Paris (fr)."
    assert len(backend2.requests["geo"]) == 1


async def test_run_an_error_reply_is_never_stored():
    overloaded = LlmResponse(error_code="OVERLOADED", error_message="try again later")
    backend = mock_backend({"geo": [overloaded, "Paris."]})
    config = ExecutionConfig(middleware=(cache(),))
    agent = Agent("geo").instruct("Answer geography questions.")
    first = await agent.run("Capital of France?", backend=backend, config=config, session_id="e1")
    second = await agent.run("Capital of France?", backend=backend, config=config, session_id="e2")
    assert first[-1].error_code == "OVERLOADED"
    assert second[-1].content == "Paris." and HIT not in second[-1].raw.custom_metadata
    assert len(backend.requests["geo"]) == 2


LOOKUPS: list[str] = []


def lookup(city: str) -> dict:
    """Look a city up."""
    LOOKUPS.append(city)
    return {"city": city, "country": "France"}


async def test_plain_runner_a_cached_tool_call_still_runs_the_tool():
    # both model calls of the second session are hits: the tool runs again (the cache
    # stores the model's answer, not the tool's), with ids ADK gives the new calls
    LOOKUPS.clear()
    model = ScriptedModel({"geo": [call("lookup", city="Paris"), "Paris is in France."]})
    app = (
        Agent("geo")
        .instruct("Use the tool.")
        .tool(lookup)
        .model(model.for_agent("geo"))
        .to_app(ExecutionConfig(middleware=(cache(),)))
    )
    service = InMemorySessionService()
    first = await runner_turn(app, service, "t1", "Where is Paris?")
    second = await runner_turn(app, service, "t2", "Where is Paris?")
    assert len(model.requests["geo"]) == 2  # both from the first session
    assert LOOKUPS == ["Paris", "Paris"]
    assert text_of(second[-1]) == "Paris is in France."
    calls = [e.get_function_calls()[0] for e in first + second if e.get_function_calls()]
    assert len(calls) == 2 and calls[0].id != calls[1].id and calls[1].id
    hits = [e for e in second if (e.custom_metadata or {}).get(HIT) == "hit"]
    assert len(hits) == 2  # the function call and the final answer


class SessionTag(Middleware):
    """Marks every reply with its session before the cache stores it (priority -60)."""

    def __init__(self) -> None:
        super().__init__(priority=-60)

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        mark(llm_response, "session_tag", callback_context.session.id)


async def test_run_a_hit_carries_no_annotation_of_the_first_call_and_gets_its_own():
    shared = cache()
    backend = mock_backend({"geo": ["Paris."]})
    geo = Agent("geo").instruct("Answer geography questions.").context(C.user_only())
    alone = await geo.run(
        "Capital of France?",
        backend=backend,
        config=ExecutionConfig(middleware=(SessionTag(), shared)),
        session_id="first",
    )
    assert alone[-1].raw.custom_metadata["adk_fluent.session_tag"] == "first"
    assert alone[-1].raw.custom_metadata["adk_fluent.path"] == "geo"

    # the same question for the same agent, now second in a pipeline: the same request (it
    # sees only the user's message), so a hit, annotated for where it is now
    pipeline = (Agent("intro").instruct("Greet.") >> geo).named("tour")
    backend = mock_backend({"intro": ["Hello."]})  # geo has no script here: never called
    events = await pipeline.run(
        "Capital of France?",
        backend=backend,
        config=ExecutionConfig(middleware=(shared,)),
        session_id="second",
    )
    hit = events[-1].raw
    assert hit.custom_metadata[HIT] == "hit" and text_of(hit) == "Paris."
    assert "adk_fluent.session_tag" not in hit.custom_metadata
    assert hit.custom_metadata["adk_fluent.path"] == "tour/geo"
    assert "geo" not in backend.requests


async def test_plain_runner_the_context_view_is_part_of_the_key():
    # the request before the view is the same in both sessions (only the user's message);
    # the view puts each session's topic in front of the model: two different requests
    model = ScriptedModel({"writer": ["About cats.", "About dogs."]})
    app = (
        Agent("writer")
        .instruct("Write one line.")
        .context(C.from_state("topic"))
        .model(model.for_agent("writer"))
        .to_app(ExecutionConfig(middleware=(cache(),)))
    )
    service = InMemorySessionService()
    cats = await runner_turn(app, service, "c", "Write.", state={"topic": "cats"})
    dogs = await runner_turn(app, service, "d", "Write.", state={"topic": "dogs"})
    assert text_of(cats[-1]) == "About cats." and text_of(dogs[-1]) == "About dogs."
    assert len(model.requests["writer"]) == 2
    assert any("dogs" in t for t in request_texts(model.requests["writer"][1]))
    # the same topic again is a hit
    again = await runner_turn(app, service, "c2", "Write.", state={"topic": "cats"})
    assert text_of(again[-1]) == "About cats." and again[-1].custom_metadata[HIT] == "hit"
    assert len(model.requests["writer"]) == 2


async def test_plain_runner_under_sse_streaming_only_the_final_reply_is_stored():
    model = ScriptedModel({"geo": ["Paris is the capital."]})
    app = geographer(model, (cache(),))
    service = InMemorySessionService()
    sse = RunConfig(streaming_mode=StreamingMode.SSE)
    first = await runner_turn(app, service, "a", "Capital of France?", run_config=sse)
    second = await runner_turn(app, service, "b", "Capital of France?", run_config=sse)

    assert [e.partial for e in first] == [True, True, True, True, None]  # chunks, then final
    assert text_of(first[-1]) == "Paris is the capital."
    # the hit: one final event with the whole text, no chunks
    assert [(e.partial, text_of(e)) for e in second] == [(None, "Paris is the capital.")]
    assert second[-1].custom_metadata[HIT] == "hit"
    assert len(model.requests["geo"]) == 1


async def test_plain_runner_a_stored_hit_carries_its_visibility_annotations():
    model = ScriptedModel({"geo": ["Paris."], "intro": ["Hello.", "Hello."]})
    app = (
        (
            Agent("intro").model(model.for_agent("intro"))
            >> Agent("geo").model(model.for_agent("geo")).context(C.user_only())
        )
        .named("tour")
        .to_app(ExecutionConfig(middleware=(cache(),)))
    )
    service = InMemorySessionService()
    await runner_turn(app, service, "a", "Capital of France?")
    streamed = await runner_turn(app, service, "b", "Capital of France?")
    assert streamed[-1].custom_metadata[HIT] == "hit"
    assert streamed[-1].custom_metadata["adk_fluent.path"] == "tour/geo"
    stored = await service.get_session(app_name=app.name, user_id="u", session_id="b")
    hit = stored.events[-1]
    assert hit.custom_metadata[HIT] == "hit"
    assert hit.custom_metadata.get("adk_fluent.path") == "tour/geo"


async def test_run_a_context_view_that_fails_fails_as_it_does_without_the_cache():
    # the view needs state the session lacks: adk-fluent's ContextKeyError, not ADK's wrapper
    # of a plugin's error, with or without the cache
    agent = Agent("writer").instruct("Write.").context(C.template("Notes: {notes}"))
    raised = []
    for middleware in ((), (cache(),)):
        backend = mock_backend({"writer": ["never"]})
        with pytest.raises(ContextKeyError) as error:
            await agent.run("go", backend=backend, config=ExecutionConfig(middleware=middleware))
        raised.append((type(error.value), "notes" in str(error.value)))
        assert "writer" not in backend.requests
    assert raised == [(ContextKeyError, True), (ContextKeyError, True)]


class StandIn(Middleware):
    """A stand-in for fallback_model: answers a failed model call itself (priority -5)."""

    def __init__(self) -> None:
        super().__init__(priority=-5)

    async def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: BaseException
    ) -> LlmResponse:
        return LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="Stand-in answer.")])
        )


async def test_run_a_reply_that_replaced_a_failed_call_is_not_stored():
    backend = mock_backend({"geo": [TimeoutError("model down"), "Paris."]})
    config = ExecutionConfig(middleware=(cache(), StandIn()))
    agent = Agent("geo").instruct("Answer geography questions.")
    first = await agent.ask("Capital of France?", backend=backend, config=config)
    second = await agent.ask("Capital of France?", backend=backend, config=config)
    third = await agent.ask("Capital of France?", backend=backend, config=config)
    # the stand-in's answer was not cached: the model was asked again, and its answer was
    assert (first, second, third) == ("Stand-in answer.", "Paris.", "Paris.")
    assert len(backend.requests["geo"]) == 2


class AsyncStore:
    """A store of its own with async methods (as Redis clients have): what it holds and is asked."""

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}
        self.asked: list[str] = []

    async def get(self, key: str) -> str | None:
        self.asked.append(key)
        return self.entries.get(key)

    async def set(self, key: str, reply: str, ttl: float | None) -> bool:
        self.entries[key] = reply
        return True  # a store's own answer, which the cache does not hand on


class PlainStore(AsyncStore):
    """The same store with plain methods."""

    def get(self, key: str) -> str | None:  # type: ignore[override]
        self.asked.append(key)
        return self.entries.get(key)

    def set(self, key: str, reply: str, ttl: float | None) -> bool:  # type: ignore[override]
        self.entries[key] = reply
        return True


class InMemoryOfItsOwn(InMemoryCacheStore):
    """The built-in store with a get of its own, which the cache must ask."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def get(self, key: str) -> str | None:
        self.asked.append(key)
        return await super().get(key)


@pytest.mark.parametrize("store_class", [AsyncStore, PlainStore, InMemoryOfItsOwn])
async def test_ask_a_store_of_its_own_async_or_plain_is_asked_and_answers(store_class):
    store = store_class()
    backend = mock_backend({"geo": ["Paris.", "Madrid."]})
    config = ExecutionConfig(middleware=(cache(store=store),))
    agent = Agent("geo").instruct("Answer geography questions.")
    assert await agent.ask("Capital of France?", backend=backend, config=config) == "Paris."
    assert await agent.ask("Capital of France?", backend=backend, config=config) == "Paris."
    assert await agent.ask("Capital of Spain?", backend=backend, config=config) == "Madrid."
    assert len(backend.requests["geo"]) == 2  # the second question came from the store
    assert len(store.asked) == 3 and store.asked[0] == store.asked[1] != store.asked[2]
    if not isinstance(store, InMemoryCacheStore):
        assert set(store.entries) == {store.asked[0], store.asked[2]}
