"""Misuse of the Agent builder and of the setters every builder has: names and models mixed up,
values of the wrong type for ADK's own fields (the generated setters), tools, callbacks,
declared models and keys that are not what the method takes, and misspelt methods. Each is
refused when the setter is called or the agent is built, naming the agent, the field and a
hint; never a pydantic trace or a raw Python error."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from adk_fluent import Agent, FanOut, Loop, Pipeline, StateSchema
from adk_fluent.errors import DuplicateNameError
from tests.support.misuse import case, check, ids


def search(query: str) -> str:
    """Search the web."""
    return query


def log_call(callback_context, llm_request):
    return None


class Intent(BaseModel):
    category: str


@dataclass
class Ticket:
    ticket_id: str


class Billing(StateSchema):
    intent: str


class AuditCallbacks:
    """A callback object: meant to be passed as an instance (its __call__), not as the class."""

    def __call__(self, callback_context, llm_request):
        return None


A = Agent("a")
B = Agent("b")

CASES = [
    # -- names and models -----------------------------------------------------------------------
    # the model name where the agent's name goes: Agent(name, model)
    case(
        "build-model-name-as-agent-name",
        lambda: Agent("gemini-2.5-flash", "writer"),
        "'gemini-2.5-flash'",
        "'-', '.'",
    ),
    case(
        "build-model-builder",
        lambda: Agent("a", Agent("b")).build(),
        "agent 'a'",
        "field 'model'",
        "Agent('b')",
    ),
    # -- ADK's own fields through the generated setters: ADK's validation, named and short ---------
    case("build-description-int", lambda: A.description(3).build(), "field 'description'", "3"),
    case(
        "build-content-config-misspelt-key",
        lambda: A.generate_content_config({"temprature": 0.1}).build(),
        "field 'generate_content_config'",
        "Extra inputs are not permitted",
    ),
    case(
        "build-content-config-system-instruction",
        lambda: A.generate_content_config({"system_instruction": "Be brief."}).build(),
        "field 'generate_content_config'",
        "LlmAgent.instruction",
    ),
    case(
        "build-output-schema-str",
        lambda: A.output_schema("Intent").build(),
        "field 'output_schema'",
        "'Intent'",
    ),
    case("build-planner-str", lambda: A.planner("react").build(), "field 'planner'", "BasePlanner"),
    case(
        "build-disallow-transfer-int",
        lambda: A.disallow_transfer_to_peers(2).build(),
        "field 'disallow_transfer_to_peers'",
        "boolean",
    ),
    case("build-output-key-setter-int", lambda: A.output_key(3).build(), "field 'output_key'", "3"),
    # -- sugar: instruct / outputs ---------------------------------------------------------------
    case("build-instruct-class", lambda: A.instruct(str), "field 'instruction'", "the class str"),
    case("build-outputs-builder", lambda: A.outputs(Agent("b")), "field 'output_key'", "Agent 'b'"),
    # -- tools ----------------------------------------------------------------------------------
    case("build-tool-module", lambda: A.tool(math), "field 'tools'", "a module is not a tool"),
    case("build-tool-dict-spec", lambda: A.tool({"name": "search"}), "field 'tools'", "a dict"),
    case(
        "build-tools-setter-agent-and-function-alike",
        lambda: A.tools(Agent("search"), search).build(),
        "field 'tools'",
        "a tool named 'search' is already",
    ),
    # -- callbacks ----------------------------------------------------------------------------
    case(
        "build-before-agent-none",
        lambda: A.before_agent(None),
        "field 'before_agent_callback'",
        "got None",
    ),
    case(
        "build-after-model-list",
        lambda: A.after_model([log_call]),
        "field 'after_model_callback'",
        "list",
    ),
    case(
        "build-on-tool-error-builder",
        lambda: A.on_tool_error(Agent("b")),
        "field 'on_tool_error_callback'",
        "Agent",
    ),
    # ADK accepts a list on its callback fields; the setters take the functions themselves
    case(
        "build-callback-setter-list",
        lambda: A.before_model_callback([log_call]).build(),
        "field 'before_model_callback'",
        "list",
    ),
    # -- clone ----------------------------------------------------------------------------------
    case(
        "build-clone-keeps-the-name",
        lambda: (A >> A.clone("a")).build(),
        "agent 'a'",
        "used twice",
        error=DuplicateNameError,
    ),
    # -- declared models and keys ---------------------------------------------------------------
    case(
        "build-produces-model-instance",
        lambda: A.produces(Intent(category="booking")),
        "field 'produces'",
        "an Intent",
        "pydantic model class",
    ),
    case(
        "build-produces-state-schema",
        lambda: A.produces(Billing),
        "field 'produces'",
        "the class Billing",
        ".writes(",
    ),
    case(
        "build-consumes-dataclass",
        lambda: A.consumes(Ticket),
        "field 'consumes'",
        "the class Ticket",
    ),
    case("build-reads-list", lambda: A.reads(["intent"]), "field 'reads'", "list"),
    case("build-reads-empty-key", lambda: A.reads(""), "field 'reads'", "str ''"),
    case("build-writes-pydantic-model", lambda: A.writes(Intent), "field 'writes'", "Intent"),
    # -- misspelt methods and methods of another builder --------------------------------------------
    case("build-typo-output", lambda: A.output("intent"), "'output'", "did you mean 'outputs'"),
    case("build-typo-nammed", lambda: (A >> Agent("b")).nammed("x"), "'nammed'", "'named'"),
    case(
        "build-typo-max-iteration",
        lambda: (A * 2).max_iteration(3),
        "Loop has no method 'max_iteration'",
        "'max_iterations'",
    ),
    case(
        "build-pipeline-has-no-model",
        lambda: (A >> Agent("b")).model("m"),
        "Pipeline has no method 'model'",
    ),
    # -- accepted silently, a raw Python error, or a hint that led nowhere (fixed with the unit tier)
    case("build-name-setter", lambda: A.name("b"), "field 'name'", ".clone('b')"),
    case("build-named-on-an-agent", lambda: A.named("b"), "'named'", ".clone("),
    case("build-sub-agents-setter", lambda: A.sub_agents(Agent("b")), "'sub_agents'", "delegate"),
    case("build-model-dict", lambda: Agent("a", {"model": "gemini"}).build(), "field 'model'"),
    case(
        "build-output-key-setter-empty",
        lambda: A.output_key("").build(),
        "field 'output_key'",
        "non-empty",
    ),
    case("build-outputs-braces", lambda: A.outputs("{intent}"), "'{intent}'", "braces"),
    case("build-outputs-bare-scope", lambda: A.outputs("user:"), "'user:'", "scope prefix"),
    case(
        "build-instruct-callable-no-params",
        lambda: A.instruct(lambda: "Be brief."),
        "field 'instruction'",
        "<lambda>",
    ),
    case(
        "build-callback-no-params",
        lambda: A.before_model(lambda: None),
        "field 'before_model_callback'",
        "<lambda>",
    ),
    case(
        "build-callback-class-not-instance",
        lambda: A.before_model(AuditCallbacks),
        "field 'before_model_callback'",
        "the class AuditCallbacks",
    ),
    case(
        "build-tool-confirmation-str",
        lambda: A.tool(search, require_confirmation="no"),
        "require_confirmation",
        "'no'",
    ),
    case("build-to-app-config-dict", lambda: A.to_app({"app_name": "support"}), "ExecutionConfig"),
    # spellings of the PyPI adk-fluent 0.x: each error names ours (docs/from-adk-fluent-0x.md)
    case(
        "ported-pipeline-named-first",
        lambda: Pipeline("research"),
        "str 'research'",
        "`Pipeline`",
        "name='research'",
        "a >> b",
    ),
    case(
        "ported-fanout-named-first",
        lambda: FanOut("research", Agent("web")),
        "`FanOut`",
        "name='research'",
        "a | b",
    ),
    case(
        "ported-loop-named-first",
        lambda: Loop("refine"),
        "`Loop`",
        "max_iterations=3, name='refine'",
    ),
    case(
        "ported-pipeline-named-only",
        lambda: Pipeline(name="research"),
        "agent 'research'",
        "at least one step",
        "name='research'",
    ),
    case("ported-pipeline-step", lambda: Pipeline(A).step(B), "step", "Pipeline(a, b, name="),
    case("ported-fanout-branch", lambda: FanOut(A).branch(B), "branch", "FanOut(a, b, name="),
    case("ported-loop-step", lambda: Loop(A).step(B), "step", "Loop(a, b, max_iterations=3"),
    case("ported-sub-agent", lambda: A.sub_agent(B), "agent 'a'", "sub_agent", ".delegate("),
    case(
        "ported-dict-routing",
        lambda: A.outputs("intent") >> {"booking": B},
        "a dict",
        "Route('intent').eq('booking', booker)",
    ),
    case("ported-proceed-if", lambda: A.proceed_if(lambda s: True), "proceed_if", "Route("),
    case("ported-at-schema", lambda: A @ Intent, "`a @ Intent`", ".output_schema(Intent)"),
    case("ported-eval", lambda: A.eval("hi", expect="hello"), "eval", "FluentEvalSuite"),
    case("ported-publish", lambda: A.publish(port=8001), "publish", "serve("),
    case("ported-history", lambda: A.history("none"), "history", "C.none()"),
    # .transfer_to(agent, when=...)
    case(
        "transfer-to-when-not-a-function",
        lambda: Agent("front").transfer_to(Agent("vip"), when=True),
        "front",
        "when",
        "needs a function",
    ),
    case(
        "transfer-to-when-takes-two",
        lambda: Agent("front").transfer_to(Agent("vip"), when=lambda state, extra: True),
        "front",
        "when",
        "1 argument",
    ),
    case(
        "transfer-to-itself",
        lambda: Agent("front").transfer_to(Agent("front"), when=lambda s: True),
        "front",
        "itself",
    ),
    case(
        "transfer-to-a-name",
        lambda: Agent("front").transfer_to("vip", when=lambda s: True),
        "front",
        "'vip'",
    ),
    case(
        "transfer-to-a-second-agent-of-a-delegates-name",
        lambda: (
            Agent("front")
            .delegate(Agent("vip").instruct("a"))
            .transfer_to(Agent("vip").instruct("b"), when=lambda s: True)
        ),
        "front",
        "already delegates",
        "'vip'",
    ),
]


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)


# adk-fluent 0.x spellings of C and S, pointed at ours (docs/from-adk-fluent-0x.md)
def test_c_window_points_at_last_n_turns():
    from adk_fluent import C
    from adk_fluent.errors import UnknownSetterError

    with pytest.raises(UnknownSetterError, match="C has no method 'window'") as error:
        C.window(5)
    assert "C.last_n_turns(n)" in error.value.hint


def test_s_guard_msg_points_at_the_second_argument():
    from adk_fluent import S
    from adk_fluent.errors import BuildError

    with pytest.raises(BuildError, match="S.guard\\(\\) takes no keyword 'msg'") as error:
        S.guard(lambda state: True, msg="over the limit")  # type: ignore[call-arg]
    assert error.value.field == "msg" and "second argument" in error.value.hint
