"""What a FluentCase holds once written: its id, its turns (the case-level expectations on the
last one), the reference answer, whether it checks anything; response checks; judges."""

from __future__ import annotations

import dataclasses

import pytest

from adk_fluent import StateSchema
from adk_fluent.errors import EvalError
from adk_fluent.evaluation import (
    ANY,
    FluentCase,
    FluentJudge,
    JudgeInput,
    Regex,
    ToolCall,
    Turn,
    contains,
    exact,
    regex,
    rouge,
    tool,
)
from adk_fluent.evaluation.cases import ResponseCheck, slug


def polite(turn: JudgeInput) -> float:
    """A module-level judge: `adk eval` can import it."""
    return 1.0 if "please" in turn.response else 0.0


class Billing(StateSchema):
    intent: str


# ---- ids ----
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Book me a trip to Paris!", "book-me-a-trip-to-paris"),
        ("  Hello,   World  ", "hello-world"),
        ("¿Qué?", "qu"),
        ("!!!", "case"),
        ("Ünïcode 123", "n-code-123"),
    ],
)
def test_slug(text, expected):
    assert slug(text) == expected


def test_slug_stops_at_a_whole_word_within_40_characters():
    long = "please book a trip to paris for two adults and one child in december"
    out = slug(long)
    assert len(out) <= 40
    assert long.replace(" ", "-").startswith(out)
    assert not out.endswith("-")


def test_the_id_is_derived_from_the_first_message_unless_given():
    assert FluentCase("Book Paris now", response="x").case_id == "book-paris-now"
    assert FluentCase(["Hi there", "Book Paris"], response="x").case_id == "hi-there"
    assert FluentCase("Book Paris", response="x", id="paris.v2").case_id == "paris.v2"


def test_with_id_keeps_every_expectation():
    case = FluentCase(
        ["Hi", "Book Paris"],
        response=contains("booked"),
        tools=["book"],
        reference="Booked.",
        expect_state={"intent": "booking"},
        state={"tier": "gold"},
        tags=["booking"],
    )
    other = case.with_id("paris-2")
    assert other.case_id == "paris-2"
    assert case.case_id == "hi"
    assert other.turns == case.turns
    assert other.expect_state == case.expect_state
    assert other.state == case.state
    assert other.tags == case.tags


# ---- turns ----
def test_a_single_message_is_one_turn_holding_the_case_expectations():
    case = FluentCase("Book Paris", response="Booked.", tools=["book"], reference="Done.")
    (turn,) = case.turns
    assert turn.text == "Book Paris"
    assert turn.response == ResponseCheck("exact", "Booked.")
    assert turn.tools == (ToolCall("book"),)
    assert turn.reference == "Done."


def test_case_level_expectations_go_onto_the_last_turn_only():
    case = FluentCase(
        ["Hi", Turn("Which city?", response=contains("city")), "Paris"],
        response=contains("booked"),
        tools=[tool("book", city="Paris")],
        reference="Booked for Paris.",
    )
    first, second, last = case.turns
    assert (first.response, first.tools, first.reference) == (None, None, None)
    assert second.response == contains("city")
    assert last.response == contains("booked")
    assert last.tools == (ToolCall("book", {"city": "Paris"}),)
    assert last.reference == "Booked for Paris."
    # the case-level fields are folded in: the turns are the one source of truth
    assert (case.response, case.tools, case.reference) == (None, None, None)


def test_case_level_and_last_turn_expectations_of_different_kinds_merge():
    case = FluentCase([Turn("Book Paris", tools=["book"])], response=contains("booked"))
    (turn,) = case.turns
    assert turn.tools == (ToolCall("book"),)
    assert turn.response == contains("booked")


def test_text_responses_and_tool_names_are_normalized():
    case = FluentCase([Turn("Hi", response="Hello.", tools=["greet", tool("log", level=ANY)])])
    (turn,) = case.turns
    assert turn.response == exact("Hello.")
    assert turn.tools == (ToolCall("greet"), ToolCall("log", {"level": ANY}))


def test_an_empty_tools_list_expects_no_call():
    (turn,) = FluentCase("Hi", tools=[]).turns
    assert turn.tools == ()
    assert turn.checks


def test_tags_state_and_expect_state_are_normalized():
    case = FluentCase(
        "Hi",
        response="x",
        tags="smoke",
        state={Billing.intent: "booking"},
        expect_state={Billing.intent: Regex("^book")},
    )
    assert case.tags == ("smoke",)
    assert case.state == {"intent": "booking"}
    assert case.expect_state == {Billing.intent: Regex("^book")}


# ---- expected text, checks ----
@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        (Turn("q", reference="The reference."), "The reference."),
        (Turn("q", response=exact("Booked.")), "Booked."),
        (Turn("q", response=rouge("Your trip is booked.", 0.5)), "Your trip is booked."),
        (Turn("q", response=contains("booked")), None),
        (Turn("q", response=regex("BK-")), None),
        (Turn("q", response=exact("Booked."), reference="Ref."), "Ref."),
        (Turn("q"), None),
    ],
)
def test_expected_text(turn, expected):
    assert turn.expected_text == expected


@pytest.mark.parametrize(
    ("case", "checks"),
    [
        (FluentCase("Hi"), False),
        (FluentCase("Hi", state={"intent": "x"}, tags=["a"]), False),
        (FluentCase("Hi", response="x"), True),
        (FluentCase("Hi", tools=[]), True),
        (FluentCase("Hi", reference="Hello."), True),
        (FluentCase("Hi", expect_state={"intent": ANY}), True),
        (FluentCase([Turn("Hi", response="x"), "Bye"]), True),
    ],
)
def test_checks_something(case, checks):
    assert case.checks_something is checks


# ---- response checks ----
@pytest.mark.parametrize(
    ("check", "actual", "passes"),
    [
        (exact("Booked."), "  Booked.\n", True),
        (exact("Booked."), "booked.", False),
        (exact("Booked.", ignore_case=True), "BOOKED.", True),
        (contains("booked"), "Your trip is booked!", True),
        (contains("booked"), "Your trip is Booked!", False),
        (contains("booked", ignore_case=True), "Your trip is Booked!", True),
        (regex(r"BK-\d{3}"), "ref BK-001", True),
        (regex(r"^BK"), "ref BK-001", False),
        (rouge("your trip is booked", 0.5), "Your trip is booked.", True),
        (rouge("your trip is booked", 0.5), "Which city?", False),
    ],
)
def test_response_checks(check, actual, passes):
    score, reason = check.check(actual)
    assert (reason is None) is passes
    assert 0.0 <= score <= 1.0


def test_a_failed_rouge_check_reports_score_and_threshold():
    score, reason = rouge("your trip to paris is booked", 0.9).check("your trip is booked")
    assert score < 0.9
    assert reason == f"ROUGE-1 {score:.2f} < 0.90"


def test_describe_response_checks():
    assert contains("booked", ignore_case=True).describe() == "contains('booked', ignore_case=True)"
    assert rouge("booked", 0.6).describe() == "rouge('booked', threshold=0.6)"


def test_tool_call_describe_and_check():
    expected = tool("book", city="Paris", date=ANY)
    assert expected.describe() == "book(city='Paris', date=ANY)"
    assert ToolCall("book").describe() == "book"
    assert expected.check("book", {"city": "Paris", "date": "2026-12-01"}) is None
    assert expected.check("refund", {}) == "called refund, expected book"
    assert expected.check("book", {"city": "Rome"}) == "book argument ['city']: 'Rome' != 'Paris'"
    assert ToolCall("book").check("book", {"anything": 1}) is None


# ---- judges ----
def test_judge_input_shape():
    fields = [f.name for f in dataclasses.fields(JudgeInput)]
    assert fields == ["user", "response", "expected", "tool_calls", "invocation"]
    turn = JudgeInput("Book Paris", "please wait", None, (("book", {"city": "Paris"}),), None)
    assert polite(turn) == 1.0


def test_function_path_of_a_module_level_judge():
    assert FluentJudge("polite", polite).function_path == f"{__name__}.polite"


def test_function_path_is_none_when_adk_eval_could_not_import_it():
    def nested(turn):
        return 1.0

    class Scorer:
        @staticmethod
        def score(turn):
            return 1.0

    assert FluentJudge("tone", lambda turn: 1.0).function_path is None
    assert FluentJudge("tone", nested).function_path is None
    assert FluentJudge("tone", Scorer.score).function_path is None


def test_judge_threshold_bounds_are_inclusive():
    assert FluentJudge("tone", polite, 0).threshold == 0
    assert FluentJudge("tone", polite, 1).threshold == 1
    with pytest.raises(EvalError):
        FluentJudge("tone", polite, 1.01)


# ---- what ADK's own eval sets hold ----
@pytest.mark.parametrize(
    "case_id",
    [
        "tests/integration/fixture/hello_world_agent/roll_die.test.json",  # ADK's fixtures
        "/usr/local/home/x/eval/data/pretrip.test.json",  # an absolute path (a public sample)
        "Case 1: refund",
    ],
)
def test_a_case_id_is_any_text_on_one_line(case_id):
    assert FluentCase("hi", response="x", id=case_id).case_id == case_id


@pytest.mark.parametrize("case_id", ["a\nb", "a\tb", "", "   ", "\x00"])
def test_a_case_id_with_a_line_break_or_control_character_is_refused(case_id):
    with pytest.raises(EvalError, match="is not usable"):
        FluentCase("hi", response="x", id=case_id)


@pytest.mark.parametrize("name", ["roll_die", "mcp.search", "ns:lookup", "get-page", "_private"])
def test_a_tool_name_follows_the_function_declaration_rule(name):
    assert FluentCase("hi", tools=[name, tool(name)]).turns[0].tools == (
        ToolCall(name),
        ToolCall(name, {}),
    )


@pytest.mark.parametrize("name", ["not a name", "1st", "-x", ""])
def test_a_tool_name_outside_the_rule_is_refused(name):
    with pytest.raises(EvalError):
        FluentCase("hi", tools=[tool(name)])
