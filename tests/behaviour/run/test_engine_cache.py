"""The engine keys compiled Apps by value: equal expressions share one App; different options or
configs get an App of their own but keep the tree's in-memory session store (another app name
is another conversation in it); a GenerateContentConfig (no hash) counts by its values, a
backend by identity, and different backends never share an App or a store."""

from __future__ import annotations

from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.run.engine import ENGINE
from adk_fluent.testing import mock_backend


def pipeline():
    return Agent("a").outputs("x") >> Agent("b").instruct("Use {x}.")


async def test_equal_expressions_continue_one_conversation():
    backend = mock_backend({"a": "one", "b": "two"})
    await pipeline().run("hi", session_id="s1", backend=backend)
    again = await pipeline().session("s1", backend=backend)  # another, equal, builder value
    assert again is not None and again.state["x"] == "one"


async def test_different_options_or_configs_get_their_own_app_but_keep_the_store():
    backend = mock_backend({"a": ["one", "uno"], "b": ["two", "dos"]})
    await pipeline().run("hi", session_id="s2", backend=backend)
    plain = ENGINE._bound[next(reversed(ENGINE._bound))]
    # .filtered() changes what the client sees: its own App, the same conversation
    filtered = await pipeline().filtered().session("s2", backend=backend)
    assert filtered is not None and filtered.state["x"] == "one"
    assert ENGINE._bound[next(reversed(ENGINE._bound))].app is not plain.app
    assert ENGINE._bound[next(reversed(ENGINE._bound))].session_service is plain.session_service
    # another app name is another conversation, in the same store
    other = ExecutionConfig(app_name="other_app")
    assert await pipeline().session("s2", backend=backend, config=other) is None
    await pipeline().run("hi", session_id="s2", backend=backend, config=other)
    assert (await pipeline().session("s2", backend=backend, config=other)).app_name == "other_app"


async def test_unhashable_values_count_by_value_and_still_run():
    def expr():
        config = types.GenerateContentConfig(temperature=0.1)  # a pydantic model: no hash
        return Agent("a").generate_content_config(config).outputs("x")

    backend = mock_backend({"a": ["one", "two"]})
    await expr().run("hi", session_id="s3", backend=backend)
    await expr().run("again", session_id="s3", backend=backend)  # equal values, new objects
    session = await expr().session("s3", backend=backend)
    assert session.state["x"] == "two" and len(backend.requests["a"]) == 2
    assert len(backend.requests["a"][1].contents) == 3  # the first turn, then the second
    # a different backend never reuses the first one's App or store
    assert await expr().session("s3", backend=mock_backend({"a": "x"})) is None


async def test_a_conversation_s_turns_reuse_their_app_until_an_input_changes():
    """Turns handing the same objects reuse the App bound for the last turn without working its
    key out again; another input (a config with other run metadata) gets its own App."""
    backend = mock_backend({"a": ["1", "2", "3", "4"], "b": ["1", "2", "3", "4"]})
    expr = pipeline()
    config = ExecutionConfig(app_name="fast_path", custom_metadata={"team": "red"})
    plain = ExecutionConfig(app_name="fast_path")
    await expr.run("hi", session_id="f1", backend=backend, config=plain)
    first = ENGINE._bound[next(reversed(ENGINE._bound))]
    await expr.run("again", session_id="f1", backend=backend, config=plain)
    assert ENGINE._bound[next(reversed(ENGINE._bound))] is first
    events = await expr.run("with metadata", session_id="f1", backend=backend, config=config)
    assert events[-1].raw.custom_metadata.get("team") == "red"
    other = ExecutionConfig(app_name="fast_path", custom_metadata={"team": "blue"})
    events = await expr.run("changed", session_id="f1", backend=backend, config=other)
    assert events[-1].raw.custom_metadata.get("team") == "blue"
    assert ENGINE._bound[next(reversed(ENGINE._bound))].app is not first.app
