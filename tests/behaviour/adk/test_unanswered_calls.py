"""After a tool fails (it raises, or `timeout` cancels it while it runs), the next turn's model
request is well formed: every function call in it is followed by its function response. ADK
1.25 sent the stored call unanswered (Gemini answers 400); 2.x leaves it out of the request. The
probe `unanswered_calls_reach_the_model` decides whether adk-fluent's plugin does the same. The
stored history keeps the call. On both ADK ends, through `run()` and a plain Runner over
`to_app()`, in memory and on SQLite read back by a fresh service."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import types

from adk_fluent import Agent
from adk_fluent.adk import probes
from adk_fluent.adk.compat import unanswered_calls_reach_the_model
from adk_fluent.adk.plugins.tool_history import drop_unanswered, unanswered_calls
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service, request_texts

APP = "adk_fluent_app"


def explode(city: str) -> str:
    """Look the city up."""
    raise RuntimeError("the lookup service is down")


async def hang(city: str) -> str:
    """Look the city up (never finishes: the timeout cancels it)."""
    await asyncio.Event().wait()
    return city


def look_up(city: str) -> str:
    """Look the city up."""
    return f"{city}: sunny"


def pipeline(failure: str):
    if failure == "raises":
        return Agent("helper").tool(explode)
    return Agent("helper").tool(hang).timeout(0.05)


def scripts(failure: str) -> dict:
    tool = "explode" if failure == "raises" else "hang"
    return {"helper": [call(tool, city="Paris"), "Sorry, try again later."]}


def unanswered_in(request) -> list[str]:
    """The names of the function calls in a request that the next content does not answer."""
    contents = list(request.contents or [])
    missing = []
    for index, content in enumerate(contents):
        following = contents[index + 1] if index + 1 < len(contents) else None
        answers = [
            (p.function_response.id, p.function_response.name)
            for p in (following.parts if following else []) or []
            if p.function_response
        ]
        for part in content.parts or []:
            fc = part.function_call
            if fc is not None and not any(
                (fc.id == rid) if fc.id and rid else fc.name == name for rid, name in answers
            ):
                missing.append(fc.name)
    return missing


def stored_calls(session) -> list[str]:
    return [c.name for e in session.events for c in e.get_function_calls()]


async def _turn_one(expression, backend, failure, **run) -> None:
    if failure == "raises":
        with pytest.raises(RuntimeError, match="lookup service is down"):
            await expression.run("Weather in Paris?", backend=backend, **run)
    else:
        events = await expression.run("Weather in Paris?", backend=backend, **run)
        assert any(e.raw.error_code == "TIMEOUT" for e in events)


@pytest.mark.parametrize("failure", ["raises", "timeout"])
@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_run_sends_a_well_formed_history_after_a_failed_tool(failure, store, sqlite_url):
    backend = mock_backend(scripts(failure))
    expression = pipeline(failure)
    run = {"session_id": "s1", "session_store": None if store == "memory" else sqlite_url}
    await _turn_one(expression, backend, failure, **run)
    await expression.run("Any news?", backend=backend, **run)

    request = backend.requests["helper"][-1]
    assert unanswered_in(request) == []
    assert request_texts(request)[-2:] == ["Weather in Paris?", "Any news?"]
    # nothing was rewritten: the store still holds the call that was never answered
    if store == "memory":
        session = await expression.session("s1", backend=backend)
    else:
        session = await fresh_db_service(sqlite_url).get_session(
            app_name=APP, user_id="user", session_id="s1"
        )
    assert stored_calls(session) == [scripts(failure)["helper"][0].name]


async def _runner_turn(app, service, text: str) -> None:
    from google.adk.runners import Runner

    runner = Runner(app=app, session_service=service)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _ in runner.run_async(user_id="u", session_id="s1", new_message=message):
        pass


@pytest.mark.parametrize("failure", ["raises", "timeout"])
@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_a_plain_runner_over_to_app_sends_a_well_formed_history(failure, store, sqlite_url):
    """Turn 2 runs on a new App and Runner and, on SQLite, a fresh service (a server restart)."""
    from google.adk.sessions import InMemorySessionService

    backend = mock_backend(scripts(failure))
    service = InMemorySessionService() if store == "memory" else fresh_db_service(sqlite_url)
    app = pipeline(failure).to_app(backend=backend)
    await service.create_session(app_name=app.name, user_id="u", session_id="s1")
    if failure == "raises":
        with pytest.raises(RuntimeError, match="lookup service is down"):
            await _runner_turn(app, service, "Weather in Paris?")
    else:
        await _runner_turn(app, service, "Weather in Paris?")
    if store == "sqlite":
        service = fresh_db_service(sqlite_url)
    await _runner_turn(pipeline(failure).to_app(backend=backend), service, "Any news?")

    request = backend.requests["helper"][-1]
    assert unanswered_in(request) == []
    assert request_texts(request)[-2:] == ["Weather in Paris?", "Any news?"]
    session = await service.get_session(app_name=app.name, user_id="u", session_id="s1")
    assert stored_calls(session) == [scripts(failure)["helper"][0].name]


async def test_answered_calls_stay_in_the_request(sqlite_url):
    backend = mock_backend(
        {"helper": [call("look_up", city="Paris"), "Sunny.", call("look_up", city="Rome"), "Also."]}
    )
    helper = Agent("helper").tool(look_up)
    for text in ("Paris?", "Rome?"):
        await helper.run(text, backend=backend, session_id="s1", session_store=sqlite_url)
    request = backend.requests["helper"][-1]
    assert unanswered_in(request) == []
    calls = [
        p.function_call.args["city"] for c in request.contents for p in c.parts if p.function_call
    ]
    assert calls == ["Paris", "Rome"]


def test_the_probe_says_what_a_raw_adk_agent_sends():
    """The probe's answer is what ADK does without adk-fluent: a raw LlmAgent whose tool raised,
    run through a plain Runner (no adk-fluent plugin)."""
    assert probes.unanswered_calls_reach_the_model() == unanswered_calls_reach_the_model()


async def test_a_raw_adk_agent_keeps_the_call_exactly_where_the_probe_says():
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App
    from google.adk.sessions import InMemorySessionService

    backend = mock_backend(scripts("raises"))
    agent = LlmAgent(name="helper", model=backend.model_for("helper"), tools=[explode])
    service = InMemorySessionService()
    app = App(name="raw", root_agent=agent)
    await service.create_session(app_name="raw", user_id="u", session_id="s1")
    with pytest.raises(RuntimeError):
        await _runner_turn(app, service, "Weather in Paris?")
    await _runner_turn(app, service, "Any news?")
    left = unanswered_in(backend.requests["helper"][-1])
    assert (left == ["explode"]) is unanswered_calls_reach_the_model()


def test_waiting_long_running_calls_and_calls_without_an_id_are_kept():
    from google.adk.events.event import Event

    def model_event(*calls, long_running=()):
        parts = [types.Part(function_call=c) for c in calls]
        return Event(
            author="helper",
            content=types.Content(role="model", parts=parts),
            long_running_tool_ids=set(long_running) or None,
        )

    waiting = types.FunctionCall(id="adk-1", name="approve", args={})
    no_id = types.FunctionCall(name="look_up", args={"city": "Oslo"})
    failed = types.FunctionCall(id="adk-2", name="look_up", args={"city": "Rome"})
    events = [model_event(waiting, long_running={"adk-1"}), model_event(no_id), model_event(failed)]
    assert [c.id for c in unanswered_calls(events)] == ["adk-2"]
    # in the request (ids dropped on the way out) the failed call goes, the others stay
    request = [
        types.Content(
            role="model", parts=[types.Part(function_call=c.model_copy(update={"id": None}))]
        )
        for c in (waiting, no_id, failed)
    ] + [types.Content(role="user", parts=[types.Part(text="next")])]
    kept = drop_unanswered(request, unanswered_calls(events))
    assert [p.function_call.name for c in kept for p in c.parts if p.function_call] == [
        "approve",
        "look_up",
    ]
    assert kept[1].parts[0].function_call.args == {"city": "Oslo"}


def test_a_tree_that_calls_no_tool_gets_no_fix_plugin_and_one_with_a_tool_gets_it_as_needed():
    from adk_fluent.adk.compat import unanswered_calls_reach_the_model

    def look_up(order: str) -> str:
        """Look an order up."""
        return order

    names = [p.name for p in (Agent("a") >> Agent("b")).to_app().plugins]
    assert "adk_fluent_unanswered_calls" not in names  # nothing a model could call
    names = [p.name for p in (Agent("a").tool(look_up) >> Agent("b")).to_app().plugins]
    assert ("adk_fluent_unanswered_calls" in names) == unanswered_calls_reach_the_model()


async def test_the_plugin_reads_each_request_s_new_events_only_and_sees_a_rewritten_history():
    """The plugin remembers what it read of a session between model requests: a call answered
    later is kept in the next request, and a history that is not the one it read (a rewind,
    another copy of the session) is read again from the start."""
    from google.adk.events.event import Event

    from adk_fluent.adk.plugins.tool_history import UnansweredCallsPlugin

    def event(part: types.Part, author: str = "helper") -> Event:
        return Event(author=author, content=types.Content(role="model", parts=[part]))

    class Session:
        app_name, user_id, id = "app", "user", "s1"

        def __init__(self, events: list[Event]) -> None:
            self.events = events

    class Context:
        def __init__(self, session: Session) -> None:
            self.session = session

    class Request:
        def __init__(self, contents: list[types.Content]) -> None:
            self.contents = contents

    def call_content(call_: types.FunctionCall) -> types.Content:
        no_id = call_.model_copy(update={"id": None})
        return types.Content(role="model", parts=[types.Part(function_call=no_id)])

    def calls_in(request: Request) -> list[str]:
        return [p.function_call.name for c in request.contents for p in c.parts if p.function_call]

    plugin = UnansweredCallsPlugin()
    asked = types.FunctionCall(id="adk-1", name="look_up", args={"city": "Rome"})
    session = Session([event(types.Part(function_call=asked))])
    request = Request([call_content(asked)])
    await plugin.before_model_callback(callback_context=Context(session), llm_request=request)
    assert calls_in(request) == []  # unanswered so far: left out
    answer = types.FunctionResponse(id="adk-1", name="look_up", response={"result": "sunny"})
    session.events.append(event(types.Part(function_response=answer), author="user"))
    answered = Request(
        [
            call_content(asked),
            types.Content(role="user", parts=[types.Part(function_response=answer)]),
        ]
    )
    await plugin.before_model_callback(callback_context=Context(session), llm_request=answered)
    assert calls_in(answered) == ["look_up"]  # answered since: it stays
    # the same session id with another history (a rewind to before the answer, a new call)
    other = types.FunctionCall(id="adk-9", name="look_up", args={"city": "Oslo"})
    rewound = Session([event(types.Part(function_call=other))])
    request = Request([call_content(other)])
    await plugin.before_model_callback(callback_context=Context(rewound), llm_request=request)
    assert calls_in(request) == []
