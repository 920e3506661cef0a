"""What every state step does, as tables: (step, state) -> the exact state delta it emits, the
StepFailed code and message of each failure, and what each step tells the contract checker it
reads and writes.

Pure: the steps' records (`ir/steps.py`) are applied directly to a plain dict state and a tiny
run view; nothing starts an ADK Runner. The few cases that need the error *event* (a user's
function that raises, a value no store can hold) drive the body of the ADK agent that runs a
step with a stub context, which is where those codes are assigned.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import itertools
import logging
import types
from collections import OrderedDict
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from adk_fluent import C, S
from adk_fluent.adk.custom_agents.halt import release
from adk_fluent.adk.custom_agents.steps import StateStepAgent
from adk_fluent.api.state_steps import function_step
from adk_fluent.errors import StepFailed
from adk_fluent.ir.effects import Read, StepEffects, Write
from adk_fluent.ir.steps import (
    BAD_RESULT,
    GUARD_FAILED,
    KEY_MISSING,
    NOT_STORABLE,
    STEP_RAISED,
    CaptureTurns,
)


@dataclass(frozen=True)
class Run:
    """The run view a step may see besides state (ir.steps.RunView)."""

    user_text: str | None = None
    events: tuple[Any, ...] = ()


NO_RUN = Run()


def apply(built, state, run=NO_RUN):
    """The delta of a built step (an S / C factory's result) applied under its own name."""
    return built.step.apply(state, run, built.name)


def _never(*args):
    raise AssertionError("this function must not be called")


def _boom(*args):
    raise ValueError("bad input")


def boom(state):  # a function step: its name is the step's name
    raise ValueError("bad input")


def returns_int(state):
    return 42


def returns_list(state):
    return [("a", 1)]


def returns_str(state):
    return "done"


def returns_bool(state):
    return True


def returns_tuple(state):
    return (("a", 1),)


def bump(state):
    return {"n": state["n"] + 1}


def nothing(state):
    return None


def empty(state):
    return {}


def deletes_a(state):
    return {"a": None}


def returns_proxy(state):
    return types.MappingProxyType({"k": 1})


def returns_ordered(state):
    return OrderedDict([("z", 1), ("y", 2)])


def stamps(state):
    return {"ok": 1, "when": datetime.datetime(2026, 1, 1)}


def int_keyed(state):
    return {1: "x"}


def _sub(x, y):
    return x - y


# -- deltas --------------------------------------------------------------------------------------

SCOPED = {"a": 1, "b": 2, "user:tier": "gold", "app:region": "eu", "temp:s": 7}

DELTAS = [
    # S.set: constants, written whatever is there; None deletes
    ("set-new-key", S.set(tier="gold"), {}, {"tier": "gold"}),
    ("set-overwrites", S.set(a=5), {"a": 1}, {"a": 5}),
    ("set-nested-value", S.set(cart=[1, {"x": [2]}]), {}, {"cart": [1, {"x": [2]}]}),
    ("set-none-deletes", S.set(a=None), {"a": 1}, {"a": None}),
    ("set-scoped-key", S.set(**{"user:tier": "gold"}), {}, {"user:tier": "gold"}),
    ("set-tuple-becomes-list", S.set(pair=(1, 2)), {}, {"pair": [1, 2]}),
    ("set-two-keys", S.set(a=1, b="x"), {"a": 0}, {"a": 1, "b": "x"}),
    # S.default: only where missing or None
    ("default-missing", S.default(lang="en"), {}, {"lang": "en"}),
    ("default-present", S.default(lang="en"), {"lang": "fr"}, {}),
    ("default-none-counts-as-missing", S.default(lang="en"), {"lang": None}, {"lang": "en"}),
    ("default-empty-string-is-a-value", S.default(lang="en"), {"lang": ""}, {}),
    ("default-only-the-missing-one", S.default(n=0, m=1), {"n": 5}, {"m": 1}),
    # S.merge: a dict of the keys, or fn(*values) in the declared order
    ("merge-dict", S.merge("a", "b", into="ab"), {"a": 1, "b": 2}, {"ab": {"a": 1, "b": 2}}),
    ("merge-fn-order-a-b", S.merge("a", "b", into="d", fn=_sub), {"a": 10, "b": 3}, {"d": 7}),
    ("merge-fn-order-b-a", S.merge("b", "a", into="d", fn=_sub), {"a": 10, "b": 3}, {"d": -7}),
    ("merge-into-an-input", S.merge("a", "b", into="a"), {"a": 1, "b": 2}, {"a": {"a": 1, "b": 2}}),
    (
        "merge-fn-none-deletes",
        S.merge("a", "b", into="ab", fn=lambda a, b: None),
        SCOPED,
        {"ab": None},
    ),
    (
        "merge-false-values",
        S.merge("a", "b", into="ab"),
        {"a": 0, "b": ""},
        {"ab": {"a": 0, "b": ""}},
    ),
    # S.pick: every other *session* key set to None; scoped keys never touched
    ("pick-clears-others", S.pick("a"), {"a": 1, "b": 2, "note": "x"}, {"b": None, "note": None}),
    ("pick-leaves-scoped-keys", S.pick("a"), SCOPED, {"b": None}),
    ("pick-keeps-all-named", S.pick("a", "b"), {"a": 1, "b": 2}, {}),
    ("pick-skips-already-none", S.pick("a"), {"a": 1, "gone": None}, {}),
    ("pick-a-scoped-key", S.pick("user:tier"), SCOPED, {"a": None, "b": None}),
    ("pick-a-missing-key", S.pick("missing"), {"a": 1}, {"a": None}),
    ("pick-empty-state", S.pick("a"), {}, {}),
    # S.drop: exactly the named keys, scoped or not, when they hold a value
    ("drop-one", S.drop("a"), {"a": 1, "b": 2}, {"a": None}),
    ("drop-skips-missing", S.drop("a", "missing"), {"a": 1}, {"a": None}),
    ("drop-skips-already-none", S.drop("gone"), {"gone": None}, {}),
    (
        "drop-user-and-temp",
        S.drop("user:tier", "temp:s"),
        SCOPED,
        {"user:tier": None, "temp:s": None},
    ),
    ("drop-app-key", S.drop("app:region"), SCOPED, {"app:region": None}),
    ("drop-falsy-value", S.drop("n"), {"n": 0}, {"n": None}),
    # S.rename: new = old's value, old deleted; computed from the state before the step
    ("rename", S.rename(draft="final"), {"draft": "text"}, {"final": "text", "draft": None}),
    ("rename-missing", S.rename(draft="final"), {}, {}),
    ("rename-none-source", S.rename(draft="final"), {"draft": None, "final": "old"}, {}),
    (
        "rename-overwrites-target",
        S.rename(draft="final"),
        {"draft": "new", "final": "old"},
        {"final": "new", "draft": None},
    ),
    ("rename-swap", S.rename(a="b", b="a"), {"a": 1, "b": 2}, {"a": 2, "b": 1}),
    ("rename-chain", S.rename(a="b", b="c"), {"a": 1, "b": 2}, {"b": 1, "c": 2, "a": None}),
    (
        "rename-scoped-to-session",
        S.rename(**{"user:name": "name"}),
        {"user:name": "Ada"},
        {"name": "Ada", "user:name": None},
    ),
    ("rename-only-present", S.rename(a="x", b="y"), {"a": 1}, {"x": 1, "a": None}),
    # S.transform: key = fn(key)
    ("transform-increments", S.transform("n", lambda v: v + 1), {"n": 1}, {"n": 2}),
    ("transform-changes-type", S.transform("n", str), {"n": 5}, {"n": "5"}),
    ("transform-none-deletes", S.transform("n", lambda v: None), {"n": 1}, {"n": None}),
    ("transform-scoped-key", S.transform("user:n", abs), {"user:n": -3}, {"user:n": 3}),
    # S.compute: key = fn(state), for each key
    ("compute-sum", S.compute(total=lambda s: s["a"] + s["b"]), {"a": 1, "b": 2}, {"total": 3}),
    (
        "compute-two-keys",
        S.compute(size=lambda s: len(s), has_a=lambda s: "a" in s),
        {"a": 1},
        {"size": 1, "has_a": True},
    ),
    ("compute-overwrites-its-input", S.compute(a=lambda s: s["a"] * 10), {"a": 1}, {"a": 10}),
    ("compute-none-deletes", S.compute(t=lambda s: None), {"t": 1}, {"t": None}),
    # S.guard and S.log change nothing
    ("guard-holds", S.guard(lambda s: s["n"] < 10, "too big"), {"n": 1}, {}),
    ("guard-truthy-non-bool", S.guard(lambda s: s.get("ok"), "not ok"), {"ok": "yes"}, {}),
    ("log", S.log("a"), {"a": 1}, {}),
    # function steps: the returned mapping, as a plain dict; None is no change
    ("function-dict", function_step(bump), {"n": 1}, {"n": 2}),
    ("function-none", function_step(nothing), {"n": 1}, {}),
    ("function-empty-dict", function_step(empty), {"n": 1}, {}),
    ("function-none-value-deletes", function_step(deletes_a), {"a": 1}, {"a": None}),
    ("function-mapping-proxy", function_step(returns_proxy), {}, {"k": 1}),
    ("function-ordered-dict", function_step(returns_ordered), {}, {"z": 1, "y": 2}),
]


@pytest.mark.parametrize(
    ("built", "state", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in DELTAS],
)
def test_a_step_emits_exactly_this_delta(built, state, expected):
    before = dict(state.items())
    delta = apply(built, state)
    assert delta == expected
    assert type(delta) is dict
    assert state == before  # a step never changes the state it reads


CAPTURES = [
    ("text", "Paris please", {}, {"q": "Paris please"}),
    ("no-text-is-empty-string", None, {}, {"q": ""}),
    ("replaces-previous", "new", {"q": "old"}, {"q": "new"}),
]


@pytest.mark.parametrize(
    ("user_text", "state", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CAPTURES],
)
def test_capture_writes_the_user_text_of_this_turn(user_text, state, expected):
    assert apply(S.capture("q"), state, Run(user_text=user_text)) == expected


@pytest.mark.parametrize(
    "built", [S.set(cart=["a"]), S.default(cart=["a"])], ids=["set", "default"]
)
def test_constants_are_written_as_a_fresh_copy_each_run(built):
    first = apply(built, {})
    first["cart"].append("mutated by a session")
    second = apply(built, {})
    assert second == {"cart": ["a"]}
    assert second["cart"] is not first["cart"]
    assert built.step.values == (("cart", ["a"]),)


# -- capture_turns ---------------------------------------------------------------------------


def ev(author, *texts, partial=False, content=True):
    """An event as a step sees it: author, content.parts[].text, partial."""
    parts = [SimpleNamespace(text=t) for t in texts]
    body = SimpleNamespace(parts=parts) if content else None
    return SimpleNamespace(author=author, content=body, partial=partial)


TWO_TURNS = (ev("user", "hi"), ev("bot", "hello"), ev("user", "book"), ev("bot", "booked"))

CAPTURED_TURNS = [
    ("fewer-turns-than-n", 5, TWO_TURNS, "user: hi\nbot: hello\nuser: book\nbot: booked"),
    ("last-turn-only", 1, TWO_TURNS, "user: book\nbot: booked"),
    ("exactly-n-turns", 2, TWO_TURNS, "user: hi\nbot: hello\nuser: book\nbot: booked"),
    ("no-events", 3, (), ""),
    (
        "partial-events-skipped",
        5,
        (ev("user", "q"), ev("bot", "Boo", partial=True), ev("bot", "Booked")),
        "user: q\nbot: Booked",
    ),
    (
        "event-without-content-skipped",
        5,
        (ev("user", "q"), ev("set_a", content=False), ev("bot", "ok")),
        "user: q\nbot: ok",
    ),
    ("parts-joined-non-text-ignored", 5, (ev("bot", "Hel", None, "lo"),), "bot: Hello"),
    ("empty-text-skipped", 5, (ev("user", "q"), ev("bot", "")), "user: q"),
    (
        "events-before-first-user-kept-when-few-turns",
        3,
        (ev("greeter", "Welcome"), ev("user", "hi")),
        "greeter: Welcome\nuser: hi",
    ),
    ("events-before-window-dropped", 1, (ev("greeter", "Welcome"), ev("user", "hi")), "user: hi"),
]


@pytest.mark.parametrize(
    ("turns", "events", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in CAPTURED_TURNS],
)
def test_capture_turns_writes_author_lines_of_the_last_n_turns(turns, events, expected):
    delta = CaptureTurns("recent", turns).apply({}, Run(events=events), "capture_turns_recent")
    assert delta == {"recent": expected}


# -- log -------------------------------------------------------------------------------------

LOGS = [
    (
        "named-keys",
        S.log("a", "missing"),
        {"a": 1, "b": 2},
        logging.INFO,
        "log_a_missing: {'a': 1, 'missing': None}",
    ),
    ("whole-state", S.log(), {"a": 1}, logging.INFO, "log: {'a': 1}"),
    ("debug-level", S.log("a", level=logging.DEBUG), {"a": 1}, logging.DEBUG, "log_a: {'a': 1}"),
]


@pytest.mark.parametrize(
    ("built", "state", "level", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in LOGS],
)
def test_log_writes_one_record_to_the_state_logger(caplog, built, state, level, message):
    with caplog.at_level(logging.DEBUG, logger="adk_fluent.state"):
        assert apply(built, state) == {}
    [record] = [r for r in caplog.records if r.name == "adk_fluent.state"]
    assert (record.levelno, record.getMessage()) == (level, message)


# -- failures: StepFailed codes from apply() ---------------------------------------------------

FAILURES = [
    (
        "merge-one-key-missing",
        S.merge("a", "b", into="ab"),
        {"a": 1},
        KEY_MISSING,
        ["step 'merge_a_b_into_ab': ", "S.merge needs 'b' in state"],
    ),
    (
        "merge-both-missing",
        S.merge("a", "b", into="ab"),
        {},
        KEY_MISSING,
        ["step 'merge_a_b_into_ab': ", "S.merge needs 'a', 'b' in state"],
    ),
    (
        "merge-fn-not-called-when-missing",
        S.merge("a", "b", into="t", fn=_never),
        {"b": 1},
        KEY_MISSING,
        ["step 'merge_a_b_into_t': ", "needs 'a' in state"],
    ),
    (
        "transform-missing",
        S.transform("n", _never),
        {"m": 1},
        KEY_MISSING,
        ["step 'transform_n': ", "S.transform('n', ...) but state has no 'n'"],
    ),
    (
        "guard-false",
        S.guard(lambda s: s["n"] < 10, "n too big"),
        {"n": 50},
        GUARD_FAILED,
        ["step 'guard': guard failed: n too big"],
    ),
    (
        "guard-default-message",
        S.guard(lambda s: False),
        {},
        GUARD_FAILED,
        ["step 'guard': guard failed: guard failed"],
    ),
    (
        "guard-falsy-non-bool",
        S.guard(lambda s: s.get("items"), "no items"),
        {"items": []},
        GUARD_FAILED,
        ["guard failed: no items"],
    ),
    (
        "guard-renamed",
        S.guard(lambda s: False, "over limit").named("limit"),
        {},
        GUARD_FAILED,
        ["step 'limit': guard failed: over limit"],
    ),
    (
        "function-int",
        function_step(returns_int),
        {},
        BAD_RESULT,
        ["step 'returns_int': ", "got int"],
    ),
    (
        "function-list",
        function_step(returns_list),
        {},
        BAD_RESULT,
        ["step 'returns_list'", "got list"],
    ),
    ("function-str", function_step(returns_str), {}, BAD_RESULT, ["step 'returns_str'", "got str"]),
    ("function-bool", function_step(returns_bool), {}, BAD_RESULT, ["got bool"]),
    ("function-tuple", function_step(returns_tuple), {}, BAD_RESULT, ["got tuple"]),
    (
        "function-lambda",
        function_step(lambda s: 3.5),
        {},
        BAD_RESULT,
        [
            "step 'fn_step': a function step must return a dict of state changes (or None)",
            "got float",
        ],
    ),
]


@pytest.mark.parametrize(
    ("built", "state", "code", "fragments"),
    [pytest.param(*case[1:], id=case[0]) for case in FAILURES],
)
def test_a_step_that_cannot_do_its_work_raises_step_failed_with_its_code(
    built, state, code, fragments
):
    with pytest.raises(StepFailed) as caught:
        apply(built, state)
    assert caught.value.code == code
    for fragment in fragments:
        assert fragment in str(caught.value)


RAISING = [
    ("transform", S.transform("n", _boom), {"n": 1}, ValueError),
    ("compute-reads-missing-key", S.compute(total=lambda s: s["missing"]), {}, KeyError),
    (
        "merge-fn",
        S.merge("a", "b", into="q", fn=lambda a, b: a / b),
        {"a": 1, "b": 0},
        ZeroDivisionError,
    ),
    ("guard-predicate", S.guard(lambda s: s["n"] < "x", "cmp"), {"n": 1}, TypeError),
    ("function-step", function_step(boom), {}, ValueError),
]


@pytest.mark.parametrize(
    ("built", "state", "error"),
    [pytest.param(*case[1:], id=case[0]) for case in RAISING],
)
def test_a_users_function_that_raises_propagates_unchanged_from_apply(built, state, error):
    # the agent running the step turns it into STATE_STEP_RAISED (see the table below)
    with pytest.raises(error) as caught:
        apply(built, state)
    assert type(caught.value) is error


# -- failures: the error event the step's ADK agent emits ------------------------------------

_IDS = itertools.count()


def drive(built, state):
    """Run a step's ADK agent body once with a stub context: (events, ended the invocation)."""
    agent = StateStepAgent(name=built.name, step=built.step)
    ctx = SimpleNamespace(
        session=SimpleNamespace(state=dict(state), events=[]),
        invocation_id=f"unit-step-{next(_IDS)}",
        branch=None,
        user_content=None,
        end_invocation=False,
    )

    async def collect():
        return [event async for event in agent._run_async_impl(ctx)]

    try:
        return asyncio.run(collect()), ctx.end_invocation
    finally:
        release(ctx.invocation_id)  # the halt registry is process-wide


EVENT_FAILURES = [
    (
        "transform-raises",
        S.transform("n", _boom),
        {"n": 1},
        STEP_RAISED,
        "step 'transform_n': the function of S.transform raised ValueError: bad input",
    ),
    (
        "compute-raises",
        S.compute(total=lambda s: s["missing"]),
        {},
        STEP_RAISED,
        "step 'compute_total': the function of S.compute raised KeyError",
    ),
    (
        "merge-fn-raises",
        S.merge("a", "b", into="q", fn=lambda a, b: a / b),
        {"a": 1, "b": 0},
        STEP_RAISED,
        "step 'merge_a_b_into_q': the function of S.merge raised ZeroDivisionError",
    ),
    (
        "guard-predicate-raises",
        S.guard(lambda s: s["n"] < "x", "cmp"),
        {"n": 1},
        STEP_RAISED,
        "step 'guard': the function of S.guard raised TypeError",
    ),
    (
        "function-step-raises",
        function_step(boom),
        {},
        STEP_RAISED,
        "step 'boom': the function step raised ValueError: bad input",
    ),
    (
        "guard-false",
        S.guard(lambda s: False, "no"),
        {},
        GUARD_FAILED,
        "step 'guard': guard failed: no",
    ),
    (
        "transform-missing",
        S.transform("n", str),
        {},
        KEY_MISSING,
        "step 'transform_n': S.transform('n', ...) but state has no 'n'",
    ),
    ("function-bad-result", function_step(returns_int), {}, BAD_RESULT, "got int"),
    (
        "compute-set",
        S.compute(t=lambda s: {1, 2}),
        {},
        NOT_STORABLE,
        "step 'compute_t': state['t'] is a set, which a session store cannot hold. "
        "Nothing of this step was written. Fix: store a list",
    ),
    (
        "function-step-datetime-among-good-values",
        function_step(stamps),
        {},
        NOT_STORABLE,
        "step 'stamps': state['when'] is a datetime",
    ),
    (
        "transform-nested-bad-value",
        S.transform("cart", lambda c: [*c, {1}]),
        {"cart": ["a"]},
        NOT_STORABLE,
        "step 'transform_cart': state['cart'][1] is a set",
    ),
    (
        "compute-nan",
        S.compute(score=lambda s: float("nan")),
        {},
        NOT_STORABLE,
        "step 'compute_score': state['score'] is nan",
    ),
]


@pytest.mark.parametrize(
    ("built", "state", "code", "fragment"),
    [pytest.param(*case[1:], id=case[0]) for case in EVENT_FAILURES],
)
def test_a_failed_step_is_one_error_event_with_its_code_and_nothing_written(
    built, state, code, fragment
):
    events, ended = drive(built, state)
    [event] = events
    assert (event.author, event.error_code) == (built.name, code)
    assert fragment in event.error_message
    assert not event.actions.state_delta  # nothing of the step is written
    assert ended  # the invocation ends here


EMITTED = [
    ("set", S.set(a=1), {}, [{"a": 1}]),
    ("nothing-to-change-emits-nothing", S.drop("x"), {"y": 1}, []),
    ("computed-tuple-stored-as-list", S.compute(p=lambda s: (1, (2, 3))), {}, [{"p": [1, [2, 3]]}]),
    ("guard-holds-emits-nothing", S.guard(lambda s: True), {}, []),
]


@pytest.mark.parametrize(
    ("built", "state", "deltas"),
    [pytest.param(*case[1:], id=case[0]) for case in EMITTED],
)
def test_a_step_that_succeeds_emits_its_delta_in_one_event_or_none(built, state, deltas):
    events, ended = drive(built, state)
    assert [e.actions.state_delta for e in events] == deltas
    assert [e.error_code for e in events] == [None] * len(deltas)
    assert not ended


# -- known bugs ------------------------------------------------------------------------------


def test_transform_of_a_deleted_key_is_key_missing():
    with pytest.raises(StepFailed) as caught:
        apply(S.transform("score", str), {"score": None})
    assert caught.value.code == KEY_MISSING


def test_merge_with_a_deleted_key_is_key_missing():
    with pytest.raises(StepFailed) as caught:
        apply(S.merge("a", "b", into="ab"), {"a": 1, "b": None})
    assert caught.value.code == KEY_MISSING and "'b'" in str(caught.value)


def test_a_function_step_returning_a_non_str_key_is_a_bad_result_event():
    events, ended = drive(function_step(int_keyed), {})
    [event] = events
    assert event.error_code == BAD_RESULT and "step 'int_keyed'" in event.error_message
    assert ended


# -- effects: what the checker assumes each step reads and writes -----------------------------


def _f(state):
    return 1


EFFECTS = [
    (
        "set",
        S.set(a=1, b="x"),
        StepEffects(writes=(Write("a", "S.set(a=...)", int), Write("b", "S.set(b=...)", str))),
    ),
    (
        "set-list",
        S.set(cart=["a"]),
        StepEffects(writes=(Write("cart", "S.set(cart=...)", list),)),
    ),
    (
        "default",
        S.default(n=0),
        StepEffects(
            reads=(Read("n", "S.default", False),),
            writes=(Write("n", "S.default(n=...)", int),),
        ),
    ),
    (
        "merge",
        S.merge("a", "b", into="ab"),
        StepEffects(
            reads=(Read("a", "S.merge", True), Read("b", "S.merge", True)),
            writes=(Write("ab", 'S.merge(..., into="ab")'),),
        ),
    ),
    (
        "merge-fn",
        S.merge("a", "b", into="t", fn=lambda a, b: a),
        StepEffects(
            reads=(Read("a", "S.merge", True), Read("b", "S.merge", True)),
            writes=(Write("t", 'S.merge(..., into="t")'),),
        ),
    ),
    (
        "pick",
        S.pick("x", "user:y"),
        StepEffects(
            reads=(Read("x", "S.pick", False), Read("user:y", "S.pick", False)),
            keep_only=("x", "user:y"),
        ),
    ),
    (
        "drop",
        S.drop("a", "temp:b"),
        StepEffects(
            reads=(Read("a", "S.drop", False), Read("temp:b", "S.drop", False)),
            writes=(
                Write("a", 'S.drop("a")', delete=True),
                Write("temp:b", 'S.drop("temp:b")', delete=True),
            ),
        ),
    ),
    (
        "rename",
        S.rename(draft="final"),
        StepEffects(reads=(Read("draft", "S.rename", False),), renames=(("draft", "final"),)),
    ),
    (
        "transform",
        S.transform("n", int),
        StepEffects(
            reads=(Read("n", "S.transform", True),),
            writes=(Write("n", 'S.transform("n", ...)'),),
        ),
    ),
    (
        "compute",
        S.compute(t=_f),
        StepEffects(writes=(Write("t", "S.compute(t=...)"),), opaque_read=True),
    ),
    ("guard", S.guard(_f, "m"), StepEffects(opaque_read=True)),
    ("log-all", S.log(), StepEffects(opaque_read=True)),
    (
        "log-keys",
        S.log("a", "b"),
        StepEffects(reads=(Read("a", "S.log", False), Read("b", "S.log", False))),
    ),
    ("capture", S.capture("q"), StepEffects(writes=(Write("q", 'S.capture("q")', str),))),
    (
        "capture-turns",
        C.capture_turns("r", 3),
        StepEffects(writes=(Write("r", 'C.capture_turns("r")', str),)),
    ),
    ("function", function_step(bump), StepEffects(opaque_read=True, opaque_write=True)),
]


@pytest.mark.parametrize(
    ("built", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in EFFECTS],
)
def test_each_step_declares_these_effects(built, expected):
    assert built.step.effects() == expected


KEYS = [
    ("set", S.set(a=1, b=2), set(), {"a", "b"}),
    ("default", S.default(n=0), {"n"}, {"n"}),
    ("merge", S.merge("a", "b", into="ab"), {"a", "b"}, {"ab"}),
    ("pick", S.pick("x", "user:y"), {"x", "user:y"}, set()),
    ("drop-deletes-are-not-writes", S.drop("a"), {"a"}, set()),
    ("rename-writes-the-new-key", S.rename(draft="final", x="y"), {"draft", "x"}, {"final", "y"}),
    ("transform", S.transform("n", int), {"n"}, {"n"}),
    ("compute-opaque-read-names-nothing", S.compute(t=_f, u=_f), set(), {"t", "u"}),
    ("guard", S.guard(_f), set(), set()),
    ("log-all", S.log(), set(), set()),
    ("log-keys", S.log("a"), {"a"}, set()),
    ("capture", S.capture("q"), set(), {"q"}),
    ("capture-turns", C.capture_turns("recent"), set(), {"recent"}),
    ("function", function_step(bump), set(), set()),
]


@pytest.mark.parametrize(
    ("built", "reads", "writes"),
    [pytest.param(*case[1:], id=case[0]) for case in KEYS],
)
def test_reads_keys_and_writes_keys_of_each_step(built, reads, writes):
    assert (built.step.reads_keys, built.step.writes_keys) == (reads, writes)


def test_set_and_default_writes_carry_their_constant_for_the_checker():
    # Write.value is not part of equality, so the table above cannot see it
    assert [w.value for w in S.set(b=[1], a="x").step.effects().writes] == ["x", [1]]
    assert [w.value for w in S.default(n=0).step.effects().writes] == [0]


def test_a_partial_and_a_callable_object_work_as_function_steps():
    def add(state, n):
        return {"n": state["n"] + n}

    class Doubler:
        def __call__(self, state):
            return {"n": state["n"] * 2}

    assert apply(function_step(functools.partial(add, n=5)), {"n": 1}) == {"n": 6}
    assert apply(function_step(Doubler()), {"n": 4}) == {"n": 8}
