"""The edge API and what the analyses make of it, without running anything: `.then()` (a
complete edge is `>>`), chunked edges and FanOut join / merge in the IR, the native agents they
compile to, visibility, mermaid, the data flow and the cost estimate."""

from __future__ import annotations

from adk_fluent import Agent, FanOut, S, check_contracts
from adk_fluent.adk.compat import installed_class
from adk_fluent.adk.custom_agents.chunked import ChunkedEdgeAgent
from adk_fluent.adk.custom_agents.fanout import FanOutAgent
from adk_fluent.analysis.cost import TrafficAssumptions, estimate_cost
from adk_fluent.analysis.node_facts import node_facts
from adk_fluent.analysis.visibility import infer_visibility, silent_internal_agents
from adk_fluent.ir.edges import FanOutMerge
from adk_fluent.ir.nodes import ChunkedEdgeNode, ParallelAgentNode, body_output_key


def writer():
    return Agent("writer").instruct("Write.").outputs("draft")


def speaker():
    return Agent("speaker").instruct("Say: {chunk}").outputs("spoken")


def test_a_complete_edge_is_the_same_pipeline_as_the_operator():
    assert writer().then(speaker()).to_ir() == (writer() >> speaker()).to_ir()
    assert writer().then(speaker(), edge="complete").to_ir() == (writer() >> speaker()).to_ir()


def test_a_chunked_edge_is_one_node_with_its_producer_and_consumer():
    edge = writer().then(speaker(), edge="chunked", by=80, key="piece").to_ir()
    assert isinstance(edge, ChunkedEdgeNode)
    assert edge.name == "chunked__writer__speaker"
    assert [child.name for child in edge.children] == ["writer", "speaker"]
    assert (edge.by, edge.key, edge.writes_keys) == (80, "piece", frozenset({"piece"}))
    default = writer().then(speaker(), edge="chunked").named("tts").to_ir()
    assert (default.name, default.by, default.key) == ("tts", "sentence", "chunk")
    assert body_output_key(default) == "spoken"


def test_a_chunked_edge_composes_as_one_step():
    pipeline = Agent("planner") >> writer().then(speaker(), edge="chunked") >> Agent("closer")
    names = [child.name for child in pipeline.to_ir().children]
    assert names == ["planner", "chunked__writer__speaker", "closer"]


def test_fanout_join_and_merge_land_in_the_ir_and_keep_it_a_unit():
    fan = FanOut(Agent("a"), Agent("b"), join="first_complete").merge("dict", into="results")
    node = fan.to_ir()
    assert isinstance(node, ParallelAgentNode)
    assert node.join == "first_complete"
    assert node.merge == FanOutMerge("dict", "results")
    assert body_output_key(node) == "results"
    assert FanOut(Agent("a"), Agent("b"), join="complete").to_ir().join is None
    assert (Agent("a") | Agent("b")).first_complete().to_ir().join == "first_complete"
    outer = fan | Agent("c")  # a merging FanOut is not flattened into its neighbour
    assert [child.name for child in outer.to_ir().children] == ["fanout__a__b", "c"]
    plain = (Agent("a") | Agent("b")) | Agent("c")
    assert [child.name for child in plain.to_ir().children] == ["a", "b", "c"]


def test_builders_stay_immutable():
    fan = FanOut(Agent("a"), Agent("b"))
    merged = fan.merge("concat", into="report", separator="\n---\n")
    first = fan.first_complete()
    assert fan.to_ir().merge is None and fan.to_ir().join is None
    assert merged.to_ir().merge.separator == "\n---\n" and merged.to_ir().join is None
    assert first.to_ir().merge is None


def test_without_join_or_merge_a_fanout_compiles_to_adks_parallel_agent():
    built = FanOut(Agent("a"), Agent("b")).build()
    assert type(built) is installed_class("ParallelAgent")
    merged = FanOut(Agent("a"), Agent("b").outputs("b_out")).merge("dict", into="r").build()
    assert type(merged) is FanOutAgent
    assert merged.branch_names == ("a", "b") and merged.output_keys == (None, "b_out")
    first = FanOut(Agent("a"), Agent("b")).first_complete().build()
    assert type(first) is FanOutAgent and first.join == "first_complete"


def test_fanout_agent_keeps_the_fanouts_callbacks_and_description():
    def before(callback_context):
        return None

    fan = (
        FanOut(Agent("a"), Agent("b"))
        .merge("dict", into="r")
        .description("searches")
        .before_agent(before)
    )
    built = fan.build()
    assert built.description == "searches"
    assert built.before_agent_callback


def test_a_chunked_edge_compiles_to_its_agent():
    built = writer().then(speaker(), edge="chunked", by="line").build()
    assert isinstance(built, ChunkedEdgeAgent)
    assert [a.name for a in built.sub_agents] == ["writer", "speaker"]
    assert (built.by, built.key, built.output_key) == ("line", "chunk", "spoken")


def test_visibility_is_the_same_as_for_a_sequence():
    chunked = infer_visibility(writer().then(speaker(), edge="chunked").to_ir())
    plain = infer_visibility((writer() >> speaker()).to_ir())
    assert chunked["writer"] == plain["writer"] == "internal"
    assert chunked["speaker"] == plain["speaker"] == "user"
    followed = infer_visibility((writer().then(speaker(), edge="chunked") >> Agent("c")).to_ir())
    assert followed["speaker"] == "internal"
    silent = Agent("writer").instruct("Write.").then(speaker(), edge="chunked")
    assert silent_internal_agents(silent.to_ir()) == []  # its reply reaches the speaker


def test_mermaid_labels_the_chunked_edge_and_the_fanout_join():
    text = writer().then(speaker(), edge="chunked").to_mermaid()
    assert '-- "chunked by sentence" -->' in text
    assert (
        '"chunked by 200 characters"'
        in writer().then(speaker(), edge="chunked", by=200).to_mermaid()
    )
    fan = FanOut(Agent("a"), Agent("b")).first_complete().merge("dict", into="results")
    drawn = (fan >> Agent("c").reads("results")).to_mermaid()
    assert '_join(("first_complete, merge dict -> results"))' in drawn
    assert "_join -. results .-> " in drawn  # the merge writes the key the reader reads
    plain = FanOut(Agent("a"), Agent("b")).to_mermaid()
    assert "_join(( ))" in plain


def test_dataflow_knows_the_merge_and_chunk_keys_are_written():
    fan = FanOut(Agent("a").outputs("a_out"), Agent("b")).merge("dict", into="results")
    report = check_contracts(fan >> Agent("c").instruct("Use {results} and {a_out}."))
    assert not report.failing(strict=True), report.to_text()
    edge = writer().then(speaker(), edge="chunked") >> Agent("c").instruct("{spoken} {draft}")
    assert not check_contracts(edge).failing(strict=True)
    unread = check_contracts(Agent("c").instruct("{results}") >> fan)
    assert "read-before-write" in unread.codes()


def test_the_cost_estimate_runs_the_consumer_once_per_chunk():
    tree = writer().then(speaker(), edge="chunked")
    given = estimate_cost(tree, TrafficAssumptions(chunks={"chunked__writer__speaker": 5}))
    assert given.node("speaker").expected_calls == 5
    assert given.node("writer").expected_calls == 1
    guessed = estimate_cost(tree, TrafficAssumptions(avg_output_tokens=100))
    assert guessed.node("speaker").expected_calls == 4  # 100 tokens / ~25 a sentence
    assert any("chunked edge" in note for note in guessed.notes)
    fan = FanOut(Agent("a"), Agent("b")).first_complete()
    first = estimate_cost(fan, TrafficAssumptions())
    assert first.expected_calls == 2 and any("first_complete" in n for n in first.notes)


def test_telemetry_names_the_edge_kind():
    facts = node_facts(writer().then(speaker(), edge="chunked").to_ir())
    assert facts["chunked__writer__speaker"].kind == "chunked_edge"
    assert facts["chunked__writer__speaker"].writes == ("chunk",)


def test_state_steps_may_be_fanout_branches_and_merge_as_none():
    fan = FanOut(Agent("a"), S.set(flag="x")).merge("dict", into="results").build()
    assert fan.output_keys == (None, None)
