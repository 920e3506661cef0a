"""Misuse of edges: chunked edges (`.then(next, edge="chunked", by=..., key=...)`), FanOut
joins and merges. Each fails at build time with a message naming the step, the field and a hint
(a did-you-mean for a misspelt edge, unit, join or merge mode)."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, FanOut, Pipeline, gate
from adk_fluent.analysis.cost import TrafficAssumptions, estimate_cost
from tests.support.misuse import case, check, ids


def writer():
    return Agent("writer").instruct("Write.")


def speaker():
    return Agent("speaker").instruct("Say: {chunk}")


def chunked(**options):
    return lambda: writer().then(speaker(), edge="chunked", **options)


def fan():
    return FanOut(Agent("web"), Agent("docs"))


CASES = [
    # .then(): the edge and its options
    case(
        "edges-then-edge-typo",
        lambda: writer().then(speaker(), edge="chunkd"),
        "writer",
        "edge",
        "did you mean 'chunked'",
    ),
    case(
        "edges-then-edge-not-text",
        lambda: writer().then(speaker(), edge=2),
        "writer",
        "edge",
        "must be one of 'complete', 'chunked'",
    ),
    case(
        "edges-then-edge-first-complete",
        lambda: writer().then(speaker(), edge="first_complete"),
        "writer",
        "edge",
        "FanOut(a, b).first_complete()",
    ),
    case(
        "edges-then-by-on-complete-edge",
        lambda: writer().then(speaker(), by="line"),
        "writer",
        "by",
        "chunked",
    ),
    case(
        "edges-then-key-on-complete-edge",
        lambda: writer().then(speaker(), key="part"),
        "writer",
        "key",
        "chunked",
    ),
    case(
        "edges-then-next-not-a-step",
        lambda: writer().then(42, edge="chunked"),
        "writer",
        "next_step",
        "42",
    ),
    # chunked edges: what to cut by, where to put the chunk
    case(
        "edges-chunked-by-typo", chunked(by="sentences"), "writer", "by", "did you mean 'sentence'"
    ),
    case("edges-chunked-by-unknown-unit", chunked(by="word"), "writer", "by", "'paragraph'"),
    case("edges-chunked-by-zero", chunked(by=0), "writer", "by", "positive number"),
    case("edges-chunked-by-negative", chunked(by=-20), "writer", "by", "empty chunks"),
    case("edges-chunked-by-float", chunked(by=2.5), "writer", "by", "2.5"),
    case("edges-chunked-by-bool", chunked(by=True), "writer", "by", "True"),
    case("edges-chunked-key-empty", chunked(key=""), "writer", "key", "state key"),
    case("edges-chunked-key-not-text", chunked(key=3), "writer", "key", "3"),
    case("edges-chunked-name-invalid", chunked(name="read aloud"), "name", "edge name"),
    case(
        "edges-chunked-producer-is-a-pipeline",
        lambda: (Agent("planner") >> writer()).then(speaker(), edge="chunked"),
        "pipeline__planner__writer",
        "edge",
        "writer.then(speaker, edge='chunked')",
    ),
    case(
        "edges-chunked-producer-is-a-fanout",
        lambda: fan().then(speaker(), edge="chunked"),
        "fanout__web__docs",
        "LLM agent",
    ),
    case(
        "edges-chunked-producer-is-a-chunked-edge",
        lambda: writer().then(speaker(), edge="chunked").then(Agent("c"), edge="chunked"),
        "chunked__writer__speaker",
        "ChunkedEdge",
    ),
    case(
        "edges-chunked-gate-in-consumer",
        lambda: writer().then(speaker() >> gate(message="Go on?"), edge="chunked").build(),
        "chunked__writer",
        "gate",
        "chunked edge",
    ),
    # FanOut joins and merges
    case(
        "edges-fanout-join-typo",
        lambda: FanOut(Agent("a"), Agent("b"), join="first_completed"),
        "fanout__a__b",
        "join",
        "did you mean 'first_complete'",
    ),
    case(
        "edges-fanout-join-unknown",
        lambda: FanOut(Agent("a"), Agent("b"), join="any", name="searches"),
        "searches",
        "join",
        "'first_complete'",
    ),
    case(
        "edges-merge-mode-typo",
        lambda: fan().merge("dcit", into="r"),
        "fanout__web__docs",
        "merge",
        "did you mean 'dict'",
    ),
    case("edges-merge-mode-unknown", lambda: fan().merge("sum", into="r"), "merge", "'concat'"),
    case(
        "edges-merge-reducer-not-callable",
        lambda: fan().merge(42, into="r"),
        "fanout__web__docs",
        "merge",
        "a function",
    ),
    case(
        "edges-merge-reducer-a-class",
        lambda: fan().merge(dict, into="r"),
        "merge",
        "the class dict",
    ),
    case(
        "edges-merge-reducer-two-params",
        lambda: fan().merge(lambda a, b: a, into="r"),
        "merge",
        "one dict",
    ),
    case(
        "edges-merge-into-missing",
        lambda: fan().merge("dict"),
        "fanout__web__docs",
        "into",
        "into='results'",
    ),
    case("edges-merge-into-empty", lambda: fan().merge("concat", into=""), "into", "state key"),
    case("edges-merge-into-not-text", lambda: fan().merge("concat", into=["r"]), "into", "list"),
    case(
        "edges-merge-twice",
        lambda: fan().merge("dict", into="a").merge("concat", into="b"),
        "fanout__web__docs",
        "merge",
        "merges once",
    ),
    case(
        "edges-merge-separator-on-dict",
        lambda: fan().merge("dict", into="r", separator="-"),
        "separator",
        "concat",
    ),
    case(
        "edges-merge-separator-not-text",
        lambda: fan().merge("concat", into="r", separator=1),
        "separator",
        "text",
    ),
    case(
        "edges-merge-separator-with-reducer",
        lambda: fan().merge(len, into="r", separator="-"),
        "separator",
        "reducer",
    ),
    case(
        "edges-first-complete-gate-in-branch",
        lambda: FanOut(Agent("a") >> gate(message="Go on?"), Agent("b")).first_complete().build(),
        "gate",
        "first_complete",
        "cancels",
    ),
    case(
        "edges-merge-gate-in-branch",
        lambda: Pipeline(
            FanOut(gate(message="Go?") >> Agent("a"), Agent("b")).merge("dict", into="r")
        ).build(),
        "gate",
        "merging FanOut",
    ),
    case(
        "edges-cost-chunks-unknown-edge",
        lambda: estimate_cost(
            writer().then(speaker(), edge="chunked"),
            TrafficAssumptions(chunks={"chunked__writer__speakr": 4}),
        ),
        "chunks",
        "did you mean 'chunked__writer__speaker'",
    ),
    case(
        "edges-cost-chunks-negative",
        lambda: TrafficAssumptions(chunks={"e": -1}),
        "chunks",
        "0 or more",
    ),
    # token edges and buffers
    case(
        "token-edge-with-by",
        lambda: writer().then(speaker(), edge="token", by="sentence"),
        "writer",
        "by",
        "token edge",
    ),
    case(
        "edge-buffer-zero",
        lambda: writer().then(speaker(), edge="token", buffer=0),
        "buffer",
        "positive whole number",
    ),
    case(
        "edge-buffer-text",
        lambda: writer().then(speaker(), edge="chunked", buffer="16"),
        "buffer",
    ),
    case(
        "edge-buffer-on-a-complete-edge",
        lambda: writer().then(speaker(), buffer=4),
        "buffer",
        "chunked edge",
    ),
    case(
        "edge-tokens-misspelt",
        lambda: writer().then(speaker(), edge="tokens"),
        "edge",
        "did you mean 'token'",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse_fails_clearly(misuse):
    check(misuse)
