"""Context views: building a filtered view over a 200-event session (budget 5 ms) and a capture
step (budget 1 ms), against ADK's own default contents assembly on the same events, same run.

ADK's assembly is reached through its private `_get_contents` (only here, for measuring: the
library never calls it). Run: python -m bench.bench_context
"""

from __future__ import annotations

import importlib
import importlib.metadata
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def _median(fn, repeat: int = 15, number: int = 50) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def session_events(count: int):
    """`count` events: 40 turns of user -> researcher (tool call + response + text) -> writer."""
    from google.adk.events.event import Event
    from google.genai import types

    events = []
    turn = 0
    while len(events) < count:
        inv = f"inv{turn}"
        events.append(
            Event(
                author="user",
                invocation_id=inv,
                content=types.Content(role="user", parts=[types.Part(text=f"question {turn}")]),
            )
        )
        call = types.Part(
            function_call=types.FunctionCall(name="lookup", args={"q": turn}, id=f"c{turn}")
        )
        events.append(
            Event(
                author="researcher",
                invocation_id=inv,
                content=types.Content(role="model", parts=[call]),
            )
        )
        response = types.Part(
            function_response=types.FunctionResponse(
                name="lookup", response={"r": turn}, id=f"c{turn}"
            )
        )
        events.append(
            Event(
                author="researcher",
                invocation_id=inv,
                content=types.Content(role="user", parts=[response]),
            )
        )
        events.append(
            Event(
                author="researcher",
                invocation_id=inv,
                content=types.Content(role="model", parts=[types.Part(text=f"facts {turn}")]),
            )
        )
        events.append(
            Event(
                author="writer",
                invocation_id=inv,
                content=types.Content(role="model", parts=[types.Part(text=f"answer {turn}")]),
            )
        )
        turn += 1
    return events[:count], f"inv{turn - 1}"


@dataclass(frozen=True)
class Run:
    """What a state step sees of the run besides state (adk_fluent.ir.steps.RunView)."""

    user_text: str | None
    events: Sequence[Any]


def main() -> None:
    from adk_fluent import C
    from adk_fluent.adk.context_view import build_view
    from adk_fluent.ir.steps import Capture, CaptureTurns

    version = importlib.metadata.version("google-adk")
    events, invocation = session_events(200)
    state = {"draft": "d", "intent": "booking"}
    major = int(version.split(".")[0])
    module = importlib.import_module(
        "google.adk.flows.llm_flows.context._contents"
        if major >= 2
        else "google.adk.flows.llm_flows.contents"
    )

    def adk_default():
        module._get_contents(None, events, "writer")

    specs = {
        "C.user_only()": C.user_only(),
        "C.from_agents('researcher')": C.from_agents("researcher"),
        "C.last_n_turns(3) + C.from_state(...)": C.last_n_turns(3)
        + C.from_state("draft", "intent"),
    }
    adk = _median(adk_default)
    print(f"context benchmarks, google-adk {version}, 200-event session")
    print(f"{'measurement':44} {'ms':>8} {'vs ADK default':>15} {'budget':>8}  verdict")
    print(f"{'ADK default assembly (_get_contents)':44} {adk * 1e3:>8.3f} {1.0:>15.2f}")
    for label, spec in specs.items():
        took = _median(
            lambda spec=spec: build_view(
                spec,
                events=events,
                state=state,
                agent="writer",
                invocation_id=invocation,
                branch=None,
            )
        )
        verdict = "PASS" if took < 5e-3 else "MISS"
        print(f"{label:44} {took * 1e3:>8.3f} {took / adk:>15.2f} {'5 ms':>8}  {verdict}")
    run = Run(user_text="hello", events=events)
    capture_step, turns_step = Capture("q"), CaptureTurns("recent", 5)
    capture = _median(lambda: capture_step.apply(state, run, "capture_q"), number=2000)
    turns = _median(lambda: turns_step.apply(state, run, "capture_turns_recent"), number=200)
    print(
        f"{'capture step (S.capture / C.capture)':44} {capture * 1e3:>8.4f} {'':>15} {'1 ms':>8}  "
        f"{'PASS' if capture < 1e-3 else 'MISS'}"
    )
    print(
        f"{'C.capture_turns(key, 5)':44} {turns * 1e3:>8.4f} {'':>15} {'1 ms':>8}  "
        f"{'PASS' if turns < 1e-3 else 'MISS'}"
    )


if __name__ == "__main__":
    main()
