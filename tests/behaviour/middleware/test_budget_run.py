"""token_budget through the real Runner: a pipeline stopped after the agent whose replies
crossed the budget (no later model call, one error event, the run ends), the spend in the store
after a reload, per="invocation" starting again each turn while per="session" does not, and
where the spend is written (ADK 2.x keeps a plugin's after_model state write in the reply's
event; google-adk 1.25 drops it, and the budget writes it again where it lands). Each runs
under a plain ADK Runner over `to_app()` or under `expr.run()` / `ask()`; each compares with the
same tree without the budget, where every agent calls its model."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.runners import Runner

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.errors import RunError
from adk_fluent.middleware.limits import (
    BUDGET_EXCEEDED,
    INVOCATION_TOKENS_KEY,
    SESSION_TOKENS_KEY,
    token_budget,
)
from adk_fluent.testing import ScriptedModel, mock_backend
from tests.conftest import fresh_db_service
from tests.support.middleware import text_of, user

TOKENS_PER_REPLY = 12  # ScriptedModel's usage: 8 prompt + 4 output tokens


def three_agents(model: ScriptedModel | None = None) -> Any:
    agents = []
    for name in ("a", "b", "c"):
        agent = Agent(name).instruct(f"You are {name}.")
        agents.append(agent.model(model.for_agent(name)) if model is not None else agent)
    return (agents[0] >> agents[1] >> agents[2]).named("pipe")


async def runner_turn(app: Any, service: Any, session_id: str, prompt: str) -> list[Any]:
    runner = Runner(app=app, session_service=service)
    if await service.get_session(app_name=app.name, user_id="u", session_id=session_id) is None:
        await service.create_session(app_name=app.name, user_id="u", session_id=session_id)
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session_id, new_message=user(prompt)
        )
    ]


async def test_plain_runner_a_budget_stops_the_pipeline_after_the_agent_that_crossed_it(
    sqlite_url,
):
    # a spends 12, b spends 12 (24 >= 20: b crossed it), c is refused before its model call
    model = ScriptedModel({"a": ["A."], "b": ["B."], "c": ["C."]})
    app = three_agents(model).to_app(ExecutionConfig(middleware=(token_budget(20),)))
    events = await runner_turn(app, fresh_db_service(sqlite_url), "s1", "go")

    assert [text_of(e) for e in events if text_of(e)] == ["A.", "B."]
    errors = [e for e in events if e.error_code]
    assert [(e.author, e.error_code) for e in errors] == [("c", BUDGET_EXCEEDED)]
    assert "24 tokens" in errors[0].error_message and "budget is 20" in errors[0].error_message
    assert "pipe/c" in errors[0].error_message and "hint" in errors[0].error_message
    assert errors[0].custom_metadata["adk_fluent.token_budget"] == {
        "spent": 24,
        "max": 20,
        "per": "session",
    }
    assert events[-1] is errors[0]  # nothing after the error event
    assert sorted(model.requests) == ["a", "b"]  # c made no model call

    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id="s1"
    )
    assert stored.state[SESSION_TOKENS_KEY] == 2 * TOKENS_PER_REPLY
    assert stored.events[-1].error_code == BUDGET_EXCEEDED

    # the same tree without the budget: every agent calls its model
    model = ScriptedModel({"a": ["A."], "b": ["B."], "c": ["C."]})
    app = three_agents(model).to_app(ExecutionConfig())
    events = await runner_turn(app, fresh_db_service(sqlite_url), "s2", "go")
    assert [text_of(e) for e in events if text_of(e)] == ["A.", "B.", "C."]
    assert sorted(model.requests) == ["a", "b", "c"]


async def test_run_a_budget_crossed_by_the_first_agent_stops_every_later_one(sqlite_url):
    # a spends 12 >= 10: b is refused (its error event), and c never runs (stop_run)
    backend = mock_backend({"a": "A."})  # b and c have no script: a model call would fail
    config = ExecutionConfig(middleware=(token_budget(10),))
    events = await three_agents().run(
        "go", backend=backend, config=config, session_id="r1", session_store=sqlite_url
    )
    assert [e.author for e in events if e.content or e.is_error][-2:] == ["a", "b"]
    error = events[-1]
    assert error.is_error and error.error_code == BUDGET_EXCEEDED and error.author == "b"
    assert not any(e.author == "c" for e in events)
    assert sorted(backend.requests) == ["a"]

    stored = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="r1"
    )
    assert stored.state[SESSION_TOKENS_KEY] == TOKENS_PER_REPLY
    assert [e.author for e in stored.events if e.error_code] == ["b"]

    # without the budget b and c call their models
    backend = mock_backend({"a": "A.", "b": "B.", "c": "C."})
    await three_agents().run("go", backend=backend, session_id="r2", session_store=sqlite_url)
    assert sorted(backend.requests) == ["a", "b", "c"]


async def test_ask_raises_run_error_with_the_budget_code():
    backend = mock_backend({"a": "A."})
    config = ExecutionConfig(middleware=(token_budget(5),))
    with pytest.raises(RunError) as raised:
        await three_agents().ask("go", backend=backend, config=config)
    assert raised.value.code == BUDGET_EXCEEDED and raised.value.author == "b"
    assert "12 tokens" in raised.value.message
    # without it the answer is c's
    backend = mock_backend({"a": "A.", "b": "B.", "c": "C."})
    assert await three_agents().ask("go", backend=backend) == "C."


def two_agents() -> Any:
    return (Agent("a").instruct("First.") >> Agent("b").instruct("Second.")).named("pair")


async def test_per_invocation_starts_again_each_turn_and_per_session_does_not(sqlite_url):
    # a budget of 12: a's reply (12 tokens) uses it up, so b is refused in every turn; the
    # next turn a may call again per invocation, and not per session
    for per, second_turn_a_calls in (("invocation", True), ("session", False)):
        session_id = f"t-{per}"
        backend = mock_backend({"a": ["A1.", "A2."]})  # b has no script: never called
        config = ExecutionConfig(middleware=(token_budget(12, per=per),))
        pipe = two_agents()
        first = await pipe.run(
            "one", backend=backend, config=config, session_id=session_id, session_store=sqlite_url
        )
        assert [e.content for e in first if e.content] == ["A1."]
        assert first[-1].error_code == BUDGET_EXCEEDED and first[-1].author == "b"

        second = await pipe.run(
            "two", backend=backend, config=config, session_id=session_id, session_store=sqlite_url
        )
        assert second[-1].error_code == BUDGET_EXCEEDED
        assert len(backend.requests["a"]) == (2 if second_turn_a_calls else 1), per
        assert "b" not in backend.requests
        if second_turn_a_calls:
            assert [e.content for e in second if e.content] == ["A2."]
            assert second[-1].author == "b"
        else:
            assert [e.content for e in second if e.content] == []
            assert second[-1].author == "a"  # refused before its first call of the turn
            assert "24" not in second[-1].error_message  # nothing more was spent

        stored = await fresh_db_service(sqlite_url).get_session(
            app_name="adk_fluent_app", user_id="user", session_id=session_id
        )
        key = INVOCATION_TOKENS_KEY if per == "invocation" else SESSION_TOKENS_KEY
        assert stored.state[key] == TOKENS_PER_REPLY  # the turn's spend / the session's


async def test_without_a_budget_the_second_turn_calls_every_model():
    backend = mock_backend({"a": ["A1.", "A2."], "b": ["B1.", "B2."]})
    pipe = two_agents()
    await pipe.run("one", backend=backend, session_id="free")
    await pipe.run("two", backend=backend, session_id="free")
    assert len(backend.requests["a"]) == len(backend.requests["b"]) == 2


async def test_the_spend_is_stored_once_by_the_agent_that_spent_it(sqlite_url):
    # The budget writes the spend in after_model_callback. ADK 2.x puts that write in the
    # reply's own event; google-adk 1.25 hands plugins a context whose delta nothing reads, so
    # the budget writes it again at the agent's end (a state-only event of the agent). Either
    # way exactly one stored event carries it, authored by the agent that spent it.
    model = ScriptedModel({"solo": ["Hi.", "Again."]})
    app = (
        Agent("solo")
        .model(model.for_agent("solo"))
        .to_app(ExecutionConfig(middleware=(token_budget(1000),)))
    )
    service = fresh_db_service(sqlite_url)
    await runner_turn(app, service, "w", "one")
    await runner_turn(app, service, "w", "two")
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id="w"
    )
    assert stored.state[SESSION_TOKENS_KEY] == 2 * TOKENS_PER_REPLY
    carriers = [e for e in stored.events if SESSION_TOKENS_KEY in (e.actions.state_delta or {})]
    assert [(e.author, e.actions.state_delta[SESSION_TOKENS_KEY]) for e in carriers] == [
        ("solo", 12),
        ("solo", 24),
    ]
    state_only = [e for e in stored.events if e.author == "solo" and e.content is None]
    replies = [e for e in stored.events if e.author == "solo" and text_of(e)]
    assert [text_of(e) for e in replies] == ["Hi.", "Again."]
    # where the reply event carries the spend there is no extra event, and the other way round
    written_in_reply = all(SESSION_TOKENS_KEY in (e.actions.state_delta or {}) for e in replies)
    assert written_in_reply == (not state_only)


async def test_run_branches_of_a_fanout_add_up_to_one_spend(sqlite_url):
    # a and b run side by side (12 each): the agent after them is refused at 24 >= 20
    pipe = ((Agent("a") | Agent("b")) >> Agent("c")).named("pipe")
    backend = mock_backend({"a": "A.", "b": "B."})
    config = ExecutionConfig(middleware=(token_budget(20),))
    events = await pipe.run(
        "go", backend=backend, config=config, session_id="f", session_store=sqlite_url
    )
    assert sorted(e.content for e in events if e.content) == ["A.", "B."]
    assert events[-1].error_code == BUDGET_EXCEEDED and events[-1].author == "c"
    assert "24 tokens" in events[-1].error_message
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="f"
    )
    assert stored.state[SESSION_TOKENS_KEY] == 2 * TOKENS_PER_REPLY
    # without the budget c answers
    backend = mock_backend({"a": "A.", "b": "B.", "c": "C."})
    assert await pipe.ask("go", backend=backend) == "C."
