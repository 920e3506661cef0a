"""Function steps through the real Runner: `delay(seconds, function)` and a function answering
`delay(...)` (they failed with "Object of type function is not JSON serializable" though
docs/testing-pipelines.md allows them), what a function may answer, and `user_message(request)`:
the user's own message, where "the last user-role text" of a request can be another agent's
reply (ADK shows other agents' replies to a model as user-role contents)."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C
from adk_fluent.errors import BuildError, ScriptError
from adk_fluent.testing import (
    AgentHarness,
    ScriptedModel,
    call,
    delay,
    mock_backend,
    repeat,
    user_message,
    with_usage,
)


def last_user_role_text(request) -> str:
    """What a test would read without user_message(): the last user-role content's text."""
    content = next(c for c in reversed(request.contents) if c.role == "user")
    return "".join(part.text or "" for part in content.parts)


async def test_delay_then_a_function_answers_from_the_request():
    step = delay(0.01, lambda request: "late reply to " + user_message(request))
    backend = mock_backend({"helper": step})
    assert await Agent("helper").ask("hello", backend=backend) == "late reply to hello"
    assert step.cancelled == []


async def test_a_function_may_answer_any_step():
    async def slow_then_call(request):  # async, answering delay(...) answering a tool call
        return delay(0.01, call("lookup", city=user_message(request)))

    def lookup(city: str) -> dict:
        """Look a city up."""
        return {"city": city, "found": True}

    backend = mock_backend(
        {
            "helper": [
                slow_then_call,
                lambda request: with_usage("Found it.", input=120, output=3),
            ]
        }
    )
    events = await Agent("helper").tool(lookup).run("Paris", backend=backend)
    assert events[-1].content == "Found it."
    assert events[-1].raw.usage_metadata.prompt_token_count == 120
    answer = backend.requests["helper"][1].contents[-1].parts[0].function_response.response
    assert answer == {"city": "Paris", "found": True}
    backend.assert_consumed()


@pytest.mark.parametrize(
    "view",
    [None, C.from_agents("classifier"), C.user_only()],
    ids=["adk-default", "c-from-agents", "c-user-only"],
)
async def test_user_message_is_the_users_not_the_last_user_role_text(view):
    """After the classifier, the booker's request ends with the classifier's reply as
    user-role context (ADK's default history and C.from_agents); user_message() is the
    user's message of the same turn, on every turn, whatever the view."""
    booker = Agent("booker").instruct("Book it.")
    if view is not None:
        booker = booker.context(view)
    heard: list[tuple[str, str]] = []

    def book(request):
        heard.append((last_user_role_text(request), user_message(request)))
        return f"Booked: {user_message(request)}"

    flow = Agent("classifier").instruct("Label it.").outputs("intent") >> booker
    backend = mock_backend({"classifier": repeat("booking"), "booker": repeat(book)})
    chat = AgentHarness(flow, backend=backend)
    assert (await chat.send("Paris in May")).final_text == "Booked: Paris in May"
    assert (await chat.send("Rome in June")).final_text == "Booked: Rome in June"
    assert [users for _, users in heard] == ["Paris in May", "Rome in June"]
    if view is None or view.history == "from_agents":  # the trap user_message() avoids
        assert all("booking" in last and "Paris" not in last for last, _ in heard)
    # after the run, for assertions too
    assert [user_message(r) for r in backend.requests["booker"]] == ["Paris in May", "Rome in June"]


async def test_user_message_inside_an_agent_tool_is_the_callers_request():
    researcher = Agent("researcher").instruct("Research the topic.")
    lead = Agent("lead").instruct("Use the researcher.").tool(researcher)
    backend = mock_backend(
        {
            "lead": [call("researcher", request="tides"), "Done."],
            "researcher": lambda request: "notes on " + user_message(request),
        }
    )
    assert await lead.ask("Tell me about the sea.", backend=backend) == "Done."
    assert user_message(backend.requests["lead"][0]) == "Tell me about the sea."
    result = backend.requests["lead"][1].contents[-1].parts[0].function_response.response
    assert result == {"result": "notes on tides"}


async def test_user_message_with_a_scripted_model_given_to_the_agent():
    model = ScriptedModel([lambda request: "echo: " + user_message(request)])
    assert await Agent("parrot", model).ask("hi there") == "echo: hi there"


def test_user_message_of_a_request_no_scripted_agent_was_sent():
    from google.adk.models.llm_request import LlmRequest

    with pytest.raises(ScriptError, match="not sent to a scripted agent"):
        user_message(LlmRequest())


async def test_a_function_answering_no_step_names_the_agent():
    backend = mock_backend({"helper": lambda request: {"a", "set"}})
    with pytest.raises(BuildError) as raised:
        await Agent("helper").ask("hi", backend=backend)
    assert raised.value.agent == "helper" and raised.value.field == "script"
    assert "a function step answered a set, which is no step" in str(raised.value)
