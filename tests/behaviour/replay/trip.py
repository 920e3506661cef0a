"""The pipeline the replay tests record and replay, its scripts, and how runs are compared.

A booking trip: a classifier writes `intent`, a booker calls the `book` tool (which writes
`booked_city` through its tool context, and counts its calls: the side effect a replay must not
repeat) and writes `confirmation`, then a FanOut of a writer and a critic. Two turns in one
session. Scripted models stand in for the real model at record time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adk_fluent import Agent, ExecutionConfig, FanOut
from adk_fluent.replay import Recorder, Recording
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service

APP = "adk_fluent_app"
SESSION = "trip-1"
TURNS = ("Book me Paris", "And Rome please")
WRITER = "Write a one-line summary of {confirmation}."


@dataclass
class Ledger:
    """What the side-effecting tool did: how often it ran."""

    bookings: int = 0


def book_tool(ledger: Ledger) -> Any:
    def book(city: str, tool_context: Any) -> dict:
        """Book a trip to a city."""
        ledger.bookings += 1
        tool_context.state["booked_city"] = city
        return {"status": "booked", "city": city, "ref": f"R-{city[:3].upper()}"}

    return book


def trip(
    ledger: Ledger,
    *,
    writer: str = WRITER,
    branches: tuple[str, ...] = ("writer", "critic"),
) -> Any:
    """The pipeline; `writer` changes the writer's instruction, `branches` the FanOut."""
    agents = {
        "writer": Agent("writer").instruct(writer).outputs("summary"),
        "critic": Agent("critic").instruct("Criticise {confirmation}.").outputs("critique"),
        "editor": Agent("editor").instruct("Edit {confirmation}."),
    }
    return (
        Agent("classifier").instruct("Label the request: booking or other.").outputs("intent")
        >> Agent("booker")
        .instruct("Book what the user asks ({intent}).")
        .tool(book_tool(ledger))
        .outputs("confirmation")
        >> FanOut(*(agents[name] for name in branches)).named("report")
    ).named("trip")


def scripts() -> dict[str, list[Any]]:
    """What the 'real model' answers at record time, two turns."""
    return {
        "classifier": ["booking", "booking"],
        "booker": [
            call("book", city="Paris"),
            "Booked Paris.",
            call("book", city="Rome"),
            "Booked Rome.",
        ],
        "writer": ["Paris is booked.", "Rome is booked too."],
        "critic": ["Fine.", "Still fine."],
    }


async def record(
    pipeline: Any,
    *,
    store: Any = None,
    backend: Any = None,
    streaming: str | None = None,
    **recorder_options: Any,
) -> tuple[Recording, list[list[Any]]]:
    """Run the two turns with a Recorder (and the scripts, unless another backend is given);
    the recording and each turn's client events."""
    recorder = Recorder(tree=pipeline, **recorder_options)
    config = ExecutionConfig(middleware=[recorder])
    backend = backend or mock_backend(scripts())
    turns = []
    for prompt in TURNS:
        turns.append(
            await pipeline.run(
                prompt,
                backend=backend,
                config=config,
                session_id=SESSION,
                session_store=store,
                streaming=streaming,
            )
        )
    return recorder.recording(), turns


def client_view(event: Any) -> tuple[Any, ...]:
    """What a client sees of an event, without what differs on every run (ids, times)."""
    return (
        event.author,
        event.content,
        event.state_delta,
        event.artifact_delta,
        tuple((c.tool_name, c.args) for c in event.tool_calls),
        tuple((r.tool_name, r.result) for r in event.tool_responses),
        event.is_final,
        event.is_partial,
        event.error_code,
        event.visibility,
    )


def stored_view(event: Any) -> tuple[Any, ...]:
    """What the session store holds of an event, without ids and times."""
    parts = []
    for part in (event.content.parts if event.content else None) or []:
        if part.function_call:
            parts.append(("call", part.function_call.name, part.function_call.args))
        elif part.function_response:
            parts.append(("result", part.function_response.name, part.function_response.response))
        else:
            parts.append(("text", part.text))
    return (
        event.author,
        tuple(parts),
        dict(event.actions.state_delta or {}),
        event.error_code,
    )


async def stored(url: str, session_id: str = SESSION) -> tuple[list[tuple[Any, ...]], dict]:
    """The session as a fresh service reloads it from the SQLite file: events and state."""
    session = await fresh_db_service(url).get_session(
        app_name=APP, user_id="user", session_id=session_id
    )
    assert session is not None
    return [stored_view(event) for event in session.events], dict(session.state)


def the_error(error: BaseException, kind: type[BaseException]) -> Any:
    """`error`, or the one of `kind` inside it: ADK 1.x runs a FanOut's branches in a task
    group, so an error raised in a branch reaches the caller inside an ExceptionGroup."""
    if isinstance(error, kind):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = the_error(inner, kind)
            if found is not None:
                return found
    return None
