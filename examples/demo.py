"""Run the booking pipeline end to end: `make demo`, or `python examples/demo.py [--offline]`.

Offline (the default), a scripted model stands in for the LLM and everything else is real:
ADK's Runner, the `book` tool, the in-memory session store. With GOOGLE_API_KEY set (or
GOOGLE_GENAI_USE_VERTEXAI=1), the same pipeline runs on $ADK_FLUENT_DEMO_MODEL.
"""

import asyncio
import logging
import os
import sys
from textwrap import shorten

from booking import MODEL, pipeline  # examples/ is on sys.path when run as a script

from adk_fluent import AgentEvent, check_contracts
from adk_fluent.testing import call, mock_backend

PROMPT = "I want to go to Paris next week."
SCRIPT = {  # the model's replies, step by step, per agent
    "classifier": "booking",
    "booker": [call("book", city="Paris"), "Your trip to Paris is booked, reference BK-PAR-001."],
}
OFFLINE_NOTE = """\
  Only the model's replies were scripted (SCRIPT above); the Runner, the `book` tool, the
  session store and the state were real ADK. Set GOOGLE_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI=1)
  and the same pipeline runs on {model} (ADK_FLUENT_DEMO_MODEL overrides it): the model
  writes the replies and decides whether and how to call `book`, so the wording varies."""
LIVE_NOTE = """\
  {model} wrote the replies and chose the tool call; a rerun may word them differently.
  `python examples/demo.py --offline` replays a fixed script: same pipeline, no key, no cost."""


def live_model_configured() -> bool:
    """True when google-genai would find credentials: an API key, or Vertex AI switched on."""
    vertex = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
    return bool(os.environ.get("GOOGLE_API_KEY")) or vertex


def describe(event: AgentEvent, mark_final: bool = True) -> str:
    """One line per event: who, what was said or called, what state changed, whether final."""
    said = [repr(shorten(event.content, 60))] if event.content else []
    said += [f"calls {c.tool_name}({c.args})" for c in event.tool_calls]
    said += [f"{r.tool_name} -> {r.result}" for r in event.tool_responses]
    if event.state_delta:
        delta = {key: shorten(str(value), 30) for key, value in event.state_delta.items()}
        said.append(f"state {delta}")
    if event.is_final and mark_final:
        said.append("[final]")
    if event.visibility != "user":
        said.append(f"({event.visibility})")
    return f"  {event.author:<10}  " + "  ".join(said)


def section(title: str) -> None:
    print(f"\n== {title} ==")


async def main() -> int:
    live = live_model_configured() and "--offline" not in sys.argv
    backend = None if live else mock_backend(SCRIPT)  # None: agents use their own model
    print(f"Prompt: {PROMPT!r}")
    print(f"Model: {MODEL} (live)" if live else "Model: scripted (offline)")

    section("1. Event stream: what the client receives (internal text is filtered out)")
    try:
        async for event in pipeline.stream(PROMPT, session_id="demo", backend=backend):
            print(describe(event))
    except Exception as error:
        if not live:
            raise  # offline, a failure is a bug: show the whole traceback
        print(f"  The model call failed: {type(error).__name__}: {shorten(str(error), 200)}")
        print("  Check the credentials and network, or run `python examples/demo.py --offline`.")
        return 1

    session = await pipeline.session("demo", backend=backend)
    section("2. Session history: every event in the session store, nothing lost")
    for stored in session.events:
        print(describe(AgentEvent.from_adk(stored), mark_final=False))

    section("3. Final state")
    for key, value in session.state.items():
        print(f"  {key} = {value!r}")

    section("4. Diagnostics (check_contracts, before any model call)")
    print("  " + check_contracts(pipeline).to_text().rstrip().replace("\n", "\n  "))

    section("5. Diagram (mermaid)")
    print(pipeline.to_mermaid().rstrip())

    section("6. With a real model")
    print((LIVE_NOTE if live else OFFLINE_NOTE).format(model=MODEL))
    return 0


if __name__ == "__main__":
    logging.getLogger("google_adk").setLevel(logging.ERROR)  # keep ADK's warnings out of the demo
    logging.getLogger("google_genai").setLevel(logging.ERROR)
    sys.exit(asyncio.run(main()))
