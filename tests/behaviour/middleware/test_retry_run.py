"""retry through the real Runner (src/adk_fluent/middleware/retry.py): a failed model call or
tool call is made again until it answers, the user gets one reply, and neither the stream nor
the session store (SQLite, reloaded) holds a failed attempt. Each behaviour is shown next to the
same tree without retry, which ends in the exception. Run through a plain ADK Runner over
`to_app(ExecutionConfig(middleware=...))` and through `expr.run()` / `ask()`."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.runners import Runner

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.adk.compat import plugin_edits_are_stored
from adk_fluent.middleware.retry import retry
from adk_fluent.testing import ScriptedModel, call, mock_backend
from tests.conftest import fresh_db_service, request_texts
from tests.support.middleware import text_of, user

APP = "retry_app"


class Sleeps:
    """The injectable sleep: records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


async def runner_turn(
    expr: Any,
    middleware: tuple[Any, ...],
    service: Any,
    *,
    session_id: str = "s1",
    prompt: str = "Write it.",
    run_config: RunConfig | None = None,
) -> list[Any]:
    """One turn through a plain ADK Runner over to_app(); the events the client receives."""
    app = expr.to_app(ExecutionConfig(app_name=APP, middleware=middleware))
    runner = Runner(app=app, session_service=service)
    if await service.get_session(app_name=APP, user_id="u", session_id=session_id) is None:
        await service.create_session(app_name=APP, user_id="u", session_id=session_id)
    options: dict[str, Any] = {"run_config": run_config} if run_config else {}
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session_id, new_message=user(prompt), **options
        )
    ]


async def stored(url: str, session_id: str = "s1", app: str = APP, user_id: str = "u") -> Any:
    """The session as a fresh service reads it back from the SQLite file."""
    return await fresh_db_service(url).get_session(
        app_name=app, user_id=user_id, session_id=session_id
    )


def writer(model: ScriptedModel) -> Agent:
    return Agent("writer").instruct("Write.").model(model.for_agent("writer"))


# -- a model that fails twice, then answers -------------------------------------------------------
async def test_a_model_failing_twice_gives_one_answer_and_stores_no_failed_attempt(sqlite_url):
    model = ScriptedModel({"writer": [TimeoutError("first"), TimeoutError("second"), "The text."]})
    sleeps = Sleeps()
    events = await runner_turn(
        writer(model),
        (retry(max_attempts=3, backoff=0.5, jitter=0, sleep=sleeps),),
        fresh_db_service(sqlite_url),
    )
    assert [(e.author, text_of(e), e.error_code) for e in events] == [("writer", "The text.", None)]
    assert events[0].custom_metadata["adk_fluent.retry"] == {"attempts": 3}
    assert sleeps.waits == [0.5, 1.0]  # backoff, then twice backoff
    # the three attempts sent the same request: the user's message, nothing from a failure
    assert len(model.requests["writer"]) == 3
    assert [request_texts(r) for r in model.requests["writer"]] == [["Write it."]] * 3
    model.assert_consumed()

    session = await stored(sqlite_url)
    assert [(e.author, text_of(e), e.error_code) for e in session.events] == [
        ("user", "Write it.", None),
        ("writer", "The text.", None),
    ]
    assert session.events[1].custom_metadata["adk_fluent.retry"] == {"attempts": 3}


async def test_without_retry_the_same_tree_ends_in_the_exception(sqlite_url):
    model = ScriptedModel({"writer": [TimeoutError("first"), TimeoutError("second"), "The text."]})
    with pytest.raises(TimeoutError, match="first"):
        await runner_turn(writer(model), (), fresh_db_service(sqlite_url))
    assert len(model.requests["writer"]) == 1


async def test_through_run_and_ask_with_the_builder_and_the_config():
    model = ScriptedModel(
        {"writer": [ConnectionError("reset"), "First.", TimeoutError(), "Second."]}
    )
    sleeps = Sleeps()
    with_builder = writer(model).middleware(retry(sleep=sleeps))
    events = await with_builder.run("Write it.", session_id="r1")
    assert [(e.author, e.content, e.is_error) for e in events] == [("writer", "First.", False)]
    assert events[0].raw.custom_metadata["adk_fluent.retry"] == {"attempts": 2}

    config = ExecutionConfig(middleware=(retry(sleep=sleeps),))
    assert await writer(model).ask("Write it.", config=config) == "Second."
    assert len(sleeps.waits) == 2 and all(0.45 <= w <= 0.55 for w in sleeps.waits)  # jitter 0.1
    model.assert_consumed()

    failing = ScriptedModel({"writer": [ConnectionError("reset"), "First."]})
    with pytest.raises(ConnectionError, match="reset"):
        await writer(failing).ask("Write it.")


async def test_when_every_attempt_fails_adk_raises_the_original_error(sqlite_url):
    model = ScriptedModel(
        {"writer": [TimeoutError("first"), TimeoutError("second"), TimeoutError("third")]}
    )
    with pytest.raises(TimeoutError, match="first"):
        await runner_turn(
            writer(model), (retry(max_attempts=3, sleep=Sleeps()),), fresh_db_service(sqlite_url)
        )
    assert len(model.requests["writer"]) == 3
    session = await stored(sqlite_url)
    # the retries left nothing; what may be there is ADK's own record of the error it raised
    # (2.x stores one error event for a failed root agent, 1.x none)
    failures = [(e.error_code, e.error_message) for e in session.events[1:]]
    assert failures in ([], [("TimeoutError", "first")])


# -- which errors are retried ----------------------------------------------------------------------
async def test_an_error_that_is_not_one_of_on_is_not_retried(sqlite_url):
    model = ScriptedModel({"writer": [ValueError("bad request"), "never sent"]})
    sleeps = Sleeps()
    with pytest.raises(ValueError, match="bad request"):
        await runner_turn(
            writer(model), (retry(on=TimeoutError, sleep=sleeps),), fresh_db_service(sqlite_url)
        )
    assert len(model.requests["writer"]) == 1 and sleeps.waits == []

    matching = ScriptedModel({"writer": [TimeoutError("slow"), "Answered."]})
    events = await runner_turn(
        writer(matching),
        (retry(on=(TimeoutError, ConnectionError), sleep=sleeps),),
        fresh_db_service(sqlite_url),
        session_id="s2",
    )
    assert [text_of(e) for e in events] == ["Answered."]


async def test_a_retried_attempt_failing_with_another_kind_of_error_stops_the_retries(sqlite_url):
    model = ScriptedModel({"writer": [TimeoutError("slow"), ValueError("bad"), "never sent"]})
    with pytest.raises(TimeoutError, match="slow"):
        await runner_turn(
            writer(model),
            (retry(max_attempts=5, on=TimeoutError, sleep=Sleeps()),),
            fresh_db_service(sqlite_url),
        )
    assert len(model.requests["writer"]) == 2


# -- tools -----------------------------------------------------------------------------------------
def flaky_lookup(failures: list[Exception]):
    calls: list[str] = []

    def lookup(city: str) -> dict:
        """Look up the weather of a city."""
        calls.append(city)
        if failures:
            raise failures.pop(0)
        return {"city": city, "weather": "sunny"}

    return lookup, calls


async def test_a_tool_that_fails_once_is_run_again_and_the_model_sees_its_result(sqlite_url):
    lookup, calls = flaky_lookup([ConnectionError("weather service down")])
    model = ScriptedModel({"forecaster": [call("lookup", city="Oslo"), "Sunny in Oslo."]})
    agent = Agent("forecaster").model(model.for_agent("forecaster")).tool(lookup)
    sleeps = Sleeps()
    events = await runner_turn(
        agent, (retry(jitter=0, sleep=sleeps),), fresh_db_service(sqlite_url)
    )
    assert calls == ["Oslo", "Oslo"] and sleeps.waits == [0.5]
    assert [e.error_code for e in events] == [None, None, None]
    response = events[1].content.parts[0].function_response
    assert response.response == {"city": "Oslo", "weather": "sunny"}
    assert events[1].custom_metadata["adk_fluent.retry"] == {
        "attempts": 2,
        "tools": {"lookup": 2},
    }
    assert text_of(events[-1]) == "Sunny in Oslo."
    # the model's next request holds the good result, not the failure
    second = model.requests["forecaster"][1]
    results = [
        p.function_response.response
        for c in second.contents
        for p in c.parts or []
        if p.function_response
    ]
    assert results == [{"city": "Oslo", "weather": "sunny"}]

    session = await stored(sqlite_url)
    kept = session.events[2].content.parts[0].function_response.response
    assert kept == {"city": "Oslo", "weather": "sunny"}
    assert "weather service down" not in str([e.model_dump() for e in session.events])
    # the mark is added in on_event_callback: stored where the installed ADK stores plugin edits
    assert ("adk_fluent.retry" in (session.events[2].custom_metadata or {})) == (
        plugin_edits_are_stored()
    )


async def test_without_retry_the_failing_tool_ends_the_run(sqlite_url):
    lookup, calls = flaky_lookup([ConnectionError("weather service down")])
    model = ScriptedModel({"forecaster": [call("lookup", city="Oslo"), "Sunny in Oslo."]})
    agent = Agent("forecaster").model(model.for_agent("forecaster")).tool(lookup)
    with pytest.raises(ConnectionError, match="weather service down"):
        await runner_turn(agent, (), fresh_db_service(sqlite_url))
    assert calls == ["Oslo"]


async def test_a_tool_error_that_is_not_one_of_on_is_not_retried():
    lookup, calls = flaky_lookup([KeyError("no such city")])
    backend = mock_backend({"forecaster": [call("lookup", city="Oslo"), "unused"]})
    agent = Agent("forecaster").tool(lookup).middleware(retry(on=ConnectionError, sleep=Sleeps()))
    with pytest.raises(KeyError):
        await agent.ask("Weather?", backend=backend)
    assert calls == ["Oslo"]


async def test_a_tool_returning_a_plain_value_on_retry_reaches_the_model_as_adk_wraps_it():
    attempts: list[int] = []

    def count() -> str:
        """Count something."""
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("once")
        return "forty-two"

    backend = mock_backend({"counter": [call("count"), "It is forty-two."]})
    agent = Agent("counter").tool(count).middleware(retry(sleep=Sleeps()))
    events = await agent.run("Count.", backend=backend)
    assert events[1].tool_responses[0].result == {"result": "forty-two"}
    assert events[-1].content == "It is forty-two."


# -- scope, limits, streaming ----------------------------------------------------------------------
async def test_retry_scoped_to_one_agent_does_not_retry_the_other(sqlite_url):
    def pipeline(model: ScriptedModel) -> Any:
        return (
            Agent("drafter").instruct("Draft.").model(model.for_agent("drafter"))
            >> Agent("editor").instruct("Edit.").model(model.for_agent("editor"))
        ).named("pipeline")

    scoped = (retry(scope="editor", sleep=Sleeps()),)
    # the editor fails once: retried
    model = ScriptedModel({"drafter": ["A draft."], "editor": [TimeoutError("slow"), "Edited."]})
    events = await runner_turn(pipeline(model), scoped, fresh_db_service(sqlite_url))
    assert [(e.author, text_of(e)) for e in events] == [
        ("drafter", "A draft."),
        ("editor", "Edited."),
    ]
    # the drafter fails once: not retried, the run ends in its error and the editor never runs
    model = ScriptedModel({"drafter": [TimeoutError("slow"), "A draft."], "editor": ["Edited."]})
    with pytest.raises(TimeoutError):
        await runner_turn(pipeline(model), scoped, fresh_db_service(sqlite_url), session_id="s2")
    assert len(model.requests["drafter"]) == 1 and "editor" not in model.requests


async def test_retries_count_against_max_llm_calls(sqlite_url):
    model = ScriptedModel({"writer": [TimeoutError("first"), TimeoutError("second"), "Answer."]})
    with pytest.raises(TimeoutError, match="first"):
        await runner_turn(
            writer(model),
            (retry(max_attempts=3, sleep=Sleeps()),),
            fresh_db_service(sqlite_url),
            run_config=RunConfig(max_llm_calls=2),
        )
    assert len(model.requests["writer"]) == 2  # the first call and one retry: the limit


async def test_under_sse_streaming_the_retried_reply_arrives_whole(sqlite_url):
    model = ScriptedModel({"writer": [TimeoutError("slow"), "Three whole words."]})
    events = await runner_turn(
        writer(model),
        (retry(sleep=Sleeps()),),
        fresh_db_service(sqlite_url),
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    )
    # no partial chunks: the retry asks the model for its whole reply at once
    assert [(text_of(e), bool(e.partial)) for e in events] == [("Three whole words.", False)]
    session = await stored(sqlite_url)
    assert [text_of(e) for e in session.events] == ["Write it.", "Three whole words."]


# -- against ADK's own retry_config (ADK 2.x) ------------------------------------------------------
@functools.cache
def root_retry_config_is_honoured() -> bool:
    """Probe: does the installed ADK have `retry_config` and re-run a root LlmAgent with it?
    (Run once, in its own event loop, by the first test that needs the answer.)"""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App
    from google.adk.sessions import InMemorySessionService

    if "retry_config" not in LlmAgent.model_fields:
        return False
    from google.adk.workflow import RetryConfig

    model = ScriptedModel([TimeoutError("once"), "Again."])
    agent = LlmAgent(
        name="probe",
        model=model,
        retry_config=RetryConfig(max_attempts=2, initial_delay=0.0, jitter=0.0),
    )

    async def probe() -> bool:
        service = InMemorySessionService()
        runner = Runner(app=App(name="probe", root_agent=agent), session_service=service)
        await service.create_session(app_name="probe", user_id="u", session_id="p")
        try:
            events = [
                e
                async for e in runner.run_async(user_id="u", session_id="p", new_message=user("x"))
            ]
        except Exception:  # the error escaped: retry_config did nothing
            return False
        return any(text_of(e) == "Again." for e in events)

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, probe()).result()


def retry_config(max_attempts: int) -> Any:
    from google.adk.workflow import RetryConfig

    return RetryConfig(max_attempts=max_attempts, initial_delay=0.0, jitter=0.0)


def skip_unless_root_retry_config() -> None:
    if not root_retry_config_is_honoured():
        pytest.skip("the installed ADK has no retry_config, or ignores it for a root LlmAgent")


async def test_with_adk_retry_config_too_our_retry_answers_first(sqlite_url):
    skip_unless_root_retry_config()
    # ours recovers inside the model call: ADK's node retry never sees an error, stores none
    model = ScriptedModel({"writer": [TimeoutError("first"), TimeoutError("second"), "Answer."]})
    agent = writer(model).retry_config(retry_config(3))
    events = await runner_turn(
        agent, (retry(max_attempts=3, sleep=Sleeps()),), fresh_db_service(sqlite_url)
    )
    assert [(text_of(e), e.error_code) for e in events] == [("Answer.", None)]
    session = await stored(sqlite_url)
    assert [e.error_code for e in session.events] == [None, None]

    # ADK's retry_config alone: the same answer, after an error event per failed attempt
    model = ScriptedModel({"writer": [TimeoutError("first"), TimeoutError("second"), "Answer."]})
    events = await runner_turn(
        writer(model).retry_config(retry_config(3)),
        (),
        fresh_db_service(sqlite_url),
        session_id="s2",
    )
    assert [(text_of(e), e.error_code) for e in events] == [
        (None, "TimeoutError"),
        (None, "TimeoutError"),
        ("Answer.", None),
    ]
    session = await stored(sqlite_url, "s2")
    assert [e.error_code for e in session.events] == [None, "TimeoutError", "TimeoutError", None]


async def test_adk_retry_config_sees_the_error_only_once_our_retry_is_exhausted(sqlite_url):
    skip_unless_root_retry_config()
    # ours: 2 attempts (calls 1-2) -> exhausted -> ADK re-runs the node: calls 3-4, ours again
    model = ScriptedModel(
        {"writer": [TimeoutError("1"), TimeoutError("2"), TimeoutError("3"), "Answer."]}
    )
    agent = writer(model).retry_config(retry_config(2))
    events = await runner_turn(
        agent, (retry(max_attempts=2, sleep=Sleeps()),), fresh_db_service(sqlite_url)
    )
    assert len(model.requests["writer"]) == 4
    # ADK stores one error event for its one failed node attempt, with the original error
    errors = [e for e in events if e.error_code]
    assert [(e.error_code, e.error_message) for e in errors] == [("TimeoutError", "1")]
    answer = [e for e in events if text_of(e) == "Answer."]
    assert answer[0].custom_metadata["adk_fluent.retry"] == {"attempts": 2}
    session = await stored(sqlite_url)
    assert [e.error_code for e in session.events] == [None, "TimeoutError", None]
