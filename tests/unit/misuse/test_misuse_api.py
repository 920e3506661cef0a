"""Misuse of the builders' API (issue 11 item 14): each case must fail at build, clearly,
naming the agent or step, the field, and with a hint; never a silent acceptance, a raw
traceback from ADK or pydantic, or a dumped repr."""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    AgentTool,
    C,
    Fallback,
    FanOut,
    Loop,
    Native,
    Pipeline,
    Route,
    S,
    check_contracts,
    exit_when,
    gate,
    timeout,
    until,
)
from adk_fluent.errors import ContractError, DuplicateNameError, EmptyCompositeError
from tests.support.misuse import case, check, ids

NAN, INF = float("nan"), float("inf")


def search(query: str) -> str:
    """Search the web."""
    return query


def _another_search():
    def search(query: str) -> str:  # a different function with the same tool name
        """Search the intranet."""
        return query

    return search


def no_args() -> dict:
    return {}


def two_args(state, extra) -> dict:
    return {}


def keyword_only(*, state) -> dict:
    return {}


def _native_llm_agent():
    from google.adk.agents import LlmAgent

    return LlmAgent(name="native", model="some-model", instruction="x" * 500)


def _adk_tool():
    from google.adk.tools.function_tool import FunctionTool

    return FunctionTool(search)


A = Agent("a")

CASES = [
    # -- names ---------------------------------------------------------------------------------
    case("api-name-none", lambda: Agent(None), "name", "None", "text"),
    case("api-name-int", lambda: Agent(3), "name", "int"),
    case("api-name-space", lambda: Agent("my agent"), "my agent", "name", "' '"),
    case("api-name-digit", lambda: Agent("1st"), "'1st'", "starts with a digit"),
    case("api-name-user", lambda: Agent("user"), "'user'", "reserved"),
    case("api-name-empty", lambda: Agent(""), "name", "empty"),
    case("api-name-dash", lambda: Agent("my-agent"), "my-agent", "'-'"),
    case("api-clone-bad-name", lambda: A.clone("no way"), "no way", "name"),
    case("api-composite-named-bad", lambda: (A >> Agent("b")).named("1x"), "'1x'", "name"),
    case("api-step-named-bad", lambda: S.set(k=1).named("a b"), "a b", "step name"),
    case("api-route-name-bad", lambda: Route("k", name="bad name"), "bad name", "route name"),
    case("api-timeout-name-bad", lambda: timeout(A, 5, name="x y"), "x y", "step name"),
    # -- model and instruction -------------------------------------------------------------------
    case("api-model-int", lambda: Agent("a", 42), "agent 'a'", "field 'model'", "42"),
    case("api-model-empty", lambda: Agent("a", ""), "field 'model'", "empty model name"),
    case("api-model-list", lambda: Agent("a", ["gemini"]), "field 'model'", "list"),
    case("api-model-setter-float", lambda: A.model(3.5).build(), "field 'model'", "3.5"),
    case("api-model-class", lambda: Agent("a", dict), "field 'model'", "class dict"),
    case("api-instruct-int", lambda: A.instruct(42), "field 'instruction'", "42"),
    case("api-instruct-none", lambda: A.instruct(None), "field 'instruction'", "None"),
    case(
        "api-instruction-list", lambda: A.instruction(["x"]).build(), "field 'instruction'", "list"
    ),
    case("api-instruct-builder", lambda: A.instruct(Agent("b")), "field 'instruction'", "'b'"),
    case("api-outputs-empty", lambda: A.outputs(""), "agent 'a'", "field 'output_key'"),
    case("api-outputs-int", lambda: A.outputs(3), "field 'output_key'", "3"),
    case("api-outputs-blank", lambda: A.outputs("  "), "field 'output_key'", "non-empty"),
    # -- tools -----------------------------------------------------------------------------------
    case("api-tool-lambda", lambda: A.tool(lambda q: q), "field 'tools'", "lambda", "docstring"),
    case("api-tool-twice", lambda: A.tool(search).tool(search), "'search'", "already"),
    case(
        "api-tool-same-name",
        lambda: A.tool(search).tool(_another_search()),
        "field 'tools'",
        "'search'",
        "different names",
    ),
    case("api-tools-twice", lambda: A.tools(search, search).build(), "'search'", "already"),
    case("api-tools-list", lambda: A.tools([search]).build(), "a list is not a tool", "separate"),
    # agents as tools: .tool(agent) is ADK's AgentTool; these are its misuses
    case(
        "api-tool-agent-confirmed",
        lambda: A.tool(Agent("b"), require_confirmation=True),
        "field 'tools'",
        "not an agent",
        "gate",
    ),
    case(
        "api-agent-tool-option-typo",
        lambda: A.agent_tool(Agent("b"), skip_summarisation=True),
        "agent tool 'b'",
        "no option 'skip_summarisation'",
        "did you mean 'skip_summarization'",
    ),
    case(
        "api-agent-tool-option-type",
        lambda: A.agent_tool(Agent("b"), skip_summarization="yes"),
        "skip_summarization must be True or False",
    ),
    case("api-agent-tool-int", lambda: A.agent_tool(42), "needs an agent", "42", ".tool(fn)"),
    case(
        "api-agent-tool-positional-option",
        lambda: A.tool(AgentTool(Agent("b"), True)),
        "options by name",
        "skip_summarization=True",
    ),
    case(
        "api-tool-agent-twice",
        lambda: A.tool(Agent("b")).tool(Agent("b").instruct("other")),
        "a tool named 'b' is already",
    ),
    case("api-tool-int", lambda: A.tool(42), "field 'tools'", "42 is not a tool"),
    case("api-tool-str", lambda: A.tool("search"), "field 'tools'", "'search'", "not a tool"),
    case("api-tool-class", lambda: A.tool(dict), "field 'tools'", "class dict"),
    case("api-tool-none", lambda: A.tool(None), "field 'tools'", "None"),
    case(
        "api-tool-confirm-object",
        lambda: A.tool(42, require_confirmation=True),
        "field 'tools'",
        "require_confirmation",
    ),
    case(
        "api-tool-confirm-lambda",
        lambda: A.tool(lambda q: q, require_confirmation=True),
        "field 'tools'",
        "lambda",
    ),
    # -- callbacks, delegates, context, declared models ------------------------------------------
    case("api-before-model-str", lambda: A.before_model("x"), "before_model_callback", "function"),
    case("api-after-tool-int", lambda: A.after_tool(3), "after_tool_callback", "function"),
    case("api-delegate-none", lambda: A.delegate(None), "field 'sub_agents'", "None"),
    case(
        "api-delegate-function",
        lambda: A.delegate(search),
        "field 'sub_agents'",
        "function",
        ".tool(fn)",
    ),
    case("api-delegate-str", lambda: A.delegate("b"), "field 'sub_agents'", "'b'"),
    case("api-context-str", lambda: A.context("user_only"), "field 'context'", "C.user_only()"),
    case("api-context-none", lambda: A.context(None), "field 'context'", "got None"),
    case("api-produces-int", lambda: A.produces(3), "field 'produces'", "pydantic"),
    case("api-produces-instance", lambda: A.produces({"a": 1}), "field 'produces'", "dict"),
    case("api-consumes-str", lambda: A.consumes("Intent"), "field 'consumes'", "pydantic"),
    case("api-unknown-setter", lambda: A.instuct("x"), "'instuct'", "did you mean 'instruct'"),
    # -- composing things that are not builders ---------------------------------------------------
    case("api-compose-int", lambda: A >> 42, "field 'step'", "42", ">>"),
    case("api-compose-str", lambda: A >> "next", "'next'", ">>"),
    case("api-compose-none-left", lambda: None >> A, "None", ">>"),
    case("api-compose-object", lambda: A >> object(), "an object", ">>"),
    case("api-compose-class", lambda: A >> dict, "the class dict", ">>"),
    case(
        "api-compose-adk-tool",
        lambda: A >> _adk_tool(),
        "a tool is called by an agent's model",
        ".tool(...)",
    ),
    case("api-native-not-agent", lambda: Native(42), "Native() needs an ADK agent", "42"),
    case(
        "api-exit-when-outside-loop",
        lambda: (A >> exit_when(lambda state: True)).build(),
        "exit_when() is not inside a loop",
        "Loop(writer >> exit_when(pred) >> editor)",
    ),
    case("api-exit-when-not-callable", lambda: exit_when("done"), "predicate needs a function"),
    case(
        "api-until-bad-name", lambda: until(lambda s: True, name="no way"), "not a valid step name"
    ),
    case(
        "api-gate-in-agent-tool",
        lambda: A.tool(Agent("b") >> gate(True, "ok?")).build(),
        "gate 'approval_gate' sits inside an agent tool of agent 'a'",
        "sub-run",
    ),
    case("api-fallback-int", lambda: A // 3, "3", "`//`"),
    case("api-pipeline-none", lambda: Pipeline(A, None), "None", "Pipeline"),
    # -- empty composites -------------------------------------------------------------------------
    case(
        "api-pipeline-empty",
        lambda: Pipeline(),
        "Pipeline",
        "at least one",
        error=EmptyCompositeError,
    ),
    case(
        "api-fanout-empty",
        lambda: FanOut(name="x"),
        "agent 'x'",
        "FanOut",
        error=EmptyCompositeError,
    ),
    case("api-loop-empty", lambda: Loop(), "Loop", "at least one", error=EmptyCompositeError),
    case("api-fallback-empty", lambda: Fallback(), "Fallback", error=EmptyCompositeError),
    case(
        "api-route-no-branch", lambda: Route("k").build(), "no branches", error=EmptyCompositeError
    ),
    # -- predicates and function steps of the wrong arity ----------------------------------------
    case("api-until-arity-0", lambda: A * until(lambda: True), "predicate", "1 argument"),
    case("api-until-arity-2", lambda: A * until(lambda s, t: True), "predicate", "(s, t)"),
    case("api-until-not-callable", lambda: until(True), "field 'predicate'", "True"),
    case("api-until-max-0", lambda: until(lambda s: True, max=0), "field 'max'", "0"),
    case("api-until-max-bool", lambda: until(lambda s: True, max=True), "field 'max'", "True"),
    case("api-when-arity-0", lambda: Route("k").when(lambda: True, A), "field 'when'", "route_k"),
    case("api-when-arity-2", lambda: Route("k").when(lambda s, t: 1, A), "field 'when'", "(s, t)"),
    case("api-when-not-callable", lambda: Route("k").when("vip", A), "field 'when'", "'vip'"),
    case("api-step-arity-0", lambda: A >> no_args, "function step", "no_args", "state"),
    case("api-step-arity-2", lambda: A >> two_args, "function step", "two_args(state, extra)"),
    case("api-step-keyword-only", lambda: keyword_only >> A, "function step", "keyword_only"),
    case("api-loop-count-0", lambda: A * 0, "field 'max_iterations'", "positive whole number"),
    case("api-loop-count-bool", lambda: A * True, "field 'max_iterations'", "True"),
    case("api-loop-count-float", lambda: A * 2.5, "field 'max_iterations'", "2.5"),
    case("api-loop-max-bool", lambda: Loop(A, max_iterations=True), "max_iterations", "True"),
    case("api-loop-until-plain", lambda: Loop(A, until=lambda s: True), "field 'until'", "until("),
    # -- timeouts ------------------------------------------------------------------------------
    case("api-timeout-nan", lambda: A.timeout(NAN), "agent 'a'", "field 'seconds'", "nan"),
    case("api-timeout-inf", lambda: A.timeout(INF), "field 'seconds'", "inf", "finite"),
    case("api-timeout-negative", lambda: A.timeout(-1), "field 'seconds'", "-1"),
    case("api-timeout-zero", lambda: A.timeout(0), "field 'seconds'", "more than 0"),
    case("api-timeout-str", lambda: A.timeout("5"), "field 'seconds'", "'5'"),
    case("api-timeout-bool", lambda: A.timeout(True), "field 'seconds'", "True"),
    case("api-timeout-fn-nan", lambda: timeout(A, NAN), "agent 'a'", "field 'seconds'"),
    # -- Route -----------------------------------------------------------------------------------
    case("api-route-gt-str", lambda: Route("k").gt("abc", A), "field 'gt'", "'abc'", "numbers"),
    case("api-route-lt-nan", lambda: Route("k").lt(NAN, A), "field 'lt'", "nan"),
    case("api-route-gte-bool", lambda: Route("k").gte(True, A), "field 'gte'", "True"),
    case("api-route-lte-none", lambda: Route("k").lte(None, A), "field 'lte'", "None"),
    case("api-route-normalize-str", lambda: Route("k", normalize="yes"), "normalize", "'yes'"),
    case("api-route-normalize-int", lambda: Route("k", normalize=1), "field 'normalize'", "1"),
    case(
        "api-route-normalize-arity",
        lambda: Route("k", normalize=lambda a, b: a),
        "field 'normalize'",
        "(a, b)",
    ),
    case("api-route-key-none", lambda: Route(None), "field 'key'", "None"),
    case("api-route-key-empty", lambda: Route(""), "field 'key'", "state key"),
    case("api-route-branch-none", lambda: Route("k").eq("x", None), "None", "Route('k').eq"),
    # -- names used twice ------------------------------------------------------------------------
    case(
        "api-step-name-reused",
        lambda: (S.set(a=1).named("prep") >> A >> S.set(b=2).named("prep")).build(),
        "'prep'",
        "field 'name'",
        "two different steps",
    ),
    case(
        "api-step-named-like-agent",
        lambda: (S.set(a=1).named("writer") >> Agent("writer")).build(),
        "'writer'",
        "agent in the same tree",
    ),
    case(
        "api-agent-name-twice",
        lambda: (Agent("x") >> Agent("x")).build(),
        "agent 'x'",
        "used twice",
        error=DuplicateNameError,
    ),
    # -- C specs ---------------------------------------------------------------------------------
    case("api-c-from-state-empty", lambda: C.from_state(), "C.from_state()", "at least one"),
    case("api-c-from-state-int", lambda: C.from_state(3), "C.from_state()", "3"),
    case("api-c-template-int", lambda: C.template(42), "C.template", "template string"),
    case("api-c-last-n-zero", lambda: C.last_n_turns(0), "C.last_n_turns", "positive whole number"),
    case("api-c-from-agents-none", lambda: C.from_agents(None), "C.from_agents()", "None"),
    case("api-c-capture-turns-n0", lambda: C.capture_turns("k", 0), "field 'n'", "positive"),
    # -- whole-tree checks -----------------------------------------------------------------------
    case("api-check-contracts-int", lambda: check_contracts(42), "check_contracts", "int"),
    case(
        "api-check-contracts-unknown",
        lambda: check_contracts(A, checks=["nope"]),
        "field 'checks'",
        "'nope'",
    ),
    case(
        "api-context-and-include-contents",
        lambda: A.include_contents("none").context(C.user_only()).build(),
        "field 'include_contents'",
        "both",
    ),
    case(
        "api-adk-rejects-value",
        lambda: A.include_contents("everything").build(),
        "agent 'a'",
        "field 'include_contents'",
        "'everything'",
    ),
    case(
        "api-strict-refuses",
        lambda: Agent("a").instruct("Use {nope}.").strict().build(),
        "nope",
        "strict",
        error=ContractError,
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)


def test_a_native_agent_is_named_not_dumped():
    """The message names the tool and the agent, never the pydantic repr (instruction, fields)."""
    from adk_fluent.errors import BuildError

    with pytest.raises(BuildError) as info:
        A.agent_tool(_native_llm_agent(), bogus=1)
    assert "agent tool 'native'" in str(info.value)
    assert "xxxxxxxx" not in str(info.value) and "model=" not in str(info.value)
