"""Property tests: the checker never crashes on any expression the builders accept, and on
generated data flows it finds every planted mistake without flagging sound pipelines."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    C,
    Fallback,
    FanOut,
    Loop,
    Pipeline,
    Route,
    S,
    StateSchema,
    check_contracts,
    gate,
    map_over,
    race,
    tap,
    timeout,
    until,
)
from adk_fluent.analysis.contracts import registered_checks
from adk_fluent.errors import BuildError

NAMES = ["a", "b", "c", "d", "e", "f"]
KEYS = ["intent", "draft", "docs", "item", "temp:scratch", "user:tier", "app:flag", "x"]
SEVERITIES = {"error", "warning", "info"}


def lookup(query: str) -> dict:
    """Look something up."""
    return {"query": query}


class Produced(BaseModel):
    intent: str
    x: int


class Consumed(BaseModel):
    intent: str
    x: float = 0.0


class Schema(StateSchema):
    intent: str
    draft: str
    docs: list


names = st.sampled_from(NAMES)
keys = st.sampled_from(KEYS)


@st.composite
def templates(draw):
    parts = [
        "{" + draw(keys) + ("?" if draw(st.booleans()) else "") + "}"
        for _ in range(draw(st.integers(0, 3)))
    ]
    return "Do it: " + " ".join(parts)


@st.composite
def context_specs(draw):
    options = [
        C.default(),
        C.none(),
        C.user_only(),
        C.from_agents(draw(names)),
        C.exclude_agents(draw(names)),
        C.last_n_turns(2),
        C.from_state(draw(keys)),
        C.template(draw(templates())),
    ]
    spec = draw(st.sampled_from(options))
    if draw(st.booleans()):
        spec = spec + draw(st.sampled_from(options))
    return spec


@st.composite
def agents(draw, depth):
    agent = Agent(draw(names)).instruct(draw(templates()))
    if draw(st.booleans()):
        agent = agent.outputs(draw(keys))
    choice = draw(st.integers(0, 9))
    if choice == 0:
        agent = agent.context(draw(context_specs()))
    elif choice == 1:
        agent = agent.include_contents("none")
    elif choice == 2:
        agent = agent.produces(Produced)
    elif choice == 3:
        agent = agent.consumes(Consumed)
    elif choice == 4:
        agent = agent.reads(Schema.intent, draw(keys)).writes(Schema.draft)
    elif choice == 5:
        agent = agent.output_schema(Produced)
    if draw(st.booleans()):
        agent = agent.tool(lookup)
    if depth < 2 and draw(st.integers(0, 5)) == 0:
        agent = agent.delegate(draw(steps(depth + 1)))
    return agent


@st.composite
def state_steps(draw):
    k1, k2 = draw(keys), draw(keys)
    options = [
        lambda: S.set(**{k1: draw(st.sampled_from([1, "v", [1, 2], None]))}),
        lambda: S.default(**{k1: "d"}),
        lambda: S.merge(k1, k2, into=draw(keys)),
        lambda: S.pick(k1),
        lambda: S.drop(k1, k2),
        lambda: S.rename(**{k1.replace(":", "_"): k2.replace(":", "_")}),
        lambda: S.transform(k1, str),
        lambda: S.compute(**{k1.replace(":", "_"): len}),
        lambda: S.guard(lambda s: True),
        lambda: S.log(k1),
        lambda: S.capture(k1),
        lambda: C.capture_turns(k1, 2),
        lambda: S.log(),
    ]
    try:  # steps the builders refuse (S.merge("a", "a"), ...) are not drawn
        return draw(st.sampled_from(options))()
    except BuildError:
        reject()


@st.composite
def steps(draw, depth=0):
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        leaf = draw(st.integers(0, 4))
        if leaf == 0:
            return draw(state_steps())
        if leaf == 1:
            return tap(lambda state: None)
        if leaf == 2:
            return gate(draw(st.booleans()), "ok?", name=f"gate_{draw(names)}")
        return draw(agents(depth))
    kind = draw(st.integers(0, 11))
    a, b = draw(steps(depth + 1)), draw(steps(depth + 1))
    try:  # combinations the builders refuse (a gate inside a race, ...) are not drawn
        if kind == 0:
            return a >> b
        if kind == 1:
            return a | b
        if kind == 2:
            return a * draw(st.integers(1, 3))
        if kind == 3:
            return a * until(lambda s: bool(s.get("x")), max=3)
        if kind == 4:
            return a // b
        if kind == 5:
            route = Route(draw(keys)).eq("x", a)
            if draw(st.booleans()):
                route = route.gt(3, b)
            if draw(st.booleans()):
                route = route.when(lambda s: True, draw(steps(depth + 1)))
            return route.otherwise(b) if draw(st.booleans()) else route
        if kind == 6:
            return map_over(
                draw(keys),
                a,
                item_key=draw(keys),
                output_key=draw(keys),
                concurrency=draw(st.integers(1, 3)),
            )
        if kind == 7:
            return timeout(a, 5)
        if kind == 8:
            return race(a, b)
        if kind == 9:
            return (lambda state: {"x": 1}) >> a
        if kind == 10:
            expr = Pipeline(a, b, name=f"named_{draw(names)}")
            return expr.filtered() if draw(st.booleans()) else expr.show()
        return draw(st.sampled_from([FanOut(a, b), Loop(a, max_iterations=2), Fallback(a, b)]))
    except BuildError:
        reject()


CODES = {code for spec in registered_checks() for code in spec.codes}


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps(),
    st.sampled_from([None, Schema]),
    st.lists(keys, max_size=2),
    st.sampled_from(["1.25.0", "2.13.0", None]),
)
def test_checker_never_crashes(expr, schema, initial, target):
    report = check_contracts(expr, schema, initial_keys=initial, target_adk=target)
    mode = expr.options.visibility_mode  # the IR does not carry the builder's mode
    again = check_contracts(
        expr.to_ir(), schema, initial_keys=initial, target_adk=target, visibility_mode=mode
    )
    assert report.to_text() == again.to_text()  # deterministic, builder or IR alike
    for issue in report:
        assert issue.severity in SEVERITIES and issue.code in CODES
        assert issue.node and issue.path and issue.subject and issue.message and issue.hint
    assert json.loads(report.to_json())["summary"]["error"] == len(report.errors)
    report.to_text(verbose=True)


# -- generated data flows: sound ones pass, planted mistakes are found ------------------------
@st.composite
def sound_flows(draw):
    """A sequence in which every read is of a key an earlier step wrote, some inside nested
    composites that write on every path (so nothing is 'maybe unset')."""
    written: list[str] = []
    parts = []
    for index in range(draw(st.integers(2, 7))):
        reads = draw(st.lists(st.sampled_from(written), max_size=2, unique=True)) if written else []
        key = f"k{index}"
        text = "Use " + " and ".join(f"{{{r}}}" for r in reads) if reads else "Start."
        form = draw(st.integers(0, 4))
        agent = Agent(f"agent{index}").instruct(text).context(C.user_only())
        if form == 0:
            step = S.set(**{key: index})
        elif form == 1:  # every branch writes it, and there is an otherwise
            step = (
                Route(written[0] if written else "missing_is_otherwise")
                .eq("x", agent.outputs(key))
                .otherwise(Agent(f"other{index}").outputs(key))
            )
        elif form == 2:  # both alternatives write it
            step = race(agent.outputs(key), Agent(f"alt{index}").outputs(key))
        elif form == 3:
            step = agent.outputs(key) * 2
        else:
            step = agent.outputs(key)
        if form == 1 and not written:
            step = S.set(**{key: index})
        parts.append(step)
        written.append(key)
    closing = Agent("closer").instruct(" ".join(f"{{{k}}}" for k in written)).context(C.user_only())
    return Pipeline(*parts, closing)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sound_flows())
def test_sound_generated_flows_pass(flow):
    report = check_contracts(flow)
    assert not report.failing(strict=True), report.to_text()


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sound_flows(), st.data())
def test_planted_misspelling_is_found(flow, data):
    closing = flow.steps[-1]
    keys_read = sorted(closing.to_ir().reads_keys)
    victim = data.draw(st.sampled_from(keys_read))
    typo = victim + "x"
    broken = Pipeline(
        *flow.steps[:-1],
        Agent("closer").instruct(f"{{{typo}}} and more").context(C.user_only()),
    )
    report = check_contracts(broken)
    found = [i for i in report.errors if i.code == "read-before-write" and i.key == typo]
    assert found, report.to_text()
    assert victim in found[0].hint  # did-you-mean names the real key


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sound_flows(), st.data())
def test_reading_before_the_writer_is_found(flow, data):
    index = data.draw(st.integers(0, len(flow.steps) - 2))
    key = f"k{index}"
    early = Agent("early").instruct(f"Needs {{{key}}}.").context(C.user_only())
    report = check_contracts(Pipeline(early, *flow.steps))
    assert any(i.code == "read-before-write" and i.key == key for i in report.errors), (
        report.to_text()
    )
