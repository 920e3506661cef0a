"""Run by tests/integration/run/test_stream_close_process.py in a process of its own (it installs a global
OpenTelemetry TracerProvider, which only a fresh process can have): break out of `.stream()`
at every event of a turn, then, in the same task, run a plain Runner from `.filtered().to_app()`
and print what its client received. The test reads stdout and stderr."""

from __future__ import annotations

import asyncio
import gc
import logging

from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from adk_fluent import Agent
from adk_fluent.testing import call, mock_backend

logging.basicConfig(level=logging.WARNING)
# A recording provider: ADK's spans then attach OpenTelemetry context tokens, whose detach
# fails when a generator is closed in another context.
trace.set_tracer_provider(TracerProvider())


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city}


def pipeline() -> Agent:
    return (
        Agent("classifier").instruct("Classify.").outputs("intent")
        >> Agent("worker").instruct("Work on {intent}.").tool(lookup).outputs("notes")
        >> Agent("answer").instruct("Answer.")
    )


def script():
    return mock_backend(
        {
            "classifier": "INTERNAL LABEL",
            "worker": [call("lookup", city="Paris"), "INTERNAL NOTES"],
            "answer": "Final answer.",
        }
    )


async def plain_runner_texts() -> list[tuple[str, str]]:
    backend = script()
    app = pipeline().filtered().to_app(backend=backend)
    service = InMemorySessionService()
    await service.create_session(app_name=app.name, user_id="u", session_id="plain")
    runner = Runner(app=app, session_service=service)
    received = []
    async for event in runner.run_async(
        user_id="u",
        session_id="plain",
        new_message=types.Content(role="user", parts=[types.Part(text="go")]),
    ):
        for part in (event.content.parts or []) if event.content else []:
            if part.text:
                received.append((event.author, part.text))
    return received


async def main() -> None:
    for stop_at in range(1, 6):
        seen = 0
        async for _event in pipeline().filtered().stream("go", backend=script()):
            seen += 1
            if seen == stop_at:
                break
        print(f"BROKE {stop_at}", flush=True)
        print(f"PLAIN {stop_at} {await plain_runner_texts()!r}", flush=True)
    gc.collect()
    for _ in range(3):
        await asyncio.sleep(0)
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    print(f"PENDING {len(others)}", flush=True)


asyncio.run(main())
print("DONE", flush=True)
