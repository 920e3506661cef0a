"""`Loop(...).show("final")` in the visibility inference (analysis/visibility.py, pure): the
rounds stay internal and the loop itself speaks to the user (it presents its final round), unless
a `.hide()` around it makes everything in it internal; `.show()` still shows every round."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, Loop, Route, infer_visibility


def loop() -> Loop:
    return Loop(Agent("drafter"), Agent("reviewer"), max_iterations=3, name="rounds")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: loop(), {"rounds": "zero_cost", "drafter": "internal", "reviewer": "internal"}),
        (
            lambda: loop().show("final"),
            {"rounds": "user", "drafter": "internal", "reviewer": "internal"},
        ),
        (lambda: loop().show(), {"rounds": "zero_cost", "drafter": "user", "reviewer": "user"}),
        (
            lambda: (Agent("intro") >> loop().show("final")).hide(),
            {"rounds": "internal", "drafter": "internal", "reviewer": "internal"},
        ),
        (
            lambda: Route("intent").eq("write", loop().show("final")).otherwise(Agent("chat")),
            {"rounds": "user", "drafter": "internal", "reviewer": "internal", "chat": "user"},
        ),
    ],
    ids=["plain", "final", "every-round", "hidden-around", "route-branch"],
)
def test_who_speaks(make, expected):
    seen = infer_visibility(make().to_ir())
    assert {name: seen[name] for name in expected} == expected
