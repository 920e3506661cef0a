"""tool_approval through the real Runner: a person approves a tool call (ADK's own
tool-confirmation flow: an `adk_request_confirmation` call the client answers with a
ToolConfirmation) before it runs; a rejection never runs it; a policy lets small calls through;
an approval given to a restarted server (a new Runner over the same SQLite file) resumes the
call. Plain Runner (to_app) and adk-fluent's run/ask, on both ADK ends."""

from __future__ import annotations

import pytest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware.approval import tool_approval
from adk_fluent.testing import ScriptedModel, call
from tests.conftest import fresh_db_service

CONFIRMATION = "adk_request_confirmation"


class Ledger:
    """The refund tool, counting its real runs."""

    def __init__(self) -> None:
        self.runs: list[int] = []

        def refund(amount: int) -> dict:
            """Refund an amount to the customer."""
            self.runs.append(amount)
            return {"refunded": amount}

        self.refund = refund


def desk(model: ScriptedModel, ledger: Ledger) -> Agent:
    return (
        Agent("desk").instruct("Handle refunds.").model(model.for_agent("desk")).tool(ledger.refund)
    )


def message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def answer(request_id: str, confirmed: bool) -> types.Content:
    """What a client sends back: a FunctionResponse for the confirmation request."""
    reply = types.FunctionResponse(
        id=request_id, name=CONFIRMATION, response={"confirmed": confirmed}
    )
    return types.Content(role="user", parts=[types.Part(function_response=reply)])


def last_text(events) -> str | None:
    """The last text any event holds (a resumable app ends an agent with an empty event)."""
    texts = [p.text for e in events if e.content for p in e.content.parts or [] if p.text]
    return texts[-1] if texts else None


def confirmation_requests(events) -> list:
    return [
        call for event in events for call in event.get_function_calls() if call.name == CONFIRMATION
    ]


def tool_responses(request, name: str) -> list[dict]:
    return [
        part.function_response.response
        for content in request.contents or []
        for part in content.parts or []
        if part.function_response is not None and part.function_response.name == name
    ]


async def turn(runner: Runner, session_id: str, content: types.Content) -> list:
    return [
        event
        async for event in runner.run_async(user_id="u", session_id=session_id, new_message=content)
    ]


async def plain(expr: Agent, *middleware) -> tuple[Runner, str]:
    app = expr.to_app(ExecutionConfig(middleware=middleware))
    service = InMemorySessionService()
    session = await service.create_session(app_name=app.name, user_id="u")
    return Runner(app=app, session_service=service), session.id


async def test_approval_asks_before_the_tool_runs():
    ledger, model = Ledger(), ScriptedModel({"desk": [call("refund", amount=500), "Refunded."]})
    runner, sid = await plain(desk(model, ledger), tool_approval([ledger.refund]))
    events = await turn(runner, sid, message("refund 500"))
    assert ledger.runs == []  # not run without a person's yes
    (request,) = confirmation_requests(events)
    assert request.args["originalFunctionCall"]["name"] == "refund"
    assert request.args["originalFunctionCall"]["args"] == {"amount": 500}
    assert "refund(amount=500)" in request.args["toolConfirmation"]["hint"]
    asking = [e for e in events if request in e.get_function_calls()]
    assert request.id in asking[0].long_running_tool_ids  # the turn waits for the answer
    assert len(model.requests["desk"]) == 1  # the model was not asked to go on

    # without the middleware the same tree runs the refund at once
    ledger, model = Ledger(), ScriptedModel({"desk": [call("refund", amount=500), "Refunded."]})
    runner, sid = await plain(desk(model, ledger))
    events = await turn(runner, sid, message("refund 500"))
    assert ledger.runs == [500] and not confirmation_requests(events)


async def test_an_approved_call_runs_once_and_the_agent_finishes():
    ledger, model = Ledger(), ScriptedModel({"desk": [call("refund", amount=500), "Refunded."]})
    runner, sid = await plain(desk(model, ledger), tool_approval(["refund"]))
    (request,) = confirmation_requests(await turn(runner, sid, message("refund 500")))
    assert ledger.runs == []
    events = await turn(runner, sid, answer(request.id, True))
    assert ledger.runs == [500]
    assert events[-1].content.parts[0].text == "Refunded."
    # the model's next request holds the tool's real result, after the placeholder
    assert tool_responses(model.requests["desk"][-1], "refund")[-1] == {"refunded": 500}
    model.assert_consumed()


async def test_an_approval_delivered_twice_still_runs_the_call_once():
    # a client retry sends the same answer again: ADK 1.x would run the call a second time
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "Refunded.", "Already done."]})
    runner, sid = await plain(desk(model, ledger), tool_approval(["refund"]))
    (request,) = confirmation_requests(await turn(runner, sid, message("refund 500")))
    await turn(runner, sid, answer(request.id, True))
    await turn(runner, sid, answer(request.id, True))
    assert ledger.runs == [500]
    # the model is shown the one real result (2.x ends the repeated turn before the model)
    assert {"refunded": 500} in tool_responses(model.requests["desk"][-1], "refund")


async def test_after_a_retried_answer_the_conversation_goes_on_and_the_store_keeps_both():
    # where ADK fails on a retried answer (2.6), the retried turn ends before the agent runs;
    # on every release the next turn's request is well formed and both answers are stored
    ledger = Ledger()
    model = ScriptedModel(
        {"desk": [call("refund", amount=500), "Refunded.", "Already done.", "Anything else?"]}
    )
    runner, sid = await plain(desk(model, ledger), tool_approval(["refund"]))
    (request,) = confirmation_requests(await turn(runner, sid, message("refund 500")))
    await turn(runner, sid, answer(request.id, True))
    await turn(runner, sid, answer(request.id, True))
    events = await turn(runner, sid, message("thanks"))
    assert ledger.runs == [500]
    assert last_text(events) in {"Already done.", "Anything else?"}
    last_request = model.requests["desk"][-1]
    assert all(content.parts for content in last_request.contents)  # no empty turn sent
    assert "thanks" in [p.text for c in last_request.contents for p in c.parts or [] if p.text]
    stored = await runner.session_service.get_session(
        app_name=runner.app_name, user_id="u", session_id=sid
    )
    answers = [
        response.id
        for event in stored.events
        if event.author == "user"
        for response in event.get_function_responses()
    ]
    assert answers == [request.id, request.id]  # the retry is kept, not dropped


async def test_a_rejected_call_never_runs_and_the_model_is_told():
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "I could not refund that."]})
    runner, sid = await plain(desk(model, ledger), tool_approval(["refund"]))
    (request,) = confirmation_requests(await turn(runner, sid, message("refund 500")))
    events = await turn(runner, sid, answer(request.id, False))
    assert ledger.runs == []
    told = tool_responses(model.requests["desk"][-1], "refund")[-1]
    assert "rejected" in told["error"] and "did not run" in told["error"]
    assert events[-1].content.parts[0].text == "I could not refund that."


async def test_policy_lets_small_calls_through_and_asks_for_large_ones():
    big = tool_approval(["refund"], policy=lambda tool, args: args["amount"] > 100)
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=20), "Refunded 20."]})
    runner, sid = await plain(desk(model, ledger), big)
    events = await turn(runner, sid, message("refund 20"))
    assert ledger.runs == [20] and not confirmation_requests(events)
    assert events[-1].content.parts[0].text == "Refunded 20."

    model = ScriptedModel({"desk": [call("refund", amount=500), "Refunded."]})
    runner, sid = await plain(desk(model, ledger), big)
    events = await turn(runner, sid, message("refund 500"))
    assert ledger.runs == [20] and len(confirmation_requests(events)) == 1


async def test_the_answer_decides_even_when_the_policy_would_no_longer_ask():
    # an async policy whose limit is raised between the question and the answer: the person
    # said no, so the call must not run
    limit = {"amount": 100}

    async def over_limit(tool: str, args: dict) -> bool:
        return args["amount"] > limit["amount"]

    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "Not refunded."]})
    runner, sid = await plain(desk(model, ledger), tool_approval(["refund"], policy=over_limit))
    (request,) = confirmation_requests(await turn(runner, sid, message("refund 500")))
    limit["amount"] = 1000
    await turn(runner, sid, answer(request.id, False))
    assert ledger.runs == []


async def test_tools_not_listed_run_without_asking():
    ledger = Ledger()

    def lookup(order: str) -> dict:
        """Look an order up."""
        return {"order": order, "total": 500}

    model = ScriptedModel(
        {"desk": [call("lookup", order="A1"), call("refund", amount=500), "Refunded."]}
    )
    runner, sid = await plain(desk(model, ledger).tool(lookup), tool_approval(["refund"]))
    events = await turn(runner, sid, message("refund order A1"))
    assert tool_responses(model.requests["desk"][1], "lookup") == [{"order": "A1", "total": 500}]
    (request,) = confirmation_requests(events)  # only the refund asks
    assert request.args["originalFunctionCall"]["name"] == "refund"
    assert ledger.runs == []


@pytest.mark.parametrize("resumable", [False, True])
async def test_an_approval_resumes_after_a_restart_on_sqlite(resumable, sqlite_url):
    # ADK's resumability is not needed for it (nor in the way) on either end
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "Refunded."]})
    expr = desk(model, ledger)

    # process 1: asks, and the store holds the request
    app = expr.to_app(ExecutionConfig(middleware=(tool_approval(["refund"]),), resumable=resumable))
    service = fresh_db_service(sqlite_url)
    session = await service.create_session(app_name=app.name, user_id="u")
    await turn(Runner(app=app, session_service=service), session.id, message("refund 500"))
    assert ledger.runs == []
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id=session.id
    )
    (request,) = confirmation_requests(stored.events)
    assert request.args["originalFunctionCall"]["args"] == {"amount": 500}

    # process 2: a new App (a new middleware instance) and a new session service on the file
    app = expr.to_app(ExecutionConfig(middleware=(tool_approval(["refund"]),), resumable=resumable))
    runner = Runner(app=app, session_service=fresh_db_service(sqlite_url))
    events = await turn(runner, session.id, answer(request.id, True))
    assert ledger.runs == [500]  # exactly once
    assert last_text(events) == "Refunded."
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id=session.id
    )
    results = [
        r.response for e in stored.events for r in e.get_function_responses() if r.name == "refund"
    ]
    assert results[-1] == {"refunded": 500}
    assert last_text(stored.events) == "Refunded."
    model.assert_consumed()


async def test_approval_through_run_and_ask(sqlite_url):
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "Refunded."]})
    expr = desk(model, ledger).middleware(tool_approval(["refund"]))
    events = await expr.run("refund 500", session_id="s1", session_store=sqlite_url)
    assert ledger.runs == []
    (request,) = confirmation_requests([e.raw for e in events])
    reply = await expr.ask(answer(request.id, True), session_id="s1", session_store=sqlite_url)
    assert reply == "Refunded." and ledger.runs == [500]


async def test_rejection_through_run_with_the_adk_client_wrapper(sqlite_url):
    # adk web sends {"response": "<json>"}; ADK unwraps it on both ends
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "Not refunded."]})
    config = ExecutionConfig(middleware=(tool_approval(),))  # every tool
    expr = desk(model, ledger)
    events = await expr.run("refund 500", session_id="s2", session_store=sqlite_url, config=config)
    (request,) = confirmation_requests([e.raw for e in events])
    wrapped = types.FunctionResponse(
        id=request.id, name=CONFIRMATION, response={"response": '{"confirmed": false}'}
    )
    content = types.Content(role="user", parts=[types.Part(function_response=wrapped)])
    events = await expr.run(content, session_id="s2", session_store=sqlite_url, config=config)
    assert ledger.runs == [] and events[-1].content == "Not refunded."


async def test_approval_and_the_pii_filter_in_one_stack(sqlite_url):
    # the filter (priority -90) runs first; the confirmation answer is ADK's own protocol and
    # passes it untouched, and the approved tool's result is redacted like any other
    from adk_fluent.middleware.pii import pii_filter

    runs: list[str] = []

    def notify(customer: str) -> dict:
        """Notify a customer."""
        runs.append(customer)
        return {"sent_to": "carol@example.com"}

    model = ScriptedModel({"desk": [call("notify", customer="C7"), "Sent."]})
    expr = Agent("desk").model(model.for_agent("desk")).tool(notify)
    config = ExecutionConfig(middleware=(tool_approval(["notify"]), pii_filter()))
    events = await expr.run("notify C7", session_id="p1", session_store=sqlite_url, config=config)
    (request,) = confirmation_requests([e.raw for e in events])
    assert runs == []
    reply = await expr.ask(
        answer(request.id, True), session_id="p1", session_store=sqlite_url, config=config
    )
    assert reply == "Sent." and runs == ["C7"]
    assert tool_responses(model.requests["desk"][-1], "notify")[-1] == {"sent_to": "[email]"}


@pytest.mark.parametrize("resumable", [False, True])
async def test_approval_inside_a_pipeline(resumable, sqlite_url):
    # whether the agents after the asking one run, and when, is ADK's (see approval.py); on
    # every release the call waits for the answer and then runs once
    ledger = Ledger()
    model = ScriptedModel({"desk": [call("refund", amount=500), "Refunded."], "after": ["Bye."]})
    expr = (desk(model, ledger) >> Agent("after").model(model.for_agent("after"))).named("pipe")
    config = ExecutionConfig(middleware=(tool_approval(["refund"]),), resumable=resumable)
    events = await expr.run("refund 500", session_id="q", session_store=sqlite_url, config=config)
    (request,) = confirmation_requests([e.raw for e in events])
    assert ledger.runs == []
    events = await expr.run(
        answer(request.id, True), session_id="q", session_store=sqlite_url, config=config
    )
    assert ledger.runs == [500]
    assert "Refunded." in [e.content for e in events]
