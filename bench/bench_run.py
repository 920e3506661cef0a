"""A 3-agent pipeline run end to end through ADK's Runner: adk-fluent vs the same pipeline by hand.

classifier (output_key=intent) -> booker (instruction with {intent}, one tool call, output_key=booking)
-> summarizer (instruction with {booking}): 4 model calls and 1 tool call per turn, answered by
the same scripted model (adk_fluent.testing.ScriptedModel, a google.adk BaseLlm) on both sides.
Every turn uses a new session, on both sides.

Measured, interleaved in one run:
  warm Runner   `p.to_runner(config, backend=mock_backend(...))` made once vs a hand-made
                LlmAgent/SequentialAgent/App/Runner made once; per turn: create_session + run_async
  p.run()       `await p.run(prompt, backend=..., session_id=new)` (AgentEvents back) vs the same
                hand-made Runner (create_session + run_async, events collected in a list)
  build + run   a new backend, `p.to_runner(...)` and one turn vs building the hand-made objects
                and one turn: what a one-shot script pays
  lifecycle     `p.run(..., lifecycle=True)` (agent start / end events, docs/visibility.md) vs
                `p.run()`: info, not under --quick

    python -m bench.bench_run [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from bench import info_row, interleave_async, quick, ratio_row, repetitions, report

APP_NAME = "bench_app"
USER = "user"
PROMPT = "I want to go to Paris"


def book(city: str) -> dict[str, str]:
    """Book a trip to a city."""
    return {"status": "booked", "city": city}


def one_turn_script() -> dict[str, list[Any]]:
    """Each agent's scripted answers for one turn."""
    from adk_fluent.testing import call

    return {
        "classifier": ["booking"],
        "booker": [call("book", city="Paris"), "Booked Paris."],
        "summarizer": ["Your trip to Paris is booked."],
    }


def scripts_for(turns: int) -> dict[str, list[Any]]:
    return {name: steps * turns for name, steps in one_turn_script().items()}


# -- hand-written ADK -----------------------------------------------------------------------------
def hand_runner(turns: int, scripts: dict[str, list[Any]] | None = None) -> Any:
    """LlmAgent x3 + SequentialAgent + App + Runner + InMemorySessionService, by hand, answered
    by `scripts` (default: `scripts_for(turns)`)."""
    from google.adk.agents import LlmAgent, SequentialAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent.testing import ScriptedModel

    scripts = scripts or scripts_for(turns)
    classifier = LlmAgent(
        name="classifier",
        model=ScriptedModel(scripts["classifier"]),
        instruction="Classify the request as booking or info.",
        output_key="intent",
    )
    booker = LlmAgent(
        name="booker",
        model=ScriptedModel(scripts["booker"]),
        instruction="The intent is {intent}. Book the trip with the tool.",
        tools=[book],
        output_key="booking",
    )
    summarizer = LlmAgent(
        name="summarizer",
        model=ScriptedModel(scripts["summarizer"]),
        instruction="Tell the user about the booking: {booking}",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        root = SequentialAgent(name="trip", sub_agents=[classifier, booker, summarizer])
    app = App(name=APP_NAME, root_agent=root)
    return Runner(app=app, session_service=InMemorySessionService())


# -- adk-fluent -----------------------------------------------------------------------------------
def fluent_pipeline() -> Any:
    from adk_fluent import Agent

    return (
        Agent("classifier").instruct("Classify the request as booking or info.").outputs("intent")
        >> Agent("booker")
        .instruct("The intent is {intent}. Book the trip with the tool.")
        .tool(book)
        .outputs("booking")
        >> Agent("summarizer").instruct("Tell the user about the booking: {booking}")
    ).named("trip")


# -- one turn -------------------------------------------------------------------------------------
_session_ids = (f"s{n}" for n in itertools.count())


async def runner_turn(runner: Any) -> list[Any]:
    """New session, one turn through `runner.run_async`, every event collected."""
    from google.genai import types

    session_id = next(_session_ids)
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    message = types.Content(role="user", parts=[types.Part(text=PROMPT)])
    return [
        event
        async for event in runner.run_async(
            user_id=USER, session_id=session_id, new_message=message
        )
    ]


def final_text(events: list[Any]) -> str:
    event = events[-1]
    return "".join(part.text or "" for part in event.content.parts)


async def measure(repeat: int, warmup: int) -> dict[str, list[float]]:
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend

    turns = repeat + warmup + 1
    config = ExecutionConfig(app_name=APP_NAME)
    pipeline = fluent_pipeline()
    fluent_runner = pipeline.to_runner(config, backend=mock_backend(scripts_for(turns)))
    raw_runner = hand_runner(turns)
    run_backend = mock_backend(
        scripts_for(turns)
    )  # kept alive: p.run caches its Runner per backend
    raw_runner_for_run = hand_runner(turns)

    # the same work on both sides
    expected = "Your trip to Paris is booked."
    fluent_events = await runner_turn(fluent_runner)
    raw_events = await runner_turn(raw_runner)
    agent_events = await pipeline.run(
        PROMPT, backend=run_backend, config=config, session_id="check"
    )
    raw_run_events = await runner_turn(raw_runner_for_run)
    assert final_text(fluent_events) == final_text(raw_events) == expected
    assert [e.author for e in fluent_events] == [e.author for e in raw_events]
    assert agent_events[-1].content == final_text(raw_run_events) == expected

    async def fluent_cold() -> None:
        runner = pipeline.to_runner(config, backend=mock_backend(scripts_for(1)))
        await runner_turn(runner)

    async def raw_cold() -> None:
        await runner_turn(hand_runner(1))

    variants: dict[str, Callable[[], Awaitable[object]]] = {
        "fluent_runner": lambda: runner_turn(fluent_runner),
        "raw_runner": lambda: runner_turn(raw_runner),
        "fluent_run": lambda: pipeline.run(
            PROMPT, backend=run_backend, config=config, session_id=next(_session_ids)
        ),
        "raw_run": lambda: runner_turn(raw_runner_for_run),
        "fluent_cold": fluent_cold,
        "raw_cold": raw_cold,
    }
    if not quick():
        lifecycle_backend = mock_backend(scripts_for(turns))
        marked = await pipeline.run(
            PROMPT, backend=lifecycle_backend, config=config, session_id="marked", lifecycle=True
        )
        assert [e.author for e in marked if e.agent_state is None] == [
            e.author for e in agent_events
        ]
        variants["fluent_run_lifecycle"] = lambda: pipeline.run(
            PROMPT,
            backend=lifecycle_backend,
            config=config,
            session_id=next(_session_ids),
            lifecycle=True,
        )
    return await interleave_async(variants, repeat=repeat, warmup=warmup)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--repeat", type=int, default=repetitions(150, 30), help="turns per measurement"
    )
    args = parser.parse_args(argv)
    warmup = 10
    samples = asyncio.run(measure(args.repeat, warmup))
    rows = [
        ratio_row("warm Runner: one turn", samples["fluent_runner"], samples["raw_runner"], 1.05),
        ratio_row("p.run(): one turn", samples["fluent_run"], samples["raw_run"], 1.05),
        ratio_row("build + run: one turn", samples["fluent_cold"], samples["raw_cold"], 1.05),
    ]
    if "fluent_run_lifecycle" in samples:
        rows.append(
            info_row(
                "p.run(lifecycle=True) vs p.run(): one turn",
                samples["fluent_run_lifecycle"],
                samples["fluent_run"],
            )
        )
    report(
        "bench_run: 3-agent pipeline (4 model calls, 1 tool call) through ADK's Runner, scripted model",
        rows,
        [
            f"medians of {args.repeat} interleaved turns after {warmup} warm-up turns; a new session per turn"
        ],
    )


if __name__ == "__main__":
    main()
