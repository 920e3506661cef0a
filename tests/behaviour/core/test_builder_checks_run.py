"""What the builders' checks accept still runs, on every ADK release: callbacks of each shape
ADK can call, instruction functions, output keys given by either setter, tools without
confirmation, and an output_schema's reply stored whole under its output key."""

from __future__ import annotations

from pydantic import BaseModel

from adk_fluent import Agent
from adk_fluent.testing import call, mock_backend
from tests.conftest import system_instruction

SEEN: list[str] = []


def by_adk_names(callback_context, llm_request):
    SEEN.append("by_adk_names")


def by_other_names(ctx, request):
    SEEN.append(f"by_other_names:{type(request).__name__}")


def keyword_only(*, callback_context, llm_request):
    SEEN.append("keyword_only")


def star_args(*args):
    SEEN.append(f"star_args:{len(args)}")


class Audit:
    """A callback object, passed as an instance."""

    def __call__(self, callback_context, llm_request):
        SEEN.append("instance")


def lookup(city: str) -> str:
    """Look up a city."""
    return f"{city} is sunny"


class Ticket(BaseModel):
    category: str


async def test_every_callback_shape_the_check_accepts_is_called():
    SEEN.clear()
    agent = (
        Agent("a")
        .before_model(by_adk_names)
        .before_model(by_other_names)
        .before_model(keyword_only)
        .before_model(star_args)
        .before_model(Audit())
    )
    assert await agent.ask("hi", backend=mock_backend({"a": "done"})) == "done"
    assert SEEN == [
        "by_adk_names",
        "by_other_names:LlmRequest",
        "keyword_only",
        "star_args:2",
        "instance",
    ]


async def test_an_instruction_function_receives_the_readonly_context():
    def instruction(ctx, style="briefly"):
        return f"Answer {style} for {ctx.agent_name}."

    backend = mock_backend({"a": "ok"})
    await Agent("a").instruct(instruction).ask("hi", backend=backend)
    assert "Answer briefly for a." in system_instruction(backend.requests["a"][0])


async def test_output_keys_from_either_setter_are_stored():
    pipeline = Agent("a").outputs("user:intent") >> Agent("b").output_key("reply")
    backend = mock_backend({"a": "booking", "b": "done"})
    await pipeline.run("hi", backend=backend, session_id="s1")
    state = (await pipeline.session("s1", backend=backend)).state
    assert (state["user:intent"], state["reply"]) == ("booking", "done")


async def test_a_tool_without_confirmation_runs_at_once():
    agent = Agent("a").tool(lookup, require_confirmation=False)
    backend = mock_backend({"a": [call("lookup", city="Oslo"), "Sunny."]})
    events = await agent.run("Oslo?", backend=backend)
    assert [r.result for e in events for r in e.tool_responses] == [{"result": "Oslo is sunny"}]
    assert events[-1].content == "Sunny."


async def test_an_output_schema_reply_is_stored_whole_under_the_output_key():
    agent = Agent("a").output_schema(Ticket).outputs("res")
    backend = mock_backend({"a": '{"category": "booking"}'})
    await agent.run("hi", backend=backend, session_id="s1")
    state = (await agent.session("s1", backend=backend)).state
    assert state["res"] == {"category": "booking"}
    assert "category" not in state  # the IR's writes_keys say the same: only "res"
    assert agent.to_ir().writes_keys == frozenset({"res"})
