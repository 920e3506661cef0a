"""Which state keys each node reads and writes, as tables over constructs: instruction templates
(`{key}`, `{key?}`, `app:` / `user:` / `temp:` scopes, what is not a key), `.outputs()`,
`.produces()` / `.consumes()`, `.reads()` / `.writes()`, C specs, every S step, Route keys,
map_over, gates, taps and composites, read from `to_ir()`'s reads_keys / writes_keys; then the
finer records the contract checker uses (a read's channel and whether a missing key breaks the
run, a write's kind), and what a key's scope prefix means.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    C,
    Loop,
    Route,
    S,
    gate,
    loop_until,
    map_over,
    race,
    tap,
    timeout,
)
from adk_fluent.analysis.contracts.effects import agent_reads, agent_writes, step_effects
from adk_fluent.api.expression import function_step
from adk_fluent.ir.instruction_keys import template_keys
from adk_fluent.ir.state_keys import bare_name, is_session_key, scope_of_key


class Ticket(BaseModel):
    priority: int
    area: str


class Query(BaseModel):
    topic: str
    lang: str = "en"


def keys(expr):
    node = expr.to_ir()
    return set(node.reads_keys), set(node.writes_keys)


# -- instruction templates: text -> (required keys, optional keys) -------------------------------
TEMPLATES = [
    ("one-required", "Hello {name}", {"name"}, set()),
    ("one-optional", "Hello {name?}", set(), {"name"}),
    ("required-wins-over-optional", "{k?} then {k}", {"k"}, set()),
    ("optional-twice", "{k?}{k?}", set(), {"k"}),
    ("repeated-required", "{a} {b} {a}", {"a", "b"}, set()),
    ("app-scope", "Region: {app:region}", {"app:region"}, set()),
    ("user-scope-optional", "{user:lang?}", set(), {"user:lang"}),
    ("temp-scope", "{temp:scratch}", {"temp:scratch"}, set()),
    ("leading-underscore", "{_private}", {"_private"}, set()),
    ("digits-after-the-first", "{step2}", {"step2"}, set()),
    ("adjacent", "{a}{b?}", {"a"}, {"b"}),
    ("multi-line", "First {a}\nthen {b}", {"a", "b"}, set()),
    ("doubled-braces-are-literal", "{{name}}", set(), set()),
    ("doubled-then-single", "{{json}} and {k?}", set(), {"k"}),
    ("artifact-is-not-state", "{artifact.report}", set(), set()),
    ("optional-artifact", "{artifact.report?}", set(), set()),
    ("dotted-name", "{x.y}", set(), set()),
    ("leading-digit", "{9lives}", set(), set()),
    ("hyphen", "{a-b}", set(), set()),
    ("unknown-scope", "{session:x}", set(), set()),
    ("scope-is-case-sensitive", "{USER:x}", set(), set()),
    ("scope-without-name", "{user:}", set(), set()),
    ("two-scopes", "{user:app:x}", set(), set()),
    ("bang", "{x!}", set(), set()),
    ("empty-braces", "{}", set(), set()),
    ("json-example", '{"a": 1}', set(), set()),
    ("no-braces", "Plain text.", set(), set()),
    ("not-text", 42, set(), set()),
]


@pytest.mark.parametrize(
    ("instruction", "required", "optional"),
    [c[1:] for c in TEMPLATES],
    ids=[c[0] for c in TEMPLATES],
)
def test_template_keys(instruction, required, optional):
    assert template_keys(instruction) == (frozenset(required), frozenset(optional))


# ADK's own substitution (1.25 and 2.x alike) strips spaces inside the braces and accepts any
# Python identifier, so each of these fails the turn with "Context variable not found".
ADK_READS = [
    ("padded", "Hi { name }", {"name"}, set()),
    ("padded-optional", "Hi { lang? }", set(), {"lang"}),
    ("non-ascii-identifier", "Hi {café}", {"café"}, set()),
]


@pytest.mark.parametrize(
    ("instruction", "required", "optional"),
    [c[1:] for c in ADK_READS],
    ids=[c[0] for c in ADK_READS],
)
def test_template_keys_that_adk_substitutes(instruction, required, optional):
    assert template_keys(instruction) == (frozenset(required), frozenset(optional))


# -- construct -> (reads_keys, writes_keys) of its IR node ----------------------------------------
def _stateful(state):
    return {"k": 1}


NODES = [
    # LLM agents
    (
        "instruction-template",
        Agent("a").instruct("Reply in {app:tone} about {topic?}"),
        {"app:tone", "topic"},
        set(),
    ),
    ("instruction-function", Agent("a").instruct(lambda ctx: "{name}"), set(), set()),
    ("outputs", Agent("a").outputs("answer"), set(), {"answer"}),
    ("scoped-outputs", Agent("a").outputs("user:last_answer"), set(), {"user:last_answer"}),
    ("consumes-fields-with-defaults-too", Agent("a").consumes(Query), {"topic", "lang"}, set()),
    ("declared-reads", Agent("a").reads("a_key", "user:b"), {"a_key", "user:b"}, set()),
    ("outputs-and-writes", Agent("a").outputs("o").writes("w"), set(), {"o", "w"}),
    ("history-only-spec", Agent("a").context(C.user_only()), set(), set()),
    (
        "instruction-and-spec-together",
        Agent("a").instruct("{a}").context(C.from_state("b")),
        {"a", "b"},
        set(),
    ),
    (
        "delegator-gets-none-of-its-delegates",
        Agent("boss").delegate(Agent("x").outputs("k")),
        set(),
        set(),
    ),
    # S steps: deletions are not writes; function-of-state reads are not listed
    ("set", S.set(a=1, **{"user:b": 2}), set(), {"a", "user:b"}),
    ("default-reads-what-it-may-write", S.default(n=0), {"n"}, {"n"}),
    ("merge", S.merge("a", "b", into="ab"), {"a", "b"}, {"ab"}),
    ("pick", S.pick("keep", "also"), {"keep", "also"}, set()),
    ("drop", S.drop("x", "y"), {"x", "y"}, set()),
    ("rename", S.rename(old="new", a="b"), {"old", "a"}, {"new", "b"}),
    ("transform", S.transform("k", str), {"k"}, {"k"}),
    ("compute", S.compute(total=lambda state: 1), set(), {"total"}),
    ("guard", S.guard(lambda state: True), set(), set()),
    ("log-keys", S.log("a", "b"), {"a", "b"}, set()),
    ("log-everything", S.log(), set(), set()),
    ("capture", S.capture("question"), set(), {"question"}),
    ("capture-turns", C.capture_turns("history", 3), set(), {"history"}),
    ("function-step", function_step(_stateful), set(), set()),
    # control flow
    ("route-key", Route("intent").eq("x", Agent("a")), {"intent"}, set()),
    (
        "route-when-reads-only-its-key",
        Route("user:tier").when(lambda s: s["vip"], Agent("a")),
        {"user:tier"},
        set(),
    ),
    ("map-over-defaults", map_over("docs", Agent("s")), {"docs"}, {"item", "results"}),
    (
        "map-over-named-keys",
        map_over("docs", Agent("s"), item_key="doc", output_key="sums"),
        {"docs"},
        {"doc", "sums"},
    ),
    ("gate", gate(lambda state: True, "ok?"), set(), set()),
    ("tap", tap(print), set(), set()),
    # composites hold their children's keys, not their own
    ("pipeline", Agent("a").outputs("k") >> Agent("b").instruct("{k}"), set(), set()),
    ("fan-out", Agent("a").outputs("k") | Agent("b").instruct("{j}"), set(), set()),
    ("loop", Loop(Agent("a").outputs("k"), max_iterations=2), set(), set()),
    ("loop-until", loop_until(lambda state: True, Agent("a").outputs("k")), set(), set()),
    ("fallback", Agent("a").outputs("k") // Agent("b"), set(), set()),
    ("timeout", timeout(Agent("a").outputs("k"), 3), set(), set()),
    ("race", race(Agent("a").outputs("k"), Agent("b")), set(), set()),
]


@pytest.mark.parametrize(
    ("expr", "reads", "writes"), [c[1:] for c in NODES], ids=[c[0] for c in NODES]
)
def test_reads_and_writes_of_each_construct(expr, reads, writes):
    assert keys(expr) == (reads, writes)


def test_a_loop_until_check_reads_nothing_it_can_name():
    until_node = loop_until(lambda state: state["done"], Agent("a")).to_ir().children[-1]
    assert (until_node.reads_keys, until_node.writes_keys) == (frozenset(), frozenset())


@pytest.mark.parametrize(
    ("expr", "writes"),
    [
        (Agent("a").output_schema(Ticket), set()),
        (Agent("a").output_schema(Ticket).outputs("res"), {"res"}),
    ],
    ids=["schema-alone", "schema-with-output-key"],
)
def test_an_output_schema_writes_only_the_output_key(expr, writes):
    assert keys(expr)[1] == writes


# -- the checker's view: a read's channel and whether a missing key breaks the run --------------
READS = [
    ("required-template", Agent("a").instruct("{x}"), [("x", "instruction", True)]),
    ("optional-template", Agent("a").instruct("{x?}"), [("x", "instruction", False)]),
    ("required-and-optional-once", Agent("a").instruct("{x?} {x}"), [("x", "instruction", True)]),
    (
        "from-state-is-required",
        Agent("a").context(C.from_state("c")),
        [("c", "C.from_state", True)],
    ),
    ("c-template-optional", Agent("a").context(C.template("{u?}")), [("u", "C.template", False)]),
    (
        "consumes-field-with-default-is-optional",
        Agent("a").consumes(Query),
        [("topic", "consumes", True), ("lang", "consumes", False)],
    ),
    ("declared-read", Agent("a").reads("r"), [("r", "declared", True)]),
    (
        "one-key-two-channels",
        Agent("a").instruct("{k}").context(C.from_state("k")),
        [("k", "instruction", True), ("k", "C.from_state", True)],
    ),
    ("global-instruction-not-at-the-root", Agent("a").global_instruction("{g}"), []),
]


@pytest.mark.parametrize(("agent", "expected"), [c[1:] for c in READS], ids=[c[0] for c in READS])
def test_agent_reads_channel_and_requirement(agent, expected):
    reads = agent_reads(agent.to_ir(), is_root=False)
    assert [(r.key, r.channel, r.required) for r in reads] == expected


def test_the_root_agents_global_instruction_is_read():
    node = Agent("a").global_instruction("{g} {h?}").to_ir()
    reads = agent_reads(node, is_root=True)
    assert [(r.key, r.channel, r.required) for r in reads] == [
        ("g", "global instruction", True),
        ("h", "global instruction", False),
    ]


WRITES = [
    ("outputs-is-text", Agent("a").outputs("o"), [("o", "outputs", True)]),
    (
        "produces-fields",
        Agent("a").produces(Ticket),
        [("priority", "produces", False), ("area", "produces", False)],
    ),
    ("declared-write", Agent("a").writes("w"), [("w", "declared", False)]),
    (
        "schema-object-under-the-output-key",
        Agent("a").output_schema(Ticket).outputs("res"),
        [("res", "outputs", True)],
    ),
    ("nothing", Agent("a").instruct("{x}"), []),
]


@pytest.mark.parametrize(("agent", "expected"), [c[1:] for c in WRITES], ids=[c[0] for c in WRITES])
def test_agent_writes_kind_and_whether_the_reply_text_is_the_value(agent, expected):
    writes = agent_writes(agent.to_ir())
    assert [(w.key, w.kind, w.text) for w in writes] == expected


STEPS = [
    # (step, reads as (key, channel, required), deleted keys, opaque read)
    ("default-read-is-optional", S.default(n=0), [("n", "S.default", False)], [], False),
    (
        "merge-reads-are-required",
        S.merge("a", "b", into="ab"),
        [("a", "S.merge", True), ("b", "S.merge", True)],
        [],
        False,
    ),
    ("transform-read-is-required", S.transform("k", str), [("k", "S.transform", True)], [], False),
    ("drop-deletes", S.drop("x"), [("x", "S.drop", False)], ["x"], False),
    ("pick-names-what-it-keeps", S.pick("k"), [("k", "S.pick", False)], [], False),
    ("rename-names-the-old-key", S.rename(old="new"), [("old", "S.rename", False)], [], False),
    ("log-keys", S.log("a"), [("a", "S.log", False)], [], False),
    ("log-everything-may-read-anything", S.log(), [], [], True),
    ("compute-may-read-anything", S.compute(t=lambda state: 1), [], [], True),
    ("guard-may-read-anything", S.guard(lambda state: True), [], [], True),
    ("set-reads-nothing", S.set(a=1), [], [], False),
]


@pytest.mark.parametrize(
    ("step", "reads", "deleted", "opaque"), [c[1:] for c in STEPS], ids=[c[0] for c in STEPS]
)
def test_step_effects_as_the_checker_sees_them(step, reads, deleted, opaque):
    effects = step_effects(step.to_ir())
    assert [(r.key, r.channel, r.required) for r in effects.reads] == reads
    assert [w.key for w in effects.writes if w.delete] == deleted
    assert effects.opaque_read is opaque


def test_pick_keeps_only_its_keys_and_rename_moves_values():
    assert step_effects(S.pick("a", "b").to_ir()).keep_only == ("a", "b")
    assert step_effects(S.rename(old="new").to_ir()).renames == (("old", "new"),)
    # a function step may read and write anything: the checker cannot name its keys
    effects = step_effects(function_step(_stateful).to_ir())
    assert (effects.opaque_read, effects.opaque_write) == (True, True)


# -- what a key's prefix means ----------------------------------------------------------------
SCOPES = [
    ("app", "app:region", "app", "region", False),
    ("user", "user:lang", "user", "lang", False),
    ("temp", "temp:scratch", "temp", "scratch", False),
    ("session", "intent", "session", "intent", True),
    ("prefix-needs-its-colon", "apple:x", "session", "apple:x", True),
    ("prefix-is-case-sensitive", "App:x", "session", "App:x", True),
    ("unknown-prefix", "usr:x", "session", "usr:x", True),
    ("only-the-first-prefix-counts", "user:app:x", "user", "app:x", False),
]


@pytest.mark.parametrize(
    ("key", "scope", "bare", "session"), [c[1:] for c in SCOPES], ids=[c[0] for c in SCOPES]
)
def test_a_keys_scope_and_bare_name(key, scope, bare, session):
    assert (scope_of_key(key), bare_name(key), is_session_key(key)) == (scope, bare, session)
