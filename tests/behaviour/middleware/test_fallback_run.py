"""fallback_model through the real Runner (src/adk_fluent/middleware/fallback.py): when the
agent's model fails, the next model answers the same request, the reply reaches the user marked
`adk_fluent.fallback`, and the store holds no failed call. Shown next to the same tree without
the fallback, which ends in the exception. A plain ADK Runner over `to_app()` and `ask()`."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.runners import Runner

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware.fallback import fallback_model
from adk_fluent.middleware.retry import retry
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.conftest import fresh_db_service, request_texts
from tests.support.middleware import text_of, user

APP = "fallback_app"


async def runner_turn(expr: Any, middleware: tuple[Any, ...], service: Any) -> list[Any]:
    app = expr.to_app(ExecutionConfig(app_name=APP, middleware=middleware))
    runner = Runner(app=app, session_service=service)
    await service.create_session(app_name=APP, user_id="u", session_id="s1")
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id="s1", new_message=user("Summarise the report.")
        )
    ]


def writer(model: ScriptedModel) -> Agent:
    return Agent("writer").instruct("Summarise.").model(model.for_agent("writer"))


def backup(script: list[Any], name: str) -> ScriptedModel:
    """A second scripted model under its own name (its own scripts and records)."""
    return ScriptedModel({"writer": script}, model=name)


async def test_the_second_model_answers_the_same_request_and_the_user_gets_its_reply(sqlite_url):
    primary = ScriptedModel({"writer": [ConnectionError("primary down")]})
    second = backup(["From the backup."], "backup-scripted")
    events = await runner_turn(
        writer(primary),
        (fallback_model(second.for_agent("writer")),),
        fresh_db_service(sqlite_url),
    )
    assert [(e.author, text_of(e), e.error_code) for e in events] == [
        ("writer", "From the backup.", None)
    ]
    assert events[0].custom_metadata["adk_fluent.fallback"] == {"model": "backup-scripted"}
    # the backup received the request the primary failed on, under its own name
    (request,) = second.requests["writer"]
    assert request.model == "backup-scripted"
    assert request_texts(request) == request_texts(primary.requests["writer"][0])
    assert request_texts(request) == ["Summarise the report."]
    assert primary.requests["writer"][0].model == primary.model  # the original was not renamed

    session = await fresh_db_service(sqlite_url).get_session(
        app_name=APP, user_id="u", session_id="s1"
    )
    assert [(e.author, text_of(e), e.error_code) for e in session.events] == [
        ("user", "Summarise the report.", None),
        ("writer", "From the backup.", None),
    ]
    assert session.events[1].custom_metadata["adk_fluent.fallback"] == {"model": "backup-scripted"}


async def test_without_the_fallback_the_same_tree_ends_in_the_exception(sqlite_url):
    primary = ScriptedModel({"writer": [ConnectionError("primary down")]})
    with pytest.raises(ConnectionError, match="primary down"):
        await runner_turn(writer(primary), (), fresh_db_service(sqlite_url))


async def test_models_are_tried_in_order_until_one_answers_through_ask():
    first = backup([TimeoutError("first backup slow")], "first-scripted")
    second = backup(["Second backup here."], "second-scripted")
    backend = mock_backend({"writer": ConnectionError("primary down")})
    agent = Agent("writer").middleware(
        fallback_model(first.for_agent("writer"), second.for_agent("writer"))
    )
    assert await agent.ask("Summarise.", backend=backend) == "Second backup here."
    assert [r.model for r in first.requests["writer"]] == ["first-scripted"]
    assert [r.model for r in second.requests["writer"]] == ["second-scripted"]
    backend.assert_consumed()


async def test_an_error_that_is_not_one_of_on_does_not_switch_models():
    second = backup(["Never used."], "backup-scripted")
    backend = mock_backend({"writer": ValueError("invalid request")})
    agent = Agent("writer").middleware(
        fallback_model(second.for_agent("writer"), on=(TimeoutError, ConnectionError))
    )
    with pytest.raises(ValueError, match="invalid request"):
        await agent.ask("Summarise.", backend=backend)
    assert "writer" not in second.requests


async def test_when_every_model_fails_adk_raises_the_original_error():
    second = backup([TimeoutError("backup slow too")], "backup-scripted")
    backend = mock_backend({"writer": ConnectionError("primary down")})
    agent = Agent("writer").middleware(fallback_model(second.for_agent("writer")))
    with pytest.raises(ConnectionError, match="primary down"):
        await agent.ask("Summarise.", backend=backend)
    assert len(second.requests["writer"]) == 1


async def test_retry_runs_before_the_fallback(sqlite_url):
    # retry (-10) tries the agent's own model again first; fallback (-5) only after that failed
    primary = ScriptedModel({"writer": [ConnectionError("down"), ConnectionError("still down")]})
    second = backup(["From the backup."], "backup-scripted")

    async def no_wait(seconds: float) -> None:
        return None

    events = await runner_turn(
        writer(primary),
        (fallback_model(second.for_agent("writer")), retry(max_attempts=2, sleep=no_wait)),
        fresh_db_service(sqlite_url),
    )
    assert [text_of(e) for e in events] == ["From the backup."]
    assert len(primary.requests["writer"]) == 2 and len(second.requests["writer"]) == 1
    assert "adk_fluent.retry" not in events[0].custom_metadata
    assert events[0].custom_metadata["adk_fluent.fallback"] == {"model": "backup-scripted"}
