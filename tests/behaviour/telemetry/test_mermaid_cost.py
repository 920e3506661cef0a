"""The cost estimate drawn on the diagram (`to_mermaid(cost=...)`, issue 39), and beside it what
recorded runs did (`actual=`): two turns through the Runner with cost_attribution and scripted
token counts, on both ADK ends. Each LLM agent's box carries its own figures, per run; an
agent tool's sub-run, whose events are not the turn's, says nothing was recorded."""

from __future__ import annotations

import re

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.telemetry import TrafficAssumptions, cost_attribution, estimate_cost, usage
from adk_fluent.testing import call, mock_backend, with_usage


def lookup(order_id: str) -> dict:
    """Look an order up."""
    return {"status": "shipped"}


def support():
    checker = Agent("checker").instruct("Check the answer.")
    return Agent("triage").instruct("Triage.").outputs("topic") >> Agent("answer").instruct(
        "Answer about {topic}."
    ).tool(lookup).agent_tool(checker)


def boxes(diagram: str) -> dict[str, list[str]]:
    """Each box's label lines, by the agent's name (its first line)."""
    found = {}
    for label in re.findall(r'^\s+n\d+\["(.*)"\]$', diagram, re.MULTILINE):
        name, *lines = label.split("<br/>")
        found[name] = lines
    return found


ASSUMED = TrafficAssumptions(
    tokens={"triage": (1200, 30), "answer": (2000, 60), "checker": (300, 5)},
    calls={"answer": 2},
)


async def test_each_agent_box_shows_its_estimate_and_what_the_runs_did():
    tree = support()
    backend = mock_backend(
        {
            "triage": [
                with_usage("orders", input=1200, output=30),
                with_usage("refunds", input=1000, output=20),
            ],
            "answer": [
                with_usage(call("lookup", order_id="A7"), input=2000, output=40),
                with_usage("It shipped.", input=2100, output=120),
                with_usage("Refunded.", input=1900, output=60),
            ],
        }
    )
    config = ExecutionConfig(middleware=[cost_attribution()])
    first = await tree.run("Where is A7?", backend=backend, config=config, session_id="s")
    second = await tree.run("Refund it.", backend=backend, config=config, session_id="s")
    runs = first + second
    report = usage(runs)
    assert len(report.by_invocation()) == 2
    estimate = estimate_cost(tree, ASSUMED)
    root = tree.to_ir().name

    drawn = boxes(tree.to_mermaid(cost=ASSUMED, actual=runs))
    answer = report.by_agent()[f"{root}/answer"]
    triage = report.by_agent()[f"{root}/triage"]
    assert (answer.calls, triage.calls) == (3, 2)
    assert drawn["triage"] == [
        "writes: topic",
        f"est. ${estimate.node('triage').cost_usd:.6f}, 1 call per run",
        f"actual ${triage.cost_usd / 2:.6f}, 1 call per run",
    ]
    assert drawn["answer"] == [
        f"est. ${estimate.node('answer').cost_usd:.6f}, 2 calls per run",
        f"actual ${answer.cost_usd / 2:.6f}, 1.5 calls per run",
    ]
    # the checker was never called: the estimate prices it, no run recorded it
    assert drawn["checker"] == [
        f"est. ${estimate.node('checker').cost_usd:.6f}, 1 call per run",
        "actual: none recorded",
    ]
    # the same from a CostModel, a report, or the estimate alone; the plain diagram is unchanged
    assert tree.to_mermaid(cost=estimate, actual=report) == tree.to_mermaid(
        cost=ASSUMED, actual=runs
    )
    assert boxes(tree.to_mermaid(cost=ASSUMED))["answer"] == drawn["answer"][:1]
    plain = tree.to_mermaid()
    assert "est." not in plain and "actual" not in plain
    assert tree.to_mermaid(cost=False) == plain
    # cost=True: the default assumptions (every agent 500 in / 200 out per call)
    default = estimate_cost(tree)
    assert boxes(tree.to_mermaid(cost=True))["triage"][1] == (
        f"est. ${default.node('triage').cost_usd:.6f}, 1 call per run"
    )
