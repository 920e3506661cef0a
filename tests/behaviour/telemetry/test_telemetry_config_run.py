"""ExecutionConfig(telemetry=TelemetryConfig(...)) through the real Runner, on both ADK ends (and
the Workflow target): what the config's in-memory span exporter and metric reader hold after a
run. Durations per pipeline and node path, errors by code, contract violations, cost on or off,
this app's spans only, no message content unless asked, sampling by trace id."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel, ValidationError

from adk_fluent import Agent, ExecutionConfig, S, StateSchema, TelemetryConfig
from adk_fluent.errors import StateTypeError
from adk_fluent.telemetry.runtime import sampled
from adk_fluent.testing import call, mock_backend
from tests.support.otel import metric_points, span_exporter

SECRETS = ("USERSECRET", "PROMPTSECRET", "ARGSECRET", "TOOLSECRET", "REPLYSECRET")


def lookup(order_id: str) -> dict:
    """Look an order up."""
    return {"status": "TOOLSECRET"}


def tree():
    return Agent("triage").instruct("Triage. PROMPTSECRET").outputs("topic") >> Agent(
        "answer"
    ).instruct("Answer about {topic}.").tool(lookup)


def backend():
    return mock_backend(
        {
            "triage": ["orders"],
            "answer": [call("lookup", order_id="ARGSECRET"), "REPLYSECRET"],
        }
    )


def telemetry(**settings):
    """A config with an in-memory span exporter and metric reader of its own."""
    span_exporter()  # the process has an SDK tracer provider (tests/support/otel.py)
    exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
    config = ExecutionConfig(
        telemetry=TelemetryConfig(exporters=(exporter,), metric_readers=(reader,), **settings)
    )
    return config, exporter, reader


def durations(reader):
    return {
        p.attributes["adk_fluent.node.path"]: p
        for p in metric_points(reader, "adk_fluent.pipeline.duration")
    }


async def test_duration_per_pipeline_and_node_path():
    config, _, reader = telemetry()
    root = tree().to_ir().name
    await tree().run("Where is A7? USERSECRET", backend=backend(), config=config)
    points = durations(reader)
    assert set(points) == {root, f"{root}/triage", f"{root}/answer"}
    for point in points.values():
        assert point.attributes["adk_fluent.pipeline"] == root
        assert point.count == 1 and point.sum >= 0
    # the run contains its agents
    assert points[root].sum >= points[f"{root}/answer"].sum
    await tree().run("Again.", backend=backend(), config=config)
    assert durations(reader)[root].count == 2


async def test_errors_by_code_and_contract_violations():
    config, _, reader = telemetry()
    guarded = Agent("a").instruct("Go.") >> S.guard(lambda s: False, "no")
    events = await guarded.run("hi", backend=mock_backend({"a": ["ok"]}), config=config)
    assert events[-1].error_code == "STATE_GUARD_FAILED"
    missing = Agent("b").instruct("Go.") >> S.transform("absent", str)
    events = await missing.run("hi", backend=mock_backend({"b": ["ok"]}), config=config)
    assert events[-1].error_code == "STATE_KEY_MISSING"

    errors = {
        p.attributes["error.code"]: p for p in metric_points(reader, "adk_fluent.pipeline.errors")
    }
    assert errors["STATE_GUARD_FAILED"].value == 1
    assert errors["STATE_GUARD_FAILED"].attributes["adk_fluent.node.path"].endswith("/guard")
    assert errors["STATE_KEY_MISSING"].value == 1
    violations = metric_points(reader, "adk_fluent.contracts.violations")
    # a guard that says no is the user's own rule, not a broken contract
    assert [(p.attributes["error.code"], p.value) for p in violations] == [("STATE_KEY_MISSING", 1)]
    assert violations[0].attributes["adk_fluent.pipeline"] == missing.to_ir().name


class Ticket(StateSchema):
    confidence: float


def rate(level: str, tool_context) -> dict:
    """Record how sure we are."""
    Ticket.bind(tool_context).confidence = level  # declared float: refused
    return {}


async def test_a_typed_state_write_that_does_not_fit_is_a_violation():
    config, _, reader = telemetry()
    agent = Agent("rater").instruct("Rate.").tool(rate)
    with pytest.raises(StateTypeError):
        await agent.run(
            "hi", backend=mock_backend({"rater": [call("rate", level="high")]}), config=config
        )
    (violation,) = metric_points(reader, "adk_fluent.contracts.violations")
    assert violation.attributes["error.code"] == "STATE_TYPE_MISMATCH"
    assert violation.attributes["adk_fluent.node.path"].endswith("rater")
    (error,) = metric_points(reader, "adk_fluent.pipeline.errors")
    assert error.attributes["error.code"] == "STATE_TYPE_MISMATCH"


class Verdict(BaseModel):
    ok: bool


async def test_a_reply_that_does_not_fit_its_output_schema_is_a_violation():
    config, _, reader = telemetry()
    judge = Agent("judge").instruct("Judge.").output_schema(Verdict).outputs("verdict")
    await judge.run("x", backend=mock_backend({"judge": ['{"ok": true}']}), config=config)
    assert metric_points(reader, "adk_fluent.contracts.violations") == []
    with pytest.raises(ValidationError):  # ADK's own check, raised as ADK raises it
        await judge.run("x", backend=mock_backend({"judge": ["not JSON"]}), config=config)
    (violation,) = metric_points(reader, "adk_fluent.contracts.violations")
    assert violation.attributes["error.code"] == "OUTPUT_SCHEMA_MISMATCH"
    assert violation.attributes["adk_fluent.node.path"] == "judge"
    # counted once, also where ADK yields an error event for it (2.x)
    (error,) = metric_points(reader, "adk_fluent.pipeline.errors")
    assert (error.attributes["error.code"], error.value) == ("OUTPUT_SCHEMA_MISMATCH", 1)


async def test_cost_metrics_on_by_default_and_off_when_asked():
    config, _, reader = telemetry()
    await tree().run("Where is A7?", backend=backend(), config=config)
    cost = {p.attributes["gen_ai.agent.name"] for p in metric_points(reader, "adk_fluent.llm.cost")}
    assert cost == {"triage", "answer"}

    config, _, reader = telemetry(cost_metrics=False)
    await tree().run("Where is A7?", backend=backend(), config=config)
    assert metric_points(reader, "adk_fluent.llm.cost") == []
    assert durations(reader)  # the other metrics still are


async def test_the_exporter_gets_this_apps_spans_enriched_and_without_content():
    config, exporter, _ = telemetry()
    others = span_exporter()  # every span of the process
    await tree().run("Where is A7? USERSECRET", backend=backend(), config=config)
    await Agent("other").instruct("Hi.").run("hi", backend=mock_backend({"other": ["x"]}))
    spans = exporter.get_finished_spans()
    names = {span.name for span in spans}
    assert {"invoke_agent triage", "invoke_agent answer", "execute_tool lookup"} <= names
    assert "invoke_agent other" not in names
    assert "invoke_agent other" in {span.name for span in others.get_finished_spans()}
    # one run: one trace, its root span included
    assert len({span.context.trace_id for span in spans}) == 1
    assert any(span.parent is None for span in spans)
    # otel_enrichment comes with exported spans
    triage = next(s for s in spans if s.name == "invoke_agent triage")
    assert triage.attributes["adk_fluent.node.path"].endswith("/triage")
    for span in spans:
        text = repr(dict(span.attributes or {})) + repr(
            [dict(e.attributes or {}) for e in span.events]
        )
        assert not any(secret in text for secret in SECRETS), (span.name, text)


async def test_where_adk_takes_it_per_run_adk_records_no_content_at_all():
    from adk_fluent.adk.compat import run_content_capture

    config, exporter, _ = telemetry()
    everything = span_exporter()  # every span of the process, as ADK recorded it
    await tree().run("Where is A7? USERSECRET", backend=backend(), config=config)
    recorded = repr([dict(span.attributes or {}) for span in everything.get_finished_spans()])
    if run_content_capture(False) is not None:  # ADK 2.x: told per run, records none
        assert not any(secret in recorded for secret in SECRETS)
    else:  # ADK 1.x records prompts by default (a process-wide switch); the config's exporter
        assert "REPLYSECRET" in recorded  # is kept from them all the same
    exported = repr([dict(span.attributes or {}) for span in exporter.get_finished_spans()])
    assert not any(secret in exported for secret in SECRETS)


async def test_content_when_asked():
    config, exporter, _ = telemetry(capture_content=True)
    await tree().run("Where is A7? USERSECRET", backend=backend(), config=config)
    text = repr([dict(span.attributes or {}) for span in exporter.get_finished_spans()])
    assert "ARGSECRET" in text and "TOOLSECRET" in text and "REPLYSECRET" in text


async def test_sampling_keeps_or_leaves_whole_runs():
    config, exporter, reader = telemetry(sampling=0.0)
    await tree().run("Where is A7?", backend=backend(), config=config)
    assert exporter.get_finished_spans() == ()
    assert durations(reader)  # metrics count every run

    assert sampled(2**64 - 1, 1.0) and not sampled(0, 0.0)
    assert sampled(10, 0.5) and not sampled(2**63 + 10, 0.5)
    assert sampled(2**65 + 10, 0.5)  # the low 64 bits decide, as OpenTelemetry's rule


async def test_equal_configs_share_one_compiled_app_and_meter_provider():
    config, _, reader = telemetry()
    again = ExecutionConfig(telemetry=config.telemetry)
    agent = Agent("chat").instruct("Chat.")
    backend = mock_backend({"chat": ["a", "b"]})
    await agent.run("one", backend=backend, config=config, session_id="s")
    await agent.run("two", backend=backend, config=again, session_id="s")
    session = await agent.session("s", backend=backend, config=again)
    assert len([e for e in session.events if e.author == "chat"]) == 2
    assert durations(reader)[agent.to_ir().name].count == 2


async def test_an_agent_tools_run_is_part_of_the_run_not_a_second_one():
    config, exporter, reader = telemetry()
    checker = Agent("checker").instruct("Check the answer.")
    tree = Agent("answer").instruct("Answer.").agent_tool(checker) >> Agent("closer").instruct(
        "Close."
    )
    root = tree.to_ir().name
    await tree.run(
        "Where is A7?",
        backend=mock_backend(
            {
                "answer": [call("checker", request="A7?"), "It shipped."],
                "checker": ["Fine."],
                "closer": ["Bye."],
            }
        ),
        config=config,
    )
    points = durations(reader)
    assert points[root].count == 1  # one run
    assert f"{root}/closer" in points  # the run goes on being measured after the tool
    names = {span.name for span in exporter.get_finished_spans()}
    # the spans after the agent tool's run still reach the exporter, up to the run's root
    assert {"invoke_agent checker", "invoke_agent closer"} <= names
    assert any(span.parent is None for span in exporter.get_finished_spans())


async def test_an_evaluation_with_the_config_records_what_the_app_would():
    from adk_fluent.evaluation import FluentCase, FluentEvalSuite, contains

    config, _, reader = telemetry()
    case = FluentCase("Where is A7?", response=contains("REPLYSECRET"), id="a7")
    report = await FluentEvalSuite("support", tree(), [case]).run(backend=backend(), config=config)
    assert report.passed, report.to_text()
    assert tree().to_ir().name in durations(reader)
    assert "TelemetryConfig" in report.config
