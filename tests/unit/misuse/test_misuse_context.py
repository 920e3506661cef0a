"""Misuse of C, the context specs: names and keys that are not names, counts that are not
counts, a spec where a step belongs (and a step where a spec belongs), and views that make no
sense in their pipeline. Each is refused when the spec is made, when `.context()` is called, or
by the contract check (`.strict()` builds, `check_contracts(strict=True)`), with the spec, the
agent or the field named and a hint."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C, check_contracts
from adk_fluent.ir.context_spec import ContextSpec
from tests.support.misuse import case, check, ids


def lookup(city: str) -> str:
    """Look a city up."""
    return city


A = Agent("a")

CASES = [
    # -- names of agents: C.from_agents / C.exclude_agents ----------------------------------------
    case("ctx-from-agents-no-names", lambda: C.from_agents(), "C.from_agents()", "at least one"),
    case(
        "ctx-exclude-agents-no-names",
        lambda: C.exclude_agents(),
        "C.exclude_agents()",
        "at least one",
    ),
    case(
        "ctx-from-agents-builder-not-name",
        lambda: C.from_agents(Agent("researcher")),
        "field 'context'",
        "names (strings)",
        "Agent",
    ),
    case(
        "ctx-exclude-agents-list-not-varargs",
        lambda: C.exclude_agents(["router", "classifier"]),
        "C.exclude_agents()",
        "list",
    ),
    case("ctx-from-agents-empty-name", lambda: C.from_agents(""), "C.from_agents()", "empty"),
    # -- turn counts ------------------------------------------------------------------------------
    case("ctx-last-n-whole-float", lambda: C.last_n_turns(2.0), "C.last_n_turns", "2.0"),
    case("ctx-last-n-bool", lambda: C.last_n_turns(True), "C.last_n_turns", "True"),
    # -- state keys: C.from_state / C.template ------------------------------------------------------
    case(
        "ctx-from-state-list-not-varargs",
        lambda: C.from_state(["intent", "tier"]),
        "C.from_state()",
        "list",
    ),
    case("ctx-from-state-empty-key", lambda: C.from_state(""), "C.from_state()", "empty"),
    case("ctx-template-empty", lambda: C.template(""), "field 'context'", "non-empty template"),
    case(
        "ctx-template-function",
        lambda: C.template(lambda state: f"Draft: {state['draft']}"),
        "C.template(text)",
        "template string",
    ),
    # -- capture steps ----------------------------------------------------------------------------
    case(
        "ctx-capture-braces-key",
        lambda: C.capture("{question}"),
        "'{question}'",
        "braces",
    ),
    case("ctx-capture-bare-scope", lambda: C.capture("temp:"), "'temp:'", "scope prefix"),
    case(
        "ctx-capture-turns-key-none",
        lambda: C.capture_turns(None),
        "field 'key'",
        "state key name",
    ),
    case(
        "ctx-capture-turns-args-swapped",
        lambda: C.capture_turns(3, "recent"),
        "field 'n'",
        "'recent'",
    ),
    case("ctx-capture-turns-n-float", lambda: C.capture_turns("recent", 2.5), "field 'n'", "2.5"),
    # -- .context(): a spec, nothing else -----------------------------------------------------------
    case(
        "ctx-context-the-class-c",
        lambda: A.context(C),
        "agent 'a'",
        "field 'context'",
        "the class C",
    ),
    case(
        "ctx-context-uncalled-factory",
        lambda: A.context(C.user_only),
        "agent 'a'",
        "C spec",
        "function",
    ),
    case(
        "ctx-context-list-of-specs",
        lambda: A.context([C.user_only(), C.from_state("intent")]),
        "field 'context'",
        "list",
    ),
    case(
        "ctx-context-capture-step",
        lambda: A.context(C.capture("question")),
        "field 'context'",
        "StateStep",
    ),
    case(
        "ctx-context-on-a-pipeline",
        lambda: (A >> Agent("b")).context(C.none()),
        "Pipeline has no method 'context'",
    ),
    # a spec is not a step: it goes to .context(), not into >>
    case("ctx-spec-as-step", lambda: C.user_only() >> A, "ContextSpec", "`>>`"),
    # -- views that do not fit their pipeline (the contract check refuses them) -----------------
    case(
        "ctx-from-agents-typo-strict",
        lambda: (Agent("writer") >> Agent("b").context(C.from_agents("writr"))).strict().build(),
        'C.from_agents("writr")',
        "did you mean 'writer'",
    ),
    case(
        "ctx-exclude-agents-typo-strict-app",
        lambda: (
            (Agent("router") >> Agent("b").context(C.exclude_agents("ruoter"))).strict().to_app()
        ),
        'C.exclude_agents("ruoter")',
        "excludes nothing",
    ),
    case(
        "ctx-from-agents-user-strict",
        lambda: (Agent("x") >> Agent("b").context(C.from_agents("user"))).strict().build(),
        'No agent named "user"',
        "context-unknown-agent",
    ),
    case(
        "ctx-from-state-unwritten-strict",
        lambda: (A >> Agent("b").context(C.from_state("summary"))).strict().build(),
        "via C.from_state",
        '"summary"',
        "from-state-unset",
    ),
    case(
        "ctx-template-unwritten-strict",
        lambda: (A >> Agent("b").context(C.template("Draft: {draft}"))).strict().build(),
        "{draft} in C.template",
        "{draft?}",
    ),
    case(
        "ctx-none-with-tools-checked-strictly",
        lambda: check_contracts(Agent("t").tool(lookup).context(C.none()), strict=True),
        "t has tools and C.none()",
        "C.user_only()",
    ),
    case(
        "ctx-none-hides-a-reply-checked-strictly",
        lambda: check_contracts(
            Agent("researcher").instruct("Research.") >> Agent("writer").context(C.none()),
            strict=True,
        ),
        "researcher's reply reaches no later agent",
        "'writer' (C.none())",
    ),
    case(
        "ctx-captured-text-in-instruction-checked-strictly",
        lambda: check_contracts(
            C.capture("question") >> Agent("b").instruct("Answer {question}."), strict=True
        ),
        "user's text in its instruction via {question}",
        "C.from_state",
    ),
    # -- key names follow the S rules; a step in `+`, a misspelt C method, a hand-made spec ------
    case("ctx-from-state-braces-key", lambda: C.from_state("{intent}"), "'{intent}'", "braces"),
    case("ctx-from-state-bare-scope", lambda: C.from_state("user:"), "'user:'", "scope prefix"),
    case(
        "ctx-capture-turns-braces-key",
        lambda: C.capture_turns("{recent}", 3),
        "'{recent}'",
        "braces",
    ),
    case(
        "ctx-capture-turns-bare-scope",
        lambda: C.capture_turns("temp:", 3),
        "'temp:'",
        "scope prefix",
    ),
    case(
        "ctx-spec-plus-capture-step",
        lambda: C.user_only() + C.capture("question"),
        "'capture_question'",
        "`+`",
    ),
    case(
        "ctx-c-method-typo",
        lambda: C.from_agent("researcher"),
        "'from_agent'",
        "did you mean 'from_agents'",
    ),
    case(
        "ctx-hand-made-spec-unknown-history",
        lambda: A.context(ContextSpec("everything")).build(),
        "field 'context'",
        "'everything'",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
