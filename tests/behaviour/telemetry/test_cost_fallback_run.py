"""cost_attribution prices a reply as the model that produced it (issue 43, item 4), through the
real Runner on both ADK ends: when the agent's model fails and fallback_model's backup answers
with a reply that names no model version (scripted models, and other providers through LiteLlm,
may not), the usage record in the event the client receives and in the store after a reload,
`usage()`, the cost metric and the model call's span all name the backup at the backup's price,
never the model that failed. A reply that names its own priced version is priced as that
version, and a reply of the agent's own model is priced as before."""

from __future__ import annotations

import pytest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware.fallback import fallback_model
from adk_fluent.telemetry import cost_attribution, otel_enrichment, usage
from adk_fluent.telemetry.cost import USAGE_KEY
from adk_fluent.testing import ScriptedModel, with_usage
from tests.conftest import fresh_db_service
from tests.support.otel import (
    metric_points,
    metric_reader,
    model_call_spans,
    ours,
    span_exporter,
    with_attribute,
)

PRIMARY = "gemini-2.5-pro-scripted"  # priced as gemini-2.5-pro: USD 1.25 in, 10.00 out
BACKUP = "gemini-2.5-flash-lite-scripted"  # priced as gemini-2.5-flash-lite: 0.10 in, 0.40 out
APP = "adk_fluent_app"


def pro(input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * 1.25 + output_tokens * 10.00) / 1e6


def flash_lite(input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * 0.10 + output_tokens * 0.40) / 1e6


def flash(input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * 0.30 + output_tokens * 2.50) / 1e6


def writer(primary_script: list) -> tuple[Agent, ScriptedModel]:
    primary = ScriptedModel({"writer": primary_script}, model=PRIMARY)
    return Agent("writer").instruct("Summarise.").model(primary.for_agent("writer")), primary


def backup(script: list) -> ScriptedModel:
    return ScriptedModel({"writer": script}, model=BACKUP)


def config(second: ScriptedModel, *more) -> ExecutionConfig:
    return ExecutionConfig(
        middleware=(fallback_model(second.for_agent("writer")), cost_attribution(), *more)
    )


def record_of(events) -> dict:
    (answered,) = [e for e in events if e.author == "writer"]
    return answered.metadata[USAGE_KEY]


async def test_a_fallback_reply_without_a_model_version_is_priced_as_the_backup(sqlite_url):
    agent, _ = writer([ConnectionError("primary down")])
    second = backup([with_usage("From the backup.", input=1000, output=100)])
    events = await agent.run(
        "Summarise the report.",
        config=config(second),
        session_id="s1",
        session_store=sqlite_url,
    )
    (answered,) = [e for e in events if e.author == "writer"]
    assert answered.content == "From the backup."
    assert answered.metadata["adk_fluent.fallback"] == {"model": BACKUP}
    record = record_of(events)
    assert record["model"] == BACKUP
    assert record["cost_usd"] == pytest.approx(flash_lite(1000, 100), abs=1e-15)
    assert record["cost_usd"] != pytest.approx(pro(1000, 100), abs=1e-15)  # 16x off before

    report = usage(events)
    assert report.by_agent()["writer"].models == [BACKUP]
    assert report.cost_usd == pytest.approx(flash_lite(1000, 100), abs=1e-15)
    # the store keeps the same record: a reloaded session bills the backup too
    session = await fresh_db_service(sqlite_url).get_session(
        app_name=APP, user_id="user", session_id="s1"
    )
    stored = usage(session)
    assert [c.record.model for c in stored.calls] == [BACKUP]
    assert stored.cost_usd == pytest.approx(flash_lite(1000, 100), abs=1e-15)


async def test_the_cost_metric_and_the_span_name_the_backup_at_its_price():
    provider, reader = metric_reader()
    exporter = span_exporter()
    agent, _ = writer([ConnectionError("primary down")])
    second = backup([with_usage("From the backup.", input=1000, output=100)])
    await agent.run(
        "Summarise the report.",
        config=ExecutionConfig(
            middleware=(
                otel_enrichment(),
                fallback_model(second.for_agent("writer")),
                cost_attribution(meter_provider=provider),
            )
        ),
    )
    points = metric_points(reader, "adk_fluent.llm.cost")
    assert [(p.attributes["gen_ai.request.model"], p.value) for p in points] == [
        (BACKUP, pytest.approx(flash_lite(1000, 100), abs=1e-15))
    ]
    spans = model_call_spans(exporter.get_finished_spans())
    priced = with_attribute(spans, "adk_fluent.cost.model")
    # whichever span of the call carries the cost names the backup at its price, never the
    # primary's: ADK's call_llm span, where the release keeps one open around the call (1.x)
    assert [(ours(s)["adk_fluent.cost.model"], ours(s)["adk_fluent.cost.usd"]) for s in priced] == [
        (BACKUP, pytest.approx(flash_lite(1000, 100), abs=1e-15))
    ] * len(priced)
    if any(s.name == "call_llm" for s in spans):
        assert priced, "the open call_llm span of the failed call carries the backup's cost"
    # where the failed call's only span has ended with its error (2.13: no call_llm span), no
    # span of the call is open when the backup's reply arrives, and none carries a cost
    failed = [s for s in spans if s.name.startswith("generate_content")]
    assert failed and all(PRIMARY in s.name for s in failed)
    assert all("adk_fluent.cost.usd" not in ours(s) for s in failed)


async def test_a_fallback_reply_naming_its_priced_version_is_priced_as_that_version():
    agent, _ = writer([ConnectionError("primary down")])
    named = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="Named.")]),
        model_version="gemini-2.5-flash",
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=1000, candidates_token_count=100, total_token_count=1100
        ),
    )
    events = await agent.run("Summarise the report.", config=config(backup([named])))
    record = record_of(events)
    assert record["model"] == "gemini-2.5-flash"
    assert record["cost_usd"] == pytest.approx(flash(1000, 100), abs=1e-15)


async def test_a_reply_of_the_agents_own_model_is_priced_as_before():
    agent, _ = writer([with_usage("From the primary.", input=1000, output=100)])
    second = backup(["never asked"])
    events = await agent.run("Summarise the report.", config=config(second))
    record = record_of(events)
    assert (record["model"], record["cost_usd"]) == (
        PRIMARY,
        pytest.approx(pro(1000, 100), abs=1e-15),
    )
    (answered,) = [e for e in events if e.author == "writer"]
    assert "adk_fluent.fallback" not in answered.metadata
    assert second.requests.get("writer", []) == []
