"""Small recordings made by hand for the unit tests (no Runner): model calls of named agents,
each with an instruction, the user's words and a reply, and the events they would give."""

from __future__ import annotations

from typing import Any

from adk_fluent.replay import Header, ModelCall, RecordedEvent, Recording, ToolCall

HEADER = Header(
    adk_version="2.13.0", adk_fluent_version="0.1.0", created="2025-01-01T00:00:00+00:00"
)


def request(instruction: str, *texts: str, tools: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "contents": [{"parts": [{"text": text}], "role": "user"} for text in texts],
        "instruction": instruction,
        "model": "some-model",
        "tools": list(tools),
    }


def reply(text: str, *, partial: bool = False) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "content": {"parts": [{"text": text}], "role": "model"},
        "usage_metadata": {
            "prompt_token_count": 3,
            "candidates_token_count": 1,
            "total_token_count": 4,
        },
    }
    if partial:
        answer["partial"] = True
    return answer


def made(
    calls: list[tuple[str, str, str, str]],
    *,
    session: str = "s1",
    tools: tuple[ToolCall, ...] = (),
    header: Header = HEADER,
) -> Recording:
    """A recording of (agent, instruction, user text, reply) model calls, one event each."""
    model_calls = []
    events = [
        RecordedEvent(
            seq=0,
            session_id=session,
            invocation_id="i1",
            author="user",
            content={"parts": [{"text": calls[0][2] if calls else "hi"}], "role": "user"},
        )
    ]
    counts: dict[str, int] = {}
    for n, (agent, instruction, text, answer) in enumerate(calls):
        counts[agent] = counts.get(agent, 0) + 1
        model_calls.append(
            ModelCall(
                seq=2 * n + 1,
                session_id=session,
                invocation_id="i1",
                agent=agent,
                call=counts[agent],
                request=request(instruction, text),
                responses=(reply(answer),),
                model="some-model",
                path=f"root/{agent}",
            )
        )
        events.append(
            RecordedEvent(
                seq=2 * n + 2,
                session_id=session,
                invocation_id="i1",
                author=agent,
                id=f"event-{n}",
                content={"parts": [{"text": answer}], "role": "model"},
                state_delta={f"{agent}_out": answer},
                final=True,
            )
        )
    return Recording(header, tuple(model_calls), tools, tuple(events))
