"""Build and compile a 100-agent tree with adk-fluent vs constructing the same ADK objects by hand.

Two shapes, each with 100 LLM agents (model, instruction with `{key}` templates, output_key, one
tool): `flat` is one Pipeline of 100 agents; `nested` is a Pipeline of 10 FanOuts, each with two
Pipelines of an agent followed by a FanOut of 4 agents (100 agents + 50 composites).

Measured, interleaved in one run:
  to_ir()            builder -> frozen IR                        (budget < 50 ms)
  compile            IR -> native ADK agents (adk.compile.compile_tree) (budget < 200 ms)
  .build()           to_ir + name check + compile, what users call
  builders + build   also constructing the builders (`Agent(...)...` chains, `>>` / `|`)
  hand-written       LlmAgent(...) / SequentialAgent(...) / ParallelAgent(...) directly

A third shape, `chain`, is the whole of what a user writes and pays for, from nothing:
100 `Agent(f"a{i}", model).instruct(f"... {{k{i}?}}").outputs(f"k{i}")` chains joined by `>>`,
then `.build()`, against 100 `LlmAgent(...)` + one `SequentialAgent` written by hand, with the
ratio and the overhead per agent in microseconds ((adk-fluent - hand-written) / 100). Its goal
depends on the ADK line: at most 1.5x on 2.x and 3x on 1.x, whose agents construct about five
times faster, so the same overhead weighs more there.

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
from statistics import median
from typing import Any

from bench import budget_row, info_row, interleave, quick, ratio_row, repetitions, report

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


# -- the chain shape: builders + .build() from nothing vs the same by hand ------------------------
def chain_instruction(i: int) -> str:
    return f"Step {i}: carry on from {{k{i}?}}."


def fluent_chain() -> Any:
    """What users write: 100 agent chains joined by `>>`, then `.build()`."""
    from adk_fluent import Agent

    agents = [
        Agent(f"a{i}", MODEL).instruct(chain_instruction(i)).outputs(f"k{i}")
        for i in range(N_AGENTS)
    ]
    return functools.reduce(operator.rshift, agents).build()


def hand_chain(name: str) -> Any:
    """The same agents constructed directly; `name` is the Pipeline's default name."""
    from google.adk.agents import LlmAgent, SequentialAgent

    agents = [
        LlmAgent(name=f"a{i}", model=MODEL, instruction=chain_instruction(i), output_key=f"k{i}")
        for i in range(N_AGENTS)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return SequentialAgent(name=name, sub_agents=agents)


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
    from adk_fluent.api.builder import BuilderBase

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
    parser.add_argument(
        "--repeat", type=int, default=repetitions(60, 20), help="repetitions per measurement"
    )
    args = parser.parse_args(argv)

    from adk_fluent.adk.compile import compile_tree

    rows = []
    for shape, (make_fluent, make_hand) in ({} if quick() else SHAPES).items():  # quick: chain
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
                chain_goal(),
            ),
            ratio_row(
                f"{shape}: builders + .build()", samples["scratch"], samples["hand"], chain_goal()
            ),
            info_row(f"{shape}: builders only", samples["builders"], None),
        ]
    rows += chain_rows(args.repeat)
    report(
        f"bench_build: {N_AGENTS} LLM agents (flat Pipeline; nested FanOuts; chain from nothing), "
        "IR + compile vs hand-written ADK",
        rows,
        [
            f"medians of {args.repeat} interleaved repetitions after warm-up; raw ADK = constructing the same tree by hand",
            "chain: per-agent overhead = (median adk-fluent - median hand-written) / "
            f"{N_AGENTS}; the per-agent row shows each side's median / {N_AGENTS}",
        ],
    )


def chain_goal() -> float:
    """The build goal for the installed ADK line (the re-layout's goals: 1.5x on 2.x, 3x on 1.x)."""
    from importlib.metadata import version

    return {"1": 3.0}.get(version("google-adk").split(".", 1)[0], 1.5)


def chain_rows(repeat: int) -> list[Any]:
    """The chain shape: builders + `.build()` from nothing vs LlmAgent x100 + SequentialAgent."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # adk-fluent must not leak it
        built = fluent_chain()
    make_hand = functools.partial(hand_chain, built.name)
    if describe(built) != describe(make_hand()):
        raise SystemExit("chain: the adk-fluent tree differs from the hand-written one")
    samples = interleave({"hand": make_hand, "fluent": fluent_chain}, repeat=repeat)
    fluent, hand = median(samples["fluent"]), median(samples["hand"])
    overhead_us = (fluent - hand) / N_AGENTS * 1e6
    return [
        ratio_row(
            f"chain: {N_AGENTS} x Agent(...).instruct().outputs() >> ... .build()",
            samples["fluent"],
            samples["hand"],
            chain_goal(),
        ),
        info_row(
            f"chain: per agent (overhead {overhead_us:+.1f} µs per agent)",
            [t / N_AGENTS for t in samples["fluent"]],
            [t / N_AGENTS for t in samples["hand"]],
        ),
    ]


if __name__ == "__main__":
    main()
