"""The 'Default Behavior Changes' table, streaming, errors and confirmations always passing,
the silent-agent warning, mermaid styling, and a property test over random topologies."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_fluent import AdkFluentWarning, Agent, ExecutionConfig, Route, S, map_over
from adk_fluent.adk.event_visibility import has_hidden_content
from adk_fluent.testing import ScriptedModel, call
from tests.support.visibility import WAYS, run_turn

TABLE = [
    # (name, pipeline factory, scripts, text authors annotated, text authors filtered)
    ("single agent", lambda: Agent("a"), {"a": "A"}, ["a"], ["a"]),
    (
        "a >> b",
        lambda: Agent("a").outputs("ka") >> Agent("b"),
        {"a": "A", "b": "B"},
        ["a", "b"],
        ["b"],
    ),
    (
        "a >> Route >> b/c",
        lambda: Agent("a").outputs("k") >> Route("k").eq("x", Agent("b")).otherwise(Agent("c")),
        {"a": "x", "b": "B"},
        ["a", "b"],
        ["b"],
    ),
    (
        "map_over(a) >> b",
        lambda: S.set(items=[1, 2]) >> map_over("items", Agent("a")) >> Agent("b"),
        {"a": ["A1", "A2"], "b": "B"},
        ["a", "a", "b"],
        ["b"],
    ),
    (
        "loop(a >> b) >> c",
        lambda: (Agent("a").outputs("ka") >> Agent("b").outputs("kb")) * 2 >> Agent("c"),
        {"a": ["A1", "A2"], "b": ["B1", "B2"], "c": "C"},
        ["a", "b", "a", "b", "c"],
        ["c"],
    ),
    (
        "transparent",
        lambda: (Agent("a") >> Agent("b")).transparent(),
        {"a": "A", "b": "B"},
        ["a", "b"],
        ["a", "b"],
    ),
]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(
    ("name", "factory", "scripts", "annotated", "filtered"), TABLE, ids=[t[0] for t in TABLE]
)
async def test_default_behavior_changes_table(way, name, factory, scripts, annotated, filtered):
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", AdkFluentWarning
        )  # map_over/loop rows have silent agents on purpose
        got_annotated = await run_turn(factory().annotated(), scripts, way=way, store="memory")
        got_filtered = await run_turn(
            factory().filtered(), scripts, way=way, store="memory", session_id="f"
        )
    assert got_annotated.client_text_authors() == annotated
    assert got_filtered.client_text_authors() == filtered
    # nothing lost: the store holds the same texts either way
    assert got_filtered.stored_texts() == got_annotated.stored_texts()


@pytest.mark.parametrize("way", WAYS)
async def test_config_can_choose_the_mode(way):
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent.testing import mock_backend

    pipeline = Agent("a").outputs("k") >> Agent("b")  # annotated by itself; the config filters
    config = ExecutionConfig(visibility="filtered")
    backend = mock_backend({"a": "internal label", "b": "answer"})
    if way == "fluent":
        client = [e.raw for e in await pipeline.run("go", config=config, backend=backend)]
    else:
        service = InMemorySessionService()
        runner = Runner(app=pipeline.to_app(config, backend=backend), session_service=service)
        await service.create_session(app_name="adk_fluent_app", user_id="u", session_id="s")
        client = [
            e
            async for e in runner.run_async(
                user_id="u",
                session_id="s",
                new_message=types.Content(role="user", parts=[types.Part(text="go")]),
            )
        ]
    texts = [p.text for e in client if e.content for p in e.content.parts if p.text]
    assert texts == ["answer"]


@pytest.mark.parametrize("way", WAYS)
async def test_streamed_partial_chunks_of_internal_agents_never_reach_the_client(way):
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    model = ScriptedModel(
        {"drafter": ["secret internal draft text"], "writer": ["public final answer"]}
    )
    pipeline = (
        Agent("drafter", model.for_agent("drafter")).outputs("draft")
        >> Agent("writer", model.for_agent("writer"))
    ).filtered()
    if way == "fluent":
        events = [
            e.raw async for e in pipeline.stream("go", config=ExecutionConfig(streaming_mode="sse"))
        ]
    else:
        service = InMemorySessionService()
        runner = Runner(app=pipeline.to_app(), session_service=service)
        await service.create_session(app_name="adk_fluent_app", user_id="u", session_id="s")
        events = [
            e
            async for e in runner.run_async(
                user_id="u",
                session_id="s",
                new_message=types.Content(role="user", parts=[types.Part(text="go")]),
                run_config=RunConfig(streaming_mode=StreamingMode.SSE),
            )
        ]
    texts = " ".join(p.text for e in events if e.content for p in e.content.parts if p.text)
    assert "secret" not in texts and "internal" not in texts
    assert "public" in texts
    assert any(e.partial for e in events if e.author == "writer")  # streaming really happened


@pytest.mark.parametrize("way", WAYS)
async def test_errors_confirmations_and_tool_traffic_always_pass(way):
    def refund(amount: int) -> dict:
        """Refund money."""
        return {"ok": amount}

    # a failing Route ends the run (error model), so the error and the tool traffic run apart
    failing = (
        Agent("checker").outputs("k") >> Route("missing").eq("x", Agent("never").outputs("n"))
    ).filtered()
    outcome = await run_turn(failing, {"checker": "fine"}, way=way, store="memory")
    assert any(e.error_code == "ROUTE_KEY_MISSING" for e in outcome.client)
    assert ("checker", "fine") not in outcome.client_texts()

    confirming = (
        Agent("checker").outputs("k")
        >> Agent("agent").tool(refund, require_confirmation=True).outputs("done")
        >> Agent("closer")
    ).filtered()
    scripts = {"checker": "fine", "agent": [call("refund", amount=5)], "closer": "bye"}
    outcome = await run_turn(confirming, scripts, way=way, store="memory", session_id="c")
    assert any(e.actions.requested_tool_confirmations for e in outcome.client)
    assert any(e.get_function_calls() for e in outcome.client if e.author == "agent")
    assert ("checker", "fine") not in outcome.client_texts()


# -- property: no state delta and no error event is ever dropped ---------------------------------
NAMES = iter(range(10**9))


@st.composite
def topologies(draw, depth=0):
    kind = draw(
        st.sampled_from(
            ["agent", "agent", "step"]
            if depth > 1
            else ["agent", "seq", "par", "loop", "route", "fallback", "step"]
        )
    )
    if kind == "agent":
        name = f"a{next(NAMES)}"
        agent = Agent(name)
        if draw(st.booleans()):
            agent = agent.outputs(f"k_{name}")
        if draw(st.booleans()):
            agent = agent.show() if draw(st.booleans()) else agent.hide()
        return agent
    if kind == "step":
        return S.set(**{f"s{next(NAMES)}": draw(st.integers(0, 9))})
    if kind == "route":
        return Route(f"missing{next(NAMES)}").eq(
            "x", draw(topologies(depth=depth + 1))
        )  # emits an error event
    parts = [draw(topologies(depth=depth + 1)) for _ in range(draw(st.integers(1, 3)))]
    if kind == "seq":
        result = parts[0]
        for part in parts[1:]:
            result = result >> part
        return result
    if kind == "par":
        result = parts[0]
        for part in parts[1:]:
            result = result | part
        return result if len(parts) > 1 else result >> Agent(f"a{next(NAMES)}")
    if kind == "fallback":
        return parts[0] // Agent(f"a{next(NAMES)}")
    return parts[0] * 2


class _AnyAgentBackend:
    def __init__(self):
        self.model = ScriptedModel(["reply"] * 500)

    def model_for(self, name):
        return self.model.for_agent(name)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topologies(), st.sampled_from(WAYS))
def test_no_state_delta_or_error_event_is_ever_dropped(tree, way):
    pipeline = tree.filtered()

    async def go():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AdkFluentWarning)
            return await run_turn(pipeline, {}, way=way, store="memory", backend=_AnyAgentBackend())

    outcome = asyncio.run(go())
    stored_deltas = [
        e.actions.state_delta for e in outcome.raw_stored if e.actions and e.actions.state_delta
    ]
    client_deltas = [
        e.actions.state_delta for e in outcome.client if e.actions and e.actions.state_delta
    ]
    assert client_deltas == stored_deltas
    stored_errors = [e.error_code for e in outcome.raw_stored if e.error_code]
    client_errors = [e.error_code for e in outcome.client if e.error_code]
    assert client_errors == stored_errors
    # and nothing the agents said is missing from the store
    assert len(outcome.stored_texts()) == sum(
        1 for e in outcome.raw_stored if e.author != "user" and (e.content or has_hidden_content(e))
    )


# Compiling a filtered App asks ADK (once per process) whether plugin edits are stored: that
# probe runs a Runner, so this test is a behaviour test.
def test_internal_agent_without_outputs_warns_in_filtered_mode():
    with pytest.warns(AdkFluentWarning, match="agent 'fetcher' is internal.*no .outputs\\(\\) key"):
        (Agent("fetcher") >> Agent("summarizer")).filtered().to_app()
    with warnings.catch_warnings():
        warnings.simplefilter("error", AdkFluentWarning)
        (Agent("fetcher").outputs("page") >> Agent("summarizer")).filtered().to_app()
        (
            Agent("fetcher") >> Agent("summarizer")
        ).to_app()  # annotated: its text still reaches the client
