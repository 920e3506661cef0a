"""The 'Default Behavior Changes' table, streaming, errors and confirmations always passing,
the silent-agent warning, mermaid styling, and a property test over random topologies."""

from __future__ import annotations

from hypothesis import strategies as st

from adk_fluent import Agent, Route, S, map_over
from adk_fluent.testing import ScriptedModel

TABLE = [
    # (name, pipeline factory, scripts, text authors annotated, text authors filtered)
    ("single agent", lambda: Agent("a"), {"a": "A"}, ["a"], ["a"]),
    (
        "a >> b",
        lambda: Agent("a").outputs("ka") >> Agent("b"),
        {"a": "A", "b": "B"},
        ["a", "b"],
        ["b"],
    ),
    (
        "a >> Route >> b/c",
        lambda: Agent("a").outputs("k") >> Route("k").eq("x", Agent("b")).otherwise(Agent("c")),
        {"a": "x", "b": "B"},
        ["a", "b"],
        ["b"],
    ),
    (
        "map_over(a) >> b",
        lambda: S.set(items=[1, 2]) >> map_over("items", Agent("a")) >> Agent("b"),
        {"a": ["A1", "A2"], "b": "B"},
        ["a", "a", "b"],
        ["b"],
    ),
    (
        "loop(a >> b) >> c",
        lambda: (Agent("a").outputs("ka") >> Agent("b").outputs("kb")) * 2 >> Agent("c"),
        {"a": ["A1", "A2"], "b": ["B1", "B2"], "c": "C"},
        ["a", "b", "a", "b", "c"],
        ["c"],
    ),
    (
        "transparent",
        lambda: (Agent("a") >> Agent("b")).transparent(),
        {"a": "A", "b": "B"},
        ["a", "b"],
        ["a", "b"],
    ),
]


def test_mermaid_draws_internal_agents_dashed():
    text = (
        Agent("classifier").outputs("intent") >> Agent("booker").instruct("{intent}")
    ).to_mermaid()
    assert "classDef internal stroke-dasharray" in text
    assert "class n0 internal" in text and "n1 internal" not in text


# -- property: no state delta and no error event is ever dropped ---------------------------------
NAMES = iter(range(10**9))


@st.composite
def topologies(draw, depth=0):
    kind = draw(
        st.sampled_from(
            ["agent", "agent", "step"]
            if depth > 1
            else ["agent", "seq", "par", "loop", "route", "fallback", "step"]
        )
    )
    if kind == "agent":
        name = f"a{next(NAMES)}"
        agent = Agent(name)
        if draw(st.booleans()):
            agent = agent.outputs(f"k_{name}")
        if draw(st.booleans()):
            agent = agent.show() if draw(st.booleans()) else agent.hide()
        return agent
    if kind == "step":
        return S.set(**{f"s{next(NAMES)}": draw(st.integers(0, 9))})
    if kind == "route":
        return Route(f"missing{next(NAMES)}").eq(
            "x", draw(topologies(depth=depth + 1))
        )  # emits an error event
    parts = [draw(topologies(depth=depth + 1)) for _ in range(draw(st.integers(1, 3)))]
    if kind == "seq":
        result = parts[0]
        for part in parts[1:]:
            result = result >> part
        return result
    if kind == "par":
        result = parts[0]
        for part in parts[1:]:
            result = result | part
        return result if len(parts) > 1 else result >> Agent(f"a{next(NAMES)}")
    if kind == "fallback":
        return parts[0] // Agent(f"a{next(NAMES)}")
    return parts[0] * 2


class _AnyAgentBackend:
    def __init__(self):
        self.model = ScriptedModel(["reply"] * 500)

    def model_for(self, name):
        return self.model.for_agent(name)
