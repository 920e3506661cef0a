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


async def test_a_root_made_of_adk_fluents_own_agents_raises_no_app_name_warning(
    caplog, monkeypatch
):
    """ADK's Runner guesses an app name from the folder of the root agent's class when that
    path, taken from the working directory, has a folder named `agents`: adk-fluent's own
    agents must not live in one, or every run rooted in a race, a map_over, a Route ... logs an
    "App name mismatch" warning and puts a wrong hint into ADK's "session not found" errors."""
    import logging
    from pathlib import Path

    import adk_fluent
    from adk_fluent import S, race

    package_root = Path(adk_fluent.__file__).resolve().parents[1]
    monkeypatch.chdir(package_root.parent)  # the project (or the venv) holding the package
    pipeline = race(Agent("a"), Agent("b")) >> S.set(done=True)
    roots = [race(Agent("a"), Agent("b")), pipeline.named("p").timeout(5)]
    with caplog.at_level(logging.WARNING):
        for root in roots:
            runner = root.to_runner(backend=mock_backend({"a": "A", "b": "B"}))
            assert runner.app_name == "adk_fluent_app"
    assert "App name mismatch" not in caplog.text
