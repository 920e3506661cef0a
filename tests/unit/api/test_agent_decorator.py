"""@agent: a function becomes an Agent builder; the function itself is not changed."""

from __future__ import annotations

import inspect

import pytest

from adk_fluent import Agent, BuildError, Preset, agent
from adk_fluent.errors import UnknownSetterError


def search(query: str) -> str:
    """Search the web."""
    return query


def test_a_function_with_a_docstring_becomes_an_agent_with_that_instruction():
    def triage():
        """You triage support tickets."""

    made = agent(model="gemini-2.5-flash", tools=[search])(triage)
    assert isinstance(made, Agent) and made.name == "triage"
    ir = made.to_ir()
    assert ir.instruction == "You triage support tickets."
    assert ir.model == "gemini-2.5-flash" and ir.tools == (search,)


def test_the_decorated_function_is_not_modified():
    def helper(ctx):
        """Explains."""
        return "Explain."

    before = (dict(helper.__dict__), helper.__code__, helper.__doc__, inspect.signature(helper))
    made = agent(helper)
    assert (
        dict(helper.__dict__),
        helper.__code__,
        helper.__doc__,
        inspect.signature(helper),
    ) == before
    assert helper("ctx") == "Explain."
    assert made.to_ir().instruction is helper  # passed to ADK as it is


def test_a_function_of_one_parameter_is_the_instruction_provider_with_its_docstring_as_description():
    @agent
    def writer(ctx):
        """Writes the answer."""
        return "Write it."

    ir = writer.to_ir()
    assert callable(ir.instruction) and ir.description == "Writes the answer."


def test_decorated_agents_compose_with_the_operators():
    @agent
    def first():
        """Step one."""

    @agent
    def second():
        """Step two."""

    flow = first >> second
    assert [child.name for child in flow.to_ir().children] == ["first", "second"]
    assert [child.name for child in (first | second).to_ir().children] == ["first", "second"]


def test_name_and_presets_can_be_given():
    base = Preset(model="m", before_model=lambda callback_context, llm_request: None)

    @agent(name="router", use=base, description="Routes.")
    def anything():
        """Route the request."""

    ir = anything.to_ir()
    assert (ir.name, ir.model, ir.description) == ("router", "m", "Routes.")


def test_settings_are_checked_when_the_decorator_is_made():
    with pytest.raises(UnknownSetterError, match="did you mean 'model'"):
        agent(mdoel="gemini-2.5-flash")


@pytest.mark.parametrize(
    "target, fragment",
    [
        (Agent("x"), "decorates a function, not Agent 'x'"),
        (str, "the class str"),
        (42, "not 42"),
    ],
)
def test_only_functions_can_be_decorated(target, fragment):
    with pytest.raises(BuildError, match=fragment):
        agent(model="m")(target)


def test_a_body_that_would_never_run_is_refused():
    def summary():
        """Summarise."""
        return "Summarise the thread."

    with pytest.raises(BuildError, match="agent 'summary', field 'instruction': the body"):
        agent(summary)


def test_an_async_function_with_only_a_docstring_is_fine():
    async def poet():
        """Write a poem."""

    assert agent(poet).to_ir().instruction == "Write a poem."
