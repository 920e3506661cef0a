"""A pipeline's A2A card, made from its IR (pure: no server): the state keys that cross its
boundary, the skills it lists, and the extension a RemoteAgent reads the keys back from.

`state_interface` is what the contract checker finds: reads are keys read before anything inside
writes them, writes every key written; temp: keys and adk-fluent's bookkeeping never cross.
"""

from __future__ import annotations

import json

import pytest

from adk_fluent import Agent, AgentTool, RemoteAgent, S, gate
from adk_fluent.ir.a2a_card import STATE_EXTENSION_URI, declared_by
from adk_fluent.remote import StateInterface, agent_card, state_interface

pytest.importorskip("a2a", reason="a2a-sdk (the a2a extra) is not installed")

URL = "http://127.0.0.1:8001/"


def lookup(order_id: str) -> str:
    """Look up an order.

    The rest of the docstring stays off the card."""
    return order_id


def service():
    return (
        Agent("classifier")
        .instruct("Classify the request.\nAnswer with one word.")
        .outputs("intent")
        .tool(lookup)
        >> Agent("helper").description("Helps people.").instruct("Help with {topic}, {intent}.")
        >> gate(lambda state: True, "Approve?")
        >> S.set(done=True)
    ).named("support")


def _extension(card) -> dict:
    data = card.model_dump(mode="json", by_alias=True, exclude_none=True)
    [extension] = [e for e in data["capabilities"]["extensions"] if e["uri"] == STATE_EXTENSION_URI]
    return extension


def test_reads_are_keys_read_before_written_and_writes_every_key_written():
    # the gate's predicate is code the checker cannot read: any key a caller sends is stored
    assert state_interface(service()) == StateInterface(
        reads=("topic",), writes=("done", "intent"), reads_any=True
    )


def test_only_code_the_checker_cannot_read_opens_the_reads():
    named = Agent("a").instruct("Use {x}.") >> S.set(y=1)
    assert state_interface(named).reads_any is False
    guarded = named >> S.guard(lambda state: state.get("amount", 0) < 100, "too much")
    assert state_interface(guarded).reads_any is True


def test_a_key_read_before_it_is_written_inside_is_both_read_and_written():
    tree = Agent("early").instruct("Use {draft?}.") >> Agent("late").outputs("draft")
    assert state_interface(tree) == StateInterface(reads=("draft",), writes=("draft",))


def test_temp_keys_and_bookkeeping_never_cross():
    tree = (
        Agent("a").instruct("Plan {temp:hint?}.").outputs("temp:plan")
        >> gate(lambda state: True, "Approve?")
        >> Agent("b").instruct("Do {temp:plan}.").outputs("result")
    )
    interface = state_interface(tree)
    assert interface == StateInterface(reads=(), writes=("result",), reads_any=True)
    assert state_interface(tree.to_ir()) == interface  # the IR answers the same


def test_the_card_names_the_pipeline_and_its_url_and_declares_its_keys():
    card = agent_card(service(), URL)
    assert (card.name, card.url, card.version) == ("support", URL, "1.0.0")
    assert card.description == "adk-fluent pipeline support"
    assert card.capabilities.streaming is False
    extension = _extension(card)
    assert extension["params"] == {
        "reads": ["topic"],
        "writes": ["done", "intent"],
        "reads_any": True,
    }
    assert extension["required"] is False


def test_a_skill_per_llm_agent_and_per_tool_with_their_first_lines():
    skills = [(s.id, s.name, s.description, s.tags) for s in agent_card(service(), URL).skills]
    assert skills == [
        ("classifier", "classifier", "Classify the request.", ["llm"]),
        ("classifier.lookup", "lookup", "Look up an order.", ["tool", "classifier"]),
        ("helper", "helper", "Helps people.", ["llm"]),
    ]


def test_an_agent_tool_is_listed_by_the_agent_it_runs_not_as_a_tool():
    tree = Agent("boss").instruct("Delegate.").tool(AgentTool(Agent("sub").instruct("Sub work.")))
    ids = [s.id for s in agent_card(tree, URL).skills]
    assert ids == ["boss", "sub"]


def test_a_pipeline_without_llm_agents_has_one_skill_named_after_it():
    card = agent_card(S.set(done=True).named("marker"), URL, description="Marks things.")
    assert [(s.id, s.description) for s in card.skills] == [("marker", "Marks things.")]
    assert card.description == "Marks things."


def test_name_description_version_and_streaming_can_be_given():
    card = agent_card(
        service(), URL, name="Support desk", description="Answers.", version="2.1", streaming=True
    )
    assert (card.name, card.description, card.version) == ("Support desk", "Answers.", "2.1")
    assert card.capabilities.streaming is True


def test_the_card_survives_json_and_says_the_same():
    card = agent_card(service(), URL)
    data = json.loads(card.model_dump_json(by_alias=True, exclude_none=True))
    assert declared_by(data) == {
        "name": "support",
        "description": "adk-fluent pipeline support",
        "reads": ["topic"],
        "writes": ["done", "intent"],
    }


def test_from_card_reads_the_name_and_keys_back_from_the_card_object_json_and_file(tmp_path):
    card = agent_card(service(), URL, description="Answers support questions.")
    data = card.model_dump(mode="json", by_alias=True, exclude_none=True)
    path = tmp_path / "card.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for given in (card, data, str(path)):
        remote = RemoteAgent.from_card(given)
        node = remote.to_ir()
        assert node.name == "support"
        assert remote.sends == ("topic",) and remote.receives == ("done", "intent")
        assert node.reads_keys == {"topic"} and node.writes_keys == {"done", "intent"}
        assert node.description == "Answers support questions."


def test_from_card_takes_a_name_and_explicit_keys_over_the_cards():
    card = agent_card(service(), URL)
    remote = RemoteAgent.from_card(card, name="desk", sends=[], receives=["intent"])
    assert (remote.name, remote.sends, remote.receives) == ("desk", (), ("intent",))


def test_a_card_name_that_is_not_an_identifier_becomes_one():
    for given, expected in (("Support desk", "Support_desk"), ("1st line", "remote_1st_line")):
        card = agent_card(service(), URL, name=given)
        assert RemoteAgent.from_card(card).name == expected


def test_a_foreign_card_without_the_extension_declares_no_keys():
    foreign = {"name": "weather", "url": "http://weather:9000/", "description": "Forecasts."}
    remote = RemoteAgent.from_card(foreign)
    assert (remote.name, remote.sends, remote.receives) == ("weather", (), ())
    assert remote.to_ir().card == "http://weather:9000/"
