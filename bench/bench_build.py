"""Build and compile a 100-agent tree with adk-fluent vs constructing the same ADK objects by hand.

Two shapes, each with 100 LLM agents (model, instruction with `{key}` templates, output_key, one
tool): `flat` is one Pipeline of 100 agents; `nested` is a Pipeline of 10 FanOuts, each with two
Pipelines of an agent followed by a FanOut of 4 agents (100 agents + 50 composites).

Measured, interleaved in one run:
  to_ir()            builder -> frozen IR                        (spec budget < 50 ms)
  compile            IR -> native ADK agents (backend.compile_tree) (spec budget < 200 ms)
  .build()           to_ir + name check + compile, what users call (goal <= 1.3x hand-written)
  builders + build   also constructing the builders (`Agent(...)...` chains, `>>` / `|`)
  hand-written       LlmAgent(...) / SequentialAgent(...) / ParallelAgent(...) directly

ADK 2.x warns DeprecationWarning when constructing the workflow agents; the hand-written path
silences it for fairness (adk-fluent silences its own).

    python -m bench.bench_build [--repeat N]
"""

from __future__ import annotations

import argparse
import functools
import operator
import warnings
from collections.abc import Callable
from typing import Any

from bench import budget_row, info_row, interleave, ratio_row, report

N_AGENTS = 100
STAGES = 10  # nested shape: 10 stages x 2 branches x (1 agent + a FanOut of 4) = 100 agents
MODEL = "bench-model"  # a plain string: nothing is resolved at construction time


def lookup(query: str) -> dict[str, str]:
    """Look something up."""
    return {"query": query, "answer": "42"}


def instruction(i: int) -> str:
    if i == 0:
        return "Read the request and note what matters."
    return f"Refine step {i}. Previous result: {{out_{i - 1}}}. Notes, if any: {{notes?}}"


# -- hand-written ADK -----------------------------------------------------------------------------
def hand_agent(i: int) -> Any:
    from google.adk.agents import LlmAgent

    return LlmAgent(
        name=f"agent_{i}",
        model=MODEL,
        instruction=instruction(i),
        output_key=f"out_{i}",
        tools=[lookup],
    )


def hand_flat() -> Any:
    from google.adk.agents import SequentialAgent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return SequentialAgent(name="pipeline", sub_agents=[hand_agent(i) for i in range(N_AGENTS)])


def hand_nested() -> Any:
    from google.adk.agents import ParallelAgent, SequentialAgent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        stages, i = [], 0
        for k in range(STAGES):
            branches = []
            for b in "ab":
                lead = hand_agent(i)
                fan = ParallelAgent(
                    name=f"stage_{k}_{b}_fan", sub_agents=[hand_agent(i + 1 + j) for j in range(4)]
                )
                i += 5
                branches.append(SequentialAgent(name=f"stage_{k}_{b}", sub_agents=[lead, fan]))
            stages.append(ParallelAgent(name=f"stage_{k}", sub_agents=branches))
        return SequentialAgent(name="pipeline", sub_agents=stages)


# -- adk-fluent -----------------------------------------------------------------------------------
def fluent_agent(i: int) -> Any:
    from adk_fluent import Agent

    return Agent(f"agent_{i}", MODEL).instruct(instruction(i)).outputs(f"out_{i}").tool(lookup)


def fluent_flat() -> Any:
    # what users write: a >> b >> c ...
    agents = [fluent_agent(i) for i in range(N_AGENTS)]
    return functools.reduce(operator.rshift, agents).named("pipeline")


def fluent_nested() -> Any:
    from adk_fluent import FanOut, Pipeline

    stages, i = [], 0
    for k in range(STAGES):
        branches = []
        for b in "ab":
            lead = fluent_agent(i)
            fan = FanOut(*[fluent_agent(i + 1 + j) for j in range(4)], name=f"stage_{k}_{b}_fan")
            i += 5
            branches.append(Pipeline(lead, fan, name=f"stage_{k}_{b}"))
        stages.append(FanOut(*branches, name=f"stage_{k}"))
    return Pipeline(*stages, name="pipeline")


def describe(agent: Any) -> tuple[Any, ...]:
    """The fields both sides set, recursively: the two trees must be the same work."""
    return (
        type(agent).__name__,
        agent.name,
        getattr(agent, "model", None),
        getattr(agent, "instruction", None),
        getattr(agent, "output_key", None),
        tuple(getattr(agent, "tools", ())),
        tuple(describe(child) for child in agent.sub_agents),
    )


SHAPES: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "flat": (fluent_flat, hand_flat),
    "nested": (fluent_nested, hand_nested),
}


def forget_ir(builder: Any) -> Any:
    """Drop the IR cached on every builder in the expression, so to_ir() does its full work
    (builders cache their IR: a value's IR is computed once)."""
    from adk_fluent.builder_core import BuilderBase

    stack = [builder]
    while stack:
        item = stack.pop()
        if isinstance(item, BuilderBase):
            item.__dict__.pop("_ir", None)
            stack.extend(item.__dict__.values())
        elif isinstance(item, tuple | list):
            stack.extend(item)
    return builder


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=60, help="repetitions per measurement")
    args = parser.parse_args(argv)

    from adk_fluent.backend import compile_tree

    rows = []
    for shape, (make_fluent, make_hand) in SHAPES.items():
        builder = make_fluent()
        ir = builder.to_ir()
        with warnings.catch_warnings():
            warnings.simplefilter(
                "error", DeprecationWarning
            )  # adk-fluent must not leak the warning
            built = builder.build()
        if describe(built) != describe(make_hand()):
            raise SystemExit(f"{shape}: the adk-fluent tree differs from the hand-written one")
        samples = interleave(
            {
                "hand": make_hand,
                "ir": lambda builder=builder: forget_ir(builder).to_ir(),
                "compile": lambda ir=ir: compile_tree(ir),
                "build": lambda builder=builder: forget_ir(builder).build(),
                "scratch": lambda make_fluent=make_fluent: make_fluent().build(),
                "builders": make_fluent,
            },
            repeat=args.repeat,
        )
        rows += [
            budget_row(f"{shape}: to_ir() (uncached)", samples["ir"], 0.050),
            budget_row(f"{shape}: compile IR -> ADK", samples["compile"], 0.200, samples["hand"]),
            ratio_row(
                f"{shape}: .build() (uncached to_ir + compile)",
                samples["build"],
                samples["hand"],
                1.3,
            ),
            ratio_row(f"{shape}: builders + .build()", samples["scratch"], samples["hand"], 1.3),
            info_row(f"{shape}: builders only", samples["builders"], None),
        ]
    report(
        f"bench_build: {N_AGENTS} LLM agents (flat Pipeline; nested FanOuts), IR + compile vs hand-written ADK",
        rows,
        [
            f"medians of {args.repeat} interleaved repetitions after warm-up; raw ADK = constructing the same tree by hand"
        ],
    )


if __name__ == "__main__":
    main()
