"""The App's name outside an agent folder, and in adk-fluent's own runs: the default name
(tests/integration/server serves an app from a folder over HTTP)."""

from __future__ import annotations

from adk_fluent import Agent
from adk_fluent.testing import mock_backend


def test_elsewhere_the_default_name():
    assert Agent("helper").to_app().name == "adk_fluent_app"
    assert Agent("helper").to_runner().app_name == "adk_fluent_app"


async def test_adk_fluent_runs_keep_the_default_name():
    pipeline = Agent("helper")
    backend = mock_backend({"helper": "hi"})
    await pipeline.run("x", backend=backend, session_id="s")
    session = await pipeline.session("s", backend=backend)
    assert session.app_name == "adk_fluent_app"
