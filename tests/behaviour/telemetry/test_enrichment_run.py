"""otel_enrichment through the real Runner, on both ADK ends: adk-fluent's attributes land on
ADK's own agent, model and tool spans, and the trace has exactly the spans it has without the
middleware (same names, same count). Spans are read from opentelemetry-sdk's in-memory exporter
(tests/support/otel.py)."""

from __future__ import annotations

import pytest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent as FluentAgent
from adk_fluent import C, ExecutionConfig, Loop, Route
from adk_fluent.telemetry import otel_enrichment
from adk_fluent.testing import call, mock_backend
from tests.support.otel import (
    agent_span,
    model_call_spans,
    model_spans,
    names,
    ours,
    span_exporter,
    with_attribute,
)


def lookup(order_id: str) -> dict:
    """Look an order up."""
    return {"status": "shipped", "order": order_id}


def support_tree():
    classify = FluentAgent("classify").instruct("Classify the request.").outputs("intent")
    billing = (
        FluentAgent("billing")
        .instruct("Help with billing. Intent: {intent}")
        .tool(lookup)
        .context(C.user_only())
    )
    tech = FluentAgent("tech").instruct("Help with tech.")
    draft = FluentAgent("draft").instruct("Draft a reply.").outputs("draft")
    polish = FluentAgent("polish").instruct("Polish {draft}.").outputs("draft")
    route = Route("intent", name="route").eq("billing", billing).eq("tech", tech)
    return classify >> route >> Loop(draft, polish, max_iterations=2, name="refine")


def scripts():
    return {
        "classify": ["billing"],
        "billing": [call("lookup", order_id="A7"), "Your order A7 shipped."],
        "draft": ["d1", "d2"],
        "polish": ["p1", "p2"],
    }


async def _run(middleware, prompt="Where is my order A7?"):
    exporter = span_exporter()
    config = ExecutionConfig(middleware=tuple(middleware))
    events = await support_tree().run(prompt, backend=mock_backend(scripts()), config=config)
    return events, exporter.get_finished_spans()


async def test_enrichment_adds_no_span_and_renames_none():
    _, plain = await _run([])
    _, enriched = await _run([otel_enrichment()])
    assert names(enriched) == names(plain)
    assert sum(names(plain).values()) > 10
    assert not any(ours(span) for span in plain)  # without it, none of our attributes
    assert any(ours(span) for span in enriched)


async def test_agent_spans_carry_the_tree():
    _, spans = await _run([otel_enrichment()])
    billing = ours(agent_span(spans, "billing"))
    root = support_tree().to_ir().name
    assert billing["adk_fluent.pipeline"] == root
    assert billing["adk_fluent.node.path"] == f"{root}/route/billing"
    assert billing["adk_fluent.node.kind"] == "agent"
    assert billing["adk_fluent.visibility"] == "internal"
    assert billing["adk_fluent.depth"] == 0  # a route's branch runs in the route's place
    assert billing["adk_fluent.state.reads"] == ("intent",)
    assert billing["adk_fluent.context"] == "user_only"
    assert billing["adk_fluent.route.name"] == "route"
    classify = ours(agent_span(spans, "classify"))
    assert classify["adk_fluent.state.writes"] == ("intent",)
    assert ours(agent_span(spans, "refine"))["adk_fluent.node.kind"] == "loop"
    assert ours(agent_span(spans, "route"))["adk_fluent.node.kind"] == "route"


async def test_route_taken_and_loop_iterations():
    _, spans = await _run([otel_enrichment()])
    assert ours(agent_span(spans, "route"))["adk_fluent.route.taken"] == "billing"
    # the last span of the loop's name (the workflow target has one per iteration, its
    # loop's last check: docs/workflow.md) says how many iterations ran
    refine = [s for s in spans if s.name == "invoke_agent refine"][-1]
    assert ours(refine)["adk_fluent.loop.iterations"] == 2
    drafts = sorted(
        ours(s)["adk_fluent.loop.iteration"] for s in spans if s.name == "invoke_agent draft"
    )
    polishes = sorted(
        ours(s)["adk_fluent.loop.iteration"] for s in spans if s.name == "invoke_agent polish"
    )
    assert drafts == [1, 2] and polishes == [1, 2]
    # agent spans (the workflow target adds ADK's own `invoke_workflow draft`, not enriched)
    draft_spans = [s for s in spans if s.name == "invoke_agent draft"]
    assert draft_spans and all(ours(s)["adk_fluent.loop.name"] == "refine" for s in draft_spans)


async def test_model_and_tool_spans_name_their_agent():
    _, spans = await _run([otel_enrichment()])
    root = support_tree().to_ir().name
    calls = model_spans(spans)
    # one generate_content span per model call: classify 1, billing 2, draft 2, polish 2
    assert len(calls) == 7
    paths = sorted(ours(s)["adk_fluent.node.path"] for s in calls)
    assert paths.count(f"{root}/route/billing") == 2
    assert paths.count(f"{root}/refine/draft") == 2
    loop_calls = [s for s in calls if ours(s)["adk_fluent.node.path"].endswith("/polish")]
    assert sorted(ours(s)["adk_fluent.loop.iteration"] for s in loop_calls) == [1, 2]
    tools = [s for s in spans if s.name == "execute_tool lookup"]
    assert len(tools) == 1
    assert ours(tools[0])["adk_fluent.node.path"] == f"{root}/route/billing"


async def test_no_message_content_in_our_attributes():
    secret_in, secret_out = "SECRET-INPUT-6172", "SECRET-REPLY-9921"
    exporter = span_exporter()
    agent = FluentAgent("solo").instruct("Answer.")
    await agent.run(
        secret_in,
        backend=mock_backend({"solo": [secret_out]}),
        config=ExecutionConfig(middleware=(otel_enrichment(),)),
    )
    spans = exporter.get_finished_spans()
    assert any(ours(s) for s in spans)
    for span in spans:
        for value in ours(span).values():
            assert secret_in not in str(value) and secret_out not in str(value)


async def test_plain_runner_and_a_named_pipeline():
    exporter = span_exporter()
    tree = FluentAgent("a").instruct("A.") >> FluentAgent("b").instruct("B.")
    app = tree.to_app(
        ExecutionConfig(middleware=(otel_enrichment(pipeline="checkout"),)),
        backend=mock_backend({"a": ["one"], "b": ["two"]}),
    )
    runner = Runner(app=app, session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name=app.name, user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="go")])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    spans = exporter.get_finished_spans()
    b = ours(agent_span(spans, "b"))
    assert b["adk_fluent.pipeline"] == "checkout"
    assert b["adk_fluent.visibility"] == "user" and b["adk_fluent.depth"] == 0
    assert ours(agent_span(spans, "a"))["adk_fluent.visibility"] == "internal"
    assert {ours(s)["adk_fluent.pipeline"] for s in model_spans(spans)} == {"checkout"}


async def test_scoped_enrichment_marks_only_its_agents():
    exporter = span_exporter()
    tree = FluentAgent("a").instruct("A.") >> FluentAgent("b").instruct("B.")
    await tree.run(
        "go",
        backend=mock_backend({"a": ["one"], "b": ["two"]}),
        config=ExecutionConfig(middleware=(otel_enrichment(scope="b"),)),
    )
    spans = exporter.get_finished_spans()
    assert ours(agent_span(spans, "b"))
    assert not ours(agent_span(spans, "a"))


async def test_the_model_policy_and_its_pick_are_on_the_model_span():
    from adk_fluent import ModelCandidate
    from adk_fluent.telemetry import cost_attribution, usage

    exporter = span_exporter()
    agent = (
        FluentAgent("pick", "gemini-2.5-flash")
        .instruct("Answer.")
        .model_select(
            "quality_optimized",
            [ModelCandidate("gemini-2.5-flash"), ModelCandidate("gemini-2.5-pro", quality_tier=2)],
        )
    )
    events = await agent.run(
        "hi",
        backend=mock_backend({"pick": ["ok"]}),
        config=ExecutionConfig(middleware=(otel_enrichment(), cost_attribution())),
    )
    spans = exporter.get_finished_spans()
    assert [s.name for s in model_spans(spans)] == ["generate_content gemini-2.5-pro"]
    # on the call's innermost span open at after_model (see test_cost_run)
    [span] = with_attribute(model_call_spans(spans), "adk_fluent.model.selected")
    attributes = ours(span)
    assert attributes["adk_fluent.model.selected"] == "gemini-2.5-pro"
    assert attributes["adk_fluent.model.selection_reason"] == "highest quality tier"
    assert attributes["adk_fluent.model.policy"].startswith("quality_optimized")
    # the call is priced as the model that answered it: pro (1.25 / 10.00 USD per 1M tokens)
    assert usage(events).calls[0].record.model == "gemini-2.5-pro"
    assert usage(events).cost_usd == pytest.approx((8 * 1.25 + 4 * 10.00) / 1e6, abs=1e-15)
