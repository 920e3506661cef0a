"""FluentEvalSuite.run on ADK's LocalEvalService with the pipeline's App and scripted models:
cases pass and fail where they should, tool arguments can be ignored or matched by pattern,
state is checked after the run (typed by a StateSchema), a sub-graph runs on its own with its
inputs seeded, the App's plugins take part on every release, custom and LLM judges score turns,
and a run compares with a saved baseline."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.genai import types

from adk_fluent import Agent, ExecutionConfig, StateSchema
from adk_fluent.evaluation import (
    ANY,
    FluentCase,
    FluentEvalReport,
    FluentEvalSuite,
    FluentJudge,
    Regex,
    Turn,
    contains,
    regex,
    tool,
)
from adk_fluent.testing import mock_backend, repeat
from tests.support.evaluation import answer, booking_backend, booking_pipeline, classify


def _suite(*cases: FluentCase, **options: Any) -> FluentEvalSuite:
    return FluentEvalSuite("booking", booking_pipeline(), list(cases), **options)


async def test_cases_pass_and_fail_where_they_should():
    report = await _suite(
        FluentCase(
            "Book a trip to Paris",
            response=contains("booked"),
            tools=[tool("book", city="Paris", date=ANY)],
            id="paris",
        ),
        FluentCase(
            "Book a trip to Rome",
            response=contains("booked"),
            tools=[tool("book", city="Paris", date=ANY)],
            id="rome",
        ),
        FluentCase("Hello there", response=regex(r"Which city"), tools=[], id="hello"),
    ).run(backend=booking_backend())
    assert [(case.id, case.status) for case in report.cases] == [
        ("paris", "passed"),
        ("rome", "failed"),
        ("hello", "passed"),
    ]
    assert not report.passed
    rome = report.case("rome")
    assert rome.metrics["adk_fluent_trajectory"].status == "failed"
    assert rome.metrics["adk_fluent_response"].status == "passed"
    [turn] = rome.turns
    assert turn.response == "Done: BK-ROM-001. Your trip is booked."
    assert turn.trajectory == [
        "~ book(city='Rome', date='2026-12-01')  expected book(city='Paris', date=ANY): "
        "book argument ['city']: 'Rome' != 'Paris'"
    ]
    assert "Failures" in report.to_text() and "rome (FAIL)" in report.to_text()


async def test_tool_arguments_can_be_ignored_or_matched_by_pattern():
    report = await _suite(
        FluentCase("Book Oslo", tools=[tool("book", city="Oslo", date=ANY)], id="any-date"),
        FluentCase("Book Oslo", tools=[tool("book", city="Oslo", date="1999-01-01")], id="date"),
        FluentCase("Book Oslo", tools=[tool("book", city="Oslo", date=Regex(r"^2026-"))], id="re"),
        FluentCase("Book Oslo", tools=["book"], id="name-only"),
        FluentCase("Book Oslo", tools=[tool("book", city="Oslo")], id="missing-arg"),
        FluentCase("Book Oslo", tools=[], id="no-call-expected"),
        FluentCase("Book Oslo", tools=[tool("book", city=_nordic, date=ANY)], id="predicate"),
        FluentCase("Book Rome", tools=[tool("book", city=_nordic, date=ANY)], id="predicate-no"),
    ).run(backend=booking_backend())
    statuses = {case.id: case.status for case in report.cases}
    assert statuses == {
        "any-date": "passed",
        "date": "failed",
        "re": "passed",
        "name-only": "passed",
        "missing-arg": "failed",
        "no-call-expected": "failed",
        "predicate": "passed",
        "predicate-no": "failed",
    }
    assert "'Rome' fails _nordic()" in report.case("predicate-no").turns[0].trajectory_problem
    assert "unexpected key 'date'" in report.case("missing-arg").turns[0].trajectory_problem
    assert report.case("no-call-expected").turns[0].trajectory == [
        "+ book(city='Oslo', date='2026-12-01')"
    ]


def _nordic(city: str) -> bool:
    return city in ("Oslo", "Helsinki")


async def test_a_conversation_is_checked_turn_by_turn():
    report = await _suite(
        FluentCase(
            [
                Turn("Hi", response=contains("Which city")),
                Turn("Paris, please", tools=[tool("book", city="Paris", date=ANY)]),
            ],
            response=contains("booked"),
            id="two-turns",
        )
    ).run(backend=booking_backend())
    [case] = report.cases
    assert case.status == "passed", case.problems()
    assert [turn.user for turn in case.turns] == ["Hi", "Paris, please"]
    assert case.turns[0].tool_calls == []
    assert case.turns[1].tool_calls == ["book(city='Paris', date='2026-12-01')"]


class Booking(StateSchema):
    intent: str
    reply: str
    attempts: int


async def test_state_is_checked_after_the_run_with_the_schema_types():
    report = await _suite(
        FluentCase(
            "Book Paris",
            expect_state={
                Booking.intent: "booking",
                "reply": Regex("booked"),
                "note": ANY,  # ANY accepts a key that is absent
            },
            id="holds",
        ),
        FluentCase(
            "Book Paris",
            expect_state={"intent": lambda value: value == "refund", "reply": contains_word("x")},
            id="fails",
        ),
        FluentCase(
            "Book Paris",
            state={"attempts": "three"},  # stored as given; the schema says int
            expect_state={Booking.attempts: ANY},
            id="wrong-type",
        ),
    ).run(backend=booking_backend())
    holds, fails, wrong = report.cases
    assert holds.status == "passed" and len(holds.state) == 3
    assert fails.status == "failed"
    assert [(check.key, check.passed) for check in fails.state] == [
        ("intent", False),
        ("reply", False),
    ]
    assert fails.state[0].reason == "'booking' fails the check"
    assert wrong.status == "failed"
    assert "is not an int" in wrong.state[0].reason


def contains_word(word: str):
    def check(value: Any) -> bool:
        return word in str(value).split()

    return check


async def test_a_sub_graph_runs_alone_with_its_inputs_seeded():
    backend = booking_backend()
    report = await _suite(
        FluentCase(
            "I want a refund",
            target="booker",
            state={"intent": "refund request"},
            tools=[tool("refund", order=ANY)],
            expect_state={"reply": Regex("refunded A-17")},
            id="booker-alone",
        )
    ).run(backend=backend)
    [case] = report.cases
    assert case.status == "passed", case.problems()
    assert case.target == "booker"
    assert backend.requests.get("classifier", []) == []  # only the target ran
    [first, *_] = backend.requests["booker"]
    instruction = str(first.config.system_instruction)
    assert "Help with the refund request." in instruction  # the seeded input reached it


class CountingPlugin(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="counting")
        self.model_calls = 0

    async def before_model_callback(self, *, callback_context, llm_request):
        self.model_calls += 1
        return None


async def test_the_apps_plugins_run_during_the_eval_on_every_release():
    plugin = CountingPlugin()
    report = await _suite(
        FluentCase("Book Paris", tools=["book"]), FluentCase("Hello", tools=[])
    ).run(backend=booking_backend(), config=ExecutionConfig(plugins=(plugin,)))
    assert report.passed
    # classifier + booker (call, then answer) for Paris; classifier + booker for Hello
    assert plugin.model_calls == 5


async def test_runs_through_adks_own_inference_and_adk_fluents_agree(monkeypatch):
    from adk_fluent.adk import compat

    cases = (
        FluentCase("Book Paris", response=contains("booked"), tools=["book"], id="a"),
        FluentCase("Book Rome", tools=[tool("book", city="Oslo")], id="b"),
    )
    first = await _suite(*cases).run(backend=booking_backend())
    monkeypatch.setattr(compat, "eval_service_takes_app", lambda: False)
    second = await _suite(*cases).run(backend=booking_backend())
    assert (
        [c.status for c in first.cases]
        == [c.status for c in second.cases]
        == [
            "passed",
            "failed",
        ]
    )
    assert [c.turns for c in first.cases] == [c.turns for c in second.cases]


async def test_a_run_that_raises_is_an_error_and_the_others_still_run():
    def broken(city: str) -> str:
        raise RuntimeError("the booking system is down")

    pipeline = Agent("booker").instruct("Book.").tool(broken)
    backend = mock_backend({"booker": repeat(_call_broken)})
    report = await FluentEvalSuite(
        "errors",
        pipeline,
        [
            FluentCase("Book Paris", tools=["broken"], id="down"),
            FluentCase("Hi", tools=[], id="ok"),
        ],
    ).run(backend=backend)
    down, ok = report.cases
    assert down.status == "error"
    assert "the booking system is down" in down.error
    assert ok.status == "passed"


def _call_broken(request: Any) -> Any:
    from adk_fluent.testing import call

    text = " ".join(p.text or "" for c in request.contents for p in c.parts or [])
    return call("broken", city="Paris") if "Paris" in text else "Hello."


def polite(turn) -> float:
    return 1.0 if "booked" in turn.response else 0.0


async def async_judge(turn) -> tuple[float, str]:
    return (0.9 if turn.tool_calls else 0.1), "calls a tool"


async def test_custom_judges_score_each_turn_through_adks_registry():
    report = await _suite(
        FluentCase("Book Paris", id="booked"),
        FluentCase("Hello", id="no-booking"),
        judges=[FluentJudge("polite", polite, threshold=0.5), FluentJudge("acts", async_judge)],
    ).run(backend=booking_backend())
    booked, no_booking = report.cases
    assert booked.metrics["polite"].status == "passed"
    assert booked.metrics["acts"].score == 1.0  # share of turns that passed
    assert no_booking.metrics["polite"].status == "failed"
    assert no_booking.status == "failed"
    # registered for that run only: ADK's process-wide registry never saw them
    from google.adk.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY

    names = {
        info.metric_name for info in DEFAULT_METRIC_EVALUATOR_REGISTRY.get_registered_metrics()
    }
    assert {"polite", "acts", "adk_fluent_trajectory"}.isdisjoint(names)


async def test_a_judge_that_cannot_score_leaves_the_case_not_evaluated():
    def broken(turn) -> float:
        return 7.0  # outside 0..1

    report = await _suite(FluentCase("Book Paris", id="x"), judges=[FluentJudge("b", broken)]).run(
        backend=booking_backend()
    )
    [case] = report.cases
    assert case.metrics["b"].status == "not_evaluated"
    assert case.status == "not_evaluated"  # ADK alone would have called it nothing at all
    assert "judge 'b' returned 7.0" in case.metrics["b"].reason  # from ADK's log, kept
    assert "b not evaluated: EvalError" in case.problems()[0]
    assert not report.passed


def _text_of(request: Any) -> str:
    return " ".join(part.text or "" for content in request.contents for part in content.parts or [])


class _JudgeModel(BaseLlm):
    """A judge model for ADK's LLM-as-judge metric: 'valid' when the agent's answer says
    booked (the judge prompt holds both answers)."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"adk-fluent-test-judge"]

    async def generate_content_async(self, llm_request, stream: bool = False):
        prompt = _text_of(llm_request)
        # the agent's answer sits between these two fields of ADK's judge prompt
        agent_said = prompt.split('"Agent response":', 1)[-1].split('"Reference response":', 1)[0]
        label = "valid" if "booked" in agent_said else "invalid"
        text = f'{{"reasoning": "compared", "is_the_agent_response_valid": "{label}"}}'
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


async def test_an_llm_judge_runs_when_a_model_is_configured():
    LLMRegistry.register(_JudgeModel)
    report = await _suite(
        FluentCase("Book Paris", reference="Your trip to Paris is booked.", id="good"),
        FluentCase("Hello", reference="Your trip is booked.", id="bad"),
        judge_model="adk-fluent-test-judge",
    ).run(backend=booking_backend())
    good, bad = report.cases
    assert good.metrics["final_response_match_v2"].status == "passed"
    assert bad.metrics["final_response_match_v2"].status == "failed"


async def test_a_run_compares_with_a_saved_baseline(tmp_path):
    cases = [
        FluentCase("Book Paris", tools=[tool("book", city="Paris", date=ANY)], id="paris"),
        FluentCase("Book Rome", tools=[tool("book", city="Rome", date=ANY)], id="rome"),
    ]
    baseline = await _suite(*cases).run(backend=booking_backend())
    path = baseline.save(tmp_path / "baseline.json")

    def wrong_city(request: Any) -> Any:  # the "new version" books Oslo for Rome
        step = answer(request)
        if getattr(step, "name", None) == "book" and step.args.get("city") == "Rome":
            from adk_fluent.testing import call

            return call("book", city="Oslo", date="2026-12-01")
        return step

    changed = mock_backend({"classifier": repeat(classify), "booker": repeat(wrong_city)})
    current = await _suite(*cases).run(backend=changed)
    comparison = current.compare(path)
    assert [change.id for change in comparison.regressed] == ["rome"]
    assert comparison.improved == [] and comparison.has_regressions
    assert "regressed       rome: passed -> failed" in comparison.to_text()
    assert FluentEvalReport.load(path).compare(baseline).has_regressions is False


async def test_num_runs_repeats_each_case():
    report = await _suite(FluentCase("Book Paris", tools=["book"]), num_runs=2).run(
        backend=booking_backend()
    )
    [case] = report.cases
    assert case.runs == 2 and case.status == "passed"
    # classifier once, booker twice per run; 8 input and 4 output tokens a call (scripted)
    assert case.tokens == {"input": 2 * 3 * 8, "output": 2 * 3 * 4}


async def test_a_native_app_is_evaluated_as_it_is():
    app = booking_pipeline().to_app(backend=booking_backend())
    report = await FluentEvalSuite(
        "native", app, [FluentCase("Book Paris", response=contains("booked"), tools=["book"])]
    ).run()
    assert report.passed


async def test_each_case_has_its_own_session_in_the_store_given():
    store = InMemorySessionService()
    suite = _suite(
        FluentCase("Book Paris", tools=["book"], state={"tier": "gold"}, user_id="ann", id="a"),
        FluentCase("Book Rome", tools=["book"], user_id="ann", id="b"),
    )
    for _ in range(2):
        report = await suite.run(backend=booking_backend(), session_service=store)
        assert report.passed
    listed = await store.list_sessions(app_name="adk_fluent_app", user_id="ann")
    assert len(listed.sessions) == 4  # two runs x two cases, none shared
    states = []
    for listed_session in listed.sessions:
        session = await store.get_session(
            app_name="adk_fluent_app", user_id="ann", session_id=listed_session.id
        )
        states.append(session.state.get("tier"))
        assert len([e for e in session.events if e.author == "user"]) == 1
    assert sorted(states, key=str) == sorted(["gold", "gold", None, None], key=str)


@pytest.mark.parametrize("selection", [{"cases": ["b"]}, {"tags": "rome"}])
async def test_cases_can_be_selected_by_id_or_tag(selection):
    report = await _suite(
        FluentCase("Book Paris", tools=["book"], id="a", tags=["paris"]),
        FluentCase("Book Rome", tools=["book"], id="b", tags=["rome"]),
    ).run(backend=booking_backend(), **selection)
    assert [case.id for case in report.cases] == ["b"]


class _SimulatedUser(BaseLlm):
    """The simulated user's model: names a city until the agent says booked, then stops with
    ADK's stop signal."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"adk-fluent-test-user"]

    async def generate_content_async(self, llm_request, stream: bool = False):
        prompt = _text_of(llm_request)
        system = str(llm_request.config.system_instruction or "") if llm_request.config else ""
        seen = prompt + system
        text = "</finished>" if "booked" in seen.split("Conversation History", 1)[-1] else "Oslo."
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


async def test_a_simulated_user_talks_until_done_and_the_state_is_checked():
    from adk_fluent.evaluation import UserSimulation

    LLMRegistry.register(_SimulatedUser)
    report = await _suite(
        FluentCase(
            UserSimulation(
                "I need a trip.",
                plan="Ask for a trip; when asked which city, say Oslo; stop once it is booked.",
                model="adk-fluent-test-user",
                max_turns=4,
            ),
            expect_state={"reply": Regex("BK-OSL-001")},
            id="simulated",
        )
    ).run(backend=booking_backend())
    [case] = report.cases
    assert case.status == "passed", (case.problems(), case.turns)
    assert [turn.user for turn in case.turns] == ["I need a trip.", "Oslo."]
    assert case.turns[0].response == "Which city would you like?"
    assert case.turns[1].tool_calls == ["book(city='Oslo', date='2026-12-01')"]


async def test_concurrent_runs_keep_their_own_reasons():
    import asyncio

    def out_of_range(turn) -> float:
        return 7.0

    def down(turn) -> float:
        raise RuntimeError("the judging service is down")

    first, second = await asyncio.gather(
        _suite(FluentCase("Book Paris", id="x"), judges=[FluentJudge("b", out_of_range)]).run(
            backend=booking_backend()
        ),
        _suite(FluentCase("Book Rome", id="x"), judges=[FluentJudge("b", down)]).run(
            backend=booking_backend()
        ),
    )
    assert "returned 7.0" in first.case("x").metrics["b"].reason
    assert second.case("x").metrics["b"].reason == "RuntimeError: the judging service is down"
