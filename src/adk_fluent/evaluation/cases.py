"""What an evaluation case says: the user's turns, and what the pipeline should answer, which
tools it should call with which arguments, and what state it should leave behind.

Everything here is checked when it is written (a bad regex, a threshold of 7, a case that checks
nothing), names the case, and never imports ADK: compiling to ADK's EvalSet is `compile.py`.

    FluentCase("Book me a trip to Paris",
               response=contains("booked"),
               tools=["lookup", tool("book", city="Paris", date=ANY)],
               expect_state={"booking_ref": Regex(r"^BK-")},
               id="paris")
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import NoneType
from typing import Any, Literal

from adk_fluent.arguments import (
    checked_callable,
    checked_count,
    checked_instance,
    checked_number,
    checked_text,
    refused_as,
)
from adk_fluent.errors import EvalError, describe_value, with_article
from adk_fluent.evaluation.matchers import Regex, check_value, is_matcher
from adk_fluent.evaluation.mocks import checked_mocks
from adk_fluent.evaluation.scoring import rouge1

ResponseMode = Literal["exact", "contains", "regex", "rouge"]
TrajectoryMatch = Literal["exact", "in_order", "any_order"]
TRAJECTORY_MATCHES: tuple[str, ...] = ("exact", "in_order", "any_order")


@dataclass(frozen=True)
class ResponseCheck:
    """The expected final response of a turn: equal to, containing, matching (regex), or similar
    to (ROUGE-1 F at least `threshold`, ADK's `response_match_score` measure) the text."""

    mode: ResponseMode
    text: str
    threshold: float | None = None  # rouge only
    ignore_case: bool = False  # exact / contains

    def check(self, actual: str) -> tuple[float, str | None]:
        """(score, None) when it holds, (score, reason) when not; score is 1/0 except for rouge."""
        if self.mode == "rouge":
            score = rouge1(self.text, actual)
            assert self.threshold is not None
            if score >= self.threshold:
                return score, None
            return score, f"ROUGE-1 {score:.2f} < {self.threshold:.2f}"
        if self.mode == "regex":
            if re.search(self.text, actual):
                return 1.0, None
            return 0.0, f"does not match /{self.text}/"
        want, got = (
            (self.text.casefold(), actual.casefold()) if self.ignore_case else (self.text, actual)
        )
        if self.mode == "exact":
            return (1.0, None) if got.strip() == want.strip() else (0.0, "differs")
        return (1.0, None) if want in got else (0.0, f"does not contain {self.text!r}")

    def options(self) -> dict[str, Any]:
        """What the check sets besides its mode and text (a threshold, ignore_case), as a file
        writes it."""
        options: dict[str, Any] = {} if self.threshold is None else {"threshold": self.threshold}
        return options | ({"ignore_case": True} if self.ignore_case else {})

    def describe(self) -> str:
        if self.mode == "rouge":
            return f"rouge({self.text!r}, threshold={self.threshold})"
        case = ", ignore_case=True" if self.ignore_case else ""
        return f"{self.mode}({self.text!r}{case})"


def _text(value: Any, what: str, example: str) -> str:
    if not isinstance(value, str) or not value:
        raise EvalError(
            f"{what} takes non-empty text, not {describe_value(value)}",
            field="response",
            hint=f"e.g. {example}.",
        )
    return value


def exact(text: str, *, ignore_case: bool = False) -> ResponseCheck:
    """The final response equals `text` (surrounding whitespace ignored)."""
    return ResponseCheck(
        "exact", _text(text, "exact()", "exact('Booked.')"), ignore_case=ignore_case
    )


def contains(text: str, *, ignore_case: bool = False) -> ResponseCheck:
    """The final response contains `text`."""
    return ResponseCheck(
        "contains", _text(text, "contains()", "contains('booked')"), ignore_case=ignore_case
    )


def regex(pattern: str) -> ResponseCheck:
    """`re.search(pattern, final_response)` finds a match."""
    Regex(_text(pattern, "regex()", r"regex(r'BK-\d+')"))  # validates the pattern
    return ResponseCheck("regex", pattern)


def rouge(text: str, threshold: float = 0.8) -> ResponseCheck:
    """ROUGE-1 F-measure between `text` and the final response is at least `threshold`
    (ADK's `response_match_score`; 0.8 is ADK's default criterion)."""
    _text(text, "rouge()", "rouge('Your trip is booked.', threshold=0.6)")
    hint = "ROUGE-1 F is between 0 (no shared words) and 1 (the same words), e.g. 0.6."
    return ResponseCheck("rouge", text, _threshold(threshold, "rouge()", hint))


def _threshold(value: Any, where: str, hint: str) -> float:
    """A score to reach, between 0 and 1 (a rouge() check's, a judge's)."""
    with refused_as(EvalError):
        score = checked_number(value, None, "threshold", positive=False, hint=hint, where=where)
    if score > 1:
        raise EvalError(
            f"threshold {value} is outside 0..1", field="threshold", hint=hint, where=where
        )
    return score


def _response(value: Any, case: str | None) -> ResponseCheck | None:
    if value is None or isinstance(value, ResponseCheck):
        return value
    if isinstance(value, str):
        return exact(value)
    raise EvalError(
        f"response takes text or a response check, not {describe_value(value)}",
        case=case,
        field="response",
        hint="use exact('...'), contains('...'), regex(r'...') or rouge('...', threshold=0.7).",
    )


def _reference(value: Any, case: str | None) -> str | None:
    with refused_as(EvalError, case=case):
        return checked_instance(  # type: ignore[no-any-return]
            value,
            None,
            "reference",
            (str, NoneType),
            what="the expected answer's text",
            hint="e.g. reference='Your trip to Paris is booked.'",
        )


@dataclass(frozen=True)
class ToolCall:
    """An expected tool call. `args=None` checks only the name; a mapping checks exactly those
    arguments (a value may be ANY, a Regex, or, in code only, a predicate function)."""

    name: str
    args: Mapping[str, Any] | None = None

    def check(self, name: str, args: Mapping[str, Any]) -> str | None:
        """None when the call matches, else why not."""
        if name != self.name:
            return f"called {name}, expected {self.name}"
        if self.args is None:
            return None
        reason = check_value(dict(self.args), dict(args))
        return None if reason is None else f"{self.name} argument {reason}"

    def describe(self) -> str:
        from adk_fluent.evaluation.matchers import show

        if self.args is None:
            return self.name
        shown = ", ".join(f"{key}={show(value)}" for key, value in self.args.items())
        return f"{self.name}({shown})"


def tool(name: str, /, **args: Any) -> ToolCall:
    """An expected call with its arguments: `tool("book", city="Paris", date=ANY)` (an argument
    left out must not be passed; mark one you do not care about with ANY)."""
    return ToolCall(name, args)


def _tools(value: Any, case: str | None) -> tuple[ToolCall, ...] | None:
    if value is None:
        return None
    if isinstance(value, str | ToolCall) or not isinstance(value, Iterable):
        raise EvalError(
            f"tools takes a list of expected calls, not {describe_value(value)}",
            case=case,
            field="tools",
            hint="e.g. tools=['lookup', tool('book', city='Paris')]; tools=[] expects no call.",
        )
    calls = []
    for item in value:
        if isinstance(item, str) and _TOOL_NAME.fullmatch(item):
            calls.append(ToolCall(item))
        elif isinstance(item, ToolCall):
            if not (isinstance(item.name, str) and _TOOL_NAME.fullmatch(item.name)):
                raise EvalError(
                    f"tool name {item.name!r} is not a function name",
                    case=case,
                    field="tools",
                    hint="name the tool as the agent declares it, e.g. tool('book', ...) "
                    "(a letter or '_', then letters, digits, '_', '.', ':' or '-').",
                )
            if item.args is not None and not isinstance(item.args, Mapping):
                raise EvalError(
                    f"{item.name}: args must be a mapping, not {describe_value(item.args)}",
                    case=case,
                    field="tools",
                    hint="use tool('book', city='Paris') or ToolCall('book', {'city': 'Paris'}).",
                )
            calls.append(item)
        else:
            raise EvalError(
                f"{describe_value(item)} is not an expected tool call",
                case=case,
                field="tools",
                hint="give a tool's name ('lookup') or tool('book', city='Paris').",
            )
    return tuple(calls)


@dataclass(frozen=True)
class Turn:
    """One user message of a multi-turn case, with what that turn should produce."""

    text: str
    response: ResponseCheck | str | None = None
    tools: Sequence[ToolCall | str] | None = None
    # The expected answer's text for ADK's own response metrics and LLM judges
    # (response_match_score, final_response_match_v2); a response check's text serves otherwise.
    reference: str | None = None

    def normalized(self, case: str | None) -> Turn:
        with refused_as(EvalError, case=case):
            checked_text(
                self.text,
                None,
                "input",
                what="the user's message as non-empty text",
                shown="a turn",
                hint="e.g. Turn('Book Paris', response=contains('booked')).",
            )
        return Turn(
            self.text,
            _response(self.response, case),
            _tools(self.tools, case),
            _reference(self.reference, case),
        )

    @property
    def checks(self) -> bool:
        return self.response is not None or self.tools is not None or self.reference is not None

    @property
    def expected_text(self) -> str | None:
        """The reference answer: `reference`, else the response check's text (for exact and
        rouge; a contains/regex pattern is no answer)."""
        if self.reference is not None:
            return self.reference
        check = self.response
        if isinstance(check, ResponseCheck) and check.mode in ("exact", "rouge"):
            return check.text
        return None


StateCheck = Any  # a value, ANY, a Regex, or a predicate function of the stored value


@dataclass(frozen=True)
class FluentCase:
    """One evaluation case. `input` is the user's message, or a list of messages / `Turn`s for
    a conversation; `response` and `tools` apply to the last turn.

    - `state`: the session state the case starts with (a sub-graph's inputs, a user's tier);
    - `expect_state`: what the session state holds afterwards; keys may be StateSchema fields
      (`Billing.intent`), values a value, ANY, a Regex, or a predicate (`lambda v: v > 0.8`);
    - `target`: evaluate only the agent or sub-pipeline of that name, on its own, with
      `state` seeding what it reads;
    - `mock_tools`: tools that answer with the value given instead of running
      (`{"charge_card": {"status": "charged"}}`): the model still makes the call, the world is
      not touched; exported eval sets say what was mocked (evaluation/mocks.py);
    - `tags` group results in the report; `id` names the case (derived from the input if not
      given; give one to compare runs across edits of the input).
    """

    input: str | Sequence[str | Turn] | UserSimulation
    response: ResponseCheck | str | None = None
    tools: Sequence[ToolCall | str] | None = None
    reference: str | None = None
    expect_state: Mapping[Any, StateCheck] | None = None
    state: Mapping[str, Any] | None = None
    target: str | None = None
    tags: Sequence[str] = ()
    id: str | None = None
    user_id: str = "eval_user"
    metadata: Mapping[str, Any] = field(default_factory=dict)
    mock_tools: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        label = self.id if isinstance(self.id, str) else None
        if self.id is not None and not usable_id(self.id):
            raise EvalError(
                f"case id {self.id!r} is not usable",
                field="id",
                hint="any text on one line: no line breaks, tabs or other control characters "
                "(ADK's eval ids are free text; its own fixtures use file paths).",
            )
        turns = self._turns(label)
        label = label or slug(turns[0].text)
        # The case's response / tools / reference belong to its last turn (given in one place).
        last = turns[-1]
        merged: dict[str, Any] = {}
        for name, normalized in (
            ("response", _response),
            ("tools", _tools),
            ("reference", _reference),
        ):
            if isinstance(self.input, UserSimulation) and getattr(self, name) is not None:
                raise EvalError(
                    f"a simulated conversation has no fixed turns to give {name} for",
                    case=label,
                    field=name,
                    hint="check a simulated case with expect_state= or the suite's judges.",
                )
            mine, theirs = normalized(getattr(self, name), label), getattr(last, name)
            if mine is not None and theirs is not None:
                raise EvalError(
                    f"the last Turn and the case both give {name} for the last turn",
                    case=label,
                    field=name,
                    hint="put it in one place: on the Turn, or on the FluentCase.",
                )
            merged[name] = theirs if mine is None else mine
            object.__setattr__(self, name, None)
        object.__setattr__(self, "_turn_list", (*turns[:-1], Turn(last.text, **merged)))
        object.__setattr__(self, "tags", _tags(self.tags, label))
        object.__setattr__(self, "state", _state(self.state, label))
        object.__setattr__(self, "expect_state", _expect_state(self.expect_state, label))
        if self.target is not None and not (
            isinstance(self.target, str) and self.target.isidentifier()
        ):
            raise EvalError(
                f"target must be an agent's name, not {describe_value(self.target)}",
                case=label,
                field="target",
                hint="name the agent or sub-pipeline to evaluate on its own, e.g. target='booker'.",
            )
        if not isinstance(self.user_id, str) or not self.user_id:
            raise EvalError(
                f"user_id must be non-empty text, not {describe_value(self.user_id)}",
                case=label,
                field="user_id",
                hint="e.g. user_id='eval_user' (the default).",
            )
        object.__setattr__(self, "mock_tools", checked_mocks(self.mock_tools, label))
        object.__setattr__(self, "_label", label)

    def _turns(self, label: str | None) -> tuple[Turn, ...]:
        if isinstance(self.input, UserSimulation):
            # The simulated user's turns are not known in advance: one placeholder turn (the
            # opening message) names the case; expectations apply to the whole conversation.
            return (Turn(self.input.starting_prompt),)
        raw = [self.input] if isinstance(self.input, str | Turn) else self.input
        if label is None and isinstance(raw, Sequence) and raw:
            first = raw[0]
            text = first.text if isinstance(first, Turn) else first
            if isinstance(text, str) and text.strip():
                label = slug(text)  # name the case in a turn's error before ids are settled
        if not isinstance(raw, Sequence) or not raw:
            raise EvalError(
                f"input takes the user's message or a list of turns, not "
                f"{describe_value(self.input)}",
                case=label,
                field="input",
                hint="e.g. FluentCase('Book Paris', ...) or FluentCase(['Hi', 'Book Paris'], ...).",
            )
        return tuple(
            (item if isinstance(item, Turn) else Turn(item)).normalized(label) for item in raw
        )

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The user's turns, each with what it should produce (the case's own on the last);
        none for a simulated conversation."""
        if self.simulation is not None:
            return ()
        return self._turn_list  # type: ignore[attr-defined,no-any-return]

    @property
    def simulation(self) -> UserSimulation | None:
        """The simulated user, for a case whose input is a UserSimulation."""
        return self.input if isinstance(self.input, UserSimulation) else None

    @property
    def case_id(self) -> str:
        """The id given, or one derived from the first message."""
        return self._label  # type: ignore[attr-defined,no-any-return]

    @property
    def checks_something(self) -> bool:
        return any(turn.checks for turn in self.turns) or bool(self.expect_state)

    def with_id(self, case_id: str) -> FluentCase:
        """A copy under another id (the suite gives duplicates a numbered one)."""
        import dataclasses

        copy = dataclasses.replace(
            self,
            input=self.simulation or list(self.turns),
            response=None,
            tools=None,
            reference=None,
            id=case_id,
        )
        source = adk_source(self)
        return copy if source is None else with_adk_source(copy, source)


def adk_source(case: FluentCase) -> Any:
    """The ADK EvalCase a case was read from (None for a case written in code or YAML): what
    a FluentCase has no field for (rubrics, intermediate responses, recorded tool responses,
    invocation ids, timestamps, app details) lives on there, for runs and exports."""
    return getattr(case, "_adk_eval_case", None)


def with_adk_source(case: FluentCase, eval_case: Any) -> FluentCase:
    """`case`, remembering the ADK EvalCase it was read from (compile.from_eval_case)."""
    object.__setattr__(case, "_adk_eval_case", eval_case)
    return case


# A suite's name: it becomes the eval set's id, which ADK's file-based managers use in paths.
SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}")
# What a function declaration's name may be (Gemini's rule, which ADK's tools follow); an
# ADK eval set names tools the same way.
_TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]*")


def usable_id(value: Any) -> bool:
    """A case id: text on one line, not blank. ADK's EvalCase takes any string (its own
    fixtures use file paths, '/' included); line breaks and control characters would break the
    report's table and the one-line `--case` option."""
    return (
        isinstance(value, str)
        and bool(value.strip())
        and not any(unicodedata.category(char) == "Cc" for char in value)
    )


def slug(text: str) -> str:
    """A readable id from a message: 'Book me a trip to Paris!' -> 'book-me-a-trip-to-paris'."""
    words = re.findall(r"[a-z0-9]+", text.casefold())
    out = ""
    for word in words:
        if len(out) + len(word) + 1 > 40:
            break
        out = f"{out}-{word}" if out else word
    return out or "case"


def _tags(value: Any, case: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    tags = tuple(value) if isinstance(value, Iterable) else (value,)
    for tag in tags:
        if not isinstance(tag, str) or not tag:
            raise EvalError(
                f"tags must be non-empty text, not {describe_value(tag)}",
                case=case,
                field="tags",
                hint="e.g. tags=['billing', 'refund'].",
            )
    return tags


def _state_mapping(value: Any, case: str, field: str, what: str, example: str) -> dict[Any, Any]:
    """`state` or `expect_state`: a mapping (None: empty) whose keys are state keys (a str or
    a StateSchema field)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise EvalError(
            f"{field} takes a mapping of state key to {what}, not {describe_value(value)}",
            case=case,
            field=field,
            hint=f"e.g. {field}={example}.",
        )
    for key in value:
        name = getattr(key, "key", key)
        if not isinstance(name, str) or not name:
            raise EvalError(
                f"{field} key {key!r} is not a state key",
                case=case,
                field=field,
                hint="keys are strings or StateSchema fields (Billing.intent).",
            )
    return dict(value)


def _state(value: Any, case: str) -> dict[str, Any]:
    example = "{'intent': 'booking'} seeds what the agents read"
    out = {}
    for key, item in _state_mapping(value, case, "state", "value", example).items():
        name = getattr(key, "key", key)
        if is_matcher(item) or callable(item):
            from adk_fluent.evaluation.matchers import show

            raise EvalError(
                f"state[{name!r}] is {show(item)}, which is a check, not a value",
                case=case,
                field="state",
                hint="state= seeds the session; put checks in expect_state=.",
            )
        out[name] = item
    return out


def _expect_state(value: Any, case: str) -> dict[Any, StateCheck]:
    example = "{'intent': 'booking', 'score': lambda v: v > 0.8}"
    return _state_mapping(value, case, "expect_state", "expected value", example)


@dataclass(frozen=True)
class JudgeInput:
    """What a custom judge sees for one turn."""

    user: str
    response: str
    expected: str | None
    tool_calls: tuple[tuple[str, dict[str, Any]], ...]
    invocation: Any  # ADK's actual Invocation, for anything else


JudgeFn = Callable[[JudgeInput], Any]


@dataclass(frozen=True)
class FluentJudge:
    """A custom metric: `fn(turn: JudgeInput)` returns a score in 0..1 (or a bool, or
    `(score, reason)`), sync or async; a turn passes at `threshold`. It runs through ADK's
    metric-evaluator registry as metric `name`, next to ADK's own metrics."""

    name: str
    fn: JudgeFn
    threshold: float = 0.5
    description: str = ""

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name.isidentifier()):
            raise EvalError(
                f"judge name {self.name!r} is not a metric name",
                field="name",
                hint="a Python identifier, e.g. FluentJudge('polite', fn).",
            )
        where = f"judge '{self.name}'"
        example = "def polite(turn): return 1.0 if 'please' in turn.response else 0.0"
        with refused_as(EvalError):
            checked_callable(self.fn, None, "fn", example, where=where)
        _threshold(self.threshold, where, "judges score turns between 0 and 1, e.g. 0.8.")

    @property
    def function_path(self) -> str | None:
        """`module.function` when `adk eval` can import it (a module-level function)."""
        module = getattr(self.fn, "__module__", None)
        qualname = getattr(self.fn, "__qualname__", "")
        if not module or module == "__main__" or not qualname or "<" in qualname or "." in qualname:
            return None
        return f"{module}.{qualname}"


@dataclass(frozen=True)
class UserSimulation:
    """An LLM plays the user (ADK's LLM-backed user simulator on a ConversationScenario): it
    opens with `starting_prompt`, follows `plan` (and `persona`, folded into the plan), and
    stops after `max_turns` or when it decides the conversation is over. `model` is the
    simulator's model (any name ADK's model registry resolves). Give it as a case's input:
    `FluentCase(UserSimulation(...), expect_state={...})`; turns are not known in advance, so
    such a case is checked by its state and the suite's judges."""

    starting_prompt: str
    plan: str
    model: str = "gemini-2.5-flash"
    max_turns: int = 8
    persona: str | None = None

    def __post_init__(self) -> None:
        hint = (
            "e.g. UserSimulation('I want a refund', plan='Give the order id when asked; "
            "stop once refunded.')."
        )
        with refused_as(EvalError):
            for name in ("starting_prompt", "plan", "model"):
                checked_text(getattr(self, name), None, name, hint=hint, where="UserSimulation")
            checked_count(
                self.max_turns,
                None,
                "max_turns",
                least=1,
                hint="e.g. max_turns=8.",
                where="UserSimulation",
            )


def schema_type_problem(ref: Any, value: Any) -> str | None:
    """None when `value` reads as the StateSchema field's declared type, else why not. The
    schema's own typed read decides (StateSchema.bind on a mapping), as it would in a tool."""
    from adk_fluent.errors import StateTypeError
    from adk_fluent.ir.state_keys import type_name

    schema = getattr(ref, "schema", None)
    if schema is None:
        return None
    try:
        getattr(schema.bind({ref.key: value}), ref.name)
    except StateTypeError:
        return f"{value!r} is not {with_article(type_name(ref.type))} (declared on {ref!r})"
    return None
