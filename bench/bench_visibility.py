"""Visibility costs: the same App with and without adk-fluent's visibility plugin, per turn.

The tree is bench_run's pipeline (classifier -> booker with one tool call -> summarizer, 4 model
calls per turn, scripted models) made `.filtered()`: classifier and booker are internal, so the
plugin has work on every turn. On ADK releases whose Runner stores what plugins return (1.31+,
2.x) it sets the internal agents' text aside where no client receives it (for an in-memory
session store: a companion session in that store) and puts it back in memory before each agent
runs; on older releases (1.25 .. 1.30) it hands the client a stripped copy of what was stored.
On every release it annotates each event (visibility, depth, path).

Measured, interleaved in one run, each App and Runner built ONCE per variant (a new session per
turn, as bench_run):
  filtered     `p.filtered().to_app(...)` under a plain Runner, with the plugin vs the same App
               with the plugin taken out (nothing hidden then): budget <= 1.03x
  annotated    the same pipeline without `.filtered()` (nothing to hide, the plugin annotates
               only), with vs without the plugin: info (ideally 1.00x)
  raw ADK      bench_run's hand-written LlmAgent/SequentialAgent/App/Runner: info, for scale

And on their own:
  inference    `infer_visibility_table` on a 100-node tree (agents, S steps, Routes): < 1 ms
  per event    the plugin's `on_event_callback` with the invocation context of a real turn
               (captured by a plugin in a run of the filtered App): a user-facing event, which
               is annotated only (< 0.1 ms), and an internal agent's reply, which is annotated
               and hidden: on 1.31+ / 2.x set aside (appended to the session's companion session;
               a new session each sample, as a turn's first hidden reply), on 1.25 .. 1.30 a
               stripped copy (info)

Under `--quick` only the rows with a budget are measured (filtered with / without, inference, a
user-facing event).

    python -m bench.bench_visibility [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from bench import (
    Row,
    budget_row,
    clock,
    info_row,
    interleave,
    interleave_async,
    quick,
    ratio_row,
    repetitions,
    report,
)
from bench.bench_run import (
    APP_NAME,
    USER,
    final_text,
    fluent_pipeline,
    hand_runner,
    runner_turn,
    scripts_for,
)

PLUGIN = "adk_fluent_visibility"
PER_EVENT_CALLS = 200  # on_event_callback calls per per-event sample


def hundred_node_graph() -> Any:
    from adk_fluent import Agent, Route, S

    steps = []
    for i in range(20):
        steps.append(Agent(f"a{i}").instruct(f"step {i} uses {{k{i - 1}?}}").outputs(f"k{i}"))
        steps.append(S.set(**{f"s{i}": i}))
        steps.append(Route(f"k{i}").eq("x", Agent(f"rx{i}")).otherwise(Agent(f"ro{i}")))
    pipeline = steps[0]
    for step in steps[1:]:
        pipeline = pipeline >> step
    return pipeline


def runner_for(pipeline: Any, turns: int, *, plugin: bool, extra: tuple[Any, ...] = ()) -> Any:
    """A plain Runner over `pipeline.to_app(...)`, with or without the visibility plugin (the
    rest of the App unchanged), `extra` plugins appended."""
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService

    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend

    app = pipeline.to_app(
        ExecutionConfig(app_name=APP_NAME), backend=mock_backend(scripts_for(turns))
    )
    names = [p.name for p in app.plugins]
    assert PLUGIN in names, names
    if not plugin:
        app.plugins = [p for p in app.plugins if p.name != PLUGIN]
    app.plugins = [*app.plugins, *extra]
    return Runner(app=app, session_service=InMemorySessionService())


def has_text(event: Any) -> bool:
    return event.content is not None and any(p.text for p in event.content.parts or [])


def the_plugin(runner: Any) -> Any:
    return next(p for p in runner.app.plugins if p.name == PLUGIN)


async def measure_turns(repeat: int, warmup: int) -> dict[str, list[float]]:
    turns = repeat + warmup + 1
    filtered, annotated = fluent_pipeline().filtered(), fluent_pipeline()
    runners = {
        "filtered": runner_for(filtered, turns, plugin=True),
        "filtered_off": runner_for(filtered, turns, plugin=False),
    }
    if not quick():  # info rows only: the CI guard (--quick) skips them
        runners["annotated"] = runner_for(annotated, turns, plugin=True)
        runners["annotated_off"] = runner_for(annotated, turns, plugin=False)
        runners["raw"] = hand_runner(turns)
    # the same work everywhere: the same events by the same authors, the same answer; what the
    # client sees of the internal agents differs (that is the plugin's job)
    checked = {name: await runner_turn(runner) for name, runner in runners.items()}
    authors = {tuple(e.author for e in events) for events in checked.values()}
    assert len(authors) == 1, authors
    assert {final_text(events) for events in checked.values()} == {"Your trip to Paris is booked."}
    assert not has_text(checked["filtered"][0]) and has_text(checked["filtered_off"][0])

    variants: dict[str, Callable[[], Awaitable[object]]] = {
        name: (lambda runner=runner: runner_turn(runner)) for name, runner in runners.items()
    }
    return await interleave_async(variants, repeat=repeat, warmup=warmup)


def _capturing_plugin() -> Any:
    """A plugin that keeps the invocation context of the run it sees."""
    from google.adk.plugins.base_plugin import BasePlugin

    class Capturing(BasePlugin):
        def __init__(self) -> None:
            super().__init__(name="bench_capture")
            self.context: Any = None

        async def before_run_callback(self, *, invocation_context: Any) -> None:
            self.context = invocation_context
            return None

    return Capturing()


async def measure_events(repeat: int) -> dict[str, list[float]]:
    """Seconds per `on_event_callback` call, with a real turn's invocation context."""
    from google.adk.events.event import Event
    from google.genai import types

    capture = _capturing_plugin()
    runner = runner_for(fluent_pipeline().filtered(), 2, plugin=True, extra=(capture,))
    await runner_turn(runner)
    context, plugin = capture.context, the_plugin(runner)
    assert context is not None and context.session_service is runner.session_service
    service = runner.session_service
    fresh = (f"e{n}" for n in itertools.count())

    def reply(author: str, text: str) -> Any:
        content = types.Content(role="model", parts=[types.Part(text=text)])
        return Event(author=author, invocation_id=context.invocation_id, content=content)

    shown, hidden = reply("summarizer", "Your trip to Paris is booked."), reply("booker", "Booked.")
    out = await plugin.on_event_callback(invocation_context=context, event=shown)
    assert out.custom_metadata["adk_fluent.is_user_facing"] is True
    out = await plugin.on_event_callback(invocation_context=context, event=hidden)
    assert not has_text(out), out

    now = clock()

    async def annotate() -> float:
        start = now()
        for _ in range(PER_EVENT_CALLS):
            await plugin.on_event_callback(invocation_context=context, event=shown)
        return (now() - start) / PER_EVENT_CALLS

    async def set_aside() -> float:
        # a new session (not timed), then its first hidden reply: what a turn pays
        session = await service.create_session(
            app_name=APP_NAME, user_id=USER, session_id=next(fresh)
        )
        ctx = context.model_copy(update={"session": session})
        start = now()
        await plugin.on_event_callback(invocation_context=ctx, event=hidden)
        return now() - start

    return await interleave_async(
        {"annotate": annotate, "set_aside": set_aside}, repeat=repeat, own_figure=True
    )


def main(argv: list[str] | None = None) -> None:
    from adk_fluent.analysis.visibility import infer_visibility_table
    from adk_fluent.ir.nodes import walk

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--repeat", type=int, default=repetitions(150, 30), help="turns per measurement"
    )
    args = parser.parse_args(argv)
    warmup = 10
    ir = hundred_node_graph().to_ir()
    nodes = sum(1 for _ in walk(ir))
    inferred = interleave({"infer": lambda: infer_visibility_table(ir)}, repeat=args.repeat)
    turns = asyncio.run(measure_turns(args.repeat, warmup))
    events = asyncio.run(measure_events(args.repeat))
    rows: list[Row] = [
        ratio_row(
            "same App with / without the visibility plugin: one turn (filtered)",
            turns["filtered"],
            turns["filtered_off"],
            1.03,
        ),
        *(
            [
                info_row(
                    "with / without the plugin: one turn (annotated, nothing hidden)",
                    turns["annotated"],
                    turns["annotated_off"],
                ),
                info_row(
                    "filtered, with the plugin / raw ADK: one turn", turns["filtered"], turns["raw"]
                ),
            ]
            if "raw" in turns
            else []
        ),
        budget_row(f"infer_visibility_table on {nodes} nodes", inferred["infer"], 0.001),
        budget_row("on_event_callback: annotate a user-facing event", events["annotate"], 0.0001),
        info_row("on_event_callback: an internal reply, hidden", events["set_aside"], None),
    ]
    report(
        "bench_visibility: 3-agent pipeline (classifier, booker internal), plain Runner, "
        "scripted model",
        rows,
        [
            f"medians of {args.repeat} interleaved turns after {warmup} warm-up turns; a new "
            "session per turn; the App and Runner of each variant built once",
            f"per event: a real turn's invocation context; annotate = mean of {PER_EVENT_CALLS} "
            "calls per sample; set aside = a new session's first hidden reply",
        ],
    )


if __name__ == "__main__":
    main()
