"""usage(): the report summed from usage records in events (AgentEvents, ADK Events, a Session),
its per-agent and per-invocation totals, its table and its JSON."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest
from google.adk.events.event import Event
from google.genai import types

from adk_fluent.ir.prices import Prices
from adk_fluent.run.events import AgentEvent
from adk_fluent.telemetry import usage
from adk_fluent.telemetry.cost import USAGE_KEY, UsageRecord, record_for


def _record(agent, input_tokens, output_tokens, cost, model="gemini-2.5-flash", latency=5.0):
    return UsageRecord(
        agent, f"root/{agent}", model, input_tokens, output_tokens, 0, 0, cost, latency
    )


def _event(record, invocation="i1", usage_reported=True):
    event = Event(
        author=record.agent if record else "a",
        invocation_id=invocation,
        content=types.Content(role="model", parts=[types.Part(text="x")]),
        custom_metadata={USAGE_KEY: record.to_dict()} if record else None,
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=1)
        if usage_reported
        else None,
    )
    return event


def test_totals_per_agent_and_per_invocation():
    events = [
        _event(_record("a", 100, 10, 0.001), "i1"),
        _event(_record("b", 200, 20, 0.002), "i1"),
        _event(_record("a", 300, 30, 0.003), "i2"),
    ]
    report = usage(events)
    assert report.cost_usd == pytest.approx(0.006)
    assert (report.input_tokens, report.output_tokens) == (600, 60)
    agents = report.by_agent()
    assert list(agents) == ["root/a", "root/b"]
    assert (agents["root/a"].calls, agents["root/a"].input_tokens) == (2, 400)
    assert agents["root/a"].latency_ms == pytest.approx(10.0)
    invocations = report.by_invocation()
    assert list(invocations) == ["i1", "i2"]
    assert invocations["i1"].cost_usd == pytest.approx(0.003)
    assert report.last_invocation().input_tokens == 300


def test_agent_events_adk_events_and_sessions_give_the_same_report():
    events = [_event(_record("a", 100, 10, 0.001)), _event(_record("b", 5, 1, None))]
    from_adk = usage(events).to_dict()
    assert usage([AgentEvent.from_adk(e) for e in events]).to_dict() == from_adk
    assert usage(SimpleNamespace(events=events)).to_dict() == from_adk


def test_unpriced_calls_count_tokens_and_are_named():
    report = usage([_event(_record("a", 100, 10, None, model="local-llm"))])
    assert report.unpriced_models == ("local-llm",)
    assert report.cost_usd == 0 and report.input_tokens == 100
    assert "no price for: local-llm" in report.table()
    assert "—" in report.table()  # no cost shown for an agent whose calls are all unpriced


def test_responses_without_a_record_are_counted_as_unattributed():
    events = [_event(None), _event(None, usage_reported=False), _event(_record("a", 1, 1, 0.0))]
    report = usage(events)
    assert report.unattributed_calls == 1
    assert "1 model call(s) not recorded" in report.table()
    assert "add cost_attribution()" in usage([_event(None)]).table()


def test_table_has_a_row_per_agent_and_a_bar_of_its_share():
    report = usage([_event(_record("small", 10, 1, 0.001)), _event(_record("big", 10, 1, 0.004))])
    lines = report.table().splitlines()
    assert lines[0].startswith("agent in root ")  # the shared root is named once
    small = next(line for line in lines if line.startswith("small "))
    big = next(line for line in lines if line.startswith("big "))
    assert big.count("█") == 24 and small.count("█") == 6
    assert lines[-1].startswith("total")


def test_json_round_trips():
    report = usage([_event(_record("a", 100, 10, 0.001))])
    body = json.loads(report.to_json())
    assert body["agents"][0]["path"] == "root/a" and body["calls"] == 1
    assert body == report.to_dict()


def test_an_empty_report():
    report = usage([])
    assert report.calls == () and report.cost_usd == 0
    assert report.table() == "no model calls recorded\n"
    assert report.last_invocation().calls == ()


def test_record_for_reads_google_genai_usage_fields():
    usage_metadata = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=1000,
        candidates_token_count=100,
        cached_content_token_count=600,
        thoughts_token_count=50,
    )
    record = record_for("a", "root/a", "gemini-2.5-flash", usage_metadata, Prices(), 1.5)
    assert (record.input_tokens, record.output_tokens, record.cached_tokens) == (1000, 100, 600)
    assert record.thinking_tokens == 50
    assert record.cost_usd == pytest.approx((400 * 0.30 + 600 * 0.03 + 150 * 2.50) / 1e6)
    assert UsageRecord.from_dict(record.to_dict()) == record


def test_a_records_dict_is_every_field_in_order():
    record = _record("a", 10, 2, 0.5)
    assert record.to_dict() == dataclasses.asdict(record)
    assert list(record.to_dict()) == [field.name for field in dataclasses.fields(UsageRecord)]


def test_paths_below_different_roots_are_shown_whole():
    from adk_fluent.ir.names import below_root

    assert below_root(["root/a", "root/b/c"]) == ("root", ["a", "b/c"])
    assert below_root(["one/a", "two/a"]) == ("", ["one/a", "two/a"])
    assert below_root(["root", "root/a"]) == ("", ["root", "root/a"])
