"""What `to_mermaid()` draws, as tables: the shape and label of every node kind, the control-flow
edges of every composite (forks and joins, loops' repeat edges, routes' labelled branches,
transfers), the data-flow edges from the writer of a key to each reader, and which agents are
drawn dashed as internal. Line order inside a diagram carries no meaning for mermaid, so whole
diagrams are compared as sets of lines.
"""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    C,
    Loop,
    Pipeline,
    Route,
    S,
    gate,
    loop_until,
    map_over,
    race,
    tap,
    timeout,
)
from adk_fluent.api.expression import function_step

HEADER = "flowchart TD"
DASHED = "    classDef internal stroke-dasharray: 5 5,color:#666"
_NODE = re.compile(r'^\s+(n\d+)[\[{(>]+/?"(.*?)"')
_DASHED_EDGE = re.compile(r"^\s+(n\d+) -\. (\S+) \.-> (n\d+)$")
_CONTROL_WORDS = {"repeat", "next", "try", "transfer"}  # dashed edges that are control flow


def lines(expr):
    return expr.to_mermaid().splitlines()


def data_edges(expr):
    """{(writer, key, reader)}, each end named by its label (an agent by its name)."""
    text = lines(expr)
    labels = {}
    for line in text:
        found = _NODE.match(line)
        if found:
            labels[found.group(1)] = found.group(2).split("<br/>")[0]
    edges = set()
    for line in text:
        found = _DASHED_EDGE.match(line)
        if found and found.group(2) not in _CONTROL_WORDS:
            writer, key, reader = found.groups()
            edges.add((labels[writer], key, labels[reader]))
    return edges


def audit(state):
    return None


def normalise(state):
    return {}


class Ticket(BaseModel):
    priority: int
    area: str


# -- one line per node kind: its shape and its label --------------------------------------------
SHAPES = [
    ("agent-box", Agent("a"), 'n0["a"]'),
    ("agent-with-output-key", Agent("a").outputs("k"), 'n0["a<br/>writes: k"]'),
    (
        "agent-writes-sorted",
        Agent("w").outputs("ticket").produces(Ticket),
        'n0["w<br/>writes: area, priority, ticket"]',
    ),
    ("agent-declared-writes", Agent("t").writes("audit_id"), 'n0["t<br/>writes: audit_id"]'),
    ("set-parallelogram", S.set(tier="gold"), 'n0[/"set set_tier"/]'),
    ("renamed-step", S.set(tier="gold").named("seed"), 'n0[/"set seed"/]'),
    ("drop-step", S.drop("scratch"), 'n0[/"drop drop_scratch"/]'),
    ("rename-step", S.rename(old="new"), 'n0[/"rename rename_old"/]'),
    ("merge-step", S.merge("a", "b", into="ab"), 'n0[/"merge merge_a_b_into_ab"/]'),
    ("guard-step", S.guard(lambda state: True), 'n0[/"guard guard"/]'),
    ("capture-turns-step", C.capture_turns("hist", 3), 'n0[/"capture_turns capture_turns_hist"/]'),
    ("named-function-step", function_step(normalise), 'n0[/"function normalise"/]'),
    ("lambda-function-step", function_step(lambda state: {}), 'n0[/"function fn_step"/]'),
    ("tap-flag-lambda", tap(lambda state: None), 'n0>"tap tap"]'),
    ("tap-flag-named-function", tap(audit), 'n0>"tap tap_audit"]'),
    ("tap-flag-explicit-name", tap(audit, name="probe"), 'n0>"tap probe"]'),
    ("gate-hexagon", gate(True, "Send it?"), 'n0{{"gate: Send it?"}}'),
    ("gate-quotes-made-single", gate(True, 'Reply "yes"'), "n0{{\"gate: Reply 'yes'\"}}"),
    ("route-diamond", Route("intent").eq("x", Agent("a")), 'n0{"route intent"}'),
    ("timeout-fraction", timeout(Agent("a"), 0.5), 'n0(["timeout 0.5s"])'),
    ("timeout-whole-seconds", Agent("a").timeout(90), 'n0(["timeout 90s"])'),
    (
        "map-over-subroutine",
        map_over("docs", Agent("s"), output_key="sums"),
        'n0[["map_over docs -> sums"]]',
    ),
    ("loop-count", Loop(Agent("a"), max_iterations=4), 'n0{{"loop x4"}}'),
    ("loop-without-count", Loop(Agent("a")), 'n0{{"loop"}}'),
    (
        "loop-until-count",
        loop_until(lambda state: True, Agent("a"), max_iterations=3),
        'n0{{"loop x3"}}',
    ),
    ("loop-until-check", loop_until(lambda state: True, Agent("a")), 'n2{{"until?"}}'),
    ("parallel-fork", Agent("a") | Agent("b"), "n0_fork((parallel))"),
    ("parallel-join", Agent("a") | Agent("b"), "n0_join(( ))"),
    ("race-fork", race(Agent("a"), Agent("b")), "n0_fork((race))"),
    ("fallback-fork", Agent("a") // Agent("b"), "n0_fork((fallback))"),
    ("route-join", Route("k").eq("x", Agent("a")), "n0_join(( ))"),
]


@pytest.mark.parametrize(("expr", "line"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_each_node_kind_has_its_shape_and_label(expr, line):
    assert f"    {line}" in lines(expr)


# -- whole diagrams: control flow -----------------------------------------------------------------
DIAGRAMS = [
    ("single-agent", Agent("a"), ['n0["a"]']),
    (
        "fan-out-then-agent",
        (Agent("a") | Agent("b")) >> Agent("c"),
        [
            "n0_fork((parallel))",
            "n0_join(( ))",
            'n1["a"]',
            "n0_fork --> n1",
            "n1 --> n0_join",
            'n2["b"]',
            "n0_fork --> n2",
            "n2 --> n0_join",
            'n3["c"]',
            "n0_join --> n3",
            "DASHED",
            "class n1,n2 internal",
        ],
    ),
    (
        "fallback-tries-each",
        Agent("a") // Agent("b"),
        [
            "n0_fork((fallback))",
            "n0_join(( ))",
            'n1["a"]',
            "n0_fork -. try .-> n1",
            "n1 --> n0_join",
            'n2["b"]',
            "n0_fork -. try .-> n2",
            "n2 --> n0_join",
        ],
    ),
    (
        "route-then-agent",
        Route("k").eq("x", Agent("a")).otherwise(Agent("b")) >> Agent("c"),
        [
            'n0{"route k"}',
            "n0_join(( ))",
            'n1["a"]',
            "n0 -- \"eq 'x'\" --> n1",
            "n1 --> n0_join",
            'n2["b"]',
            'n0 -- "otherwise" --> n2',
            "n2 --> n0_join",
            'n3["c"]',
            "n0_join --> n3",
            "DASHED",
            "class n1,n2 internal",
        ],
    ),
    (
        "loop-of-two",
        (Agent("a") >> Agent("b")) * 2,
        [
            'n0{{"loop x2"}}',
            'n1["a"]',
            'n2["b"]',
            "n1 --> n2",
            "n0 --> n1",
            "n2 -. repeat .-> n0",
            "DASHED",
            "class n1,n2 internal",
        ],
    ),
    (
        "loop-until-checks-after-the-body",
        loop_until(lambda state: True, Agent("a")),
        [
            'n0{{"loop x10"}}',
            'n1["a"]',
            'n2{{"until?"}}',
            "n1 --> n2",
            "n0 --> n1",
            "n2 -. repeat .-> n0",
            "DASHED",
            "class n1 internal",
        ],
    ),
    (
        "map-over-body-of-two",
        map_over("docs", Agent("s") >> Agent("t")),
        [
            'n0[["map_over docs -> results"]]',
            'n1["s"]',
            'n2["t"]',
            "n1 --> n2",
            "n0 -- each item --> n1",
            "n2 -. next .-> n0",
            "DASHED",
            "class n1,n2 internal",
        ],
    ),
    (
        "timeout-leaves-by-its-body",
        timeout(Agent("a"), 3) >> Agent("b"),
        [
            'n0(["timeout 3s"])',
            'n1["a"]',
            "n0 --> n1",
            'n2["b"]',
            "n1 --> n2",
            "DASHED",
            "class n1 internal",
        ],
    ),
    (
        "delegates-hang-off-their-agent",
        Agent("boss").delegate(Agent("x"), Agent("y")) >> Agent("z"),
        [
            'n0["boss"]',
            'n1["x"]',
            "n0 -. transfer .-> n1",
            'n2["y"]',
            "n0 -. transfer .-> n2",
            'n3["z"]',
            "n0 --> n3",
            "DASHED",
            "class n0,n1,n2 internal",
        ],
    ),
    (
        "named-inner-pipeline-is-one-chain",
        Agent("a") >> Pipeline(Agent("b"), Agent("c"), name="inner") >> Agent("d"),
        [
            'n0["a"]',
            'n1["b"]',
            'n2["c"]',
            "n1 --> n2",
            "n0 --> n1",
            'n3["d"]',
            "n2 --> n3",
            "DASHED",
            "class n0,n1,n2 internal",
        ],
    ),
    (
        "race-inside-a-pipeline",
        S.set(k=1) >> race(Agent("r1"), Agent("r2")),
        [
            'n0[/"set set_k"/]',
            "n1_fork((race))",
            "n1_join(( ))",
            'n2["r1"]',
            "n1_fork --> n2",
            "n2 --> n1_join",
            'n3["r2"]',
            "n1_fork --> n3",
            "n3 --> n1_join",
            "n0 --> n1_fork",
        ],
    ),
]


@pytest.mark.parametrize(
    ("expr", "expected"), [c[1:] for c in DIAGRAMS], ids=[c[0] for c in DIAGRAMS]
)
def test_whole_diagram(expr, expected):
    text = expr.to_mermaid()
    assert text.endswith("\n")
    drawn = text.splitlines()
    assert drawn[0] == HEADER
    wanted = [DASHED if line == "DASHED" else f"    {line}" for line in expected]
    assert sorted(drawn[1:]) == sorted(wanted)


# -- route branches are labelled with their rule --------------------------------------------------
EDGE_LABELS = [
    ("eq-text", Route("k").eq("x", Agent("a")), "n0 -- \"eq 'x'\" --> n1"),
    ("eq-number", Route("k").eq(3, Agent("a")), 'n0 -- "eq 3" --> n1'),
    (
        "eq-quotes-made-single",
        Route("k").eq('say "hi"', Agent("a")),
        "n0 -- \"eq 'say 'hi''\" --> n1",
    ),
    ("ne", Route("k").ne("x", Agent("a")), "n0 -- \"ne 'x'\" --> n1"),
    ("gt", Route("k").gt(3, Agent("a")), 'n0 -- "gt 3" --> n1'),
    ("gte-fraction", Route("k").gte(0.5, Agent("a")), 'n0 -- "gte 0.5" --> n1'),
    ("lt-negative", Route("k").lt(-1, Agent("a")), 'n0 -- "lt -1" --> n1'),
    ("lte", Route("k").lte(7, Agent("a")), 'n0 -- "lte 7" --> n1'),
    ("contains", Route("k").contains("ref", Agent("a")), "n0 -- \"contains 'ref'\" --> n1"),
    (
        "when-hides-the-function",
        Route("k").when(lambda state: True, Agent("a")),
        'n0 -- "when(...)" --> n1',
    ),
    ("otherwise", Route("k").otherwise(Agent("a")), 'n0 -- "otherwise" --> n1'),
    (
        "second-rule-to-second-branch",
        Route("k").eq("x", Agent("a")).gt(2, Agent("b")),
        'n0 -- "gt 2" --> n2',
    ),
]


@pytest.mark.parametrize(
    ("route", "edge"), [c[1:] for c in EDGE_LABELS], ids=[c[0] for c in EDGE_LABELS]
)
def test_route_branches_are_labelled_with_their_rule(route, edge):
    assert f"    {edge}" in lines(route)


# -- data flow: writer -. key .-> reader ------------------------------------------------------------
DATA_FLOW = [
    (
        "outputs-to-template",
        Agent("a").outputs("k") >> Agent("b").instruct("Use {k}"),
        {("a", "k", "b")},
    ),
    (
        "optional-template-read",
        Agent("a").outputs("k") >> Agent("b").instruct("Use {k?}"),
        {("a", "k", "b")},
    ),
    (
        "scoped-key",
        S.set(**{"user:lang": "en"}) >> Agent("b").instruct("Answer in {user:lang}"),
        {("set set_user_lang", "user:lang", "b")},
    ),
    (
        "route-key",
        Agent("a").outputs("intent") >> Route("intent").eq("x", Agent("b")),
        {("a", "intent", "route intent")},
    ),
    (
        "map-over-list-and-item",
        S.set(docs=["d1"]) >> map_over("docs", Agent("s").instruct("Summarise {item}")),
        {
            ("set set_docs", "docs", "map_over docs -> results"),
            ("map_over docs -> results", "item", "s"),
        },
    ),
    (
        "map-over-results-to-reader",
        map_over("docs", Agent("s"), output_key="sums") >> Agent("w").instruct("{sums}"),
        {("map_over docs -> sums", "sums", "w")},
    ),
    (
        "c-from-state",
        Agent("a").outputs("k") >> Agent("b").context(C.from_state("k")),
        {("a", "k", "b")},
    ),
    (
        "produces-to-consumes-one-edge-per-field",
        Agent("a").produces(Ticket) >> Agent("b").consumes(Ticket),
        {("a", "area", "b"), ("a", "priority", "b")},
    ),
    (
        "declared-writes-and-reads",
        Agent("a").writes("ticket_id") >> Agent("b").reads("ticket_id"),
        {("a", "ticket_id", "b")},
    ),
    (
        "two-writers-one-reader",
        (Agent("a").outputs("k") | Agent("b").outputs("k")) >> Agent("c").instruct("{k}"),
        {("a", "k", "c"), ("b", "k", "c")},
    ),
    (
        "one-writer-two-kinds-of-reader",
        S.set(k="x") >> Route("k").eq("x", Agent("a").instruct("{k}")),
        {("set set_k", "k", "route k"), ("set set_k", "k", "a")},
    ),
    (
        "rename-reads-old-writes-new",
        S.set(old=1) >> S.rename(old="new") >> Agent("b").instruct("{new}"),
        {("set set_old", "old", "rename rename_old"), ("rename rename_old", "new", "b")},
    ),
    (
        "drop-reads-what-it-deletes",
        S.set(x=1) >> S.drop("x"),
        {("set set_x", "x", "drop drop_x")},
    ),
    (
        "default-read-by-agent",
        S.default(n=0) >> Agent("b").instruct("{n}"),
        {("default default_n", "n", "b")},
    ),
    (
        "delegate-output-read-downstream",
        Agent("boss").delegate(Agent("x").outputs("k")) >> Agent("z").instruct("{k}"),
        {("x", "k", "z")},
    ),
    ("own-output-in-own-instruction", Agent("a").instruct("Again: {k}").outputs("k"), set()),
    ("unrelated-keys", Agent("a").outputs("k") >> Agent("b").instruct("{other}"), set()),
    ("function-step-writes-are-unknown", (lambda s: {"k": 1}) >> Agent("b").instruct("{k}"), set()),
    ("doubled-braces-are-no-read", Agent("a").outputs("k") >> Agent("b").instruct("{{k}}"), set()),
    ("artifact-is-no-read", Agent("a").outputs("k") >> Agent("b").instruct("{artifact.k}"), set()),
]


@pytest.mark.parametrize(
    ("expr", "edges"), [c[1:] for c in DATA_FLOW], ids=[c[0] for c in DATA_FLOW]
)
def test_data_flow_edges_go_from_each_writer_to_each_reader(expr, edges):
    assert data_edges(expr) == edges


def test_an_output_schema_field_is_not_drawn_as_a_written_key():
    expr = Agent("a").output_schema(Ticket).outputs("res") >> Agent("b").instruct("{area}")
    assert data_edges(expr) == set()
    assert '    n0["a<br/>writes: res"]' in lines(expr)


# -- internal agents are dashed ---------------------------------------------------------------
INTERNAL = [
    ("single-agent-speaks", Agent("a"), None),
    ("fan-out-at-the-end-speaks", Agent("a") | Agent("b"), None),
    ("route-branches-at-the-end-speak", Route("k").eq("x", Agent("a")).otherwise(Agent("b")), None),
    ("loop-body", Agent("a") * 2, "class n1 internal"),
    ("fallback-then-agent", (Agent("a") // Agent("b")) >> Agent("c"), "class n1,n2 internal"),
    ("show-overrides-position", Agent("a").show() >> Agent("b"), None),
    ("transparent-pipeline", (Agent("a") >> Agent("b")).transparent(), None),
    ("hide-the-last", Agent("a") >> Agent("b").hide(), "class n0,n1 internal"),
    ("steps-are-never-dashed", S.set(k=1) >> Agent("a") >> S.drop("k"), "class n1 internal"),
    ("gate-is-never-dashed", (Agent("a") >> gate(True, "ok?")).hide(), "class n0 internal"),
    ("map-over-body", map_over("docs", Agent("s")), "class n1 internal"),
]


@pytest.mark.parametrize(
    ("expr", "class_line"), [c[1:] for c in INTERNAL], ids=[c[0] for c in INTERNAL]
)
def test_internal_agents_are_drawn_dashed(expr, class_line):
    drawn = lines(expr)
    if class_line is None:
        assert not [line for line in drawn if "internal" in line]
    else:
        assert [line for line in drawn if "internal" in line] == [DASHED, f"    {class_line}"]
