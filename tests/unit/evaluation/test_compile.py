"""FluentCase -> ADK's EvalCase and back, without running anything: which ADK field holds which
expectation, that compiling what was loaded gives the same EvalCase (through the JSON a file
holds too), that the files a suite writes are valid for ADK's own pydantic models, and that a
predicate (which no file can hold) is an error when exporting but left out when running."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adk_fluent.errors import AdkFluentWarning, EvalError
from adk_fluent.evaluation import (
    ANY,
    FluentCase,
    FluentEvalSuite,
    FluentJudge,
    Regex,
    ToolCall,
    Turn,
    contains,
    exact,
    regex,
    rouge,
    tool,
)
from adk_fluent.evaluation.compile import (
    FUNCTION_PATHS,
    JUDGE_FUNCTION_PATH,
    METADATA_KEY,
    RESPONSE_METRIC,
    TRAJECTORY_METRIC,
    from_eval_case,
    metrics_from_config,
    to_eval_case,
    to_eval_set,
)
from tests.support.evaluation import booking_pipeline


def _text(content: Any) -> str:
    return "".join(part.text or "" for part in content.parts)


def _calls(invocation: Any) -> list[tuple[str, Any]]:
    return [(call.name, call.args) for call in invocation.intermediate_data.tool_uses]


def _through_json(eval_case: Any) -> Any:
    """The EvalCase as an `.evalset.json` file holds it, read back by ADK's model."""
    from google.adk.evaluation.eval_set import EvalCase

    return EvalCase.model_validate_json(eval_case.model_dump_json(exclude_none=True))


# ---- field by field ----


def test_a_single_turn_case_fills_adks_fields():
    case = FluentCase(
        "Book me a trip to Paris",
        response=contains("booked", ignore_case=True),
        tools=["lookup", tool("book", city="Paris", date=ANY, nights=Regex(r"^\d+$"))],
        state={"tier": "gold", "visits": 3},
        expect_state={"booking_ref": Regex("^BK-"), "intent": "booking", "seen": ANY},
        id="paris",
        user_id="u7",
    )
    eval_case = to_eval_case(case, "shop")

    assert eval_case.eval_id == "paris"
    [invocation] = eval_case.conversation
    assert invocation.user_content.role == "user"
    assert _text(invocation.user_content) == "Book me a trip to Paris"
    assert invocation.final_response.role == "model"
    [part] = invocation.final_response.parts
    assert part.text == "booked"
    assert part.part_metadata == {METADATA_KEY: {"match": "contains", "ignore_case": True}}
    assert _calls(invocation) == [
        ("lookup", None),  # by name: no args at all, not {}
        (
            "book",
            {
                "city": "Paris",
                "date": {"$match": "any"},
                "nights": {"$match": "regex", "pattern": r"^\d+$"},
            },
        ),
    ]
    assert eval_case.session_input.app_name == "shop"
    assert eval_case.session_input.user_id == "u7"
    assert eval_case.session_input.state == {"tier": "gold", "visits": 3}
    assert eval_case.final_session_state == {
        "booking_ref": {"$match": "regex", "pattern": "^BK-"},
        "intent": "booking",
        "seen": {"$match": "any"},
    }


def test_the_reference_answer_is_the_text_and_the_check_moves_to_metadata():
    case = FluentCase(
        "Book Paris",
        response=rouge("Your trip is booked", threshold=0.6),
        reference="Your trip to Paris is booked.",
        id="ref",
    )
    [invocation] = to_eval_case(case, "shop").conversation
    [part] = invocation.final_response.parts
    # ADK's own response metrics compare with the reference; adk-fluent's check stays readable.
    assert part.text == "Your trip to Paris is booked."
    assert part.part_metadata == {
        METADATA_KEY: {"match": "rouge", "threshold": 0.6, "value": "Your trip is booked"}
    }
    assert invocation.intermediate_data is None  # no tools expectation: nothing to check


def test_a_reference_alone_is_a_plain_final_response_as_adk_writes_it():
    [invocation] = to_eval_case(
        FluentCase("Book Paris", reference="Booked.", id="r"), "shop"
    ).conversation
    [part] = invocation.final_response.parts
    assert part.text == "Booked." and part.part_metadata is None


def test_no_tools_expected_is_an_empty_trajectory_not_a_missing_one():
    [invocation] = to_eval_case(FluentCase("hello", tools=[], id="none"), "shop").conversation
    assert invocation.intermediate_data is not None
    assert invocation.intermediate_data.tool_uses == []
    assert invocation.final_response is None


def test_a_multi_turn_case_is_one_invocation_per_turn():
    case = FluentCase(
        [
            "hi there",
            Turn("Paris", response=regex("city"), tools=[]),
            Turn("2026-12-01", tools=[tool("book", city="Paris", date="2026-12-01")]),
        ],
        response=exact("Booked."),  # the case's own expectation goes to the last turn
        id="three",
    )
    first, second, third = to_eval_case(case, "shop").conversation
    assert [_text(inv.user_content) for inv in (first, second, third)] == [
        "hi there",
        "Paris",
        "2026-12-01",
    ]
    assert first.final_response is None and first.intermediate_data is None
    assert second.final_response.parts[0].part_metadata == {METADATA_KEY: {"match": "regex"}}
    assert _calls(second) == []
    assert _text(third.final_response) == "Booked."
    assert _calls(third) == [("book", {"city": "Paris", "date": "2026-12-01"})]


def test_an_eval_set_holds_the_cases_in_order():
    cases = [FluentCase("a", tools=["book"], id="a"), FluentCase("b", tools=[], id="b")]
    eval_set = to_eval_set("booking", cases, "shop")
    assert (eval_set.eval_set_id, eval_set.name) == ("booking", "booking")
    assert [case.eval_id for case in eval_set.eval_cases] == ["a", "b"]


# ---- compile -> load -> compile ----

_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=24
).filter(str.strip)
_PATTERNS = st.sampled_from([r"^BK-", r"\d+", "Paris|Rome", r"^[A-Z]{3}$"])
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=12)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_NAMES, inner, max_size=3),
    max_leaves=6,
)
_EXPECTED = st.recursive(
    _SCALARS | st.just(ANY) | st.builds(Regex, _PATTERNS),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_NAMES, inner, max_size=3),
    max_leaves=6,
)
_RESPONSES = st.one_of(
    st.none(),
    st.builds(exact, _TEXT, ignore_case=st.booleans()),
    st.builds(contains, _TEXT, ignore_case=st.booleans()),
    st.builds(regex, _PATTERNS),
    st.builds(rouge, _TEXT, st.floats(0, 1)),
)
_CALLS = st.one_of(
    _NAMES,
    st.builds(ToolCall, _NAMES, st.dictionaries(_NAMES, _EXPECTED, max_size=3)),
)
_TURNS = st.builds(
    Turn,
    _TEXT,
    _RESPONSES,
    st.none() | st.lists(_CALLS, max_size=3),
    st.none() | _TEXT,
)
_CASES = st.builds(
    FluentCase,
    st.lists(_TURNS, min_size=1, max_size=3),
    state=st.dictionaries(_NAMES, _VALUES, max_size=3),
    expect_state=st.dictionaries(_NAMES, _EXPECTED, max_size=3),
    id=st.from_regex(r"[a-z0-9][a-z0-9_.\-]{0,16}", fullmatch=True),
    user_id=_NAMES,
)


@settings(max_examples=20)
@given(_CASES)
def test_a_loaded_case_compiles_to_the_same_eval_case(case):
    eval_case = to_eval_case(case, "shop")
    loaded = from_eval_case(_through_json(eval_case))

    assert to_eval_case(loaded, "shop") == eval_case
    assert (loaded.case_id, loaded.user_id) == (case.case_id, case.user_id)
    assert loaded.state == case.state
    assert loaded.expect_state == case.expect_state
    for mine, theirs in zip(loaded.turns, case.turns, strict=True):
        assert (mine.text, mine.response, mine.tools) == (
            theirs.text,
            theirs.response,
            theirs.tools,
        )
        # A reference equal to the check's text is written once, as the text (same EvalCase).
        same_text = theirs.response is not None and theirs.reference == theirs.response.text
        assert mine.reference == (None if same_text else theirs.reference)


def test_matchers_survive_the_round_trip_as_matchers():
    case = FluentCase(
        "Book Paris",
        tools=[tool("book", city=Regex("^Par"), date=ANY, meta={"tags": [ANY, "x"]})],
        expect_state={"ref": Regex("^BK-")},
        id="m",
    )
    loaded = from_eval_case(_through_json(to_eval_case(case, "shop")))
    [call] = loaded.turns[-1].tools
    assert call.args["date"] is ANY
    assert call.args["city"] == Regex("^Par")
    assert call.args["meta"] == {"tags": [ANY, "x"]}
    assert call.check("book", {"city": "Paris", "date": "x", "meta": {"tags": [1, "x"]}}) is None
    assert loaded.expect_state == {"ref": Regex("^BK-")}


def test_an_unknown_matcher_or_response_match_in_a_file_is_an_eval_error():
    eval_case = to_eval_case(
        FluentCase(
            "Book Paris", response=contains("booked"), tools=[tool("book", city="X")], id="bad"
        ),
        "shop",
    )
    odd_args = eval_case.model_copy(deep=True)
    odd_args.conversation[0].intermediate_data.tool_uses[0].args = {"city": {"$match": "glob"}}
    with pytest.raises(EvalError) as caught:
        from_eval_case(odd_args)
    assert caught.value.field == "$match" and "book" in caught.value.message

    odd_mode = eval_case.model_copy(deep=True)
    odd_mode.conversation[0].final_response.parts[0].part_metadata = {
        METADATA_KEY: {"match": "startswith"}
    }
    with pytest.raises(EvalError) as caught:
        from_eval_case(odd_mode)
    assert (caught.value.case, caught.value.field) == ("bad", "response")


# ---- the files a suite writes ----


def polite(turn: Any) -> float:
    """A judge importable by `adk eval` (a module-level function)."""
    return 1.0 if "please" in turn.response else 0.0


def test_the_files_a_suite_writes_validate_with_adks_models(tmp_path):
    # Some turns have no reference answer for the two reference metrics: the suite says so.
    with pytest.warns(AdkFluentWarning, match="have none on some turn"):
        suite = _suite_for_files()
    evalset_path, config_path = suite.to_eval_set_file(tmp_path / "evals" / "b.evalset.json")
    _check_written(suite, tmp_path, evalset_path, config_path)


def _suite_for_files() -> FluentEvalSuite:
    return FluentEvalSuite(
        "booking",
        booking_pipeline(),
        [
            FluentCase(
                "Book Paris",
                response=contains("booked"),
                tools=[tool("book", city="Paris", date=ANY)],
                expect_state={"intent": "booking"},
                id="paris",
            ),
            FluentCase(
                ["hi", Turn("Rome", response=rouge("Booked Rome.", 0.5), tools=["book"])],
                state={"tier": "gold"},
                id="two-turns",
            ),
        ],
        metrics={"response_match_score": 0.6},
        judges=[FluentJudge("polite", polite, threshold=0.5)],
        judge_model="gemini-2.5-flash",
        trajectory_match="any_order",
    )


def _check_written(suite, tmp_path, evalset_path, config_path) -> None:
    from google.adk.evaluation.eval_config import EvalConfig
    from google.adk.evaluation.eval_set import EvalSet

    assert config_path == tmp_path / "evals" / "test_config.json"

    eval_set = EvalSet.model_validate_json(evalset_path.read_text(encoding="utf-8"))
    assert eval_set.eval_set_id == "booking"
    assert [case.eval_id for case in eval_set.eval_cases] == ["paris", "two-turns"]
    assert [from_eval_case(case).turns for case in eval_set.eval_cases] == [
        case.turns for case in suite.cases
    ]

    text = config_path.read_text(encoding="utf-8")
    config = EvalConfig.model_validate_json(text)
    names = [spec.name for spec in suite.metric_specs()]
    assert list(config.criteria) == names
    assert names[:2] == [TRAJECTORY_METRIC, RESPONSE_METRIC]
    assert {"polite", "response_match_score", "final_response_match_v2"} <= set(names)
    # What `adk eval` imports for each custom metric.
    assert {name: custom.code_config.name for name, custom in config.custom_metrics.items()} == {
        **FUNCTION_PATHS,
        "polite": JUDGE_FUNCTION_PATH,
    }
    # The plain JSON reads back as the suite's metrics (thresholds and criteria).
    assert metrics_from_config(json.loads(text)) == suite.metric_specs()
    judge = next(spec for spec in suite.metric_specs() if spec.name == "polite")
    assert judge.criterion["judge"] == f"{polite.__module__}.polite"


# ---- predicates: in code only ----


def _predicate_case() -> FluentCase:
    return FluentCase(
        "Book Paris",
        tools=["book"],
        expect_state={"intent": "booking", "score": lambda value: value > 0.8},
        id="scored",
    )


def test_a_predicate_in_expect_state_is_an_error_when_exporting():
    with pytest.raises(EvalError) as caught:
        to_eval_case(_predicate_case(), "shop")
    assert (caught.value.case, caught.value.field) == ("scored", "expect_state")
    assert "'score'" in caught.value.message

    suite = FluentEvalSuite("booking", booking_pipeline(), [_predicate_case()])
    with pytest.raises(EvalError) as caught:
        suite.to_eval_set()
    assert caught.value.field == "expect_state"


def test_a_predicate_in_expect_state_is_left_out_of_the_run_path():
    eval_case = to_eval_case(_predicate_case(), "shop", strict=False)
    # adk-fluent checks it from the case itself; the EvalCase keeps what a file can hold.
    assert eval_case.final_session_state == {"intent": "booking"}


def test_a_predicate_on_a_tool_argument_cannot_be_exported():
    case = FluentCase("Book Paris", tools=[tool("book", city=str.istitle)], id="pred-arg")
    with pytest.raises(EvalError) as caught:
        to_eval_case(case, "shop")
    assert (caught.value.case, caught.value.field) == ("pred-arg", "tools")


# ---- a case read from ADK's eval set keeps its EvalCase ----
def _photo_case() -> Any:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.adk.evaluation.eval_rubrics import Rubric, RubricContent
    from google.adk.evaluation.eval_set import EvalCase
    from google.genai import types

    image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))
    return EvalCase(
        eval_id="photos/1",
        conversation=[
            Invocation(
                invocation_id="inv-1",
                user_content=types.Content(role="user", parts=[image]),
                final_response=types.Content(
                    role="model", parts=[types.Part(text="A cat."), types.Part(text="Grey.")]
                ),
                intermediate_data=IntermediateData(
                    intermediate_responses=[("describer", [types.Part(text="Looking.")])]
                ),
                rubrics=[
                    Rubric(
                        rubric_id="cat",
                        rubric_content=RubricContent(text_property="It names the animal."),
                    )
                ],
            )
        ],
    )


def test_a_turn_without_text_is_named_by_its_parts_and_answers_join_as_adk_joins_them():
    case = from_eval_case(_photo_case())
    [turn] = case.turns
    assert turn.text == "<inline_data>"
    assert turn.reference == "A cat.\nGrey."  # response_match_score's reference, the same text


def test_an_exported_adk_case_is_the_case_read_and_a_run_points_it_at_the_app():
    source = _photo_case()
    case = from_eval_case(source)
    assert to_eval_case(case, "ignored", keep_app_name=True) == source  # every field, as read
    run = to_eval_case(case, "shop", strict=False, predicates={}, run=True)
    assert (run.session_input.app_name, run.session_input.user_id) == ("shop", "eval_user")
    assert run.model_copy(update={"session_input": None}) == source  # nothing else changed
    renamed = case.with_id("photos/2")  # a renamed copy keeps its source
    assert to_eval_case(renamed, "x", keep_app_name=True).eval_id == "photos/2"
    assert to_eval_case(renamed, "x", keep_app_name=True).conversation == source.conversation


@pytest.mark.parametrize(
    ("judging", "installed", "says"),
    [
        ([], ["rubric_based_final_response_quality_v1"], "add one of this ADK's rubric metrics"),
        ([], [], "the installed google-adk has no rubric metric to score them with"),
        (["rubric_based_final_response_quality_v1"], [], "these have type None"),
    ],
)
@pytest.mark.filterwarnings(r"ignore:\[EXPERIMENTAL\]:UserWarning")  # ADK's registry, on import
def test_rubrics_no_metric_scored_leave_a_passed_case_not_evaluated(judging, installed, says):
    from types import SimpleNamespace

    from adk_fluent.evaluation.execute import unscored_rubrics
    from adk_fluent.evaluation.report import CaseResult, MetricOutcome

    case = from_eval_case(_photo_case())
    passed = CaseResult("photos/1", "passed", metrics={"m": MetricOutcome(1.0, 1.0, "passed")})
    nothing_scored = SimpleNamespace(
        overall_eval_metric_results=[], eval_metric_result_per_invocation=[]
    )
    result = unscored_rubrics(passed, case, nothing_scored, judging, installed)
    assert result.status == "not_evaluated" and not result.passed
    assert result.metrics["m"] == passed.metrics["m"]
    reason = result.metrics["rubrics"].reason
    assert reason.startswith("1 rubric(s) in the case") and says in reason

    scored = SimpleNamespace(
        overall_eval_metric_results=[
            SimpleNamespace(
                details=SimpleNamespace(rubric_scores=[SimpleNamespace(rubric_id="cat")])
            )
        ],
        eval_metric_result_per_invocation=[],
    )
    assert unscored_rubrics(passed, case, scored, judging, installed) == passed
