"""pii_filter through the real Runner: personal data in the user's message, a tool's result or a
model's reply never reaches a model request or a client event, and ("nowhere") never reaches
the SQLite store either (the whole stored session and every table row searched); with
keep_original="store" / "artifact" the original is where the policy says and nowhere a client
receives. Plain Runner (to_app) and adk-fluent's run/ask, on both ADK ends; each test runs the
same tree without the filter to show what it prevents."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent
from google.adk.artifacts import InMemoryArtifactService
from google.adk.events import Event
from google.adk.runners import Runner
from google.genai import types

from adk_fluent import Agent, C, ExecutionConfig, Native
from adk_fluent.adk.compat import plugin_edits_are_stored
from adk_fluent.errors import BuildError
from adk_fluent.middleware.pii import original_message, pii_filter
from adk_fluent.testing import ScriptedModel, call
from tests.conftest import fresh_db_service, system_instruction

EMAIL = "alice.jones@example.com"
CARD = "4111 1111 1111 1111"
TOOL_EMAIL = "bob@corp.example"
SAID = f"I am {EMAIL}, charge card {CARD} please"
SECRETS = (EMAIL, CARD, TOOL_EMAIL, "4111111111111111")


def echo(request) -> str:
    """A model that repeats what it was shown (so a client sees whatever the model saw)."""
    texts = [p.text for c in request.contents or [] for p in c.parts or [] if p.text]
    return "You said: " + texts[-1]


def request_dump(request) -> str:
    return request.model_dump_json() + system_instruction(request)


def leaked(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def raw_database(url: str) -> str:
    """Every row of every table of the SQLite file, as text."""
    path = url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        tables = [row[0] for row in db.execute("select name from sqlite_master where type='table'")]
        return "\n".join(
            str(row) for table in tables for row in db.execute(f"select * from {table}")
        )


def customer_tool():
    def lookup_customer(order: str) -> dict:
        """Look the customer of an order up."""
        return {"order": order, "contact": TOOL_EMAIL}

    return lookup_customer


class Outcome:
    def __init__(self, model, client, stored, database, app_name, session_id, artifacts=None):
        self.model = model
        self.client = client  # what run_async yielded, as JSON
        self.stored = stored  # the reloaded session
        self.database = database
        self.app_name = app_name
        self.session_id = session_id
        self.artifacts = artifacts

    @property
    def requests(self) -> str:
        return "\n".join(request_dump(r) for r in self.model.requests["desk"])

    @property
    def client_text(self) -> str:
        return "\n".join(self.client)

    @property
    def stored_text(self) -> str:
        return self.stored.model_dump_json()


async def run_plain(sqlite_url, *middleware, script=None, instruction="Help the customer."):
    """One turn of `desk` through a plain Runner over SQLite (and an artifact service)."""
    model = ScriptedModel({"desk": script or [call("lookup_customer", order="A1"), echo]})
    expr = Agent("desk").instruct(instruction).model(model.for_agent("desk")).tool(customer_tool())
    app = expr.to_app(ExecutionConfig(middleware=middleware))
    service, artifacts = fresh_db_service(sqlite_url), InMemoryArtifactService()
    session = await service.create_session(app_name=app.name, user_id="u")
    runner = Runner(app=app, session_service=service, artifact_service=artifacts)
    message = types.Content(role="user", parts=[types.Part(text=SAID)])
    client = [
        event.model_dump_json()
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id=session.id
    )
    return Outcome(model, client, stored, raw_database(sqlite_url), app.name, session.id, artifacts)


@pytest.fixture
def second_url(db_dir):
    return f"sqlite:///{db_dir / 'unfiltered.db'}"


async def test_the_users_pii_reaches_no_model_no_client_and_no_store(sqlite_url, second_url):
    filtered = await run_plain(sqlite_url, pii_filter())
    assert leaked(filtered.requests) == []
    assert "[email]" in filtered.requests and "[credit_card]" in filtered.requests
    assert leaked(filtered.client_text) == []
    assert leaked(filtered.stored_text) == []
    assert leaked(filtered.database) == []
    assert filtered.stored.events[0].content.parts[0].text == (
        "I am [email], charge card [credit_card] please"
    )
    assert filtered.client and "You said: I am [email]" in filtered.client_text

    # the same tree without the filter: everywhere
    unfiltered = await run_plain(second_url)
    assert EMAIL in unfiltered.requests and CARD in unfiltered.requests
    assert EMAIL in unfiltered.client_text and TOOL_EMAIL in unfiltered.client_text
    assert EMAIL in unfiltered.stored_text and EMAIL in unfiltered.database


async def test_a_tools_pii_is_redacted_before_the_next_model_call(sqlite_url, second_url):
    filtered = await run_plain(sqlite_url, pii_filter())
    second = filtered.model.requests["desk"][1]
    (result,) = [
        p.function_response.response
        for c in second.contents
        for p in c.parts
        if p.function_response is not None
    ]
    assert result == {"order": "A1", "contact": "[email]"}
    assert TOOL_EMAIL not in filtered.client_text and TOOL_EMAIL not in filtered.database

    unfiltered = await run_plain(second_url)
    assert TOOL_EMAIL in request_dump(unfiltered.model.requests["desk"][1])


async def test_a_models_reply_is_redacted_before_the_store_and_the_client(sqlite_url, second_url):
    script = [f"Your card {CARD} is on file; we wrote to {EMAIL}."]
    filtered = await run_plain(sqlite_url, pii_filter(), script=script)
    (reply,) = [e for e in filtered.stored.events if e.author == "desk"]
    assert reply.content.parts[0].text == "Your card [credit_card] is on file; we wrote to [email]."
    assert leaked(filtered.client_text) == [] and leaked(filtered.database) == []
    # the mark counts by kind and holds no value
    marks = reply.custom_metadata["adk_fluent.pii"]
    assert marks["reply"] == {"credit_card": 1, "email": 1}
    assert marks["user_message"] == {"credit_card": 1, "email": 1}
    assert leaked(str(reply.custom_metadata)) == []

    unfiltered = await run_plain(second_url, script=script)
    assert CARD in unfiltered.client_text and CARD in unfiltered.database


async def test_the_system_instruction_is_redacted(sqlite_url, second_url):
    instruction = f"Escalations go to {TOOL_EMAIL}."
    filtered = await run_plain(sqlite_url, pii_filter(), script=["ok"], instruction=instruction)
    shown = system_instruction(filtered.model.requests["desk"][0])
    assert "Escalations go to [email]." in shown and TOOL_EMAIL not in shown

    unfiltered = await run_plain(second_url, script=["ok"], instruction=instruction)
    assert TOOL_EMAIL in system_instruction(unfiltered.model.requests["desk"][0])


async def test_store_policy_keeps_the_original_in_the_store_only(sqlite_url):
    kept = await run_plain(sqlite_url, pii_filter(keep_original="store"))
    # retrievable where the policy keeps it: the stored user message, after reload
    assert kept.stored.events[0].author == "user"
    assert kept.stored.events[0].content.parts[0].text == SAID
    # and nowhere else: no model request, no client event, no other stored event
    assert leaked(kept.requests) == []
    assert leaked(kept.client_text) == []
    assert (
        leaked(kept.stored.model_copy(update={"events": kept.stored.events[1:]}).model_dump_json())
        == []
    )
    # every model call of the session reports what it had redacted from its request
    first = next(e for e in kept.stored.events if e.author == "desk")
    assert first.custom_metadata["adk_fluent.pii"]["request"] == {"credit_card": 1, "email": 1}


async def test_artifact_policy_keeps_the_original_in_a_session_artifact(sqlite_url):
    kept = await run_plain(sqlite_url, pii_filter(keep_original="artifact"))
    assert leaked(kept.requests) == []
    assert leaked(kept.client_text) == []
    assert leaked(kept.stored_text) == [] and leaked(kept.database) == []
    user_event = kept.stored.events[0]
    original = await original_message(
        user_event, artifact_service=kept.artifacts, session=kept.stored
    )
    assert original.parts[0].text == SAID
    names = await kept.artifacts.list_artifact_keys(
        app_name=kept.app_name, user_id="u", session_id=kept.session_id
    )
    assert len(names) == 1 and names[0].startswith("adk_fluent.pii.")


async def test_nowhere_keeps_no_artifact_either(sqlite_url):
    outcome = await run_plain(sqlite_url, pii_filter())
    names = await outcome.artifacts.list_artifact_keys(
        app_name=outcome.app_name, user_id="u", session_id=outcome.session_id
    )
    assert names == []
    assert (
        await original_message(
            outcome.stored.events[0], artifact_service=outcome.artifacts, session=outcome.stored
        )
        is None
    )


async def test_a_custom_detector_through_a_run(sqlite_url):
    def names(text):
        return [(m.start(), m.end(), "name") for m in re.finditer(r"\bAlice\b", text)]

    model = ScriptedModel({"desk": [echo]})
    expr = (
        Agent("desk")
        .model(model.for_agent("desk"))
        .middleware(pii_filter(patterns=(), detector=names))
    )
    reply = await expr.ask("Alice here", session_id="d1", session_store=sqlite_url)
    assert reply == "You said: [name] here"
    assert "Alice" not in request_dump(model.requests["desk"][0])


async def test_through_run_and_ask(sqlite_url):
    model = ScriptedModel({"desk": [call("lookup_customer", order="A1"), echo, echo]})
    expr = Agent("desk").model(model.for_agent("desk")).tool(customer_tool()).outputs("answer")
    config = ExecutionConfig(middleware=(pii_filter(),))
    events = await expr.run(SAID, session_id="r1", session_store=sqlite_url, config=config)
    client = "\n".join(repr(e) + e.raw.model_dump_json() for e in events)
    assert leaked(client) == [] and events[-1].content.startswith("You said: I am [email]")
    reply = await expr.ask(
        f"and {TOOL_EMAIL}?", session_id="r1", session_store=sqlite_url, config=config
    )
    assert reply == "You said: and [email]?"
    session = await expr.session("r1", session_store=sqlite_url, config=config)
    assert session.state["answer"] == "You said: and [email]?"  # output_key: redacted too
    assert leaked(session.model_dump_json()) == []
    assert leaked(raw_database(sqlite_url)) == []
    assert all(leaked(request_dump(r)) == [] for r in model.requests["desk"])

    # without the filter, run() hands the client the email
    model = ScriptedModel({"desk": [echo]})
    events = await Agent("desk").model(model.for_agent("desk")).run(SAID)
    assert EMAIL in events[-1].content


class Announcer(BaseAgent):
    """A custom agent that writes personal data of its own (no model, no tool involved)."""

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            branch=ctx.branch,
            content=types.Content(
                role="model", parts=[types.Part(text=f"Escalated to {TOOL_EMAIL}")]
            ),
        )


async def test_a_custom_agents_text_is_redacted_for_the_client(sqlite_url):
    app = Native(Announcer(name="announcer")).to_app(ExecutionConfig(middleware=(pii_filter(),)))
    service = fresh_db_service(sqlite_url)
    session = await service.create_session(app_name=app.name, user_id="u")
    runner = Runner(app=app, session_service=service)
    message = types.Content(role="user", parts=[types.Part(text="escalate")])
    client = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]
    (said,) = [e for e in client if e.author == "announcer"]
    assert said.content.parts[0].text == "Escalated to [email]"
    assert said.custom_metadata["adk_fluent.pii"] == {"event": {"email": 1}}
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=app.name, user_id="u", session_id=session.id
    )
    # An event no model or tool made is redacted in on_event_callback: where ADK stores what
    # that callback returns (1.31+, 2.x) the store is redacted too; before, it keeps the text.
    assert (TOOL_EMAIL in stored.model_dump_json()) is not plugin_edits_are_stored()


@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_store_policy_holds_for_agents_with_a_context_spec(store, sqlite_url):
    # an agent's context view (C.*) rebuilds its request from the session's events after every
    # plugin has run: it must get them redacted while the store keeps the original
    model = ScriptedModel({"desk": [echo, echo]})
    expr = Agent("desk").model(model.for_agent("desk")).context(C.last_n_turns(2))
    config = ExecutionConfig(middleware=(pii_filter(keep_original="store"),))
    where = {"session_store": sqlite_url} if store == "sqlite" else {}
    first = await expr.ask(SAID, session_id="c1", config=config, **where)
    second = await expr.ask("anything else?", session_id="c1", config=config, **where)
    assert first.startswith("You said: I am [email]") and second == "You said: anything else?"
    assert all(leaked(request_dump(r)) == [] for r in model.requests["desk"])
    assert "[email]" in request_dump(model.requests["desk"][1])  # the earlier turn, redacted
    session = await expr.session("c1", config=config, **where)
    assert session.events[0].content.parts[0].text == SAID  # the store keeps the original
    assert leaked(session.model_copy(update={"events": session.events[1:]}).model_dump_json()) == []


async def test_streamed_chunks_carry_no_text_and_the_final_event_is_redacted():
    # SSE splits the card over four chunks ("4111 ", "1111 ", ...): no single chunk can be
    # recognised, so a filtered agent streams no partial text; the final event has it all
    script = [f"card {CARD} noted"]

    async def streamed(*middleware):
        model = ScriptedModel({"desk": script})
        config = ExecutionConfig(middleware=middleware, streaming_mode="sse")
        expr = Agent("desk").model(model.for_agent("desk"))
        return [e async for e in expr.stream("hi", config=config)]

    events = await streamed(pii_filter())
    partials = [e for e in events if e.is_partial]
    assert partials and all(e.content is None for e in partials)
    assert events[-1].content == "card [credit_card] noted"

    events = await streamed()
    assert "4111 " in [e.content for e in events if e.is_partial]


async def test_a_filter_attached_below_the_root_is_refused_before_anything_runs(sqlite_url):
    model = ScriptedModel({"a": ["ok"], "b": ["ok"]})
    pipeline = (
        Agent("a").model(model.for_agent("a")).middleware(pii_filter())
        >> Agent("b").model(model.for_agent("b"))
    ).named("p")
    with pytest.raises(BuildError, match="must see the whole run") as refused:
        await pipeline.run(SAID, session_id="below", session_store=sqlite_url)
    assert refused.value.agent == "a" and "ExecutionConfig" in refused.value.hint
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="below"
    )
    assert stored is None or stored.events == []  # refused before anything was stored
