"""Time to the first audio chunk in a live session: `pipeline.live()` vs raw ADK's run_live.

One voice agent with a tool, a scripted live model (adk_fluent.testing's live steps): each
turn the user speaks (activity start, 10 chunks of 16 kHz PCM, activity end), the model calls
the tool, then answers with a transcription, 5 audio chunks and its text (streamed in two
chunks, `gap` seconds apart). The clock starts at the activity end and stops at the first
event carrying audio, so it holds ADK's tool round trip on both sides; the rest of the turn is
read untimed. Both sides hold one open
live session each and take their turns interleaved:

  live()     `agent.live(modalities=("AUDIO",))`: send_audio / activity_end, then the events
  raw ADK    the same App (`agent.to_app()`), ADK's Runner.run_live with a LiveRequestQueue

    python -m bench.bench_live [--repeat N] [--gap SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import warnings
from typing import Any

from bench import ratio_row, report

CHUNKS = 5
PCM = b"\x00\x01" * 160  # 10 ms of 16 kHz 16-bit mono


def lookup(city: str) -> dict:
    """The local time in a city."""
    return {"city": city, "time": "10:30"}


def script(gap: float) -> Any:
    from adk_fluent.testing import audio, call, live_turn, repeat, streamed, transcript

    speech = live_turn(
        transcript("It is half past ten."),
        *[audio(PCM) for _ in range(CHUNKS)],
        streamed("It is ", "half past ten.", gap=gap),
    )
    return repeat(call("lookup", city="Paris"), speech)


def agent() -> Any:
    from adk_fluent import Agent

    return Agent("voice").instruct("Answer by voice.").tool(lookup)


def speak(send_audio: Any, start: Any, end: Any) -> float:
    start()
    for _ in range(10):
        send_audio(PCM)
    end()
    return time.perf_counter()


async def first_audio(events: Any, started: float) -> float:
    """Seconds from `started` to the first event carrying audio; the turn is read to its end."""
    took = None
    async for event in events:  # adk-fluent's AgentEvents or ADK's Events
        raw = getattr(event, "raw", None) or event
        parts = raw.content.parts if raw.content and raw.content.parts else ()
        if took is None and any(part.inline_data for part in parts):
            took = time.perf_counter() - started
        if raw.turn_complete:
            break
    assert took is not None, "no audio in the turn"
    return took


async def measure(repeat: int, warmup: int, gap: float) -> dict[str, list[float]]:
    from google.adk.agents.live_request_queue import LiveRequestQueue
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from adk_fluent.testing import mock_backend

    voice = agent()
    ours_backend = mock_backend({"voice": script(gap)})
    app = voice.to_app(backend=mock_backend({"voice": script(gap)}))
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=app.name, user_id="u")
    runner = Runner(app=app, session_service=sessions)
    queue = LiveRequestQueue()
    config = RunConfig(streaming_mode=StreamingMode.BIDI, response_modalities=["AUDIO"])
    raw_events = runner.run_live(
        user_id="u", session_id=session.id, live_request_queue=queue, run_config=config
    )

    async def raw_turn() -> float:
        def blob(data: bytes) -> None:
            queue.send_realtime(types.Blob(data=data, mime_type="audio/pcm;rate=16000"))

        started = speak(blob, queue.send_activity_start, queue.send_activity_end)
        return await first_audio(_until_turn(raw_events), started)

    samples: dict[str, list[float]] = {"live": [], "raw": []}
    async with voice.live(backend=ours_backend, modalities=("AUDIO",)) as live:

        async def our_turn() -> float:
            started = speak(live.send_audio, live.activity_start, live.activity_end)
            return await first_audio(live.until_turn_complete(), started)

        for index in range(warmup + repeat):
            pair = [("live", our_turn), ("raw", raw_turn)]
            for name, turn in pair if index % 2 == 0 else reversed(pair):
                took = await turn()
                if index >= warmup:
                    samples[name].append(took)
    queue.close()
    await raw_events.aclose()
    return samples


async def _until_turn(events: Any) -> Any:
    """ADK's live events up to the end of the current turn (the generator stays open)."""
    while True:
        event = await events.__anext__()
        yield event
        if event.turn_complete:
            return


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=40, help="turns per side")
    parser.add_argument("--gap", type=float, default=0.005, help="seconds before each chunk")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=r".*EXPERIMENTAL.*", category=UserWarning)
    warmup = 3
    samples = asyncio.run(measure(args.repeat, warmup, args.gap))
    report(
        "bench_live: time to the first audio chunk of a live turn (after a tool call)",
        [ratio_row("live(): activity end to first audio", samples["live"], samples["raw"], 1.5)],
        [
            f"medians of {args.repeat} turns per side, interleaved, after {warmup} warm-up "
            f"turns; one open live session each; scripted model: a tool call, then a "
            f"transcription and {CHUNKS} audio chunks ({args.gap * 1000:g} ms pacing on the "
            "text stream)",
        ],
    )


if __name__ == "__main__":
    main()
