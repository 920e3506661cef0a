"""ADK's built-in Gemini tools run offline under mock_backend, through the real Runner: the
scripted model's default name is one ADK accepts, and a chosen name is the one ADK sees."""

from __future__ import annotations

import pytest
from google.adk.code_executors import BuiltInCodeExecutor
from google.adk.tools import google_search, url_context

from adk_fluent import Agent
from adk_fluent.testing import DEFAULT_MODEL, call, mock_backend


def _built_in_tools(request) -> set[str]:
    """The Gemini built-in tools an LlmRequest asks for (google_search, url_context, ...)."""
    kinds = set()
    for tool in request.config.tools or []:
        for kind in ("google_search", "url_context", "code_execution"):
            if getattr(tool, kind, None) is not None:
                kinds.add(kind)
    return kinds


async def test_an_agent_with_google_search_runs_offline_under_mock_backend():
    researcher = Agent("researcher").instruct("Answer with sources.").tool(google_search)
    backend = mock_backend({"researcher": "Paris is the capital of France."})
    answer = await researcher.ask("Capital of France?", backend=backend)
    assert answer == "Paris is the capital of France."
    request = backend.requests["researcher"][0]
    assert request.model == DEFAULT_MODEL
    assert _built_in_tools(request) == {"google_search"}
    backend.assert_consumed()


async def test_url_context_and_built_in_code_execution_are_accepted_too():
    analyst = (
        Agent("analyst")
        .instruct("Read the page and compute.")
        .tool(url_context)
        .code_executor(BuiltInCodeExecutor())
    )
    backend = mock_backend({"analyst": "42"})
    assert await analyst.ask("How many?", backend=backend) == "42"
    assert _built_in_tools(backend.requests["analyst"][0]) == {"url_context", "code_execution"}


async def test_a_search_agent_used_as_a_tool_runs_offline_too():
    searcher = Agent("searcher").instruct("Search the web.").tool(google_search)
    planner = Agent("planner").instruct("Plan a trip.").tool(searcher)
    backend = mock_backend(
        {
            "planner": [call("searcher", request="weather in Lisbon"), "Pack light."],
            "searcher": "Sunny, 25 degrees.",
        }
    )
    assert await planner.ask("Lisbon next week?", backend=backend) == "Pack light."
    assert _built_in_tools(backend.requests["searcher"][0]) == {"google_search"}
    backend.assert_consumed()


async def test_a_chosen_name_is_what_adk_sees_in_every_request():
    agent = Agent("echo").instruct("Echo.")
    backend = mock_backend({"echo": "hi"}, model="gemini-3-pro-scripted")
    await agent.run("hi", backend=backend)
    assert backend.requests["echo"][0].model == "gemini-3-pro-scripted"


async def test_a_non_gemini_name_makes_google_search_refuse_with_adks_own_error():
    researcher = Agent("researcher").instruct("Answer.").tool(google_search)
    backend = mock_backend({"researcher": "never sent"}, model="scripted-model")
    with pytest.raises(
        ValueError, match="Google search tool is not supported for model scripted-model"
    ):
        await researcher.run("Capital of France?", backend=backend)
    assert "researcher" not in backend.requests  # refused before any model call


async def test_the_mock_adk_fixture_takes_the_model_name_too(mock_adk):
    backend = mock_adk({"echo": "hi"}, model="gemini-2.0-flash-scripted")
    await Agent("echo").instruct("Echo.").run("hi", backend=backend)
    assert backend.requests["echo"][0].model == "gemini-2.0-flash-scripted"
