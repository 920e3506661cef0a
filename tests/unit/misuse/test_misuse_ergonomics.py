"""Misuse of the testing kit's model name and repeat(), of Agent.inject() / per_call, of
presets and of the @agent decorator: each fails at once or at build, naming the agent or the
field, with a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Preset, agent, per_call, per_invocation, per_session
from adk_fluent.testing import ScriptedModel, mock_backend, repeat
from tests.support.misuse import case, check, ids


def lookup(order_id: str, db: dict) -> str:
    """Look up an order."""
    return db[order_id]


def stream_rows(table: str, db: dict):
    """Streams rows."""
    yield from db[table]


def confirmed_lookup():
    return Agent("desk").tool(lookup, require_confirmation=True).inject(db={}).to_ir()


def with_body():
    """Answer."""
    return "Answer briefly."


def no_docstring():
    pass


def two_parameters(ctx, extra):
    """Two."""
    return "x"


def user():
    """Named like ADK's reserved author."""


def make_client(settings):
    return settings


CASES = [
    # the scripted model's name
    case("scripted-model-name-int", lambda: ScriptedModel(["x"], model=3), "model", "name"),
    case("scripted-model-name-empty", lambda: ScriptedModel(["x"], model=""), "model", "empty"),
    case("mock-backend-model-none", lambda: mock_backend({"a": "x"}, model=None), "model"),
    case("mock-backend-not-a-mapping", lambda: mock_backend(["x"]), "mapping", "responses"),
    case(
        "mock-backend-scripting-a-builder",
        lambda: mock_backend({"a": "x"}).scripting(Agent("a")).__enter__(),
        "scripting() takes native ADK agents",
        "scripted already",
    ),
    # repeat
    case("repeat-times-zero", lambda: repeat("x", times=0), "times", "positive", "got 0"),
    case("repeat-times-negative", lambda: repeat("x", times=-2), "times"),
    case("repeat-times-float", lambda: repeat("x", times=1.5), "times", "whole number"),
    case("repeat-times-bool", lambda: repeat("x", times=True), "times", "True"),
    case("repeat-nested", lambda: repeat(repeat("x", times=2)), "repeat", "another repeat"),
    case(
        "repeat-endless-then-more",
        lambda: mock_backend({"writer": [repeat("draft"), "final"]}),
        "writer",
        "script",
        "endless repeat",
    ),
    # inject
    case(
        "inject-unknown-resource",
        lambda: Agent("desk").tool(lookup).inject(dbb={}).to_ir(),
        "desk",
        "inject",
        "dbb",
        "did you mean 'db'",
    ),
    case(
        "inject-without-any-tool",
        lambda: Agent("desk").inject(db={}).build(),
        "desk",
        "inject",
        "no tool",
    ),
    case("inject-nothing", lambda: Agent("desk").inject(), "desk", "at least one resource"),
    case(
        "inject-tool-context",
        lambda: Agent("desk").tool(lookup).inject(tool_context=1),
        "tool_context",
        "ADK",
    ),
    case(
        "inject-not-an-identifier",
        lambda: Agent("desk").tool(lookup).inject(**{"my db": 1}),
        "desk",
        "my db",
    ),
    case(
        "inject-into-adk-tool-object",
        confirmed_lookup,
        "desk",
        "lookup",
        "ADK tool object",
    ),
    case(
        "inject-into-streaming-tool",
        lambda: Agent("desk").tool(stream_rows).inject(db={}).to_ir(),
        "stream_rows",
        "streaming",
    ),
    case("per-call-not-callable", lambda: per_call("conn"), "per_call", "inject"),
    case(
        "per-invocation-factory-takes-an-argument",
        lambda: per_invocation(lambda settings: settings),
        "per_invocation(factory)",
        "0 argument",
    ),
    case(
        "per-session-close-takes-nothing",
        lambda: per_session(object, close=lambda: None),
        "per_session(..., close=...)",
        "close",
    ),
    case("per-session-not-callable", lambda: per_session("client"), "per_session", "inject"),
    case("per-call-needs-arguments", lambda: per_call(make_client), "make_client", "settings"),
    # presets
    case("preset-typo", lambda: Preset(modle="gemini-2.5-flash"), "modle", "did you mean"),
    case("preset-callback-typo", lambda: Preset(before_modl=print), "before_modl", "before_model"),
    case("preset-non-setting", lambda: Preset(run="now"), "run", "not a setting"),
    case("preset-sub-agents", lambda: Preset(sub_agents=[]), "sub_agents", "delegate"),
    case("preset-bad-model", lambda: Preset(model=42), "model", "preset's 'model'"),
    case("preset-lambda-tool", lambda: Preset(tools=[lambda q: q]), "tools", "lambda"),
    case("preset-both-spellings", lambda: Preset(instruct="a", instruction="b"), "instruct"),
    case("preset-inject-not-a-mapping", lambda: Preset(inject=["db"]), "inject", "mapping"),
    case("use-not-a-preset", lambda: Agent("a").use({"model": "m"}), "agent 'a'", "use", "Preset"),
    case(
        "use-duplicate-tool",
        lambda: Agent("a").tool(lookup).use(Preset(tool=lookup)),
        "agent 'a'",
        "preset's 'tool'",
    ),
    # the @agent decorator
    case("decorator-on-a-builder", lambda: agent(Agent("x")), "decorates a function", "Agent 'x'"),
    case("decorator-on-a-class", lambda: agent(model="m")(dict), "the class dict"),
    case("decorator-on-a-lambda", lambda: agent(lambda: None), "lambda", "name"),
    case("decorator-given-text", lambda: agent("gemini-2.5-flash"), "gemini-2.5-flash", "model="),
    case("decorator-body-never-runs", lambda: agent(with_body), "with_body", "never run"),
    case("decorator-no-docstring", lambda: agent(no_docstring), "no_docstring", "docstring"),
    case("decorator-two-parameters", lambda: agent(two_parameters), "two_parameters", "one"),
    case("decorator-reserved-name", lambda: agent(user), "user", "name"),
    case("decorator-instruct-setting", lambda: agent(instruct="x"), "instruct", "docstring"),
    case("decorator-setting-typo", lambda: agent(tols=[lookup]), "tols", "did you mean"),
    case("decorator-use-not-a-preset", lambda: agent(use={"model": "m"}), "use", "Preset"),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
