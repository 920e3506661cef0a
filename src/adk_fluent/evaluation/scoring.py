"""The arithmetic of adk-fluent's own metrics, free of ADK: trajectory matching with argument
rules, a readable trajectory diff, and ROUGE-1 as ADK's `response_match_score` computes it."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

Call = tuple[str, Mapping[str, Any]]


class ExpectedCall(Protocol):
    """What the checks need of an expected call (cases.ToolCall; cases.py imports this module)."""

    name: str

    def check(self, name: str, args: Mapping[str, Any]) -> str | None: ...

    def describe(self) -> str: ...


def rouge1(reference: str, candidate: str) -> float:
    """ROUGE-1 F-measure of `candidate` against `reference`, computed by the installed ADK's
    own `response_match_score` evaluator, so a rouge() check scores exactly as ADK does
    (releases differ, e.g. in how they split non-ASCII words)."""
    from google.adk.evaluation.eval_case import Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric
    from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
    from google.genai import types

    def said(text: str) -> Invocation:
        return Invocation(
            user_content=types.Content(role="user", parts=[types.Part(text="-")]),
            final_response=types.Content(role="model", parts=[types.Part(text=text)]),
        )

    evaluator = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.0))
    result = evaluator.evaluate_invocations([said(candidate)], [said(reference)])
    return float(result.overall_score or 0.0)


def check_trajectory(
    expected: Sequence[ExpectedCall], actual: Sequence[Call], match: str
) -> str | None:
    """None when the actual calls satisfy the expected ones, else the first reason.

    `exact`: the same calls in the same order, nothing else; `in_order`: the expected calls
    appear in this order, other calls may come between; `any_order`: each expected call is
    made, in any order, other calls allowed (ADK's ToolTrajectoryCriterion match types)."""
    if match == "exact":
        if len(expected) != len(actual):
            return f"{len(actual)} call(s), expected {len(expected)}"
        for want, (name, args) in zip(expected, actual, strict=True):
            reason = want.check(name, args)
            if reason is not None:
                return reason
        return None
    if match == "in_order":
        position = 0
        for want in expected:
            while position < len(actual) and want.check(*actual[position]) is not None:
                position += 1
            if position == len(actual):
                return f"no {want.describe()} in order among the calls"
            position += 1
        return None
    # any_order: each expected call needs its own actual call. With matchers a loose
    # expectation ("book", any arguments) could take the call a strict one needs, so this is a
    # matching (augmenting paths), not a first fit.
    fits = [
        [index for index, (name, args) in enumerate(actual) if want.check(name, args) is None]
        for want in expected
    ]
    owner: dict[int, int] = {}  # actual call index -> expected index

    def assign(want: int, seen: set[int]) -> bool:
        for index in fits[want]:
            if index in seen:
                continue
            seen.add(index)
            if index not in owner or assign(owner[index], seen):
                owner[index] = want
                return True
        return False

    for position, call in enumerate(expected):
        if not assign(position, set()):
            return f"no {call.describe()} among the calls"
    return None


def show_call(name: str, args: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{key}={value!r}" for key, value in args.items())
    return f"{name}({shown})"


def trajectory_diff(expected: Sequence[ExpectedCall], actual: Sequence[Call]) -> list[str]:
    """Lines aligning expected and actual calls by tool name:
    `  =` the same, `  ~` same tool with other arguments (and why), `  -` expected but not
    made, `  +` made but not expected."""
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(
        a=[call.name for call in expected], b=[name for name, _ in actual], autojunk=False
    )
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            for want, (name, args) in zip(expected[a0:a1], actual[b0:b1], strict=True):
                reason = want.check(name, args)
                if reason is None:
                    lines.append(f"= {show_call(name, args)}")
                else:
                    lines.append(f"~ {show_call(name, args)}  expected {want.describe()}: {reason}")
            continue
        for want in expected[a0:a1]:
            lines.append(f"- {want.describe()}")
        for name, args in actual[b0:b1]:
            lines.append(f"+ {show_call(name, args)}")
    return lines
