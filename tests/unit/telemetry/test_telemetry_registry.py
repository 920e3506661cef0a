"""The process keeps one Telemetry per TelemetryConfig value (its span processor stays on the
tracer provider): equal configs share it, and making many different ones warns."""

from __future__ import annotations

import warnings

import pytest

from adk_fluent import ExecutionConfig, TelemetryConfig
from adk_fluent.errors import AdkFluentWarning
from adk_fluent.telemetry import runtime


@pytest.fixture
def empty_registry(monkeypatch):
    monkeypatch.setattr(runtime, "_telemetries", {})
    monkeypatch.setattr(runtime, "_TELEMETRIES_WARNED", 2)


def test_equal_configs_share_one_telemetry_and_one_expanded_config(empty_registry):
    first = ExecutionConfig(telemetry=TelemetryConfig(cost_metrics=False, sampling=0.5))
    second = ExecutionConfig(telemetry=TelemetryConfig(cost_metrics=False, sampling=0.5))
    assert runtime.with_telemetry(first) is runtime.with_telemetry(second)
    assert len(runtime._telemetries) == 1


def test_a_config_made_anew_per_run_warns_once(empty_registry):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for share in (0.1, 0.2, 0.3, 0.4):
            runtime.telemetry_for(TelemetryConfig(sampling=share))
    warned = [w for w in caught if issubclass(w.category, AdkFluentWarning)]
    assert len(warned) == 1
    assert "once per app" in str(warned[0].message)
