"""log / structured_log through the real Runner: one line per model call and per tool call,
with the agent's path, the model or tool, the duration by the injected clock, the outcome, the
tokens and the ids; no message text or argument values unless asked; concurrent calls (FanOut
branches, parallel function calls) timed apart; errors logged as errors."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, ExecutionConfig
from adk_fluent.middleware import Middleware
from adk_fluent.middleware.call_log import CallLog, StructuredLog, log, structured_log
from adk_fluent.testing import ScriptedModel, call
from tests.support.middleware import user

LOGGER = "adk_fluent.middleware"


class Ticks:
    """A clock that moves 1 ms each time it is read (sequential calls last exactly 1 ms), or
    stands where a test puts it."""

    def __init__(self, step: float = 0.001) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def scripted(model: ScriptedModel, name: str) -> Agent:
    return Agent(name).instruct(f"You are {name}.").model(model.for_agent(name))


def book(city: str) -> dict:
    """Book a trip to a city."""
    return {"status": "booked", "city": city}


def booking(model: ScriptedModel) -> Any:
    return (scripted(model, "classifier") >> scripted(model, "booker").tool(book)).named("trip")


def booking_model(city: str = "Paris") -> ScriptedModel:
    return ScriptedModel(
        {"classifier": ["booking"], "booker": [call("book", city=city), f"Booked {city}."]}
    )


async def run_plain(app: Any, prompt: str, session_id: str = "s1") -> list[Any]:
    service = InMemorySessionService()
    await service.create_session(app_name=app.name, user_id="u", session_id=session_id)
    runner = Runner(app=app, session_service=service)
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session_id, new_message=user(prompt)
        )
    ]


def lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == LOGGER]


def fields(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """Each line's JSON object (structured_log writes one per line)."""
    found = []
    for record in lines(caplog):
        text = record.getMessage()
        assert "\n" not in text
        found.append(json.loads(text))
    return found


async def test_structured_log_writes_one_line_per_model_and_tool_call_through_a_plain_runner(
    caplog,
):
    caplog.set_level(logging.INFO, logger=LOGGER)
    model = booking_model()
    app = booking(model).to_app(ExecutionConfig(middleware=structured_log(clock=Ticks())))
    events = await run_plain(app, "to Paris please", session_id="s-42")
    records = fields(caplog)
    assert [(r["kind"], r["path"]) for r in records] == [
        ("model", "trip/classifier"),
        ("model", "trip/booker"),
        ("tool", "trip/booker"),
        ("model", "trip/booker"),
    ]
    assert len([r for r in records if r["kind"] == "model"]) == len(model.calls)
    invocation = events[0].invocation_id
    for record in records:
        assert record["duration_ms"] == 1.0  # the clock moves 1 ms between a call's two reads
        assert record["outcome"] == "ok"
        assert record["invocation_id"] == invocation and record["session_id"] == "s-42"
    classifier, booker_call, tool, booker_final = records
    assert classifier["agent"] == "classifier"
    assert classifier["model"] == model.model
    assert (classifier["prompt_tokens"], classifier["output_tokens"]) == (8, 4)
    assert classifier["total_tokens"] == 12
    assert booker_call["tool_calls"] == ["book"]
    assert tool["tool"] == "book" and tool["agent"] == "booker"
    assert tool["arg_names"] == ["city"]
    function_call = events[1].content.parts[0].function_call
    assert tool["call_id"] == function_call.id
    assert "tool_calls" not in booker_final
    assert all(record.levelno == logging.INFO for record in lines(caplog))
    # handlers get the fields themselves too
    assert [r.adk_fluent_call["kind"] for r in lines(caplog)] == ["model", "model", "tool", "model"]

    # the same tree without the middleware writes nothing
    caplog.clear()
    await run_plain(booking(booking_model()).to_app(), "to Paris please")
    assert lines(caplog) == []


async def test_log_writes_key_value_lines_under_expr_run_to_the_given_logger(caplog):
    caplog.set_level(logging.DEBUG, logger="myapp.calls")
    model = booking_model()
    trip = booking(model).middleware(log("myapp.calls", level=logging.DEBUG, clock=Ticks()))
    await trip.run("to Paris please", session_id="run-1")
    records = [r for r in caplog.records if r.name == "myapp.calls"]
    assert [r.getMessage().split(" ")[:2] for r in records] == [
        ["model", "trip/classifier"],
        ["model", "trip/booker"],
        ["tool", "trip/booker"],
        ["model", "trip/booker"],
    ]
    assert all(r.levelno == logging.DEBUG for r in records)
    first = records[0].getMessage()
    assert "agent=classifier" in first and "duration_ms=1.0" in first and "outcome=ok" in first
    assert "prompt_tokens=8" in first and "session_id=run-1" in first
    assert 'arg_names=["city"]' in records[2].getMessage()
    assert lines(caplog) == []  # nothing went to the default logger


SECRET_CITY = "Xanadu-7731"


@pytest.mark.parametrize("make", [log, structured_log], ids=["log", "structured_log"])
async def test_no_message_text_or_argument_values_unless_include_content(make, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    model = booking_model(SECRET_CITY)
    prompt = f"secret trip to {SECRET_CITY}"
    await booking(model).middleware(make()).run(prompt, session_id="private")
    written = "\n".join(r.getMessage() for r in lines(caplog))
    assert len(lines(caplog)) == 4
    assert SECRET_CITY not in written and "booking" not in written and "Booked" not in written

    caplog.clear()
    model = booking_model(SECRET_CITY)
    await booking(model).middleware(make(include_content=True)).run(prompt, session_id="shown")
    written = "\n".join(r.getMessage() for r in lines(caplog))
    assert SECRET_CITY in written  # the tool's arguments, its result, the model's reply
    assert f"Booked {SECRET_CITY}." in written and "booking" in written


async def test_streamed_chunks_are_not_calls_one_line_per_model_call():
    model = ScriptedModel({"solo": ["three streamed words"]})
    handler = Collect()
    logger = logging.getLogger("test.call_log.stream")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        agent = scripted(model, "solo").middleware(structured_log(logger, clock=Ticks()))
        events = await agent.run("hi", config=ExecutionConfig(streaming_mode="sse"))
    finally:
        logger.removeHandler(handler)
    assert len([e for e in events if e.raw.partial]) == 3  # the chunks reached the client
    assert [json.loads(m)["kind"] for m in handler.messages] == ["model"]
    assert json.loads(handler.messages[0])["total_tokens"] == 12


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


# -- concurrency ---------------------------------------------------------------------------------
class Signal(Middleware):
    """Sets `event` once the agent (or the tool call with label) `what` has ended: after the
    log's own callback, which has the lower priority."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what
        self.event = asyncio.Event()

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        if callback_context.agent_name == self.what:
            self.event.set()

    async def after_tool_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, result: Any
    ) -> None:
        if tool_args.get("label") == self.what:
            self.event.set()


class Stage:
    """Two concurrent calls, ordered: both begin at 0, `fast` ends at 100 ms, then `slow` at 300
    ms (it waits until `fast` has been logged); whatever order asyncio starts them in."""

    def __init__(self) -> None:
        self.clock = Ticks(step=0.0)
        self.arrived: set[str] = set()
        self.all_in = asyncio.Event()
        self.fast_done = Signal("fast")

    async def play(self, label: str) -> None:
        self.arrived.add(label)
        if len(self.arrived) == 2:
            self.all_in.set()
        await self.all_in.wait()  # both calls have begun (their before_* ran at 0)
        if label == "fast":
            self.clock.now = 0.100
        else:
            await self.fast_done.event.wait()
            self.clock.now = 0.300


async def test_fanout_branches_are_timed_apart(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    stage = Stage()

    def answer(label: str) -> Any:
        async def step(request: Any) -> str:
            await stage.play(label)
            return f"{label} done"

        return step

    model = ScriptedModel({"slow": [answer("slow")], "fast": [answer("fast")]})
    fan = (scripted(model, "slow") | scripted(model, "fast")).named("fan")
    config = ExecutionConfig(middleware=(structured_log(clock=stage.clock), stage.fast_done))
    await run_plain(fan.to_app(config), "go")
    records = {r["agent"]: r for r in fields(caplog)}
    assert records["fast"]["duration_ms"] == 100.0 and records["fast"]["path"] == "fan/fast"
    assert records["slow"]["duration_ms"] == 300.0 and records["slow"]["path"] == "fan/slow"
    assert len(fields(caplog)) == 2


async def test_parallel_function_calls_are_timed_apart(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    stage = Stage()

    async def work(label: str) -> dict:
        """Do some work."""
        await stage.play(label)
        return {"done": label}

    two_calls = LlmResponse(
        content=types.Content(
            role="model",
            parts=[
                types.Part(function_call=types.FunctionCall(name="work", args={"label": "slow"})),
                types.Part(function_call=types.FunctionCall(name="work", args={"label": "fast"})),
            ],
        )
    )
    model = ScriptedModel({"worker": [two_calls, "both done"]})
    agent = scripted(model, "worker").tool(work)
    config = ExecutionConfig(middleware=(structured_log(clock=stage.clock), stage.fast_done))
    events = await run_plain(agent.to_app(config), "go")
    ids = [p.function_call.id for p in events[0].content.parts]
    tools = [r for r in fields(caplog) if r["kind"] == "tool"]
    assert sorted(r["call_id"] for r in tools) == sorted(ids)  # one line per call, none lost
    by_id = {r["call_id"]: r["duration_ms"] for r in tools}
    assert by_id == {ids[0]: 300.0, ids[1]: 100.0}  # slow, fast: each with its own start


# -- errors --------------------------------------------------------------------------------------
async def test_a_failed_model_call_is_one_error_line_and_the_error_still_propagates(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    model = ScriptedModel({"solo": [TimeoutError("quota")]})
    agent = scripted(model, "solo").middleware(structured_log(clock=Ticks()))
    with pytest.raises(TimeoutError, match="quota"):
        await agent.run("hi")
    [record] = fields(caplog)
    assert record["kind"] == "model" and record["outcome"] == "TimeoutError"
    assert record["duration_ms"] == 1.0 and record["model"] == model.model
    assert "quota" not in json.dumps(record)  # the message only with include_content
    assert lines(caplog)[0].levelno == logging.WARNING


class ReplaceFailures(Middleware):
    """Answers for a failed model call or tool call (as a fallback would)."""

    async def on_model_error_callback(
        self, *, callback_context: Any, llm_request: Any, error: Any
    ) -> Any:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="spare")]))

    async def on_tool_error_callback(
        self, *, tool: Any, tool_args: Any, tool_context: Any, error: Any
    ) -> Any:
        return {"status": "unavailable"}


def charge(amount: int) -> dict:
    """Charge a card."""
    raise ConnectionError("gateway down")


async def test_a_replaced_failure_is_logged_once_as_the_error_it_was(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    model = ScriptedModel({"cashier": [call("charge", amount=5), RuntimeError("overloaded")]})
    agent = scripted(model, "cashier").tool(charge)
    config = ExecutionConfig(middleware=(structured_log(clock=Ticks()), ReplaceFailures()))
    events = await run_plain(agent.to_app(config), "pay")
    assert events[-1].content.parts[0].text == "spare"  # the run went on
    assert [(r["kind"], r["outcome"]) for r in fields(caplog)] == [
        ("model", "ok"),
        ("tool", "ConnectionError"),
        ("model", "RuntimeError"),
    ]
    assert [r.levelno for r in lines(caplog)] == [logging.INFO, logging.WARNING, logging.WARNING]


async def test_a_tool_error_that_nobody_handles_is_logged_and_propagates(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    model = ScriptedModel({"cashier": [call("charge", amount=5)]})
    agent = scripted(model, "cashier").tool(charge)
    with pytest.raises(ConnectionError):
        await agent.middleware(structured_log(include_content=True, clock=Ticks())).run("pay")
    tool = fields(caplog)[-1]
    assert (tool["kind"], tool["tool"], tool["outcome"]) == ("tool", "charge", "ConnectionError")
    assert tool["error_message"] == "gateway down" and tool["args"] == {"amount": 5}


async def test_an_error_reply_is_logged_with_its_error_code(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    blocked = LlmResponse(error_code="SAFETY", error_message="blocked")
    model = ScriptedModel({"solo": [blocked]})
    await scripted(model, "solo").middleware(structured_log(clock=Ticks())).run("hi")
    [record] = fields(caplog)
    assert record["outcome"] == "SAFETY" and "blocked" not in json.dumps(record)


# -- scope and what is kept ----------------------------------------------------------------------
class AnswerFor(Middleware):
    """Answers model calls of `agent` itself (a later middleware than the log)."""

    def __init__(self, agent: str) -> None:
        super().__init__()
        self.agent = agent

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Any:
        if callback_context.agent_name == self.agent:
            return LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text="from middleware")])
            )
        return None


async def test_a_scoped_log_sees_its_agents_only_and_nothing_is_kept_after_the_run(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    model = ScriptedModel({"classifier": [], "booker": [call("book", city="Rome"), "Booked."]})
    scoped = structured_log(scope="booker", clock=Ticks())
    everything = log(clock=Ticks())
    config = ExecutionConfig(middleware=(scoped, everything, AnswerFor("classifier")))
    await run_plain(booking(model).to_app(config), "Rome")
    structured = [r.getMessage() for r in lines(caplog) if r.getMessage().startswith("{")]
    assert [json.loads(m)["agent"] for m in structured] == ["booker", "booker", "booker"]
    # the classifier's call was answered by a middleware: not a model call, so no line
    plain = [r.getMessage() for r in lines(caplog) if not r.getMessage().startswith("{")]
    assert [m.split(" ")[1] for m in plain] == ["trip/booker"] * 3
    assert isinstance(scoped, StructuredLog) and isinstance(everything, CallLog)
    # no call is left open: the one answered by a middleware was dropped when its agent ended
    assert scoped._open == {} and everything._open == {}
