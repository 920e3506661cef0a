"""Visibility costs: the plugin's per-event annotation (budget 0.1 ms), inference on a 100-node
graph (budget 1 ms), and a whole run with vs without the plugin, as a ratio in the same process.

Run: python -m bench.bench_visibility
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import statistics
import time
import warnings


def _median_seconds(fn, repeat: int, number: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def hundred_node_graph():
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


def main() -> None:
    from google.adk.events.event import Event
    from google.genai import types

    from adk_fluent import Agent
    from adk_fluent.adk.plugins.visibility import VisibilityPlugin
    from adk_fluent.analysis.visibility import infer_visibility_table
    from adk_fluent.ir.nodes import walk
    from adk_fluent.testing import mock_backend

    version = importlib.metadata.version("google-adk")
    ir = hundred_node_graph().to_ir()
    nodes = sum(1 for _ in walk(ir))
    infer = _median_seconds(lambda: infer_visibility_table(ir), repeat=15, number=20)

    plugin = VisibilityPlugin(infer_visibility_table(ir), mode="filtered")
    event = Event(
        author="a3",
        invocation_id="inv",
        content=types.Content(role="model", parts=[types.Part(text="booking")]),
    )
    loop = asyncio.new_event_loop()

    def annotate() -> None:
        coroutine = plugin.on_event_callback(invocation_context=None, event=event)
        try:
            coroutine.send(None)
        except StopIteration:
            pass

    per_event = _median_seconds(annotate, repeat=15, number=2000)

    # a whole 3-agent run with the plugin vs the same App with the plugin removed
    pipeline = (Agent("a").outputs("ka") >> Agent("b").outputs("kb") >> Agent("c")).filtered()

    async def run(with_plugin: bool) -> None:
        from google.adk.runners import Runner
        from google.adk.sessions import InMemorySessionService

        backend = mock_backend({"a": "A", "b": "B", "c": "C"})
        app = pipeline.to_app(backend=backend)
        if not with_plugin:
            app.plugins = [p for p in app.plugins if p.name != "adk_fluent_visibility"]
        service = InMemorySessionService()
        runner = Runner(app=app, session_service=service)
        await service.create_session(app_name=app.name, user_id="u", session_id="s")
        async for _ in runner.run_async(
            user_id="u",
            session_id="s",
            new_message=types.Content(role="user", parts=[types.Part(text="x")]),
        ):
            pass

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(20):  # warm-up
            loop.run_until_complete(run(True))
            loop.run_until_complete(run(False))
        with_times, without_times = [], []
        for _ in range(60):  # interleaved
            start = time.perf_counter()
            loop.run_until_complete(run(True))
            with_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            loop.run_until_complete(run(False))
            without_times.append(time.perf_counter() - start)
    loop.close()
    with_run, without_run = statistics.median(with_times), statistics.median(without_times)

    print(f"visibility benchmarks, google-adk {version}")
    print(f"{'measurement':48} {'value':>12} {'budget':>10}  verdict")
    print(
        f"{f'infer_visibility on {nodes} nodes':48} {infer * 1e3:>9.3f} ms {'1 ms':>10}  {'PASS' if infer < 1e-3 else 'MISS'}"
    )
    print(
        f"{'plugin annotation per event':48} {per_event * 1e3:>9.4f} ms {'0.1 ms':>10}  {'PASS' if per_event < 1e-4 else 'MISS'}"
    )
    print(f"{'3-agent run, with plugin':48} {with_run * 1e3:>9.3f} ms")
    print(f"{'3-agent run, same App without plugin':48} {without_run * 1e3:>9.3f} ms")
    print(f"{'ratio with / without':48} {with_run / without_run:>12.3f}")


if __name__ == "__main__":
    main()
