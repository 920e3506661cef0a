"""Preset: settings checked against the Agent builder's setters when made, applied as setter
calls in a fixed order by `.use()`, combined with `|`."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_fluent import Agent, BuildError, Preset
from adk_fluent.errors import FieldNotInstalledError, UnknownSetterError


def audit(callback_context, llm_request):
    return None


def trace(callback_context, llm_request):
    return None


def search(query: str) -> str:
    """Search the web."""
    return query


def fetch(url: str) -> str:
    """Fetch a page."""
    return url


CONFIG = types.GenerateContentConfig(temperature=0.2)


def test_use_is_the_same_as_calling_the_setters():
    preset = Preset(
        model="gemini-2.5-flash",
        generate_content_config=CONFIG,
        before_model=audit,
        tools=[search, fetch],
        description="Researches.",
    )
    by_hand = (
        Agent("researcher")
        .model("gemini-2.5-flash")
        .description("Researches.")
        .generate_content_config(CONFIG)
        .before_model(audit)
        .tools(search, fetch)
        .instruct("Research.")
    )
    assert Agent("researcher").use(preset).instruct("Research.").to_ir() == by_hand.to_ir()


def test_the_order_settings_are_given_in_does_not_matter():
    one = Preset(model="m", tools=[search], before_model=[audit, trace], instruct="Do.")
    other = Preset(instruct="Do.", before_model=[audit, trace], tools=[search], model="m")
    assert Agent("a").use(one).to_ir() == Agent("a").use(other).to_ir()
    assert Agent("a").use(one).to_ir().before_model_callback == (audit, trace)


def test_a_setter_after_use_wins_for_one_value_and_adds_to_a_list():
    agent = Agent("a").use(Preset(model="m1", tools=[search])).model("m2").tool(fetch)
    ir = agent.to_ir()
    assert ir.model == "m2" and ir.tools == (search, fetch)
    assert Agent("a", "m0").use(Preset(model="m1")).to_ir().model == "m1"


def test_presets_combine_with_or_and_extend():
    base = Preset(model="m1", tools=[search], before_model=audit, inject={"db": 1})
    extra = Preset(model="m2", tools=[fetch], before_model=trace, inject={"db": 2, "cache": 3})
    combined = base | extra
    assert combined.settings == {
        "model": "m2",
        "tools": [search, fetch],
        "before_model": [audit, trace],
        "inject": {"db": 2, "cache": 3},
    }
    assert base.extend(model="m2", tools=[fetch], before_model=trace) == Preset(
        model="m2", tools=[search, fetch], before_model=[audit, trace], inject={"db": 1}
    )
    assert base.settings["model"] == "m1"  # combining changes neither side


def test_a_presets_resources_reach_the_tools_added_after_it():
    def lookup(order_id: str, db: dict) -> str:
        """Look up an order."""
        return db[order_id]

    agent = Agent("desk").use(Preset(inject={"db": {"7": "shipped"}})).tool(lookup)
    assert agent.to_ir().tools[0](order_id="7") == "shipped"


def test_a_typo_is_refused_at_once_with_did_you_mean():
    with pytest.raises(UnknownSetterError, match="(?s)field 'modle'.*did you mean .*'model'"):
        Preset(modle="gemini-2.5-flash")
    with pytest.raises(UnknownSetterError, match="(?s)'before_modle'.*did you mean 'before_model'"):
        Preset(before_modle=audit)


def test_a_method_that_is_not_a_setting_is_refused():
    with pytest.raises(UnknownSetterError, match="(?s)'show'.*not a setting.*call .show\\(\\)"):
        Preset(show=True)


def test_a_value_the_setter_refuses_is_refused_at_once_naming_the_key():
    with pytest.raises(BuildError, match="(?s)field 'model'.*empty model name.*preset's 'model'"):
        Preset(model="")
    with pytest.raises(BuildError, match="(?s)field 'before_model'.*must be a function"):
        Preset(before_model="audit")
    with pytest.raises(
        BuildError, match="(?s)field 'outputs'.*key name must be a str.*preset's 'outputs'"
    ):
        Preset(outputs=3)


def test_a_field_the_installed_adk_lacks_is_refused_with_the_releases_that_have_it():
    with pytest.raises(FieldNotInstalledError, match="(?s)field 'version'.*1.27.2"):
        Preset(version="1")  # LlmAgent.version exists in google-adk 1.27.2 only


def test_applying_names_the_agent_and_the_preset_setting():
    with pytest.raises(BuildError, match="(?s)agent 'a', field 'tool'.*already.*preset's 'tool'"):
        Agent("a").tool(search).use(Preset(tool=search))


def test_the_settings_are_a_copy():
    preset = Preset(model="m")
    preset.settings["model"] = "changed"
    assert preset.settings == {"model": "m"}
    assert "model='m'" in repr(preset)
