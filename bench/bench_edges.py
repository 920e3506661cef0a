"""Edges between steps (docs/streaming.md): a chunked edge against a complete one, and a merging
FanOut against ADK's ParallelAgent with a hand-written gathering agent.

chunked edge  writer -> speaker, the writer a streaming scripted model (adk_fluent.testing.
              streamed) sending 100 words in 10 sentences, 10 ms before each word (`--words`,
              `--gap`); the speaker answers each of its calls at once. The clock starts when
              the turn is asked for and stops at the speaker's first text (its first reply);
              the rest of the turn is read untimed. Interleaved, a new session per turn:
                chunked    `writer.then(speaker, edge="chunked")` through
                           `stream(prompt, streaming="sse")`: the speaker runs on each sentence
                           while the writer is still writing
                complete   `writer >> speaker`, the same way
                raw ADK    the same two LlmAgents in a SequentialAgent, raw Runner,
                           RunConfig(streaming_mode=SSE): the speaker can only start after
                           the writer has finished
              Info rows: the point is chunked << complete (about one sentence's worth of the
              writer against all of it).
token edge    backpressure: the writer streams `--pieces` pieces at once (no gap), the speaker
              takes 2 ms a piece. `writer.then(speaker, edge="token")` (its buffer of 16) against
              the same edge with a buffer larger than the reply (unbounded: the writer runs
              ahead), one turn each, interleaved: the turn's wall time (the consumer sets the
              pace, so the bound should cost nothing; goal within 1.10x). The peak number of
              pieces waiting (what an unbounded queue holds in memory), read from the order the
              client receives them, is in the notes. Raw ADK has no token edge to compare with.
FanOut merge  a turn of `FanOut(a, b, c).merge("dict", into="results")` through a warm
              `to_runner()` Runner, scripted models answering at once, a new session per turn,
              against ADK's ParallelAgent(a, b, c) followed (in a SequentialAgent) by a custom
              BaseAgent that reads the three output keys and stores {branch: output} in one
              state-delta event: what a user writes by hand for the same result. Goal: within
              1.05x. The same FanOut without .merge() (which compiles to ADK's ParallelAgent)
              against a bare raw ParallelAgent is shown for context (info).

    python -m bench.bench_edges [--repeat N] [--fanout-repeat N] [--words N] [--gap SECONDS]
                                [--pieces N] [--token-repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import cache
from typing import Any

from bench import info_row, interleave_async, ratio_row, report
from bench.bench_first_token import (
    APP_NAME,  # runner_events creates its sessions in this app, with this user and prompt
    PROMPT,
    USER,
    first_token,
    interleave_first_tokens,
    runner_events,
)

SENTENCE = 10  # words per sentence of the writer's reply
BRANCHES = ("a", "b", "c")

_session_ids = (f"e{n}" for n in itertools.count())


# -- chunked edge -------------------------------------------------------------------------------
def writer_words(words: int) -> list[str]:
    """The writer's reply word by word: sentences of SENTENCE words, each word with its space."""
    return [
        f"word{i}. " if (i + 1) % SENTENCE == 0 or i == words - 1 else f"word{i} "
        for i in range(words)
    ]


def edge_scripts(words: int, gap: float) -> dict[str, Any]:
    from adk_fluent.testing import repeat, streamed

    return {
        "writer": repeat(streamed(*writer_words(words), gap=gap)),
        "speaker": repeat("Spoken."),
    }


def chunked_pipeline() -> Any:
    from adk_fluent import Agent

    writer = Agent("writer").instruct("Answer in short sentences.").outputs("draft")
    speaker = Agent("speaker").instruct("Turn this sentence into speech: {chunk}").outputs("spoken")
    return writer.then(speaker, edge="chunked", by="sentence", key="chunk")


def complete_pipeline() -> Any:
    from adk_fluent import Agent

    writer = Agent("writer").instruct("Answer in short sentences.").outputs("draft")
    speaker = Agent("speaker").instruct("Turn this text into speech: {draft}").outputs("spoken")
    return writer >> speaker


def hand_edge_runner(words: int, gap: float) -> Any:
    """writer and speaker LlmAgents in a SequentialAgent, App, Runner, by hand."""
    from google.adk.agents import LlmAgent, SequentialAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent.testing import ScriptedModel

    scripts = edge_scripts(words, gap)
    writer = LlmAgent(
        name="writer",
        model=ScriptedModel([scripts["writer"]]),
        instruction="Answer in short sentences.",
        output_key="draft",
    )
    speaker = LlmAgent(
        name="speaker",
        model=ScriptedModel([scripts["speaker"]]),
        instruction="Turn this text into speech: {draft}",
        output_key="spoken",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        root = SequentialAgent(name="talk", sub_agents=[writer, speaker])
    return Runner(app=App(name=APP_NAME, root_agent=root), session_service=InMemorySessionService())


async def measure_edges(repeat: int, warmup: int, words: int, gap: float) -> dict[str, list[float]]:
    from adk_fluent.testing import mock_backend

    chunked, complete = chunked_pipeline(), complete_pipeline()
    # kept alive for the whole run: stream() caches its Runner per backend
    chunked_backend = mock_backend(edge_scripts(words, gap))
    complete_backend = mock_backend(edge_scripts(words, gap))
    raw = hand_edge_runner(words, gap)

    def fluent(tree: Any, backend: Any) -> AsyncIterator[Any]:
        return tree.stream(PROMPT, backend=backend, streaming="sse")

    # the same work: one speaker call per sentence (chunked), one in all (complete, raw)
    sentences = -(-words // SENTENCE)
    events = [e async for e in fluent(chunked, chunked_backend)]
    replies = [e for e in events if e.author == "speaker" and not e.is_partial and e.content]
    assert len(replies) == sentences, (len(replies), sentences)

    variants: dict[str, Callable[[], Awaitable[float]]] = {
        "chunked": lambda: first_token(fluent(chunked, chunked_backend), "speaker", partial=False),
        "complete": lambda: first_token(
            fluent(complete, complete_backend), "speaker", partial=False
        ),
        "raw": lambda: first_token(runner_events(raw), "speaker", partial=False),
    }
    return await interleave_first_tokens(variants, repeat=repeat, warmup=warmup)


# -- token edge: backpressure ----------------------------------------------------------------
def token_pipeline(buffer: int | None) -> Any:
    from adk_fluent import Agent

    writer = Agent("writer").instruct("Write.").outputs("draft")
    speaker = Agent("speaker").instruct("Say: {chunk}").outputs("spoken")
    return writer.then(speaker, edge="token", buffer=buffer)


async def token_turn(buffer: int | None, pieces: int) -> tuple[float, int]:
    """One turn: (wall seconds, peak pieces waiting)."""
    import time

    from adk_fluent.testing import mock_backend, repeat, streamed

    backend = mock_backend(
        {
            "writer": streamed(*[f"w{i} " for i in range(pieces)]),
            "speaker": repeat(streamed("ok", gap=0.002)),
        }
    )
    tree = token_pipeline(buffer)
    waiting = peak = 0
    started = time.perf_counter()
    async for event in tree.stream(PROMPT, backend=backend, streaming="sse"):
        if event.author == "writer" and event.is_partial:
            waiting += 1
            peak = max(peak, waiting)
        elif event.state_delta.get("chunk"):
            waiting -= 1
    return time.perf_counter() - started, peak


async def measure_token_edge(repeat: int, pieces: int) -> dict[str, list[float]]:
    from adk_fluent.ir.edges import TOKEN_BUFFER

    found: dict[str, list[float]] = {"bounded": [], "unbounded": []}
    waits: dict[str, int] = {"bounded": 0, "unbounded": 0}
    await token_turn(TOKEN_BUFFER, pieces)  # warm-up: imports, the compiled Apps
    await token_turn(pieces * 2, pieces)
    for _ in range(repeat):
        for name, buffer in (("bounded", TOKEN_BUFFER), ("unbounded", pieces * 2)):
            seconds, peak = await token_turn(buffer, pieces)
            found[name].append(seconds)
            waits[name] = max(waits[name], peak)
    found["waiting"] = [float(waits["bounded"]), float(waits["unbounded"])]
    return found


# -- FanOut merge -------------------------------------------------------------------------------
def fanout_scripts() -> dict[str, Any]:
    from adk_fluent.testing import repeat

    return {name: repeat(f"{name.upper()} found 3 pages.") for name in BRANCHES}


def fluent_fanout(merge: bool) -> Any:
    from adk_fluent import Agent, FanOut

    search = FanOut(
        *(
            Agent(name).instruct(f"Search source {name}.").outputs(f"{name}_hits")
            for name in BRANCHES
        )
    ).named("search")
    return search.merge("dict", into="results") if merge else search


@cache
def gather_class() -> type:
    """The custom agent a user writes to gather the ParallelAgent's outputs: one event whose
    state delta holds {branch: output}."""
    from google.adk.agents import BaseAgent
    from google.adk.events.event import Event
    from google.adk.events.event_actions import EventActions

    class Gather(BaseAgent):
        keys: dict[str, str]  # branch name -> the state key its output is in
        into: str

        async def _run_async_impl(self, ctx: Any) -> AsyncIterator[Event]:
            state = ctx.session.state
            merged = {name: state.get(key) for name, key in self.keys.items()}
            yield Event(
                invocation_id=ctx.invocation_id,
                author=self.name,
                branch=ctx.branch,
                actions=EventActions(state_delta={self.into: merged}),
            )

    return Gather


def hand_fanout_runner(merge: bool) -> Any:
    """ParallelAgent(a, b, c) (then the hand-written gatherer, in a SequentialAgent), by hand."""
    from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent
    from google.adk.apps.app import App
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent.testing import ScriptedModel

    scripts = fanout_scripts()
    branches = [
        LlmAgent(
            name=name,
            model=ScriptedModel([scripts[name]]),
            instruction=f"Search source {name}.",
            output_key=f"{name}_hits",
        )
        for name in BRANCHES
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        root: Any = ParallelAgent(name="search", sub_agents=branches)
        if merge:
            gather = gather_class()(
                name="gather", keys={name: f"{name}_hits" for name in BRANCHES}, into="results"
            )
            root = SequentialAgent(name="search_merged", sub_agents=[root, gather])
    return Runner(app=App(name=APP_NAME, root_agent=root), session_service=InMemorySessionService())


async def turn(runner: Any) -> str:
    """A new session and one turn through `runner.run_async`; returns the session id."""
    from google.genai import types

    session_id = next(_session_ids)
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    message = types.Content(role="user", parts=[types.Part(text=PROMPT)])
    async for _ in runner.run_async(user_id=USER, session_id=session_id, new_message=message):
        pass
    return session_id


async def final_state(runner: Any) -> dict[str, Any]:
    session_id = await turn(runner)
    session = await runner.session_service.get_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    return dict(session.state)


async def measure_fanout(repeat: int, warmup: int) -> dict[str, list[float]]:
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend

    config = ExecutionConfig(app_name=APP_NAME)
    runners = {
        "merge": fluent_fanout(True).to_runner(config, backend=mock_backend(fanout_scripts())),
        "raw_merge": hand_fanout_runner(True),
        "plain": fluent_fanout(False).to_runner(config, backend=mock_backend(fanout_scripts())),
        "raw_plain": hand_fanout_runner(False),
    }
    # the same work: the same branch outputs, and the same merged dict where there is one
    expected = {name: f"{name.upper()} found 3 pages." for name in BRANCHES}
    for name, runner in runners.items():
        state = await final_state(runner)
        assert {b: state[f"{b}_hits"] for b in BRANCHES} == expected, (name, state)
        if name.endswith("merge"):
            assert state["results"] == expected, (name, state)
        else:
            assert "results" not in state, (name, state)

    variants: dict[str, Callable[[], Awaitable[object]]] = {
        name: (lambda runner=runner: turn(runner)) for name, runner in runners.items()
    }
    return await interleave_async(variants, repeat=repeat, warmup=warmup)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=6, help="chunked-edge turns per variant")
    parser.add_argument("--fanout-repeat", type=int, default=200, help="FanOut turns per variant")
    parser.add_argument("--words", type=int, default=100, help="words in the writer's reply")
    parser.add_argument("--gap", type=float, default=0.01, help="seconds before each word")
    parser.add_argument("--pieces", type=int, default=300, help="pieces the token edge streams")
    parser.add_argument("--token-repeat", type=int, default=3, help="token-edge turns per variant")
    args = parser.parse_args(argv)
    edge_warmup, fanout_warmup = 1, 10
    edges = asyncio.run(measure_edges(args.repeat, edge_warmup, args.words, args.gap))
    fanout = asyncio.run(measure_fanout(args.fanout_repeat, fanout_warmup))
    token = asyncio.run(measure_token_edge(args.token_repeat, args.pieces))
    rows = [
        info_row("chunked edge: speaker's first reply", edges["chunked"], edges["raw"]),
        info_row("complete edge (>>): speaker's first reply", edges["complete"], edges["raw"]),
        info_row(
            "chunked (raw: complete >>, both adk-fluent)", edges["chunked"], edges["complete"]
        ),
        ratio_row(
            "FanOut(a, b, c).merge('dict'): one turn (raw: + gatherer)",
            fanout["merge"],
            fanout["raw_merge"],
            1.05,
        ),
        info_row("FanOut(a, b, c) no merge: one turn", fanout["plain"], fanout["raw_plain"]),
        info_row("FanOut merge (raw: no merge, both adk-fluent)", fanout["merge"], fanout["plain"]),
        ratio_row(
            "token edge, buffer 16: one turn (raw: unbounded, both adk-fluent)",
            token["bounded"],
            token["unbounded"],
            1.10,
        ),
    ]
    report(
        "bench_edges: chunked and token edges, FanOut merge, scripted models",
        rows,
        [
            f"chunked edge: medians of {args.repeat} interleaved SSE turns after {edge_warmup} "
            f"warm-up turn; the writer streams {args.words} words in sentences of {SENTENCE}, "
            f"{args.gap * 1000:g} ms before each word (~{args.words * args.gap * 1000:g} ms "
            "in all); clock stopped at the speaker's first reply",
            f"FanOut: medians of {args.fanout_repeat} interleaved turns after {fanout_warmup} "
            "warm-up turns, 3 branches answering at once, a new session per turn",
            f"token edge: medians of {args.token_repeat} interleaved turns of {args.pieces} "
            "pieces after a warm-up turn each; peak pieces waiting for the speaker: "
            f"{token['waiting'][0]:.0f} with the buffer of 16, {token['waiting'][1]:.0f} unbounded",
        ],
    )


if __name__ == "__main__":
    main()
