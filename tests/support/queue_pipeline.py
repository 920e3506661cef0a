"""A pipeline whose "heavy" step is a queue boundary, for tests/integration/queue: the callers
run it here and its workers run it as `adk-fluent worker tests.support.queue_pipeline:pipeline
--boundary heavy` in processes of their own.

    S.capture("question") >> a >> (b >> S.set(heavy_done=True)).execution_boundary("heavy") >> c

Every agent has a scripted model of its own (the worker process builds the pipeline from this
module, so the scripts are here, not in the test). They answer from their instruction, so each
reply shows the state the agent read: b names the topic only if it crossed to the worker, c the
result only if it came back. b's model also obeys the question:

* "slow N ...": b waits N seconds before answering (a worker can be killed mid-step);
* "poison ...": b raises, on every try.

Each call of b's model appends one line, `<pid> <question>`, to the file named by
$ADK_FLUENT_QUEUE_MARKS (when set): which worker process ran which step, how often.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from adk_fluent import Agent, S
from adk_fluent.testing import ScriptedModel, repeat

SERVICE = "heavy"
MARKS_ENV = "ADK_FLUENT_QUEUE_MARKS"
QUEUE_ENV = "ADK_FLUENT_QUEUE_URL"


def _between(request: Any) -> str:
    value = request.config.system_instruction if request.config else None
    text = value if isinstance(value, str) else str(value or "")
    return text.split("<<", 1)[1].split(">>", 1)[0]


def topic_reply(request: Any) -> str:
    return "topic of " + _between(request)


async def heavy_reply(request: Any) -> str:
    topic = _between(request)
    question = topic.removeprefix("topic of ")
    marks = os.environ.get(MARKS_ENV)
    if marks:
        with open(marks, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()} {question}\n")
    if question.startswith("poison"):
        raise RuntimeError("the heavy step always fails on this one")
    if question.startswith("slow "):
        await asyncio.sleep(float(question.split()[1]))
    return "worked on " + topic


def answer_reply(request: Any) -> str:
    return "answer: " + _between(request)


def build(url: str | None = None, *, timeout: float = 60.0) -> Any:
    """The pipeline, its boundary at `url` (default: $ADK_FLUENT_QUEUE_URL, given by the test)."""
    queue = url or os.environ.get(QUEUE_ENV, "redis://127.0.0.1:6379/0")
    return (
        S.capture("question")
        >> Agent("a")
        .model(ScriptedModel([repeat(topic_reply)]))
        .instruct("<<{question}>>")
        .outputs("topic")
        >> (
            Agent("b")
            .model(ScriptedModel([repeat(heavy_reply)]))
            .instruct("<<{topic}>>")
            .outputs("result")
            >> S.set(heavy_done=True)
        ).execution_boundary(SERVICE, url=queue, timeout=timeout)
        >> Agent("c").model(ScriptedModel([repeat(answer_reply)])).instruct("<<{result}>>")
    )


pipeline = build()
