"""The arithmetic of adk-fluent's own metrics, free of ADK: trajectory matching with argument
rules, a readable trajectory diff, and ROUGE-1 as ADK's `response_match_score` computes it."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # cases.py calls rouge1() from here; the checks take its ToolCall objects
    from adk_fluent.evaluation.cases import ToolCall

Call = tuple[str, Mapping[str, Any]]


def rouge1(reference: str, candidate: str) -> float:
    """ROUGE-1 F-measure with stemming (rouge-score, the `eval` extra), as ADK scores
    `response_match_score`."""
    try:
        from rouge_score import rouge_scorer
    except ImportError as error:  # pragma: no cover - the eval extra brings it
        from adk_fluent.errors import EvalError

        raise EvalError(
            "rouge() needs the rouge-score package",
            field="response",
            hint="pip install 'adk-fluent[eval]'",
        ) from error
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    return float(scorer.score(reference, candidate)["rouge1"].fmeasure)


def check_trajectory(
    expected: Sequence[ToolCall], actual: Sequence[Call], match: str
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
    remaining = list(actual)
    for want in expected:
        for index, (name, args) in enumerate(remaining):
            if want.check(name, args) is None:
                del remaining[index]
                break
        else:
            return f"no {want.describe()} among the calls"
    return None


def show_call(name: str, args: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{key}={value!r}" for key, value in args.items())
    return f"{name}({shown})"


def trajectory_diff(expected: Sequence[ToolCall], actual: Sequence[Call]) -> list[str]:
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
