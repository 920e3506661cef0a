"""The scripted model's name and repeating script steps, driven without a Runner."""

from __future__ import annotations

import re

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.utils import model_name_utils
from google.genai import types

from adk_fluent.errors import BuildError, ScriptError
from adk_fluent.testing import DEFAULT_MODEL, ScriptedModel, call, mock_backend, repeat


def _request(text: str = "hi") -> LlmRequest:
    return LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text=text)])])


async def _answer(model: ScriptedModel, text: str = "hi") -> str | dict:
    """What the model answers one call with: its text, or {tool: args} for a function call."""
    responses = [r async for r in model.generate_content_async(_request(text))]
    part = responses[-1].content.parts[0]
    if part.function_call is not None:
        return {part.function_call.name: dict(part.function_call.args or {})}
    return part.text


# -- the model name ------------------------------------------------------------------------------


def test_the_default_name_is_a_gemini_name_to_adk_and_says_it_is_scripted():
    assert ScriptedModel().model == DEFAULT_MODEL == "gemini-2.5-flash-scripted"
    assert model_name_utils.is_gemini_model(DEFAULT_MODEL)
    assert not model_name_utils.is_gemini_model("scripted-model")  # the old name was refused


def test_a_chosen_name_is_kept_by_every_agent_view_and_by_mock_backend():
    model = ScriptedModel({"a": ["x"]}, model="my-local-model")
    assert model.model == "my-local-model"
    assert model.for_agent("a").model == "my-local-model"
    backend = mock_backend({"a": "x"}, model="gemini-3-pro-scripted")
    assert backend.model_name == "gemini-3-pro-scripted"
    assert backend.model_for("a").model == "gemini-3-pro-scripted"
    assert mock_backend({"a": "x"}).model_for("a").model == DEFAULT_MODEL


def test_supported_models_cover_scripted_names_only():
    patterns = ScriptedModel.supported_models()

    def matches(name: str) -> bool:
        return any(re.fullmatch(pattern, name) for pattern in patterns)

    assert matches(DEFAULT_MODEL) and matches("scripted-model")
    assert not matches("gemini-2.5-flash")  # a real model name must reach the real model


@pytest.mark.parametrize("bad", [3, "", "   ", None])
def test_a_model_name_that_is_not_text_is_refused(bad):
    with pytest.raises(BuildError, match="field 'model'.*scripted model's name"):
        ScriptedModel(["x"], model=bad)
    with pytest.raises(BuildError, match="field 'model'"):
        mock_backend({"a": "x"}, model=bad)


# -- repeat ------------------------------------------------------------------------------------


async def test_an_endless_repeat_answers_every_later_call():
    model = ScriptedModel(["hello", repeat("again")])
    answers = [await _answer(model) for _ in range(6)]
    assert answers == ["hello"] + ["again"] * 5
    model.assert_consumed()


async def test_a_counted_repeat_gives_way_to_the_next_step():
    model = ScriptedModel([repeat("tick", times=3), "done"])
    assert [await _answer(model) for _ in range(4)] == ["tick", "tick", "tick", "done"]
    model.assert_consumed()
    with pytest.raises(
        ScriptError, match=r"call #5 by .*script has 2 step\(s\), 4 answer\(s\) in all"
    ):
        await _answer(model)


async def test_a_repeat_of_several_steps_plays_them_in_rounds():
    model = ScriptedModel([repeat(call("lookup", order="7"), "Shipped.", times=2)])
    answers = [await _answer(model) for _ in range(4)]
    assert answers == [{"lookup": {"order": "7"}}, "Shipped."] * 2
    model.assert_consumed()


async def test_a_function_step_in_a_repeat_is_called_for_each_request():
    seen = []

    def echo(request: LlmRequest) -> str:
        seen.append(request.contents[-1].parts[0].text)
        return "echo: " + seen[-1]

    model = ScriptedModel([repeat(echo)])
    assert [await _answer(model, text) for text in ("a", "b", "c")] == [
        "echo: a",
        "echo: b",
        "echo: c",
    ]
    assert seen == ["a", "b", "c"]


async def test_an_async_function_step_in_a_repeat_works_too():
    async def later(request: LlmRequest) -> str:
        return "later"

    model = ScriptedModel([repeat(later, times=2)])
    assert [await _answer(model) for _ in range(2)] == ["later", "later"]
    model.assert_consumed()


def test_an_endless_repeat_never_used_is_reported():
    model = ScriptedModel({"a": [repeat("again")]})
    with pytest.raises(ScriptError, match=r"agent 'a': 1 left, next repeat\('again', times=None\)"):
        model.assert_consumed()


async def test_a_counted_repeat_cut_short_reports_the_rounds_left():
    model = ScriptedModel({"a": [repeat("tick", times=3), "done"]})
    await _answer(model.for_agent("a"))
    with pytest.raises(ScriptError, match=r"agent 'a': 2 left, next repeat\('tick', times=2\)"):
        model.assert_consumed()


async def test_a_round_left_half_played_is_reported_even_for_an_endless_repeat():
    model = ScriptedModel({"a": [repeat(call("lookup"), "Found.")]})
    await _answer(model.for_agent("a"))
    with pytest.raises(ScriptError, match=r"agent 'a': 1 left, next 'Found.'"):
        model.assert_consumed()
    await _answer(model.for_agent("a"))
    model.assert_consumed()  # a whole round played: consumed


def test_a_step_after_an_endless_repeat_is_refused():
    with pytest.raises(BuildError, match="agent 'a', field 'script': script step #2 follows"):
        mock_backend({"a": [repeat("x"), "never"]})


@pytest.mark.parametrize("times", [0, -1, 1.5, True, "3"])
def test_a_bad_count_is_refused(times):
    with pytest.raises(BuildError, match="field 'times'"):
        repeat("x", times=times)


def test_a_repeat_inside_a_repeat_is_refused():
    with pytest.raises(BuildError, match="a repeat cannot hold another repeat"):
        repeat(repeat("x", times=2), times=2)
