"""The App's name: an `app = pipeline.to_app()` in an agent folder is named after the folder,
as `adk web` / `adk api_server` look its sessions up (tests/integration/server serves one over HTTP);
explicit names are kept; elsewhere, and for adk-fluent's own runs, the default name."""

from __future__ import annotations

import importlib
import sys

import pytest

from adk_fluent import Agent
from adk_fluent.testing import mock_backend


@pytest.fixture
def agent_folder(tmp_path):
    """Import `<folder>/agent.py` (and `<folder>/__init__.py`) the way ADK's agent loader does."""
    imported: list[str] = []

    def load(folder: str, agent_py: str, init_py: str = "from . import agent\n"):
        package = tmp_path / folder
        package.mkdir()
        (package / "__init__.py").write_text(init_py)
        (package / "agent.py").write_text(agent_py)
        imported.extend([folder, f"{folder}.agent"])
        return importlib.import_module(folder)

    sys.path.insert(0, str(tmp_path))
    yield load
    sys.path.remove(str(tmp_path))
    for name in imported:
        sys.modules.pop(name, None)


APP_IN_AGENT_PY = """
from adk_fluent import Agent, ExecutionConfig
from adk_fluent.testing import mock_backend

app = Agent("helper").to_app(backend=mock_backend({"helper": "hi"}))
named = Agent("helper").to_app(ExecutionConfig(app_name="support_app"))
"""


def test_elsewhere_the_default_name():
    assert Agent("helper").to_app().name == "adk_fluent_app"
    assert Agent("helper").to_runner().app_name == "adk_fluent_app"


async def test_adk_fluent_runs_keep_the_default_name():
    pipeline = Agent("helper")
    backend = mock_backend({"helper": "hi"})
    await pipeline.run("x", backend=backend, session_id="s")
    session = await pipeline.session("s", backend=backend)
    assert session.app_name == "adk_fluent_app"
