"""The error corpus: every user mistake gives a clear error naming the agent, the field, a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, BuildError, ExecutionConfig, FanOut, Pipeline
from adk_fluent.adk.compat import field_spans, installed_fields
from adk_fluent.errors import (
    DuplicateNameError,
    EmptyCompositeError,
    FieldNotInstalledError,
    UnknownSetterError,
)


def test_unknown_setter_suggests_the_right_one():
    with pytest.raises(UnknownSetterError) as info:
        Agent("helper").instuct("hi")
    message = str(info.value)
    assert (
        "agent 'helper'" in message
        and "'instuct'" in message
        and "did you mean 'instruct'" in message
    )
    assert isinstance(info.value, AttributeError)  # hasattr() etc. keep working


def test_adk_rejected_value_is_reraised_with_agent_name():
    agent = Agent("summariser").include_contents("everything")
    with pytest.raises(BuildError) as info:
        agent.build()
    message = str(info.value)
    assert "agent 'summariser'" in message
    assert "field 'include_contents'" in message
    assert "'everything'" in message
    assert "ValidationError" not in message and "pydantic" not in message.lower()


def test_duplicate_names_list_both_places():
    pipeline = Agent("writer") >> (Agent("critic") | Agent("writer"))
    with pytest.raises(DuplicateNameError) as info:
        pipeline.build()
    message = str(info.value)
    assert "agent 'writer'" in message
    assert "pipeline__writer__fanout__critic__writer > writer" in message
    assert "fanout__critic__writer > writer" in message
    assert "clone" in message


def test_empty_composites():
    with pytest.raises(EmptyCompositeError, match="Pipeline needs at least one step"):
        Pipeline()
    with pytest.raises(EmptyCompositeError, match="FanOut needs at least one step"):
        FanOut(name="branches")


def test_invalid_app_name():
    with pytest.raises(BuildError) as info:
        Agent("a").to_app(ExecutionConfig(app_name="my app"))
    assert "field 'app_name'" in str(info.value) and "identifier" in str(info.value)


def test_invalid_agent_name():
    with pytest.raises(BuildError, match="not a valid agent name"):
        Agent("my agent")
    with pytest.raises(BuildError, match="must not be 'user'"):
        Agent("user")


def test_composing_a_non_builder():
    with pytest.raises(BuildError, match="cannot use 42 with `>>`"):
        Agent("a") >> 42


def test_bad_loop_count():
    with pytest.raises(BuildError, match="positive whole number"):
        Agent("a") * 0


def test_tool_that_is_not_a_tool():
    with pytest.raises(BuildError, match="field 'tools'"):
        Agent("a").tool("search")


def test_callback_that_is_not_callable():
    with pytest.raises(BuildError, match="field 'before_model_callback'.*must be a function"):
        Agent("a").before_model_callback("nope")


MODE_INSTALLED = "mode" in installed_fields("LlmAgent")  # LlmAgent.mode: google-adk 2.x


@pytest.mark.skipif(MODE_INSTALLED, reason="the installed google-adk has LlmAgent.mode")
def test_field_missing_from_installed_adk_names_the_versions_that_have_it():
    with pytest.raises(FieldNotInstalledError) as info:
        Agent("a").mode("task")
    message = str(info.value)
    assert "agent 'a'" in message and "field 'mode'" in message
    first = field_spans("LlmAgent", "mode")[0][0]
    assert f"google-adk {first} and newer" in message and "upgrade" in message


@pytest.mark.skipif(not MODE_INSTALLED, reason="the installed google-adk has no LlmAgent.mode")
def test_field_present_in_installed_adk_compiles():
    agent = Agent("a").mode("task").build()
    assert agent.mode == "task"


# -- misuse cases added with the re-layout ------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "agent", "field", "hint"),
    [
        (lambda: _gate().hide(), "check", "visibility", "hide the agents around it"),
        (lambda: _s().rename(draft=""), None, "keys", "S.rename(draft='final')"),
        (lambda: _s().merge("a", "b", into=""), None, "keys", "into='ab'"),
        (lambda: _s().merge("a", "b", into="ab", fn="join"), None, "fn", None),
        (lambda: _c().capture_turns("", 3), None, "key", "capture_turns"),
        (lambda: Agent("a").context("user_only"), "a", "context", "C.user_only()"),
    ],
    ids=[
        "hide-a-gate",
        "rename-to-nothing",
        "merge-into-nothing",
        "merge-fn-not-callable",
        "capture-turns-no-key",
        "context-not-a-spec",
    ],
)
def test_new_misuses_name_the_step_the_field_and_a_hint(make, agent, field, hint):
    with pytest.raises(BuildError) as info:
        make()
    assert info.value.field == field
    if agent is not None:  # S steps may also name themselves (their default step name)
        assert info.value.agent == agent
    if hint is not None:
        assert hint in str(info.value)


def _gate():
    from adk_fluent import gate

    return gate(lambda state: True, "Send it?", name="check")


def _s():
    from adk_fluent import S

    return S


def _c():
    from adk_fluent import C

    return C


def test_a_hidden_composite_keeps_its_override_when_composed_further():
    """`c >> (a >> b).hide()` keeps b internal: the hidden pipeline is not flattened away."""
    from adk_fluent import infer_visibility

    table = infer_visibility((Agent("c") >> (Agent("a") >> Agent("b")).hide()).to_ir())
    assert (table["c"], table["a"], table["b"]) == ("internal", "internal", "internal")


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("App", "an App"),
        ("ExecutionConfig", "an ExecutionConfig"),
        ("int", "an int"),
        ("object", "an object"),
        ("Pipeline", "a Pipeline"),
        ("str", "a str"),
        ("UUID", "a UUID"),
        ("UserWarning", "a UserWarning"),
        ("LLM", "an LLM"),
        ("LlmResponse", "an LlmResponse"),
        ("HTTPError", "an HTTPError"),
        ("GcsArtifactService", "a GcsArtifactService"),
        ("app", "an app"),
        ("user", "a user"),
    ],
)
def test_the_article_before_a_name_is_the_one_it_is_spoken_with(word, expected):
    """One helper puts "a" or "an" before every type name a message shows (issue 36: "is a
    ExecutionConfig", "is a App")."""
    from adk_fluent.errors import describe_value, with_article

    assert with_article(word) == expected
    assert describe_value(object()) == "an object" and describe_value([]) == "a list"
