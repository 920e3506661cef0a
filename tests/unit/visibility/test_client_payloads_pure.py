"""The ADK forks filtered mode depends on, without a Runner: the workflow-deprecation probe agrees
with ADK, and restore_content reads both forms of hidden text (the client payloads themselves
are in tests/behaviour/visibility/test_client_payloads.py)."""

from __future__ import annotations

import warnings

import pytest

from adk_fluent import restore_content
from adk_fluent.adk.compat import (
    workflow_agents_warn,
)
from adk_fluent.adk.event_visibility import HIDDEN_CONTENT, HIDDEN_REF
from adk_fluent.errors import AdkFluentError

SECRET = "SECRET-PLAN-7"
# the thinker has no .outputs(): its text is meant to live in history only
pytestmark = pytest.mark.filterwarnings("ignore::adk_fluent.errors.AdkFluentWarning")


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    return "memory" if request.param == "memory" else f"sqlite:///{tmp_path / 'v.db'}"


def test_the_workflow_probe_agrees_with_adk():
    from google.adk.agents import LoopAgent

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LoopAgent(name="observed")
    warned = any("Workflow" in str(w.message) for w in caught)
    assert warned is workflow_agents_warn()


async def test_restore_content_reads_both_forms():
    from google.adk.events.event import Event
    from google.genai import types

    legacy = Event(
        author="thinker",
        custom_metadata={HIDDEN_CONTENT: {"role": "model", "parts": [{"text": "kept"}]}},
    )
    assert (await restore_content(legacy)).content.parts[0].text == "kept"
    whole = Event(author="a", content=types.Content(role="model", parts=[types.Part(text="x")]))
    assert await restore_content(whole) is whole
    referenced = Event(
        author="thinker", custom_metadata={HIDDEN_REF: {"artifact": "adk_fluent.hidden.x.json"}}
    )
    with pytest.raises(AdkFluentError, match="(?s)thinker.*artifact_service"):
        await restore_content(referenced)
