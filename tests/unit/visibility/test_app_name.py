"""The App's name: an `app = pipeline.to_app()` in an agent folder is named after the folder, as
`adk web` / `adk api_server` look its sessions up; a folder name ADK cannot use keeps the
default, and an invalid explicit name is refused with a hint."""

from __future__ import annotations

import importlib
import sys

import pytest

from adk_fluent import Agent, BuildError, ExecutionConfig


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


def test_an_app_in_an_agent_folder_is_named_after_the_folder(agent_folder):
    module = agent_folder("travel_desk", APP_IN_AGENT_PY)
    assert module.agent.app.name == "travel_desk"
    assert module.agent.named.name == "support_app"  # an explicit name is kept


def test_an_app_in_the_folder_init_is_named_after_the_folder(agent_folder):
    module = agent_folder("front_desk", "", init_py=APP_IN_AGENT_PY)
    assert module.app.name == "front_desk"


def test_a_folder_name_adk_cannot_use_keeps_the_default(agent_folder):
    module = agent_folder("user", APP_IN_AGENT_PY)  # 'user' is reserved by ADK
    assert module.agent.app.name == "adk_fluent_app"


@pytest.mark.parametrize("bad", ["user", "my-app", ""])
def test_an_invalid_explicit_name_is_refused_with_a_hint(bad):
    with pytest.raises(BuildError, match="(?s)app_name.*hint: ADK requires App names"):
        Agent("helper").to_app(ExecutionConfig(app_name=bad))
