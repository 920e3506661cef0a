"""Property tests: builders stay immutable under any sequence of calls and operators."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_fluent import Agent

NAMES = ["a", "b", "c", "d", "e"]

setter_calls = st.sampled_from(
    [
        ("instruct", "do {x}"),
        ("outputs", "out"),
        ("description", "desc"),
        ("include_contents", "none"),
        ("disallow_transfer_to_peers", True),
        ("before_model", lambda ctx, req: None),
    ]
)


@st.composite
def expressions(draw, depth=0):
    if depth > 2 or draw(st.booleans()):
        agent = Agent(draw(st.sampled_from(NAMES)))
        for name, arg in draw(st.lists(setter_calls, max_size=3)):
            agent = getattr(agent, name)(arg)
        return agent
    left = draw(expressions(depth=depth + 1))
    op = draw(st.sampled_from([">>", "|", "*", "//"]))
    if op == "*":
        return left * draw(st.integers(1, 3))
    right = draw(expressions(depth=depth + 1))
    return {">>": lambda: left >> right, "|": lambda: left | right, "//": lambda: left // right}[
        op
    ]()


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), st.lists(setter_calls, max_size=4), expressions())
def test_operators_and_setters_never_change_operands(expr, calls, other):
    before = expr.to_ir()
    other_before = other.to_ir()
    _ = expr >> other
    _ = expr | other
    _ = expr * 2
    _ = expr // other
    if isinstance(expr, Agent):
        changed = expr
        for name, arg in calls:
            changed = getattr(changed, name)(arg)
    assert expr.to_ir() == before
    assert other.to_ir() == other_before
