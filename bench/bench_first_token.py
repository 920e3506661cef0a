"""Time to the first user-visible token with SSE streaming: adk-fluent vs the same ADK agents.

A 3-agent pipeline, reader (internal) -> planner (internal) -> writer (user-facing), each a
streaming scripted model (adk_fluent.testing.streamed) sending 5 chunks with a fixed pause
before each (10 ms by default), so the two upstream agents take real time (~100 ms) before the
writer's first chunk, on both sides. The clock starts when the turn is asked for and stops at
the first partial text event by the writer; the rest of the turn is read untimed.

Measured, interleaved in one run (a new in-memory session per turn on every side):
  stream()     `p.filtered().stream(prompt, streaming="sse")` vs a hand-built SequentialAgent of
               three LlmAgents with the same scripted models, a raw Runner, RunConfig(SSE)
  to_runner()  `p.filtered().to_runner()` (the App adk web serves) with RunConfig(SSE) vs the same
               raw Runner
  race         race(fast, slow) with `streaming="sse"` vs the same race without streaming (what
               race delivered before it streamed: the winner's text once it had won); info only
  map_over     map_over(concurrency=2) over 4 items: the first item's first token, with and
               without streaming (before, the first item's events came when it was done); info

    python -m bench.bench_first_token [--repeat N] [--gap SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

from bench import info_row, interleave_async, ratio_row, report

APP_NAME = "adk_fluent_app"
USER = "user"
PROMPT = "Write me a short note"
CHUNKS = 5

_session_ids = (f"s{n}" for n in itertools.count())


def reply(agent: str, gap: float) -> Any:
    """An endless script: every call streams CHUNKS chunks, `gap` seconds apart."""
    from adk_fluent.testing import repeat, streamed

    return repeat(streamed(*[f"{agent}{i} " for i in range(CHUNKS)], gap=gap))


# -- the 3-agent pipeline ------------------------------------------------------------------------
def pipeline_scripts(gap: float) -> dict[str, Any]:
    return {name: reply(name, gap) for name in ("reader", "planner", "writer")}


def fluent_pipeline() -> Any:
    from adk_fluent import Agent

    return (
        Agent("reader").instruct("Read the request.").outputs("notes")
        >> Agent("planner").instruct("Plan from {notes}.").outputs("plan")
        >> Agent("writer").instruct("Write from {plan}.")
    ).filtered()


def hand_runner(gap: float) -> Any:
    """Three LlmAgents in a SequentialAgent, App, Runner, InMemorySessionService, by hand."""
    from google.adk.agents import LlmAgent, SequentialAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent.testing import ScriptedModel

    scripts = pipeline_scripts(gap)
    agents = [
        LlmAgent(
            name="reader",
            model=ScriptedModel([scripts["reader"]]),
            instruction="Read the request.",
            output_key="notes",
        ),
        LlmAgent(
            name="planner",
            model=ScriptedModel([scripts["planner"]]),
            instruction="Plan from {notes}.",
            output_key="plan",
        ),
        LlmAgent(
            name="writer",
            model=ScriptedModel([scripts["writer"]]),
            instruction="Write from {plan}.",
        ),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        root = SequentialAgent(name="note", sub_agents=agents)
    return Runner(app=App(name=APP_NAME, root_agent=root), session_service=InMemorySessionService())


# -- timing -------------------------------------------------------------------------------------
def _text(event: Any) -> str:
    content = event.content
    if content is None or isinstance(content, str):
        return content or ""
    return "".join(part.text or "" for part in content.parts or [])


def _partial(event: Any) -> bool:
    return bool(getattr(event, "is_partial", None) or getattr(event, "partial", None))


async def first_token(events: AsyncIterator[Any], author: str, *, partial: bool = True) -> float:
    """Seconds until the first text event by `author` (a partial one unless `partial` is
    False); the rest of the turn is read untimed, so each turn ends as it would."""
    start = time.perf_counter()
    found: float | None = None
    async with aclosing(events) as stream:  # type: ignore[type-var]
        async for event in stream:
            if (
                found is None
                and event.author == author
                and _text(event)
                and (_partial(event) or not partial)
            ):
                found = time.perf_counter() - start
    if found is None:
        raise AssertionError(f"no token from {author!r} in the turn")
    return found


async def runner_events(runner: Any) -> AsyncIterator[Any]:
    """A new session, then one SSE turn through `runner.run_async`."""
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.genai import types

    session_id = next(_session_ids)
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    message = types.Content(role="user", parts=[types.Part(text=PROMPT)])
    async for event in runner.run_async(
        user_id=USER,
        session_id=session_id,
        new_message=message,
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    ):
        yield event


async def interleave_first_tokens(
    variants: dict[str, Callable[[], Awaitable[float]]], repeat: int, warmup: int
) -> dict[str, list[float]]:
    """Each variant once per repetition, the order rotating; each returns its own figure."""
    return await interleave_async(variants, repeat, warmup, own_figure=True)


async def measure(repeat: int, warmup: int, gap: float) -> dict[str, list[float]]:
    from google.adk.sessions import InMemorySessionService

    from adk_fluent import Agent, S, map_over, race
    from adk_fluent.testing import mock_backend

    pipeline = fluent_pipeline()
    backend = mock_backend(pipeline_scripts(gap))  # kept alive: stream() caches per backend
    fluent_runner = pipeline.to_runner(
        backend=mock_backend(pipeline_scripts(gap)), session_service=InMemorySessionService()
    )
    raw = hand_runner(gap)

    contest = race(Agent("fast"), Agent("slow"))
    contest_backend = mock_backend({"fast": reply("fast", gap), "slow": reply("slow", 3 * gap)})
    mapped = S.set(docs=["a", "b", "c", "d"]) >> map_over(
        "docs", Agent("summariser").instruct("Summarise {doc}"), item_key="doc", concurrency=2
    )
    mapped_backend = mock_backend({"summariser": reply("summariser", gap)})

    def fluent_stream(tree: Any, tree_backend: Any, streaming: str) -> AsyncIterator[Any]:
        return tree.stream(PROMPT, backend=tree_backend, streaming=streaming)

    variants: dict[str, Callable[[], Awaitable[float]]] = {
        "fluent_stream": lambda: first_token(fluent_stream(pipeline, backend, "sse"), "writer"),
        "fluent_runner": lambda: first_token(runner_events(fluent_runner), "writer"),
        "raw_runner": lambda: first_token(runner_events(raw), "writer"),
        "race_sse": lambda: first_token(fluent_stream(contest, contest_backend, "sse"), "fast"),
        "race_none": lambda: first_token(
            fluent_stream(contest, contest_backend, "none"), "fast", partial=False
        ),
        "map_sse": lambda: first_token(fluent_stream(mapped, mapped_backend, "sse"), "summariser"),
        "map_none": lambda: first_token(
            fluent_stream(mapped, mapped_backend, "none"), "summariser", partial=False
        ),
    }
    return await interleave_first_tokens(variants, repeat=repeat, warmup=warmup)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30, help="turns per measurement")
    parser.add_argument(
        "--gap", type=float, default=0.01, help="seconds before each scripted chunk"
    )
    args = parser.parse_args(argv)
    # ADK 2.x warns for each model call cut off before any usage figure: every race's loser
    logging.getLogger("google_adk.google.adk.telemetry._metrics").setLevel(logging.ERROR)
    warmup = 3
    samples = asyncio.run(measure(args.repeat, warmup, args.gap))
    rows = [
        ratio_row(
            "3 agents: stream(sse) first writer token",
            samples["fluent_stream"],
            samples["raw_runner"],
            1.05,
        ),
        ratio_row(
            "3 agents: to_runner() + SSE first writer token",
            samples["fluent_runner"],
            samples["raw_runner"],
            1.05,
        ),
        info_row("race: first token, sse (none)", samples["race_sse"], samples["race_none"]),
        info_row(
            "map_over(concurrency=2): first item token, sse (none)",
            samples["map_sse"],
            samples["map_none"],
        ),
    ]
    report(
        "bench_first_token: time to the first user-visible token with SSE, scripted models",
        rows,
        [
            f"medians of {args.repeat} interleaved turns after {warmup} warm-up turns; "
            f"{CHUNKS} chunks per reply, {args.gap * 1000:g} ms before each (the upstream "
            f"agents take ~{2 * CHUNKS * args.gap * 1000:g} ms on both sides)",
            "race and map_over rows: the 'raw ADK' column is adk-fluent without streaming "
            "(their first text before they streamed as they go); no goal",
        ],
    )


if __name__ == "__main__":
    main()
