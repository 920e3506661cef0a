"""Misuse of agent and model callbacks that shows only when a turn runs: a callback returning
what ADK cannot use in place of what it may return. ADK itself fails deep inside (an
after_model callback's str is "AttributeError: 'str' object has no attribute 'content'", a
before_agent callback's str a pydantic trace); adk-fluent names the agent, the callback, what
it returned and what it may return. Through the real Runner, on every ADK release.

Tool callbacks are not among them: ADK takes any value from a before_tool / after_tool /
on_tool_error callback as the tool's result (`{"result": value}`), as from a tool itself
(test_tool_callbacks_may_return_any_value_as_the_tools_result, below)."""

from __future__ import annotations

import pytest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent import Agent, Pipeline
from adk_fluent.errors import BuildError
from adk_fluent.testing import call, mock_backend
from tests.support.misuse import case, check, ids


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city}


def _run(agent: Agent, script: list | None = None):
    backend = mock_backend({"helper": script or ["Done."]})
    return lambda: agent.run("hi", backend=backend)


def shout(callback_context, llm_response):
    return "CHANGED"  # the text it meant to put in the reply


async def late(callback_context, llm_request):
    return "cached answer"


def helper() -> Agent:
    return Agent("helper").instruct("Help.").tool(lookup)


CASES = [
    case(
        "callback-after-model-returns-str",
        _run(helper().after_model(shout)),
        "agent 'helper'",
        "after_model_callback",
        "the after_model callback 'shout' returned str 'CHANGED'",
        "None (keep the model's response) or an LlmResponse (replace it)",
        "LlmResponse(content=types.Content(",
    ),
    case(
        "callback-before-model-returns-str",
        _run(helper().before_model(lambda ctx, request: "skip")),
        "before_model_callback",
        "(a lambda) returned str 'skip'",
        "or an LlmResponse",
    ),
    case(
        "callback-before-model-async-returns-str",
        _run(helper().before_model(late)),
        "the before_model callback 'late' returned str 'cached answer'",
    ),
    case(
        "callback-before-model-returns-the-request",
        _run(helper().before_model(lambda ctx, request: request)),
        "returned an LlmRequest",
        "change llm_request in place and return None",
    ),
    case(
        "callback-on-model-error-returns-str",
        _run(helper().on_model_error(lambda ctx, request, error: "fallback"), [TimeoutError()]),
        "on_model_error_callback",
        "returned str 'fallback'",
        "None (raise the error) or an LlmResponse",
    ),
    case(
        "callback-before-agent-returns-str",
        _run(helper().before_agent(lambda ctx: "not today")),
        "before_agent_callback",
        "returned str 'not today'",
        "or a Content",
        "types.Content(role='model'",
    ),
    case(
        "callback-after-agent-returns-dict",
        _run(helper().after_agent(lambda ctx: {"text": "bye"})),
        "after_agent_callback",
        "returned a dict",
        "or a Content",
    ),
    case(
        "callback-of-a-pipeline-returns-str",
        lambda: (
            Pipeline(helper(), Agent("closer"), name="flow").after_agent(lambda ctx: "the end")
        ).run("hi", backend=mock_backend({"helper": "Done.", "closer": "Bye."})),
        "agent 'flow'",
        "after_agent_callback",
        "returned str 'the end'",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)


async def test_what_a_callback_may_return_still_works():
    """The check lets through what ADK uses: None and the class each callback may return."""

    def reply(text: str) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text=text)])

    replaced = helper().after_model(lambda ctx, response: LlmResponse(content=reply("Hi!")))
    assert await replaced.ask("hi", backend=mock_backend({"helper": "Hello."})) == "Hi!"

    async def answered(callback_context, llm_request):  # async: awaited, then checked
        return LlmResponse(content=reply("From the cache."))

    backend = mock_backend({})
    cached = helper().before_model(answered)
    assert await cached.ask("hi", backend=backend) == "From the cache."
    assert backend.requests == {}  # the model was never called

    skipped = helper().before_agent(lambda ctx: reply("Closed today."))
    assert await skipped.ask("hi", backend=mock_backend({})) == "Closed today."

    untouched = helper().after_model(lambda ctx, response: None).before_agent(lambda ctx: None)
    assert await untouched.ask("hi", backend=mock_backend({"helper": "Hello."})) == "Hello."


async def test_tool_callbacks_may_return_any_value_as_the_tools_result():
    """Not a misuse: ADK wraps a tool callback's non-dict value as the tool's result."""
    agent = helper().before_tool(lambda tool, args, tool_context: "closed")
    backend = mock_backend({"helper": [call("lookup", city="Paris"), "It is closed."]})
    assert await agent.ask("hi", backend=backend) == "It is closed."
    answer = backend.requests["helper"][1].contents[-1].parts[0].function_response.response
    assert answer == {"result": "closed"}


async def test_the_error_says_which_agent_of_a_pipeline(sqlite_url):
    """The error propagates out of the run as itself (docs/errors.md); the turn's earlier
    events are stored as ADK stored them."""
    flow = Agent("first").instruct("Start.") >> helper().after_model(shout)
    backend = mock_backend({"first": "Started.", "helper": "Done."})
    with pytest.raises(BuildError) as raised:
        await flow.ask("go", backend=backend, session_id="c1", session_store=sqlite_url)
    assert raised.value.agent == "helper" and raised.value.field == "after_model_callback"
    session = await flow.session("c1", backend=backend, session_store=sqlite_url)
    assert [e.author for e in session.events][:2] == ["user", "first"]
