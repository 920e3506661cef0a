"""Evaluation: compiling fluent cases to ADK's EvalCase, and a suite of 100 scripted cases run end
to end, against raw ADK doing the same work in the same run.

  compile      `to_eval_case(case)` for 1000 FluentCases (response checks, tool calls with ANY /
               Regex arguments, state checks, some conversations) vs building the same EvalCases
               by hand with ADK's pydantic models (literal values where adk-fluent has rules)
  suite.run    100 cases on the booking pipeline of tests/support/evaluation.py (classifier >>
               booker with tools `book` / `refund`), scripted models that answer by the request:
               `await suite.run(backend=...)`, adk-fluent's trajectory and response metrics plus
               the state checks, the report included
  raw ADK      the same 100 cases as a hand-made EvalSet in an InMemoryEvalSetsManager,
               LocalEvalService on the App's root agent, perform_inference + evaluate with ADK's
               tool_trajectory_avg_score and response_match_score (parallelism 4 on both sides)

Goals (issue 16): compile <= 1 ms per case; 100 scripted cases end to end < 60 s, so a CI job can run a real suite on every change.
The suite/raw ratio is reported, with no goal: the suite does more (state checks, per-turn
findings, a report) and, on ADK 1.x, runs inference through its own Runner of the App.

    python -m bench.bench_eval [--repeat N] [--cases N]
"""

from __future__ import annotations

import argparse
import asyncio
import warnings
from typing import Any

from bench import budget_row, info_row, interleave, interleave_async, report

CITIES = ("Paris", "Rome", "Oslo")
DATE = "2026-12-01"  # the date the scripted booker passes to `book`


def _quiet() -> None:
    """ADK marks its eval classes experimental and warns on every construction."""
    import logging

    warnings.filterwarnings("ignore")
    logging.getLogger("google_adk").setLevel(logging.ERROR)


# -- the cases ----------------------------------------------------------------------------------
def case_kind(index: int) -> tuple[str, str, list[tuple[str, dict[str, Any]]], str]:
    """(kind, message, expected calls, expected final answer) of case `index`: bookings,
    refunds and greetings, as the scripted models of tests/support/evaluation.py answer them."""
    kind = ("booking", "booking", "booking", "refund", "hello")[index % 5]
    if kind == "booking":
        city = CITIES[index % len(CITIES)]
        reference = f"BK-{city[:3].upper()}-001"
        return (
            kind,
            f"Book me a trip to {city} ({index}).",
            [("book", {"city": city, "date": DATE})],
            f"Done: {reference}. Your trip is booked.",
        )
    if kind == "refund":
        return (
            kind,
            f"I want a refund, please ({index}).",
            [("refund", {"order": "A-17"})],
            "Done: refunded A-17. Your trip is booked.",
        )
    return kind, f"Hello there ({index}).", [], "Which city would you like?"


def fluent_cases(count: int) -> list[Any]:
    """FluentCases as a user writes them: argument rules, response checks, state checks."""
    from adk_fluent.evaluation import ANY, FluentCase, Regex, contains, exact, tool

    cases = []
    for index in range(count):
        kind, message, calls, answer = case_kind(index)
        if kind == "booking":
            name, args = calls[0]
            tools: list[Any] = [tool(name, city=args["city"], date=ANY)]
            response: Any = contains(answer.split()[1].rstrip("."))
            state: dict[str, Any] = {"intent": "booking", "reply": Regex(r"^Done: BK-")}
        elif kind == "refund":
            tools, response, state = ["refund"], contains("refunded"), {"intent": "refund"}
        else:
            tools, response, state = [], exact(answer), {"intent": "booking"}
        cases.append(
            FluentCase(
                message,
                id=f"case-{index:04d}",
                response=response,
                tools=tools,
                expect_state=state,
                tags=[kind],
            )
        )
    return cases


def conversation_cases(count: int) -> list[Any]:
    """Two-turn cases, for the compile measurement's mix."""
    from adk_fluent.evaluation import FluentCase, Turn, contains, tool

    return [
        FluentCase(
            [Turn("Hello.", response=contains("city"), tools=[]), "Paris, please."],
            id=f"talk-{index:04d}",
            tools=[tool("book", city="Paris", date=DATE)],
            response=contains("booked"),
        )
        for index in range(count)
    ]


def raw_eval_case(index: int, app_name: str) -> Any:
    """The EvalCase a raw-ADK user writes by hand for case `index` (literal arguments)."""
    from google.adk.evaluation.eval_case import IntermediateData, Invocation, SessionInput
    from google.adk.evaluation.eval_set import EvalCase
    from google.genai import types

    _, message, calls, answer = case_kind(index)
    invocation = Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=message)]),
        final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
        intermediate_data=IntermediateData(
            tool_uses=[types.FunctionCall(name=name, args=args) for name, args in calls]
        ),
    )
    return EvalCase(
        eval_id=f"case-{index:04d}",
        conversation=[invocation],
        session_input=SessionInput(app_name=app_name, user_id="eval_user", state={}),
    )


def raw_conversation_case(index: int, app_name: str) -> Any:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation, SessionInput
    from google.adk.evaluation.eval_set import EvalCase
    from google.genai import types

    def turn(text: str, answer: str, calls: list[Any]) -> Any:
        return Invocation(
            user_content=types.Content(role="user", parts=[types.Part(text=text)]),
            final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
            intermediate_data=IntermediateData(tool_uses=calls),
        )

    book = types.FunctionCall(name="book", args={"city": "Paris", "date": DATE})
    return EvalCase(
        eval_id=f"talk-{index:04d}",
        conversation=[turn("Hello.", "city", []), turn("Paris, please.", "booked", [book])],
        session_input=SessionInput(app_name=app_name, user_id="eval_user", state={}),
    )


# -- (a) compile --------------------------------------------------------------------------------
def measure_compile(count: int, repeat: int) -> dict[str, list[float]]:
    """Seconds per case: compile (fluent) vs hand-built EvalCases (raw), and writing the cases."""
    from adk_fluent.evaluation.compile import to_eval_case

    singles = count * 4 // 5
    cases = fluent_cases(singles) + conversation_cases(count - singles)
    app_name = "bench_app"

    def fluent() -> None:
        for case in cases:
            to_eval_case(case, app_name)

    def raw() -> None:
        for index in range(singles):
            raw_eval_case(index, app_name)
        for index in range(count - singles):
            raw_conversation_case(index, app_name)

    def write() -> None:
        fluent_cases(singles)
        conversation_cases(count - singles)

    samples = interleave({"fluent": fluent, "raw": raw, "write": write}, repeat, warmup=2)
    return {name: [s / count for s in values] for name, values in samples.items()}


# -- (b, c) 100 cases end to end ----------------------------------------------------------------
async def measure_suite(count: int, repeat: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds per run of `count` cases: suite.run vs raw LocalEvalService; and how many cases
    passed on each side in the last run (both should pass them all)."""
    from google.adk.artifacts.in_memory_artifact_service import InMemoryArtifactService
    from google.adk.evaluation.base_eval_service import (
        EvaluateConfig,
        EvaluateRequest,
        InferenceConfig,
        InferenceRequest,
    )
    from google.adk.evaluation.eval_metrics import EvalMetric, EvalStatus
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
    from google.adk.evaluation.local_eval_service import LocalEvalService
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    from adk_fluent.evaluation import FluentEvalSuite
    from tests.support.evaluation import booking_backend, booking_pipeline

    backend = booking_backend()  # kept for the whole run: the App is compiled once per backend
    suite = FluentEvalSuite("bench", booking_pipeline(), fluent_cases(count))
    root_agent = suite.to_app(backend=backend).root_agent
    passed = {"fluent": 0, "raw": 0}

    async def fluent() -> None:
        result = await suite.run(backend=backend)
        passed["fluent"] = sum(case.passed for case in result.cases)

    async def raw() -> None:
        app_name = "bench_raw"
        eval_set = EvalSet(
            eval_set_id="bench", eval_cases=[raw_eval_case(i, app_name) for i in range(count)]
        )
        manager = InMemoryEvalSetsManager()
        manager.create_eval_set(app_name=app_name, eval_set_id="bench")
        for eval_case in eval_set.eval_cases:
            manager.add_eval_case(app_name=app_name, eval_set_id="bench", eval_case=eval_case)
        service = LocalEvalService(
            root_agent=root_agent,
            eval_sets_manager=manager,
            session_service=InMemorySessionService(),
            artifact_service=InMemoryArtifactService(),
        )
        inferences = [
            result
            async for result in service.perform_inference(
                InferenceRequest(
                    app_name=app_name,
                    eval_set_id="bench",
                    inference_config=InferenceConfig(parallelism=4),
                )
            )
        ]
        metrics = [
            EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0),
            EvalMetric(metric_name="response_match_score", threshold=0.8),
        ]
        request = EvaluateRequest(
            inference_results=inferences,
            evaluate_config=EvaluateConfig(eval_metrics=metrics, parallelism=4),
        )
        results = [result async for result in service.evaluate(request)]
        passed["raw"] = sum(r.final_eval_status == EvalStatus.PASSED for r in results)

    samples = await interleave_async({"fluent": fluent, "raw": raw}, repeat, warmup=1)
    return samples, passed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="suite runs per side")
    parser.add_argument("--cases", type=int, default=100, help="cases per suite run")
    parser.add_argument("--compile-cases", type=int, default=1000, help="cases per compile sample")
    args = parser.parse_args(argv)
    _quiet()
    compiled = measure_compile(args.compile_cases, repeat=15)
    samples, passed = asyncio.run(measure_suite(args.cases, args.repeat))
    per_case = {name: [s / args.cases for s in values] for name, values in samples.items()}
    rows = [
        budget_row(
            f"compile FluentCase -> EvalCase, per case ({args.compile_cases} cases)",
            compiled["fluent"],
            0.001,
            raw=compiled["raw"],
        ),
        info_row("write the FluentCases (checks included), per case", compiled["write"], None),
        budget_row(
            f"{args.cases} scripted cases end to end: suite.run vs LocalEvalService",
            samples["fluent"],
            60.0,
            raw=samples["raw"],
        ),
        info_row("  the same, per case", per_case["fluent"], per_case["raw"]),
    ]
    report(
        f"bench_eval: FluentCase compile, and {args.cases} scripted cases through ADK's eval stack",
        rows,
        [
            f"compile: medians of 15 interleaved samples of {args.compile_cases} cases; suite: "
            f"medians of {args.repeat} interleaved runs after 1 warm-up run; cases passed in the "
            f"last run: suite {passed['fluent']}/{args.cases}, raw ADK {passed['raw']}/{args.cases}"
        ],
    )


if __name__ == "__main__":
    main()
