"""Misuse of the run methods' keyword options: `state=` (a dict of usable state keys to values a
session store can keep as JSON; no `temp:` keys, none of adk-fluent's gate keys) and misspelt
option names (a did-you-mean among the options that method takes). Each is refused when `run()`
or `ask()` is awaited, or `stream()` called, before anything is compiled or stored."""

from __future__ import annotations

from datetime import datetime

import pytest

from adk_fluent import Agent
from adk_fluent.testing import ScriptedModel
from tests.support.misuse import case, check, ids


def _agent() -> Agent:
    return Agent("greeter", ScriptedModel(["Hello."])).instruct("Greet {name?}.")


def _run(**options):
    return lambda: _agent().run("hi", **options)


def _state(state):
    return _run(session_id="s", state=state)


CASES = [
    # state= itself
    case("run-state-list-of-pairs", _state([("name", "Ada")]), "state", "list", "dict"),
    case("run-state-text", _state("name=Ada"), "state", "str"),
    # its keys
    case("run-state-key-empty", _state({"": 1}), "state", "empty"),
    case("run-state-key-number", _state({1: "one"}), "state", "must be a str"),
    case("run-state-key-braces", _state({"{name}": "Ada"}), "state", "braces"),
    case("run-state-key-bare-prefix", _state({"user:": "x"}), "state", "scope prefix"),
    case("run-state-key-temp", _state({"temp:draft": "x"}), "state", "temp:", "'draft'"),
    case(
        "run-state-key-gate-record",
        _state({"adk_fluent_gate__approve": {"status": "approved"}}),
        "state",
        "gates",
    ),
    # its values
    case("run-state-value-datetime", _state({"since": datetime(2024, 1, 1)}), "isoformat"),
    case("run-state-value-set", _state({"tags": {"a", "b"}}), "state['tags']", "sorted"),
    case("run-state-value-nan", _state({"score": float("nan")}), "state['score']", "nan"),
    case("run-state-value-bytes", _state({"blob": b"\x00"}), "state['blob']", "base64"),
    case(
        "run-state-value-nested-int-key",
        _state({"counts": {"a": {1: 2}}}),
        "state['counts']['a']",
        "str keys",
    ),
    case("run-state-value-object", _state({"agent": object()}), "object", "model_dump"),
    # every run method checks it, stream() when called
    case(
        "run-stream-state-refused-when-called",
        lambda: _agent().stream("hi", state={"temp:x": 1}),
        "temp:",
    ),
    case("run-ask-state-not-a-dict", lambda: _agent().ask("hi", state=3), "state", "int"),
    # misspelt options: a did-you-mean among the options of that method
    case("run-option-state-typo", _run(sate={"a": 1}), "sate", "did you mean 'state'"),
    case(
        "run-option-store-typo",
        _run(sesion_store="memory"),
        "sesion_store",
        "did you mean 'session_store'",
    ),
    case(
        "run-session-option-typo",
        lambda: _agent().session("s", sesion_store="memory"),
        "sesion_store",
        "did you mean 'session_store'",
    ),
    case(
        "run-session-state-not-an-option",
        lambda: _agent().session("s", state={"a": 1}),
        "state",
        "the options are",
    ),
    # lifecycle= (agent start and end events): True or False, and only where events are sent
    case("run-lifecycle-text", _run(lifecycle="yes"), "lifecycle", "str 'yes'", "True or False"),
    case("run-lifecycle-none", _run(lifecycle=None), "lifecycle", "True or False"),
    case(
        "run-session-lifecycle-not-an-option",
        lambda: _agent().session("s", lifecycle=True),
        "lifecycle",
        "the options are",
    ),
    case(
        "run-rewind-streaming-not-an-option",
        lambda: _agent().rewind("s", "inv-1", streaming="sse"),
        "streaming",
        "the options are",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
