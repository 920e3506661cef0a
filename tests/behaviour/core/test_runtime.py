"""Running for real: the ADK Runner, scripted models, in-memory and SQLite session stores."""

from __future__ import annotations

import asyncio

import pytest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, AgentEvent, CompactionConfig, ExecutionConfig, until
from adk_fluent.testing import ScriptedModel, call, mock_backend
from tests.conftest import fresh_db_service, request_texts, system_instruction

BOOKINGS: list[str] = []


def book(city: str) -> dict:
    """Book a trip to a city."""
    BOOKINGS.append(city)
    return {"status": "booked", "city": city}


def booking_pipeline():
    return Agent("classifier").instruct("Classify the request.").outputs("intent") >> Agent(
        "booker"
    ).instruct("The intent is {intent}. Book it.").tool(book)


async def test_run_returns_agent_events_with_raw_adk_events():
    backend = mock_backend(
        {"classifier": "booking", "booker": [call("book", city="Paris"), "Booked Paris."]}
    )
    BOOKINGS.clear()
    events = await booking_pipeline().run("Paris please", backend=backend, session_id="s1")
    assert all(isinstance(e, AgentEvent) for e in events)
    assert [e.author for e in events] == ["classifier", "booker", "booker", "booker"]
    assert events[0].state_delta == {"intent": "booking"}
    assert events[1].tool_calls[0].tool_name == "book" and events[1].tool_calls[0].args == {
        "city": "Paris"
    }
    assert events[2].tool_responses[0].result == {"status": "booked", "city": "Paris"}
    assert events[-1].is_final and events[-1].content == "Booked Paris."
    assert events[-1].raw.author == "booker"
    assert BOOKINGS == ["Paris"]
    # the booker's model saw the classifier's output through the {intent} template
    assert "The intent is booking." in system_instruction(backend.requests["booker"][0])
    backend.assert_consumed()


async def test_ask_and_stream():
    pipeline = booking_pipeline()
    backend = mock_backend(
        {
            "classifier": ["booking", "booking"],
            "booker": [
                call("book", city="Rome"),
                "Booked Rome.",
                call("book", city="Oslo"),
                "Booked Oslo.",
            ],
        }
    )
    assert await pipeline.ask("Rome", backend=backend) == "Booked Rome."
    authors = [event.author async for event in pipeline.stream("Oslo", backend=backend)]
    assert authors == ["classifier", "booker", "booker", "booker"]
    backend.assert_consumed()


def test_ask_sync_outside_an_event_loop():
    model = ScriptedModel(["Hello there."])
    assert Agent("greeter", model).ask_sync("hi") == "Hello there."


async def test_multi_turn_by_session_id():
    pipeline = booking_pipeline()
    backend = mock_backend(
        {"classifier": ["booking", "booking"], "booker": ["Where to?", "Booked Lima."]}
    )
    await pipeline.run("I want a trip", backend=backend, session_id="chat")
    await pipeline.run("Lima", backend=backend, session_id="chat")
    second = request_texts(backend.requests["classifier"][1])
    assert any("I want a trip" in t for t in second)
    assert any("Where to?" in t for t in second)
    assert any("Lima" in t for t in second)
    session = await pipeline.session("chat", backend=backend)
    assert len([e for e in session.events if e.author == "user"]) == 2


async def test_sqlite_session_store_persists_history_and_state(sqlite_url):
    pipeline = booking_pipeline()
    backend = mock_backend(
        {"classifier": "booking", "booker": [call("book", city="Paris"), "Booked Paris."]}
    )
    await pipeline.run("Paris please", backend=backend, session_id="db1", session_store=sqlite_url)
    reloaded = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="db1"
    )
    assert reloaded.state["intent"] == "booking"
    assert [e.author for e in reloaded.events] == [
        "user",
        "classifier",
        "booker",
        "booker",
        "booker",
    ]
    assert reloaded.events[-1].content.parts[0].text == "Booked Paris."


async def test_plain_runner_from_to_app_with_execution_config():
    model = ScriptedModel({"greeter": ["Hi!"]})
    app = (
        Agent("greeter", model.for_agent("greeter"))
        .instruct("Greet.")
        .to_app(
            ExecutionConfig(
                app_name="greetings",
                resumable=True,
                compaction=CompactionConfig(interval=5, overlap=1),
                custom_metadata={"tenant": "acme"},
            )
        )
    )
    assert app.name == "greetings"
    assert app.resumability_config.is_resumable
    assert app.events_compaction_config.compaction_interval == 5
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    await service.create_session(app_name="greetings", user_id="u", session_id="s")
    events = [
        e
        async for e in runner.run_async(
            user_id="u",
            session_id="s",
            new_message=types.Content(role="user", parts=[types.Part(text="hello")]),
        )
    ]
    assert [e.content.parts[0].text for e in events if e.content] == ["Hi!"]
    stored = await service.get_session(app_name="greetings", user_id="u", session_id="s")
    greeter_events = [e for e in stored.events if e.author == "greeter"]
    assert greeter_events and all(
        (e.custom_metadata or {}).get("tenant") == "acme" for e in greeter_events
    )


async def test_to_runner_uses_the_given_services(sqlite_url):
    service = InMemorySessionService()
    model = ScriptedModel(["ok"])
    runner = Agent("solo", model).to_runner(session_service=service)
    assert isinstance(runner, Runner) and runner.session_service is service
    await service.create_session(app_name=runner.app_name, user_id="u", session_id="s")
    async for _ in runner.run_async(
        user_id="u",
        session_id="s",
        new_message=types.Content(role="user", parts=[types.Part(text="x")]),
    ):
        pass
    stored = await service.get_session(app_name=runner.app_name, user_id="u", session_id="s")
    assert stored.events[-1].content.parts[0].text == "ok"


async def test_fallback_runs_next_child_when_one_raises():
    backend = mock_backend({"primary": RuntimeError("model down"), "backup": "Backup answer."})
    pipeline = Agent("primary") // Agent("backup")
    events = await pipeline.run("hi", backend=backend, session_id="f")
    assert events[-1].author == "backup" and events[-1].content == "Backup answer."
    backend.assert_consumed()


async def test_fallback_raises_the_last_error_when_all_fail():
    backend = mock_backend({"primary": RuntimeError("first"), "backup": ValueError("second")})
    with pytest.raises(ValueError, match="second"):
        await (Agent("primary") // Agent("backup")).run("hi", backend=backend)


async def test_loop_runs_n_times():
    backend = mock_backend({"drafter": ["v1", "v2", "v3"]})
    events = await (Agent("drafter") * 3).run("draft", backend=backend)
    assert [e.content for e in events if e.author == "drafter"] == ["v1", "v2", "v3"]
    backend.assert_consumed()


async def test_loop_until_stops_as_soon_as_the_predicate_holds(sqlite_url):
    backend = mock_backend({"critic": ["no", "no", "yes"]})
    loop = Agent("critic").outputs("approved") * until(lambda s: s.get("approved") == "yes", max=5)
    await loop.run("review", backend=backend, session_id="u1", session_store=sqlite_url)
    backend.assert_consumed()  # exactly three iterations: a 4th call would have raised
    reloaded = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="u1"
    )
    assert reloaded.state["approved"] == "yes"


async def test_loop_until_stops_at_the_limit():
    backend = mock_backend({"critic": ["no", "no"]})
    loop = Agent("critic").outputs("approved") * until(lambda s: s.get("approved") == "yes", max=2)
    await loop.run("review", backend=backend)
    backend.assert_consumed()


async def test_fanout_runs_every_branch():
    backend = mock_backend({"a": "from a", "b": "from b"})
    pipeline = (Agent("a").outputs("ka") | Agent("b").outputs("kb")) >> Agent("join").instruct(
        "{ka} + {kb}"
    )
    backend = mock_backend({"a": "from a", "b": "from b", "join": "joined"})
    await pipeline.run("go", backend=backend)
    assert "from a + from b" in system_instruction(backend.requests["join"][0])


async def test_delegate_transfers_control():
    backend = mock_backend(
        {
            "coordinator": call("transfer_to_agent", agent_name="billing"),
            "billing": "Your bill is 10 EUR.",
        }
    )
    coordinator = (
        Agent("coordinator")
        .instruct("Route the user.")
        .delegate(Agent("billing").description("Bills"), Agent("support").description("Support"))
    )
    events = await coordinator.run("my bill?", backend=backend)
    assert any(e.transfer_to == "billing" for e in events)
    assert events[-1].author == "billing" and events[-1].content == "Your bill is 10 EUR."


async def test_callbacks_accumulate_and_run_in_order():
    order: list[str] = []

    def first(ctx, request):
        order.append("first")

    def second(ctx, request):
        order.append("second")

    agent = Agent("a", ScriptedModel(["done"])).before_model(first).before_model(second)
    await agent.run("x")
    assert order == ["first", "second"]


async def test_tool_requiring_confirmation_pauses_before_running():
    calls: list[str] = []

    def delete_account(user: str) -> dict:
        """Delete an account."""
        calls.append(user)
        return {"deleted": user}

    agent = Agent("admin", ScriptedModel([call("delete_account", user="bob"), "Waiting."])).tool(
        delete_account, require_confirmation=True
    )
    events = await agent.run("delete bob")
    assert calls == []  # not run without a person's yes
    assert any(e.raw.actions.requested_tool_confirmations for e in events)


async def test_rewind_restores_the_earlier_state():
    agent = Agent("counter", ScriptedModel(["one", "two"])).outputs("last")
    first = await agent.run("1", session_id="r")
    second = await agent.run("2", session_id="r")
    assert (await agent.session("r")).state["last"] == "two"
    await agent.rewind("r", before_invocation_id=second[0].invocation_id)
    session = await agent.session("r")
    assert session.state["last"] == "one"
    assert first[0].invocation_id != second[0].invocation_id


async def test_concurrent_runs_of_one_builder_use_separate_sessions():
    agent = Agent("echo", ScriptedModel(["a", "b"]))
    results = await asyncio.gather(agent.ask("1"), agent.ask("2"))
    assert sorted(results) == ["a", "b"]
