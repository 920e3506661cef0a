"""The modality contract says what ADK does: every content pipeline of the contract corpus is run
for two turns of one session, each agent replying with the modalities it declares, and the
media each agent that declared `.accepts()` was really sent (turn 1, and turn 2 from history)
is what the checker reported (an error for turn 1, a warning for only turn 2), agent by agent.
An agent tool's media never reach the agent that calls it, as `modality-dropped` says."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, check_contracts
from adk_fluent.analysis.contracts.content import content_flow
from adk_fluent.ir.content import MEDIA, Modality, content_spec_of, produced_modalities
from adk_fluent.ir.nodes import LlmAgentNode
from adk_fluent.testing import call, mock_backend, repeat
from tests.behaviour.content.media import reply_with, request_modalities
from tests.unit.contracts.corpus import content as corpus
from tests.unit.contracts.corpus.broken import BROKEN
from tests.unit.contracts.corpus.correct import CORRECT

# the corpus' content pipelines whose paths a script can take (agent tools are below)
CASES = [
    name
    for name in vars(corpus)
    if (name in BROKEN or name in CORRECT) and name != "agent_tool_drops_generated_image"
]
ROUTE_LABELS = {"classifier": "draw"}  # the route case takes its drawing branch


def _answer(node):
    """What an agent replies: a route label, JSON for an output_schema, else what it declares."""
    produced = produced_modalities(node)
    if node.name in ROUTE_LABELS:
        return ROUTE_LABELS[node.name]
    if Modality.STRUCTURED in produced:
        return '{"total": 9.5, "currency": "EUR"}'  # the corpus' Invoice
    return reply_with(produced, node.name)


def _scripts(root):
    return {
        node.name: repeat(_answer(node)) for node in root.walk() if isinstance(node, LlmAgentNode)
    }


def _refused(node, requests):
    """The media modalities in `requests` that `node` declared it does not accept."""
    spec = content_spec_of(node)
    seen = set().union(*(request_modalities(r) for r in requests)) if requests else set()
    return {m for m in seen & MEDIA if not spec.takes(m)}


@pytest.mark.parametrize("name", CASES)
async def test_what_the_checker_says_each_agent_is_shown_is_what_adk_sends_it(name):
    case = BROKEN.get(name) or CORRECT[name]
    pipeline = case.build()
    root = pipeline.to_ir()
    backend = mock_backend(_scripts(root))
    await pipeline.run("first turn", backend=backend, session_id="s")
    first = {agent: len(calls) for agent, calls in backend.requests.items()}
    await pipeline.run("second turn", backend=backend, session_id="s")

    report = check_contracts(pipeline)
    errors = {i.node for i in report if i.code == "modality-mismatch" and i.severity == "error"}
    warned = {i.node for i in report if i.code == "modality-mismatch" and i.severity == "warning"}
    flow = {c.node.name: c for c in content_flow(root).consumers}
    for consumer in flow.values():
        node = consumer.node
        if node.content_spec.accepts is None:
            continue
        requests = backend.requests.get(node.name, [])
        now = _refused(node, requests[: first.get(node.name, 0)])
        ever = _refused(node, requests)
        # what the flow predicts, per turn, against what the model requests held
        predicted_now = {m for s in consumer.seen.values() if not s.earlier
                         for m in consumer.unaccepted(s)}  # fmt: skip
        predicted_ever = {m for s in consumer.seen.values() for m in consumer.unaccepted(s)}
        assert now == predicted_now, (name, node.name, "turn 1")
        assert ever == predicted_ever, (name, node.name, "turn 2")
        assert (node.name in errors) == bool(now), (name, node.name, report.to_text())
        assert (node.name in warned) == bool(ever and not now), (name, node.name)


async def test_an_agent_tools_image_never_reaches_the_agent_that_calls_it():
    pipeline = BROKEN["agent_tool_drops_generated_image"].build()
    painter = next(n for n in pipeline.to_ir().walk() if n.name == "painter")
    backend = mock_backend(
        {
            "planner": [call("painter", request="a cat"), "Here is the plan."],
            "painter": repeat(reply_with(produced_modalities(painter), "painter")),
        }
    )
    await pipeline.run("Plan a poster.", backend=backend)

    second = backend.requests["planner"][1]
    assert not request_modalities(second) & MEDIA  # the painter drew, the planner got text
    responses = [
        p.function_response.response
        for c in second.contents
        for p in c.parts
        if p.function_response is not None
    ]
    assert responses and "painter answered" in str(responses)
    assert "modality-dropped" in check_contracts(pipeline).codes()


async def test_the_same_pipeline_with_the_painter_as_a_step_passes_the_image_on():
    planner = Agent("planner").instruct("Plan.").accepts("image")
    pipeline = corpus.painter() >> planner
    backend = mock_backend(
        {"painter": [reply_with({Modality.IMAGE}, "painter")], "planner": ["Plan."]}
    )
    await pipeline.run("Plan a poster.", backend=backend)
    assert request_modalities(backend.requests["planner"][0]) & MEDIA
    assert not check_contracts(pipeline).failing(strict=True)
