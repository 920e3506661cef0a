"""The Workflow compile target (docs/workflow.md): a turn's overhead on the Workflow target
against the classic target and against the same graph written by hand with ADK's Workflow API.

The tree: reader >> FanOut(pros, cons) >> Loop(writer, critic, max_iterations=2), six LlmAgents
with scripted models that answer at once (eight model calls a turn), each turn on a new session
of a warm Runner (`to_runner()`), interleaved:

    workflow       adk-fluent, target="workflow"
    classic        adk-fluent, target="classic" (ADK's Sequential/Parallel/LoopAgent)
    hand workflow  a Workflow written by hand: START -> reader -> (pros, cons) -> join -> writer
                   -> critic -> a function node that routes back to the writer once -> closer;
                   LLM nodes in ADK's default single-turn mode (each sees only its input), no
                   plugins
    hand chat      the same graph with the agents in chat mode, each alone in a one-node
                   Workflow, as a hand-written graph must be for its agents to see the
                   conversation as the other variants' do
    hand classic   the same LlmAgents in SequentialAgent / ParallelAgent / LoopAgent, no plugins

Goal: the Workflow target within 1.15x of the hand-written chat graph (it adds adk-fluent's
plugins and the loop's start and check nodes); the other rows are for context.

    python -m bench.bench_workflow_target [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from bench import info_row, interleave_async, ratio_row, report

APP_NAME, USER, PROMPT = "adk_fluent_app", "bench", "Write about tides."
AGENTS = ("reader", "pros", "cons", "writer", "critic", "closer")
CALLS = {"reader": 1, "pros": 1, "cons": 1, "writer": 2, "critic": 2, "closer": 1}

_session_ids = (f"w{n}" for n in itertools.count())


def scripts() -> dict[str, Any]:
    from adk_fluent.testing import repeat

    return {name: repeat(f"{name} says hi.") for name in AGENTS}


def fluent_tree() -> Any:
    from adk_fluent import Agent, FanOut, Loop

    return (
        Agent("reader").instruct("Read.").outputs("facts")
        >> FanOut(Agent("pros").instruct("Pros."), Agent("cons").instruct("Cons."))
        >> Loop(
            Agent("writer").instruct("Write.").outputs("draft"),
            Agent("critic").instruct("Criticise."),
            max_iterations=2,
            name="refine",
        )
        >> Agent("closer").instruct("Close.")
    ).named("desk")


def _llm(name: str, model: Any, **fields: Any) -> Any:
    from google.adk.agents import LlmAgent

    return LlmAgent(name=name, model=model.for_agent(name), instruction=f"{name}.", **fields)


def hand_workflow_runner(conversation: bool = False) -> Any:
    """The same eight model calls as a Workflow written by hand: LLM nodes in ADK's default
    single-turn mode, or (`conversation`) in chat mode, each alone in a one-node Workflow, as
    a hand-written graph must be for its agents to see the conversation."""
    from google.adk.apps.app import App
    from google.adk.events.event import Event
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.adk.workflow import START, FunctionNode, JoinNode, Workflow

    from adk_fluent.testing import ScriptedModel

    model = ScriptedModel({name: [step] for name, step in scripts().items()})
    mode = {"mode": "chat"} if conversation else {}
    agents = {name: _llm(name, model, **mode) for name in AGENTS}

    def node(name: str) -> Any:
        if not conversation:
            return agents[name]
        return Workflow(name=name, edges=[(START, agents[name])])

    reader, pros, cons = node("reader"), node("pros"), node("cons")
    writer, critic, closer = node("writer"), node("critic"), node("closer")

    def again(draft_rounds: int = 0) -> Event:
        rounds = draft_rounds + 1
        return Event(route="again" if rounds < 2 else "done", state={"draft_rounds": rounds})

    count = FunctionNode(func=again, name="count")
    root = Workflow(
        name="desk",
        edges=[
            (START, reader, (pros, cons), JoinNode(name="join"), writer, critic, count),
            (count, {"again": writer, "done": closer}),
        ],
    )
    return Runner(app=App(name=APP_NAME, root_agent=root), session_service=InMemorySessionService())


def hand_classic_runner() -> Any:
    from google.adk.agents import LoopAgent, ParallelAgent, SequentialAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent.testing import ScriptedModel

    model = ScriptedModel({name: [step] for name, step in scripts().items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        root = SequentialAgent(
            name="desk",
            sub_agents=[
                _llm("reader", model, output_key="facts"),
                ParallelAgent(name="both", sub_agents=[_llm("pros", model), _llm("cons", model)]),
                LoopAgent(
                    name="refine",
                    max_iterations=2,
                    sub_agents=[_llm("writer", model, output_key="draft"), _llm("critic", model)],
                ),
                _llm("closer", model),
            ],
        )
    return Runner(app=App(name=APP_NAME, root_agent=root), session_service=InMemorySessionService())


async def turn(runner: Any) -> list[str]:
    """A new session and one turn; the authors of the events with text."""
    from google.genai import types

    session_id = next(_session_ids)
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    message = types.Content(role="user", parts=[types.Part(text=PROMPT)])
    authors = []
    async for event in runner.run_async(user_id=USER, session_id=session_id, new_message=message):
        if event.content and any(part.text for part in event.content.parts or []):
            authors.append(event.author)
    return authors


async def measure(repeat: int, warmup: int) -> dict[str, list[float]]:
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend

    tree = fluent_tree()
    runners = {
        "workflow": tree.to_runner(
            ExecutionConfig(app_name=APP_NAME, target="workflow"), backend=mock_backend(scripts())
        ),
        "classic": tree.to_runner(
            ExecutionConfig(app_name=APP_NAME, target="classic"), backend=mock_backend(scripts())
        ),
        "hand_workflow": hand_workflow_runner(),
        "hand_chat_workflow": hand_workflow_runner(conversation=True),
        "hand_classic": hand_classic_runner(),
    }
    for name, runner in runners.items():  # the same work: the same eight model replies
        authors = await turn(runner)
        assert sorted(authors) == sorted(a for a, n in CALLS.items() for _ in range(n)), (
            name,
            authors,
        )
    variants: dict[str, Callable[[], Awaitable[object]]] = {
        name: (lambda runner=runner: turn(runner)) for name, runner in runners.items()
    }
    return await interleave_async(variants, repeat=repeat, warmup=warmup)


def main(argv: list[str] | None = None) -> None:
    from adk_fluent.adk.compat import workflow_graphs_missing

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=150, help="turns per variant")
    args = parser.parse_args(argv)
    missing = workflow_graphs_missing()
    if missing is not None:
        print(f"bench_workflow_target: skipped, {missing}")
        sys.exit(0)
    warmup = 10
    samples = asyncio.run(measure(args.repeat, warmup))
    rows = [
        ratio_row(
            "Workflow target (raw: hand-written Workflow, chat agents)",
            samples["workflow"],
            samples["hand_chat_workflow"],
            1.15,
        ),
        info_row(
            "Workflow target (raw: hand-written Workflow, single-turn agents)",
            samples["workflow"],
            samples["hand_workflow"],
        ),
        info_row("Workflow target (raw: classic target)", samples["workflow"], samples["classic"]),
        info_row(
            "classic target (raw: hand-written classic agents)",
            samples["classic"],
            samples["hand_classic"],
        ),
        info_row(
            "hand-written Workflow (raw: hand-written classic agents)",
            samples["hand_workflow"],
            samples["hand_classic"],
        ),
    ]
    report(
        "bench_workflow_target: one turn of a pipeline, FanOut and loop, scripted models",
        rows,
        [
            f"medians of {args.repeat} interleaved turns after {warmup} warm-up turns, 8 model "
            "calls each, answering at once, a new session per turn on a warm Runner",
        ],
    )


if __name__ == "__main__":
    main()
