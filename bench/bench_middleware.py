"""Middleware overhead: the 3-agent pipeline of bench_run through a warm plain Runner, with no
middleware, an empty stack and the full stack of built-ins, against raw ADK, interleaved.

  raw ADK      LlmAgent x3 + SequentialAgent + App + Runner by hand (bench_run.hand_runner)
  none         `p.to_runner(...)`: adk-fluent's App without middleware (its own plugins only)
  empty stack  the same with one middleware implementing every plugin callback the installed ADK
               has, each returning None: the price of the compiled plugin's dispatch
  full stack   the same with every built-in on: structured_log, pii_filter, tool_approval (for a
               tool this pipeline never calls), cache (every turn's prompt differs, so no hits),
               token_budget, circuit_breaker, rate_limiter (a limit never reached), retry,
               fallback_model; none of them acts (no failure, no limit reached), so the row is
               what they cost when all is well

  resilience   retry, fallback_model, circuit_breaker, rate_limiter, token_budget: the built-ins
               that guard calls without reading or copying their contents

Goals (issue 14): empty stack <= 1.02x and full stack <= 1.10x of `none`, per turn (4 model calls
and 1 tool call). The `none` row against raw ADK is bench_run's figure, repeated for context.
With a scripted model a turn is ~6 ms of ADK's own work, so every microsecond shows; against a
real model's hundreds of milliseconds per call the same absolute cost is a fraction of 1%.

    python -m bench.bench_middleware [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bench import info_row, interleave_async, quick, ratio_row, repetitions, report
from bench.bench_run import APP_NAME, USER, fluent_pipeline, hand_runner, scripts_for

_turns = itertools.count()


class EmptyMiddleware:
    """Implements every plugin callback of the installed ADK; does nothing in any."""

    name = "empty"


def _empty_middleware() -> Any:
    from google.adk.plugins.base_plugin import BasePlugin

    from adk_fluent.middleware import PLUGIN_CALLBACKS

    async def nothing(*args: Any, **kwargs: Any) -> None:
        return None

    middleware = EmptyMiddleware()
    for callback in PLUGIN_CALLBACKS:
        if hasattr(BasePlugin, callback):
            setattr(middleware, callback, nothing)
    return middleware


def _full_stack() -> tuple[Any, ...]:
    from adk_fluent.middleware import (
        cache,
        circuit_breaker,
        fallback_model,
        pii_filter,
        rate_limiter,
        retry,
        structured_log,
        token_budget,
        tool_approval,
    )
    from adk_fluent.testing import ScriptedModel

    quiet = logging.getLogger("bench.middleware")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    quiet.setLevel(logging.INFO)  # lines are formatted and handed to a handler that drops them
    return (
        structured_log(quiet),
        pii_filter(),
        tool_approval(tools=("refund",)),
        cache(ttl=600),
        token_budget(10_000_000),
        circuit_breaker(failures=5, reset_after=30),
        rate_limiter(calls_per_second=1_000_000),
        retry(max_attempts=3),
        fallback_model(ScriptedModel(["never used"])),
    )


def _resilience_stack() -> tuple[Any, ...]:
    """The built-ins that guard calls without reading their contents: retry, fallback_model,
    circuit_breaker, rate_limiter, token_budget (the full stack's other four, log, pii_filter,
    cache and tool_approval, read or copy every request or reply)."""
    return tuple(
        m
        for m in _full_stack()
        if type(m).__name__
        in ("Retry", "FallbackModel", "CircuitBreaker", "RateLimiter", "TokenBudget")
    )


async def new_turn(runner: Any) -> list[Any]:
    """A new session and one turn, with a prompt no earlier turn had (a cache never hits)."""
    from google.genai import types

    turn = next(_turns)
    session_id = f"m{turn}"
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER, session_id=session_id
    )
    message = types.Content(role="user", parts=[types.Part(text=f"I want to go to Paris ({turn})")])
    return [
        event
        async for event in runner.run_async(
            user_id=USER, session_id=session_id, new_message=message
        )
    ]


def _text(events: list[Any]) -> str:
    return "".join(part.text or "" for part in events[-1].content.parts)


async def measure_stacks(
    stacks: dict[str, tuple[Any, ...]], repeat: int, warmup: int
) -> dict[str, list[float]]:
    """Turns of the pipeline by hand (`raw`), without middleware (`none`) and with each stack,
    interleaved, after checking they all do the same work."""
    from adk_fluent import ExecutionConfig
    from adk_fluent.testing import mock_backend

    turns = repeat + warmup + 1
    pipeline = fluent_pipeline()
    runners = {"raw": hand_runner(turns)}
    for name, stack in {"none": (), **stacks}.items():
        runners[name] = pipeline.to_runner(
            ExecutionConfig(app_name=APP_NAME, middleware=stack),
            backend=mock_backend(scripts_for(turns)),
        )
    # the same work everywhere: same final answer, same authors, nothing cut short
    checked = {name: await new_turn(runner) for name, runner in runners.items()}
    authors = {name: [e.author for e in events] for name, events in checked.items()}
    assert len({tuple(a) for a in authors.values()}) == 1, authors
    assert {_text(events) for events in checked.values()} == {"Your trip to Paris is booked."}

    variants: dict[str, Callable[[], Awaitable[object]]] = {
        name: (lambda runner=runner: new_turn(runner)) for name, runner in runners.items()
    }
    return await interleave_async(variants, repeat=repeat, warmup=warmup)


async def measure(repeat: int, warmup: int) -> dict[str, list[float]]:
    stacks = {"empty": (_empty_middleware(),), "full": _full_stack()}
    if not quick():  # an info row only: the CI guard (--quick) skips it
        stacks["resilience"] = _resilience_stack()
    return await measure_stacks(stacks, repeat, warmup)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--repeat", type=int, default=repetitions(150, 30), help="turns per measurement"
    )
    args = parser.parse_args(argv)
    warmup = 10
    samples = asyncio.run(measure(args.repeat, warmup))
    rows = [
        ratio_row("empty stack vs none: one turn", samples["empty"], samples["none"], 1.02),
        ratio_row("full stack vs none: one turn", samples["full"], samples["none"], 1.10),
        *(
            [info_row("resilience stack / none: one turn", samples["resilience"], samples["none"])]
            if "resilience" in samples
            else []
        ),
        ratio_row("none vs raw ADK: one turn", samples["none"], samples["raw"], 1.05),
        info_row("full stack / raw ADK: one turn", samples["full"], samples["raw"]),
    ]
    report(
        "bench_middleware: 3-agent pipeline (4 model calls, 1 tool call), warm plain Runner, "
        "scripted model",
        rows,
        [
            f"medians of {args.repeat} interleaved turns after {warmup} warm-up turns; a new "
            "session and a new prompt per turn; `none` is adk-fluent without middleware"
        ],
    )


if __name__ == "__main__":
    main()
