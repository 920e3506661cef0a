"""Contract checking on a 100-node pipeline that uses every node kind.

The pipeline: 10 stages, each `S.capture -> classifier -> Route(2 branches) -> FanOut(2) ->
map_over(body) -> loop(2 agents) until ... -> fallback -> race -> timeout -> gate`, i.e. about
100 IR nodes with templates, C specs, Route keys and S steps. Measured, interleaved in one run:

  check_contracts(ir)      every registered check (budget < 100 ms, so a check on every build goes unnoticed; goal < 10 ms)
  check, builder given     the same from the builder, its IR cache cleared (includes to_ir())
  .build()                 for scale: compiling the same pipeline to native ADK agents

The "raw ADK" column holds `.build()` of the same pipeline (IR cache cleared): the ratio says
what a check costs next to compiling (a `.strict()` build pays both).

    python -m bench.bench_contracts [--repeat N]
"""

from __future__ import annotations

import argparse
from typing import Any

from bench import budget_row, info_row, interleave, report
from bench.bench_build import forget_ir

STAGES = 4


def hundred_node_pipeline() -> Any:
    from adk_fluent import Agent, C, Route, S, gate, map_over, race, timeout, until

    steps: list[Any] = []
    for i in range(STAGES):
        classifier = Agent(f"classifier_{i}").instruct(f"Classify {{question_{i}}}.")
        steps += [
            S.capture(f"question_{i}"),
            classifier.outputs(f"intent_{i}"),
            Route(f"intent_{i}")
            .eq("a", Agent(f"branch_a_{i}").instruct(f"{{intent_{i}}}").outputs(f"answer_{i}"))
            .otherwise(Agent(f"branch_b_{i}").context(C.user_only()).outputs(f"answer_{i}")),
            Agent(f"left_{i}").outputs(f"left_{i}")
            | Agent(f"right_{i}").instruct(f"{{answer_{i}}}").outputs(f"right_{i}"),
            S.set(**{f"docs_{i}": ["x", "y"]}),
            map_over(
                f"docs_{i}",
                Agent(f"summariser_{i}").instruct(f"{{doc_{i}}}").outputs(f"summary_{i}"),
                item_key=f"doc_{i}",
                output_key=f"summaries_{i}",
            ),
            (
                Agent(f"critic_{i}").instruct(f"{{draft_{i}?}}").outputs(f"critique_{i}")
                >> Agent(f"writer_{i}").instruct(f"{{critique_{i}}}").outputs(f"draft_{i}")
            )
            * until(lambda s, i=i: bool(s.get(f"draft_{i}")), max=3),
            Agent(f"primary_{i}").outputs(f"final_{i}")
            // Agent(f"backup_{i}").outputs(f"final_{i}"),
            race(
                Agent(f"fast_{i}").outputs(f"quick_{i}"), Agent(f"slow_{i}").outputs(f"quick_{i}")
            ),
            timeout(
                Agent(f"presenter_{i}")
                .instruct(f"{{final_{i}}} {{summaries_{i}}} {{quick_{i}}} {{left_{i}}}")
                .context(C.user_only() + C.from_state(f"right_{i}")),
                30,
            ),
            gate(True, "Continue?", name=f"gate_{i}"),
        ]
    pipeline = steps[0]
    for step in steps[1:]:
        pipeline = pipeline >> step
    return pipeline


def main() -> None:
    parser = argparse.ArgumentParser(description="contract checker benchmark")
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()

    from adk_fluent import check_contracts
    from adk_fluent.ir.nodes import walk
    from adk_fluent.testing import mock_backend

    pipeline = hundred_node_pipeline()
    ir = pipeline.to_ir()
    nodes = sum(1 for _ in walk(ir))
    first = check_contracts(ir)
    backend = mock_backend({})  # scripted models: compile without resolving a real model

    samples = interleave(
        {
            "check": lambda: check_contracts(ir),
            "check_builder": lambda: check_contracts(forget_ir(pipeline)),
            "build": lambda: forget_ir(pipeline).build(backend=backend),
        },
        repeat=args.repeat,
    )
    rows = [
        budget_row(
            f"check_contracts, {nodes}-node IR (budget)",
            samples["check"],
            0.100,
            samples["build"],
        ),
        budget_row(
            f"check_contracts, {nodes}-node IR (our goal)",
            samples["check"],
            0.010,
            samples["build"],
        ),
        info_row(
            "check_contracts(builder), IR uncached", samples["check_builder"], samples["build"]
        ),
    ]
    report(
        "contract checker",
        rows,
        notes=(
            f"{nodes} IR nodes; every node kind; report: {len(first.errors)} errors, "
            f"{len(first.warnings)} warnings, {len(first.infos)} info, "
            f"{len(first.satisfied)} contracts hold. 'raw ADK' column: .build() of the same "
            "pipeline (native ADK agents), for scale.",
        ),
    )


if __name__ == "__main__":
    main()
