"""The engine keys compiled Apps by value: equal expressions share one App (and one in-memory
session store); different options, configs or backends do not; values without equality
(a GenerateContentConfig, a backend) count by identity and never collide."""

from __future__ import annotations

from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.testing import mock_backend


def pipeline():
    return Agent("a").outputs("x") >> Agent("b").instruct("Use {x}.")


async def test_equal_expressions_continue_one_conversation():
    backend = mock_backend({"a": "one", "b": "two"})
    await pipeline().run("hi", session_id="s1", backend=backend)
    again = await pipeline().session("s1", backend=backend)  # another, equal, builder value
    assert again is not None and again.state["x"] == "one"


async def test_different_options_or_configs_get_their_own_app_and_store():
    backend = mock_backend({"a": ["one", "uno"], "b": ["two", "dos"]})
    await pipeline().run("hi", session_id="s2", backend=backend)
    assert await pipeline().filtered().session("s2", backend=backend) is None
    other = ExecutionConfig(app_name="other_app")
    assert await pipeline().session("s2", backend=backend, config=other) is None
    await pipeline().run("hi", session_id="s2", backend=backend, config=other)
    assert (await pipeline().session("s2", backend=backend, config=other)).app_name == "other_app"


async def test_unhashable_values_fall_back_to_identity_and_still_run():
    config = types.GenerateContentConfig(temperature=0.1)  # a pydantic model: no hash
    expr = Agent("a").generate_content_config(config).outputs("x")
    backend = mock_backend({"a": ["one", "two"]})
    await expr.run("hi", session_id="s3", backend=backend)
    await expr.run("again", session_id="s3", backend=backend)
    session = await expr.session("s3", backend=backend)
    assert session.state["x"] == "two" and len(backend.requests["a"]) == 2
    # a different backend never reuses the first one's App or store
    assert await expr.session("s3", backend=mock_backend({"a": "x"})) is None
