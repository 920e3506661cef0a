"""Names and context specs, as tables: `slug` and the default name of every kind of step, what
ADK accepts as an agent name and why a name is refused (ir/names.py); what each C constructor
records, what `+` composes to, and what a spec describes, reads and needs (ir/context_spec.py).
All pure: nothing here compiles or runs an agent.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from adk_fluent import C, S
from adk_fluent.api.state_steps import function_step
from adk_fluent.ir.context_spec import ContextSpec
from adk_fluent.ir.names import is_valid_name, name_problem, slug
from adk_fluent.ir.steps import CaptureTurns

# -- slug ------------------------------------------------------------------------------------

SLUGS = [
    ("kind-and-key", ("set", "tier"), "set_tier"),
    ("scoped-key", ("set", "user:tier"), "set_user_tier"),
    ("merge-parts", ("merge", "a", "b", "into", "ab"), "merge_a_b_into_ab"),
    ("no-parts", (), "step"),
    ("only-empty-parts", ("", ""), "step"),
    ("only-underscores", ("__",), "step"),
    ("leading-digit", ("1abc",), "s_1abc"),
    ("digit-only", ("2",), "s_2"),
    ("leading-underscore-stripped", ("_private",), "private"),
    ("punctuation-and-spaces", ("a-b c",), "a_b_c"),
    ("trailing-punctuation", ("map", "docs!"), "map_docs"),
    ("empty-part-skipped", ("x", "", "y"), "x_y"),
    ("two-scoped-keys", ("drop", "temp:x", "app:y"), "drop_temp_x_app_y"),
    ("unicode-letters-kept", ("café",), "café"),
]


@pytest.mark.parametrize(("parts", "expected"), [pytest.param(*c[1:], id=c[0]) for c in SLUGS])
def test_slug(parts, expected):
    assert slug(*parts) == expected


# -- agent names -----------------------------------------------------------------------------

VALID = [
    ("letter", "a", True),
    ("snake-case", "agent_1", True),
    ("leading-underscore", "_x", True),
    ("capitalised-user", "User", True),
    ("unicode-identifier", "é", True),
    ("keyword-is-an-identifier", "class", True),
    ("reserved-user", "user", False),
    ("empty", "", False),
    ("leading-digit", "1a", False),
    ("dash", "a-b", False),
    ("space", "a b", False),
    ("int", 3, False),
    ("none", None, False),
]


@pytest.mark.parametrize(("name", "valid"), [pytest.param(*c[1:], id=c[0]) for c in VALID])
def test_is_valid_name(name, valid):
    assert is_valid_name(name) is valid


PROBLEMS = [
    ("int", 3, "a name is text, not int"),
    ("none", None, "a name is text, not NoneType"),
    ("empty", "", "it is empty"),
    ("user", "user", "'user' is reserved for the person's own messages"),
    ("leading-digit", "1abc", "it starts with a digit"),
    ("space-and-dash-sorted", "a-b c", "it contains ' ', '-'"),
    ("dot", "a.b", "it contains '.'"),
    ("at-most-five-shown", "a!@#$%^&", "it contains '!', '#', '$', '%', '&'"),
    ("alnum-but-not-identifier", "a²", "it is not a Python identifier"),
]


@pytest.mark.parametrize(("name", "problem"), [pytest.param(*c[1:], id=c[0]) for c in PROBLEMS])
def test_name_problem_says_why_a_name_is_refused(name, problem):
    assert name_problem(name) == problem
    assert not is_valid_name(name)


# -- default step names ----------------------------------------------------------------------


def add_total(state):
    return None


def _private_step(state):
    return None


def _add(state, n):
    return None


class Doubler:
    def __call__(self, state):
        return None


def _pred(state):
    return True


DEFAULT_NAMES = [
    ("set", S.set(tier="gold"), "set_tier"),
    ("set-keys-sorted", S.set(b=1, a=2), "set_a_b"),
    ("set-scoped", S.set(**{"user:tier": "gold"}), "set_user_tier"),
    ("default", S.default(lang="en"), "default_lang"),
    ("merge", S.merge("a", "b", into="ab"), "merge_a_b_into_ab"),
    ("merge-keeps-declared-order", S.merge("b", "a", into="ab"), "merge_b_a_into_ab"),
    ("pick", S.pick("intent"), "pick_intent"),
    ("pick-scoped", S.pick("a", "temp:b"), "pick_a_temp_b"),
    ("drop", S.drop("draft", "notes"), "drop_draft_notes"),
    ("rename", S.rename(draft="final"), "rename_draft"),
    ("rename-old-keys-sorted", S.rename(b="y", a="x"), "rename_a_b"),
    ("transform", S.transform("score", float), "transform_score"),
    ("compute-keys-sorted", S.compute(total=_pred, avg=_pred), "compute_avg_total"),
    ("guard", S.guard(_pred, "msg"), "guard"),
    ("log-all", S.log(), "log"),
    ("log-keys", S.log("a", "b"), "log_a_b"),
    ("s-capture", S.capture("question"), "capture_question"),
    ("c-capture", C.capture("q"), "capture_q"),
    ("capture-turns", C.capture_turns("recent", 3), "capture_turns_recent"),
    ("function", function_step(add_total), "add_total"),
    ("function-private", function_step(_private_step), "private_step"),
    ("lambda", function_step(lambda state: None), "fn_step"),
    ("partial", function_step(functools.partial(_add, n=1)), "fn"),
    ("callable-object", function_step(Doubler()), "fn"),
    ("renamed", S.set(x=1).named("seed"), "seed"),
]


@pytest.mark.parametrize(("built", "name"), [pytest.param(*c[1:], id=c[0]) for c in DEFAULT_NAMES])
def test_each_step_kind_has_a_readable_default_name_adk_accepts(built, name):
    assert built.name == name
    assert built.to_ir().name == name
    assert is_valid_name(name)


# -- what each C constructor records ---------------------------------------------------------

RECORDS = [
    ("default", C.default(), ContextSpec("default", history_set=True)),
    ("none", C.none(), ContextSpec("none", history_set=True)),
    ("user-only", C.user_only(), ContextSpec("user_only", history_set=True)),
    (
        "from-agents",
        C.from_agents("a", "b"),
        ContextSpec("from_agents", agents=("a", "b"), history_set=True),
    ),
    (
        "exclude-agents",
        C.exclude_agents("router"),
        ContextSpec("exclude_agents", agents=("router",), history_set=True),
    ),
    ("last-n-turns", C.last_n_turns(3), ContextSpec("last_n_turns", turns=3, history_set=True)),
    ("from-state", C.from_state("a", "b"), ContextSpec("none", state_keys=("a", "b"))),
    ("template", C.template("Hi {name}"), ContextSpec("default", templates=("Hi {name}",))),
]


@pytest.mark.parametrize(("spec", "expected"), [pytest.param(*c[1:], id=c[0]) for c in RECORDS])
def test_each_c_constructor_records_this_spec(spec, expected):
    assert spec == expected


@pytest.mark.parametrize(
    ("built", "record"),
    [
        pytest.param(C.capture_turns("r", 2), CaptureTurns("r", 2), id="explicit-n"),
        pytest.param(C.capture_turns("r"), CaptureTurns("r", 5), id="default-n-is-5"),
    ],
)
def test_capture_turns_is_a_state_step_holding_its_record(built, record):
    assert built.step == record


# -- `+` -------------------------------------------------------------------------------------

SUMS = [
    (
        "history-then-state",
        C.user_only() + C.from_state("q"),
        ContextSpec("user_only", state_keys=("q",), history_set=True),
    ),
    (
        "state-then-history",
        C.from_state("q") + C.user_only(),
        ContextSpec("user_only", state_keys=("q",), history_set=True),
    ),
    (
        "later-history-wins",
        C.user_only() + C.last_n_turns(2),
        ContextSpec("last_n_turns", turns=2, history_set=True),
    ),
    (
        "later-history-drops-turns",
        C.last_n_turns(2) + C.user_only(),
        ContextSpec("user_only", history_set=True),
    ),
    (
        "later-history-replaces-agents",
        C.from_agents("a") + C.exclude_agents("b"),
        ContextSpec("exclude_agents", agents=("b",), history_set=True),
    ),
    (
        "none-clears-agents",
        C.from_agents("a") + C.none(),
        ContextSpec("none", history_set=True),
    ),
    (
        "template-then-state-means-no-history",
        C.template("t") + C.from_state("x"),
        ContextSpec("none", state_keys=("x",), templates=("t",)),
    ),
    (
        "templates-keep-history",
        C.template("t") + C.template("u"),
        ContextSpec("default", templates=("t", "u")),
    ),
    (
        "same-template-twice-kept-twice",
        C.template("t") + C.template("t"),
        ContextSpec("default", templates=("t", "t")),
    ),
    (
        "state-keys-deduplicated-in-order",
        C.from_state("a", "b") + C.from_state("b", "c"),
        ContextSpec("none", state_keys=("a", "b", "c")),
    ),
    (
        "explicit-default-restores-history",
        C.from_state("x") + C.default(),
        ContextSpec("default", state_keys=("x",), history_set=True),
    ),
    (
        "default-plus-template",
        C.default() + C.template("t"),
        ContextSpec("default", templates=("t",), history_set=True),
    ),
    (
        "three-parts",
        C.last_n_turns(4) + C.from_state("x") + C.template("t"),
        ContextSpec("last_n_turns", turns=4, state_keys=("x",), templates=("t",), history_set=True),
    ),
    (
        "last-of-three-histories",
        C.none() + C.from_agents("w") + C.from_state("k"),
        ContextSpec("from_agents", agents=("w",), state_keys=("k",), history_set=True),
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [pytest.param(*c[1:], id=c[0]) for c in SUMS])
def test_plus_composes_to_this_spec(spec, expected):
    assert spec == expected


TRIPLES = [
    (
        "template-state-history",
        (C.template("t"), C.from_state("x"), C.user_only()),
        ContextSpec("user_only", state_keys=("x",), templates=("t",), history_set=True),
    ),
    (
        "state-history-state",
        (C.from_state("x"), C.last_n_turns(2), C.from_state("y")),
        ContextSpec("last_n_turns", turns=2, state_keys=("x", "y"), history_set=True),
    ),
    (
        "agents-template-none",
        (C.from_agents("a"), C.template("t"), C.none()),
        ContextSpec("none", templates=("t",), history_set=True),
    ),
]


@pytest.mark.parametrize(("parts", "expected"), [pytest.param(*c[1:], id=c[0]) for c in TRIPLES])
def test_plus_groups_either_way(parts, expected):
    a, b, c = parts
    assert (a + b) + c == expected
    assert a + (b + c) == expected


@pytest.mark.parametrize("other", [pytest.param("user_only", id="str"), pytest.param(1, id="int")])
def test_plus_with_something_that_is_not_a_spec_is_a_type_error(other):
    with pytest.raises(TypeError):
        C.none() + other


def test_a_spec_is_a_frozen_hashable_value():
    assert {C.user_only(): "x"}[C.user_only()] == "x"
    assert C.from_agents("a") != C.from_agents("b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        C.none().history = "default"  # type: ignore[misc]


# -- describe / needs_view / reads_keys ------------------------------------------------------

DESCRIPTIONS = [
    ("default", C.default(), "default"),
    ("none", C.none(), "none"),
    ("user-only", C.user_only(), "user_only"),
    ("from-agents", C.from_agents("a", "b"), "from_agents(a, b)"),
    ("exclude-agents", C.exclude_agents("r"), "exclude_agents(r)"),
    ("last-n-turns", C.last_n_turns(3), "last_n_turns(3)"),
    ("from-state", C.from_state("a", "b"), "none + from_state(a, b)"),
    ("template", C.template("x"), "default + template"),
    (
        "everything",
        C.user_only() + C.from_state("q") + C.template("a") + C.template("b"),
        "user_only + from_state(q) + template + template",
    ),
    ("agents-and-state", C.from_agents("w") + C.from_state("k"), "from_agents(w) + from_state(k)"),
]


@pytest.mark.parametrize(("spec", "text"), [pytest.param(*c[1:], id=c[0]) for c in DESCRIPTIONS])
def test_describe(spec, text):
    assert spec.describe() == text


NEEDS_VIEW = [
    ("default", C.default(), False),
    ("default-twice", C.default() + C.default(), False),
    ("none", C.none(), True),
    ("last-n-turns", C.last_n_turns(1), True),
    ("template-keeps-default-history", C.template("x"), True),
    ("state-with-default-history", C.from_state("x") + C.default(), True),
]


@pytest.mark.parametrize(("spec", "needed"), [pytest.param(*c[1:], id=c[0]) for c in NEEDS_VIEW])
def test_only_plain_default_uses_adks_own_assembly(spec, needed):
    assert spec.needs_view is needed


READS = [
    ("default", C.default(), set()),
    ("agent-names-are-not-keys", C.from_agents("a"), set()),
    ("from-state", C.from_state("a", "b"), {"a", "b"}),
    ("template-required-and-optional", C.template("{x} and {y?}"), {"x", "y"}),
    (
        "template-scoped-and-doubled",
        C.template("{{literal}} {app:region} {user:tier?}"),
        {"app:region", "user:tier"},
    ),
    ("template-artifact-is-not-state", C.template("{artifact.file} {z}"), {"z"}),
    ("state-and-template-union", C.from_state("a") + C.template("{a} {b}"), {"a", "b"}),
]


@pytest.mark.parametrize(("spec", "keys"), [pytest.param(*c[1:], id=c[0]) for c in READS])
def test_reads_keys(spec, keys):
    assert spec.reads_keys == keys
