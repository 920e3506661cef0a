"""`AgentDirectory`: agent cards by name from a directory file (JSON or YAML, inline cards) or
from card objects, looked up at build; a card it cannot use is an error naming where it came
from. Pure: no card is fetched here (tests/integration/remote/test_split_pipeline.py fetches
real ones)."""

from __future__ import annotations

import json

import pytest
import yaml
from a2a.types import AgentCard

from adk_fluent import Agent
from adk_fluent.api.directory import AgentDirectory
from adk_fluent.errors import BuildError
from adk_fluent.ir.a2a_card import STATE_EXTENSION_URI
from adk_fluent.ir.nodes import RemoteAgentNode
from adk_fluent.remote import CardDirectory, agent_card


def card(name, url, *, skills=(), reads=None, writes=None):
    """A card as JSON, with adk-fluent's state-key extension when reads/writes are given."""
    data = {
        "name": name,
        "description": f"the {name} agent",
        "url": url,
        "version": "1.0.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": s, "name": s, "description": s, "tags": list(tags)} for s, tags in skills
        ],
    }
    if reads is not None or writes is not None:
        data["capabilities"]["extensions"] = [
            {"uri": STATE_EXTENSION_URI, "params": {"reads": reads or [], "writes": writes or []}}
        ]
    return data


PAYMENTS = card(
    "payments",
    "http://payments:8001/",
    skills=[("refund", ("money",)), ("balance", ("money", "read"))],
    reads=["intent"],
    writes=["refund_id"],
)
SEARCH = card("Web Search", "http://search:8002/", skills=[("lookup", ("read",))])

# An A2A 1.x card (a2a-sdk>=1.0): no `url`, interfaces listed instead.
V1_CARD = {
    "name": "newer",
    "description": "published by a2a-sdk 1.x",
    "version": "1.0.0",
    "protocolVersion": "1.0",
    "supportedInterfaces": [{"url": "http://newer:8003/", "protocolBinding": "JSONRPC"}],
    "capabilities": {},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}


def write(tmp_path, name, data):
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data))
    else:
        path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("file_name", ["agents.json", "agents.yaml"])
def test_a_directory_file_lists_inline_cards_by_name(tmp_path, file_name):
    path = write(tmp_path, file_name, [PAYMENTS, {"name": "search", "card": SEARCH}])
    directory = AgentDirectory.from_file(path)
    assert directory.names == ("payments", "search")
    assert directory.card("search")["url"] == "http://search:8002/"
    assert directory.origin("search") == f"entry 2 of file '{path}'"
    assert "payments" in directory and len(directory) == 2


def test_a_yaml_file_may_hold_its_entries_under_agents(tmp_path):
    path = write(tmp_path, "agents.yml", {"agents": [SEARCH]})
    assert AgentDirectory.from_file(path).names == ("Web Search",)


def test_agent_gives_a_remote_agent_with_the_keys_the_card_declares(tmp_path):
    directory = AgentDirectory.from_file(write(tmp_path, "agents.json", [PAYMENTS]))
    step = directory.agent("payments")
    assert (step.name, step.sends, step.receives) == ("payments", ("intent",), ("refund_id",))
    node = step.to_ir()
    assert isinstance(node, RemoteAgentNode)
    assert node.card == "http://payments:8001/" and json.loads(node.card_json)["name"] == "payments"
    assert node.description == "the payments agent"


def test_agent_takes_remote_agent_options_and_another_name():
    directory = AgentDirectory.from_cards([SEARCH])
    step = directory.agent("Web Search", name="searcher", sends=["query"], timeout=5)
    assert (step.name, step.sends) == ("searcher", ("query",))
    assert directory.agent("Web Search").name == "Web_Search"  # an identifier, as ADK needs
    pipeline = Agent("classifier").outputs("query") >> step
    assert [n.name for n in pipeline.to_ir().children] == ["classifier", "searcher"]


def test_an_unknown_name_gets_a_did_you_mean_naming_the_directory(tmp_path):
    path = write(tmp_path, "agents.json", [PAYMENTS])
    directory = AgentDirectory.from_file(path)
    with pytest.raises(BuildError, match="no agent named 'paymnets'") as raised:
        directory.agent("paymnets")
    assert f"file '{path}'" in str(raised.value)
    assert "did you mean 'payments'?" in str(raised.value)


def test_find_by_skill_and_tag():
    directory = AgentDirectory.from_cards([PAYMENTS, SEARCH])
    assert directory.find(skill="refund") == ["payments"]
    assert directory.find(skill="REFUND") == ["payments"]
    assert directory.find(tag="read") == ["payments", "Web Search"]
    assert directory.find(skill="balance", tag="read") == ["payments"]
    assert directory.find(skill="refund", tag="read") == []  # both on one skill
    assert [a.name for a in directory.agents(tag="money")] == ["payments"]
    with pytest.raises(BuildError, match="find\\(\\) needs skill= or tag="):
        directory.find()


def test_cards_may_be_a2a_agent_cards_or_a_mapping_of_names():
    served = agent_card(Agent("writer").instruct("Write."), "http://writer:8004/")
    directory = CardDirectory.from_cards({"writing": served, "search": SEARCH})
    assert directory.names == ("writing", "search")
    assert directory.card("writing")["skills"][0]["id"] == "writer"
    assert isinstance(AgentCard.model_validate(directory.card("writing")), AgentCard)


def test_card_returns_a_copy():
    directory = CardDirectory.from_cards([PAYMENTS])
    directory.card("payments")["url"] = "http://elsewhere/"
    assert directory.card("payments")["url"] == "http://payments:8001/"


async def test_load_reads_a_file_without_blocking(tmp_path):
    path = write(tmp_path, "agents.yaml", [PAYMENTS])
    directory = await AgentDirectory.load(path)
    assert isinstance(directory, AgentDirectory) and directory.names == ("payments",)


def test_two_cards_of_one_name_are_refused_naming_both(tmp_path):
    path = write(tmp_path, "agents.json", [PAYMENTS, {"name": "payments", "card": SEARCH}])
    with pytest.raises(BuildError, match="two cards are named 'payments'") as raised:
        AgentDirectory.from_file(path)
    assert "entry 1 of" in str(raised.value) and "entry 2 of" in str(raised.value)


def test_a_card_that_is_not_one_names_its_entry(tmp_path):
    broken = {key: value for key, value in PAYMENTS.items() if key != "version"}
    path = write(tmp_path, "agents.json", [SEARCH, broken])
    with pytest.raises(BuildError, match=f"entry 2 of file '{path}' is not a card") as raised:
        AgentDirectory.from_file(path)
    assert "version" in str(raised.value)


def test_an_a2a_1_card_is_refused_with_the_a2a_sdk_hint(tmp_path):
    path = write(tmp_path, "agents.json", [V1_CARD])
    with pytest.raises(BuildError, match="entry 1 of") as raised:
        AgentDirectory.from_file(path)
    assert "A2A 1.x card" in str(raised.value) and "a2a-sdk<0.4" in str(raised.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ('{"agents": 3}', "holds 3, not a list of entries"),
        ("[3]", "entry 1 of .* is 3, not an entry"),
        ('[{"name": "x"}]', "has a name but no url"),
        ('[{"url": "ftp://x"}]', "is not an http\\(s\\) URL"),
        ('[{"name": "", "url": "http://x"}]', "name must be a non-empty str"),
        ('[{"name": "x", "card": {}, "url": "http://x"}]', "has a card and also url"),
    ],
)
def test_a_directory_file_that_cannot_be_read_says_why(tmp_path, content, message):
    path = tmp_path / "agents.json"
    path.write_text(content)
    with pytest.raises(BuildError, match=message):
        AgentDirectory.from_file(path)


def test_a_missing_file_or_bad_yaml_is_refused(tmp_path):
    with pytest.raises(BuildError, match="cannot read the agent directory"):
        AgentDirectory.from_file(tmp_path / "nowhere.yaml")
    path = tmp_path / "agents.yaml"
    path.write_text("- [unclosed")
    with pytest.raises(BuildError, match="is not YAML"):
        AgentDirectory.from_file(path)


@pytest.mark.parametrize(
    ("urls", "message"),
    [
        ("http://one:8001", "takes a list of URLs"),
        (["payments:8001"], "URL 1: .* is not an http\\(s\\) URL"),
    ],
)
def test_from_urls_refuses_what_is_not_a_list_of_urls(urls, message):
    with pytest.raises(BuildError, match=message):
        AgentDirectory.from_urls(urls)


def test_a_bad_timeout_is_refused():
    with pytest.raises(BuildError, match="timeout=0 must be more than 0"):
        AgentDirectory.from_urls([], timeout=0)


def test_from_cards_refuses_a_lone_value():
    with pytest.raises(BuildError, match="takes a list of agent cards"):
        CardDirectory.from_cards("payments")
