"""The cost estimate without running (analysis/cost.py) on a 100-node and a 20-node tree.

Each tree is a pipeline of stages (and plain agents to make up the node count); a stage is `classifier -> Route(agent | pipeline of two) ->
FanOut(2) -> loop of two agents -> map_over(agent)`, 14 IR nodes, every agent priced (one with
`.model_select`, one with an agent tool). The assumptions name a share of the agents, routes,
loops and maps (tokens, calls, branch probabilities, iterations, items), as a user's would.
Measured, interleaved in one run:

  estimate_cost(ir)          the walk, the checks of every name and the pricing (goal < 10 ms
                             for 100 nodes, issue 15)
  estimate_cost(builder)     the same from the builder, its IR cache cleared (includes to_ir())
  .build()                   for scale, in the "raw ADK" column: compiling the same tree to
                             native ADK agents

    python -m bench.bench_cost_estimate [--repeat N]
"""

from __future__ import annotations

import argparse
from typing import Any

from bench import budget_row, info_row, interleave, report
from bench.bench_build import forget_ir


def researcher_tool(topic: str) -> str:
    """Look up `topic`."""
    return topic


def stage(i: int) -> list[Any]:
    """The steps of one stage (14 IR nodes)."""
    from adk_fluent import Agent, Route, map_over
    from adk_fluent.ir.model_selection import ModelCandidate

    classifier = Agent(f"classifier_{i}").instruct("Classify.").outputs(f"intent_{i}")
    if i % 2:
        classifier = classifier.model_select(
            "cost_optimized",
            [ModelCandidate("gemini-2.5-flash-lite"), ModelCandidate("gemini-2.5-flash")],
        )
    return [
        classifier,
        Route(f"intent_{i}")
        .eq("billing", Agent(f"biller_{i}").model("gemini-2.5-pro"))
        .otherwise(Agent(f"triage_{i}") >> Agent(f"answerer_{i}").tool(researcher_tool)),
        Agent(f"left_{i}").outputs(f"left_{i}") | Agent(f"right_{i}").outputs(f"right_{i}"),
        (Agent(f"writer_{i}") >> Agent(f"critic_{i}")) * 3,
        map_over(f"docs_{i}", Agent(f"summariser_{i}"), item_key=f"doc_{i}"),
    ]


def tree(nodes: int) -> tuple[Any, int]:
    """A pipeline of exactly `nodes` IR nodes: stages, plain agents to make up the count, and a
    presenter calling an agent tool; and the number of stages."""
    from adk_fluent import Agent, Pipeline

    stages, pad = divmod(nodes - 3, 14)  # 3: the pipeline, the presenter and its tool
    helper = Agent("helper").instruct("Help.")
    steps = [step for i in range(stages) for step in stage(i)]
    steps += [Agent(f"extra_{i}") for i in range(pad)]
    return Pipeline(*steps, Agent("presenter").tool(helper), name="pipeline"), stages


def assumptions(stages: int) -> Any:
    from adk_fluent.analysis.cost import TrafficAssumptions

    return TrafficAssumptions(
        invocations=10_000,
        tokens={f"summariser_{i}": (2_000, 300) for i in range(stages)},
        calls={f"answerer_{i}": 2 for i in range(stages)},
        branch_probabilities={"billing": 0.4},
        loop_iterations={f"loop__writer_{i}__critic_{i}": 2 for i in range(0, stages, 2)},
        items={f"map_docs_{i}": 5 for i in range(stages)},
        tool_calls={"helper": 1.5},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="cost estimate benchmark")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    from adk_fluent.analysis.cost import estimate_cost
    from adk_fluent.ir.nodes import walk
    from adk_fluent.testing import mock_backend

    backend = mock_backend({})  # scripted models: compile without resolving a real model
    rows = []
    notes = []
    for size in (100, 20):
        pipeline, stages = tree(size)
        ir = pipeline.to_ir()
        nodes = sum(1 for _ in walk(ir))
        assumed = assumptions(stages)
        first = estimate_cost(ir, assumed)
        samples = interleave(
            {
                "ir": lambda ir=ir, assumed=assumed: estimate_cost(ir, assumed),
                "builder": lambda p=pipeline, assumed=assumed: estimate_cost(forget_ir(p), assumed),
                "build": lambda p=pipeline: forget_ir(p).build(backend=backend),
            },
            repeat=args.repeat if size == 20 else max(args.repeat // 4, 20),
        )
        rows += [
            budget_row(
                f"estimate_cost, {nodes}-node IR",
                samples["ir"],
                0.010,
                samples["build"],
            ),
            info_row(
                f"estimate_cost(builder), {nodes} nodes, IR uncached",
                samples["builder"],
                samples["build"],
            ),
        ]
        notes.append(
            f"{nodes} IR nodes, {len(first.nodes)} LLM agents priced: "
            f"{first.per_invocation:.6f} USD per run, {first.total_estimated:.2f} USD for "
            f"{first.invocations:,g} runs."
        )
    report(
        "cost estimate",
        rows,
        notes=(
            *notes,
            "'raw ADK' column: .build() of the same tree (native ADK agents), for scale.",
        ),
    )


if __name__ == "__main__":
    main()
