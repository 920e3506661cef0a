"""`to_apps()`: a pipeline split at its execution boundaries (pure: the split trees, the Apps
compiled from them, no Runner and no server).

What each boundary sends and receives is what the contract checker finds; keys that cannot
cross (temp:, a gate's pause) and a service without a URL are refused at the split, naming
the boundary and the key; boundaries inside boundaries and inside agent tools are split off
too; the report checks every part with the keys it is sent. The parts are written as ADK agent
folders (tests/integration/remote/test_split_pipeline.py serves them with adk api_server).
"""

from __future__ import annotations

import json

import pytest

from adk_fluent import Agent, S, gate
from adk_fluent.adk.custom_agents.remote import FluentRemoteAgent, ServedRootAgent
from adk_fluent.analysis.mermaid import to_mermaid
from adk_fluent.errors import BuildError
from adk_fluent.ir.nodes import AgentToolSpec, BoundaryNode, RemoteAgentNode
from adk_fluent.remote import load_part, to_apps, write_agent_folders
from adk_fluent.testing import mock_backend

URL = "http://127.0.0.1:9001"
CARD = URL + "/.well-known/agent-card.json"


def heavy(*more):
    """b reads topic (from before it) and a key it writes itself first."""
    body = (
        S.set(mode="deep")
        >> Agent("b").instruct("Work on {topic} in {mode} mode.").outputs("result")
        >> S.set(heavy_done=True)
    )
    for step in more:
        body = body >> step
    return body


def pipeline(body=None, **boundary):
    return (
        Agent("a").instruct("Name the topic.").outputs("topic")
        >> (body or heavy()).execution_boundary("heavy", **boundary)
        >> Agent("c").instruct("Answer with {result}.")
    )


def remote_nodes(tree):
    return {node.name: node for node in tree.walk() if isinstance(node, RemoteAgentNode)}


def test_the_boundary_becomes_a_remote_agent_sending_what_the_service_reads():
    split = to_apps(pipeline(), {"heavy": URL})
    names = [child.name for child in split.root_tree.children]
    assert names == ["a", "heavy", "c"]
    remote = remote_nodes(split.root_tree)["heavy"]
    assert remote.card == CARD and remote.service == "heavy"
    # mode is written inside before b reads it: it need not cross
    assert remote.reads_keys == {"topic"}
    assert remote.writes_keys == {"mode", "result", "heavy_done"}
    crossing = split.crossing("heavy")
    assert (crossing.caller, crossing.sends) == (split.root_tree.name, ("topic",))
    assert crossing.receives == ("heavy_done", "mode", "result")
    assert split.urls == {"heavy": CARD}
    assert not any(isinstance(n, BoundaryNode) for n in split.root_tree.walk())


def test_the_service_is_the_sub_tree_as_written():
    original = pipeline().to_ir()
    split = to_apps(original, {"heavy": URL})
    boundary = next(n for n in original.walk() if isinstance(n, BoundaryNode))
    assert split.trees == {"heavy": boundary.children[0]}


def test_the_apps_call_and_serve_over_a2a_with_the_crossing_keys():
    backend = mock_backend({"a": "x", "b": "y", "c": "z"})
    split = to_apps(pipeline(), {"heavy": URL}, backend=backend)
    root_agents = {agent.name: agent for agent in split.root.root_agent.sub_agents}
    assert isinstance(root_agents["heavy"], FluentRemoteAgent)
    assert set(root_agents) == {"a", "heavy", "c"}
    served = split.services["heavy"].root_agent
    assert isinstance(served, ServedRootAgent)
    assert (served.accepts, served.returns) == (("topic",), ("heavy_done", "mode", "result"))
    assert [agent.name for agent in served.sub_agents[0].sub_agents] == [
        "set_mode",
        "b",
        "set_heavy_done",
    ]


def test_a_url_given_on_the_boundary_needs_no_urls():
    split = to_apps(pipeline(url=CARD))
    assert remote_nodes(split.root_tree)["heavy"].card == CARD


def test_the_description_reaches_the_remote_agent():
    split = to_apps(pipeline(url=CARD, description="Does the heavy work."))
    assert remote_nodes(split.root_tree)["heavy"].description == "Does the heavy work."


def test_an_optional_read_is_sent_only_when_something_outside_writes_it():
    body = Agent("b").instruct("{topic} {note?} {extra?}").outputs("result")
    tree = (
        S.set(note="n")
        >> Agent("a").outputs("topic")
        >> body.execution_boundary("heavy")
        >> Agent("c").instruct("{result}")
    )
    assert to_apps(tree, {"heavy": URL}).crossing("heavy").sends == ("note", "topic")


def test_a_step_whose_reads_are_unseen_is_sent_every_key_written_outside():
    # an S.compute lambda may read any key: the checker cannot name what it needs
    body = S.compute(total=lambda s: s["price"] * 2) >> Agent("b").instruct("{total}")
    tree = (
        S.set(price=3, currency="EUR")
        >> Agent("a").outputs("topic")
        >> body.execution_boundary("heavy")
    )
    assert to_apps(tree, {"heavy": URL}).crossing("heavy").sends == ("currency", "price", "topic")


def test_a_step_whose_writes_are_unseen_sends_back_every_key_read_outside():
    def tally(state):
        return {"count": 1}

    body = Agent("b").outputs("result") >> tally
    tree = (
        Agent("a").outputs("topic")
        >> body.execution_boundary("heavy")
        >> Agent("c").instruct("{result} {count} {topic}")
    )
    assert to_apps(tree, {"heavy": URL}).crossing("heavy").receives == ("count", "result", "topic")


@pytest.mark.parametrize(
    ("step", "sends", "receives"),
    [
        (S.drop("topic"), ("topic",), ("result", "topic")),
        (S.rename(topic="subject"), ("topic",), ("result", "subject", "topic")),
        # S.pick deletes every other key: the caller's must reach the service to be deleted
        (S.pick("result"), ("tone", "topic"), ("result", "tone", "topic")),
    ],
)
def test_a_key_the_service_deletes_comes_back_deleted(step, sends, receives):
    body = Agent("b").outputs("result") >> step
    tree = Agent("a").outputs("topic") >> S.set(tone="warm") >> body.execution_boundary("heavy")
    crossing = to_apps(tree, {"heavy": URL}).crossing("heavy")
    assert (crossing.sends, crossing.receives) == (sends, receives)


def test_a_temp_key_written_before_the_boundary_is_refused_naming_it():
    tree = (
        S.set(**{"temp:draft": "d"})
        >> Agent("b").instruct("{temp:draft}").execution_boundary("heavy")
        >> Agent("c")
    )
    with pytest.raises(BuildError, match="agent 'heavy', field 'sends'") as raised:
        to_apps(tree, {"heavy": URL})
    assert "'temp:draft'" in str(raised.value) and "cannot cross A2A" in str(raised.value)
    assert "hint: store it under a session key" in str(raised.value)


def test_a_temp_key_written_inside_and_read_after_is_refused_naming_it():
    body = Agent("b").outputs("result") >> S.set(**{"temp:flag": "f"})
    tree = Agent("a") >> body.execution_boundary("heavy") >> Agent("c").instruct("{temp:flag}")
    with pytest.raises(BuildError, match="agent 'heavy', field 'receives'") as raised:
        to_apps(tree, {"heavy": URL})
    assert "'temp:flag'" in str(raised.value) and "'c' after" in str(raised.value)


def test_a_temp_key_used_only_inside_the_service_is_fine():
    body = S.set(**{"temp:t": 1}) >> Agent("b").instruct("{temp:t}").outputs("result")
    split = to_apps(Agent("a") >> body.execution_boundary("heavy"), {"heavy": URL})
    assert split.crossing("heavy").sends == ()
    assert split.crossing("heavy").receives == ("result",)


def test_a_service_without_a_url_is_refused():
    with pytest.raises(BuildError, match="agent 'heavy', field 'url'.*no URL") as raised:
        to_apps(pipeline())
    assert "urls={'heavy': 'http://heavy:8001'}" in str(raised.value)


def test_urls_for_an_unknown_service_get_a_did_you_mean():
    with pytest.raises(BuildError, match="no execution boundary of that name") as raised:
        to_apps(pipeline(), {"heavvy": URL})
    assert "did you mean 'heavy'?" in str(raised.value)


@pytest.mark.parametrize("url", ["heavy:8001", "", 8001])
def test_a_url_that_is_not_http_is_refused(url):
    with pytest.raises(BuildError, match="agent 'heavy', field 'urls'"):
        to_apps(pipeline(), {"heavy": url})


def test_a_pipeline_without_a_boundary_is_refused():
    with pytest.raises(BuildError, match="no execution boundary to split it at"):
        to_apps(Agent("a") >> Agent("c"), {})


def test_not_a_pipeline_is_refused():
    with pytest.raises(BuildError, match="to_apps\\(\\) takes an adk-fluent pipeline"):
        to_apps("a >> b")


def test_two_boundaries_of_one_name_are_refused():
    tree = (
        Agent("b1").execution_boundary("heavy")
        >> Agent("b2").execution_boundary("heavy")
        >> Agent("c")
    )
    with pytest.raises(BuildError, match="two execution boundaries are named 'heavy'"):
        to_apps(tree, {"heavy": URL})


def test_a_service_named_like_an_agent_is_refused():
    tree = Agent("a") >> Agent("b").execution_boundary("a")
    with pytest.raises(BuildError, match="has the name of an agent") as raised:
        to_apps(tree, {"a": URL})
    assert "execution_boundary('a_service')" in str(raised.value)


def test_a_gate_inside_a_boundary_is_refused():
    body = Agent("b").outputs("result") >> gate(True, "Go on?")
    with pytest.raises(BuildError, match="holds the gate 'approval_gate'"):
        to_apps(Agent("a") >> body.execution_boundary("heavy"), {"heavy": URL})


def test_nested_boundaries_are_split_off_their_service():
    inner = Agent("deep").instruct("{topic} {mode}").outputs("depth")
    body = (
        S.set(mode="m")
        >> inner.execution_boundary("deepest")
        >> Agent("b").instruct("{depth}").outputs("result")
    )
    tree = Agent("a").outputs("topic") >> body.execution_boundary("heavy") >> Agent("c")
    split = to_apps(tree, {"heavy": URL, "deepest": "http://127.0.0.1:9002"})
    assert set(split.services) == {"heavy", "deepest"}
    heavy_tree = split.trees["heavy"]
    assert [child.name for child in heavy_tree.children] == ["set_mode", "deepest", "b"]
    assert remote_nodes(heavy_tree)["deepest"].reads_keys == {"mode", "topic"}
    assert remote_nodes(split.root_tree).keys() == {"heavy"}
    callers = {c.service: c.caller for c in split.report.crossings}
    assert callers == {"deepest": "heavy", "heavy": split.root_tree.name}
    # topic, written by the root, crosses both boundaries on its way to "deep"
    assert split.crossing("heavy").sends == ("topic",)
    assert split.crossing("deepest").sends == ("mode", "topic")
    assert split.crossing("heavy").receives == ("depth", "mode", "result")


def test_a_boundary_inside_an_agent_tool_is_split_off():
    helper = Agent("helper").instruct("{topic}").outputs("help").execution_boundary("helping")
    tree = Agent("a").outputs("topic") >> Agent("lead").tool(helper)
    split = to_apps(tree, {"helping": URL})
    lead = next(n for n in split.root_tree.walk() if n.name == "lead")
    (spec,) = [tool for tool in lead.tools if isinstance(tool, AgentToolSpec)]
    assert isinstance(spec.agent, RemoteAgentNode) and spec.agent.reads_keys == {"topic"}


def test_a_strict_pipeline_splits_each_part_checked_with_what_it_is_sent():
    split = to_apps(pipeline().strict(), {"heavy": URL})
    assert split.report.ok
    assert split.services["heavy"].root_agent.accepts == ("topic",)


def test_the_report_checks_every_part_with_the_keys_it_is_sent():
    split = to_apps(pipeline(), {"heavy": URL})
    report = split.report
    assert report.ok and set(report.services) == {"heavy"}
    assert report.root.root == split.root_tree.name
    # the service reads topic before writing it: sent, it holds from the start
    assert "read-before-write" not in report.services["heavy"].codes()
    # keys the caller reads are not "never read" in the service
    assert "dead-state" not in report.services["heavy"].codes()
    text = report.to_text()
    assert f"-> heavy ({CARD}): sends topic; receives heavy_done, mode, result" in text


def test_a_key_read_but_written_nowhere_is_reported_as_in_one_process():
    tree = Agent("a") >> Agent("b").instruct("{missing}").execution_boundary("heavy")
    split = to_apps(tree, {"heavy": URL})
    assert split.crossing("heavy").sends == ("missing",)
    assert "read-before-write" in split.report.whole.codes()
    assert "read-before-write" in split.report.root.codes()  # at the RemoteAgent now


def test_a_scripted_backend_scripts_the_agents_of_every_part():
    backend = mock_backend({"a": "x", "b": "y", "c": "z"})
    to_apps(pipeline(), {"heavy": URL}, backend=backend)  # no part refuses the others' scripts
    with pytest.raises(BuildError, match="no LLM agent of that name"):
        to_apps(pipeline(), {"heavy": URL}, backend=mock_backend({"bb": "y"}))


def test_mermaid_draws_the_boundary_and_the_split_remote_agent():
    diagram = pipeline(url=CARD).to_mermaid()
    assert f'subgraph n1["service heavy: {CARD}"]' in diagram
    split = to_apps(pipeline(), {"heavy": URL})
    drawn = to_mermaid(split.root_tree)
    assert f"heavy (A2A: {URL})<br/>sends: topic<br/>receives: heavy_done, mode, result" in drawn
    assert "subgraph" not in drawn
    assert "-. result .->" in drawn  # c still reads what comes back


# -- agent folders -----------------------------------------------------------------------------
SPLIT_REF = "tests.support.split:PIPELINE"  # the pipeline of tests/support/split.py
SPLIT_URLS = {"heavy": "http://127.0.0.1:9003/a2a/heavy"}


def test_agent_folders_hold_each_part_and_the_service_card(tmp_path):
    from tests.support.split import PIPELINE

    folders = write_agent_folders(PIPELINE, tmp_path, SPLIT_REF, urls=SPLIT_URLS)
    assert folders == {"root": tmp_path / "root", "heavy": tmp_path / "heavy"}
    for folder in folders.values():
        assert (folder / "__init__.py").read_text() == "from . import agent\n"
        compile((folder / "agent.py").read_text(), str(folder / "agent.py"), "exec")
    assert (
        "load_part(\n    'tests.support.split:PIPELINE',\n    'heavy',"
        in (tmp_path / "heavy" / "agent.py").read_text()
    )
    assert not (tmp_path / "root" / "agent.json").exists()
    card = json.loads((tmp_path / "heavy" / "agent.json").read_text())
    # api_server --a2a answers at /a2a/<folder>, without a trailing slash
    assert (card["name"], card["url"]) == ("heavy", "http://127.0.0.1:9003/a2a/heavy")
    (extension,) = card["capabilities"]["extensions"]
    assert extension["params"] == {
        "reads": ["question", "topic"],
        "writes": ["heavy_done", "question", "result"],
        "reads_any": False,  # a boundary sends exactly the keys the split found
    }


def test_load_part_builds_the_app_of_one_part():
    served = load_part(SPLIT_REF, "heavy", urls=SPLIT_URLS)
    assert isinstance(served.root_agent, ServedRootAgent)
    entry = load_part(SPLIT_REF, urls=SPLIT_URLS)
    remote = next(a for a in entry.root_agent.sub_agents if a.name == "heavy")
    assert isinstance(remote, FluentRemoteAgent)
    with pytest.raises(BuildError, match="no execution boundary named 'heavvy'") as raised:
        load_part(SPLIT_REF, "heavvy", urls=SPLIT_URLS)
    assert "did you mean 'heavy'?" in str(raised.value)


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("tests.support.split", "must be 'package.module:name'"),
        ("tests.support.nowhere:PIPELINE", "cannot import 'tests.support.nowhere'"),
        ("tests.support.split:PIPELNE", "has no 'PIPELNE'"),
    ],
)
def test_a_module_ref_that_names_nothing_is_refused(ref, message):
    with pytest.raises(BuildError, match=message):
        load_part(ref, urls=SPLIT_URLS)


def test_agent_folders_refuse_a_ref_to_another_pipeline_or_a_taken_root(tmp_path):
    from tests.support.split import PIPELINE

    with pytest.raises(BuildError, match="names another pipeline than the one given"):
        write_agent_folders(pipeline(), tmp_path, SPLIT_REF, urls=SPLIT_URLS)
    with pytest.raises(BuildError, match="the root folder cannot be named 'heavy'"):
        write_agent_folders(PIPELINE, tmp_path, SPLIT_REF, urls=SPLIT_URLS, root="heavy")
