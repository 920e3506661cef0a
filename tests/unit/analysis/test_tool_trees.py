"""What the analyses see of agent tools and native agents (pure: IR only, no Runner): mermaid
draws each tool tree under its caller with a `tool` edge and a custom agent as a subroutine box;
the visibility table classifies a tool tree as the root of its own sub-run; the name check
covers inner agents of tools and of custom agents (one tool tree used twice is allowed);
mock_backend accepts scripts for exactly the LLM agents it can stand in for."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event

from adk_fluent import Agent, Native, Pipeline
from adk_fluent.analysis.visibility import NodeVisibility, infer_visibility_table
from adk_fluent.errors import BuildError, DuplicateNameError
from adk_fluent.testing import mock_backend

MODEL = "gemini-2.5-flash"
_NODE = re.compile(r'^\s+(n\d+)[\[{(>]+/?"(.*?)"')
_EDGE = re.compile(r"^\s+(n\d+) (-\. \S+ \.->|-->) (n\d+)$")


class Planner(BaseAgent):
    drafter: LlmAgent

    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        if False:  # pragma: no cover - never run in the unit tier
            yield


class Stamper(BaseAgent):
    async def _run_async_impl(self, ctx) -> AsyncGenerator[Event, None]:
        if False:  # pragma: no cover
            yield


def planner(drafter: str = "drafter") -> Planner:
    return Planner(name="planner", drafter=LlmAgent(name=drafter, model=MODEL))


def research_tree():
    fact_checker = Agent("fact_checker").instruct("Check.").outputs("verdict")
    researcher = Agent("researcher").instruct("Research.").outputs("findings").tool(fact_checker)
    return Agent("lead").instruct("Answer.").tool(researcher) >> Agent("presenter")


def edges(expr) -> set[tuple[str, str, str]]:
    """(from label, edge kind, to label) of every edge, each end named by its label."""
    text = expr.to_mermaid().splitlines()
    labels = {}
    for line in text:
        found = _NODE.match(line)
        if found:
            labels[found.group(1)] = found.group(2).split("<br/>")[0]
    out = set()
    for line in text:
        found = _EDGE.match(line)
        if found:
            start, kind, end = found.groups()
            out.add((labels[start], kind.replace("-. ", "").replace(" .->", ""), labels[end]))
    return out


# -- mermaid --------------------------------------------------------------------------------------


def test_mermaid_draws_tool_trees_two_deep_under_their_callers():
    drawn = edges(research_tree())
    assert ("lead", "tool", "researcher") in drawn
    assert ("researcher", "tool", "fact_checker") in drawn
    assert ("lead", "-->", "presenter") in drawn
    # a tool is called and answers back: no control-flow edge leaves a tool tree
    assert not {e for e in drawn if e[0] in ("researcher", "fact_checker") and e[1] == "-->"}


def test_mermaid_draws_a_composite_tool_tree_with_its_own_flow():
    inner = Pipeline(Agent("collector"), Agent("writer"), name="research")
    drawn = edges(Agent("lead").tool(inner))
    assert ("collector", "-->", "writer") in drawn
    assert any(start == "lead" and kind == "tool" for start, kind, _ in drawn)


def test_mermaid_draws_a_custom_agent_as_a_subroutine_box_with_its_class():
    text = (Agent("a") >> planner() >> Agent("b")).to_mermaid().splitlines()
    assert '    n1[["planner (Planner)"]]' in text
    tool_text = Agent("lead").tool(Stamper(name="stamper")).to_mermaid().splitlines()
    assert '    n1[["stamper (Stamper)"]]' in tool_text
    assert "    n0 -. tool .-> n1" in tool_text


def test_mermaid_draws_an_adk_llm_agent_like_a_fluent_one():
    native = LlmAgent(name="summariser", model=MODEL, output_key="summary")
    assert (Agent("a") >> native).to_mermaid() == (
        Agent("a") >> Agent("summariser", MODEL).outputs("summary")
    ).to_mermaid()


# -- visibility -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["annotated", "filtered"])
def test_a_tool_tree_is_classified_as_the_root_of_its_own_run(mode):
    table = infer_visibility_table(getattr(research_tree(), mode)().to_ir())
    root = "pipeline__lead__presenter"
    assert table["lead"] == NodeVisibility("internal", 0, f"{root}/lead")
    # within its sub-run the tool agent's reply is the answer (to the caller's model, never to
    # the user): an internal classification would strip it there
    # and nothing is filtered inside a sub-run (in_tool): no client receives those events;
    # an agent tool's run is one level below the agent that calls it, at every level
    assert table["researcher"] == NodeVisibility("user", 1, f"{root}/lead/researcher", True)
    assert table["fact_checker"] == NodeVisibility(
        "user", 2, f"{root}/lead/researcher/fact_checker", True
    )
    assert not table["lead"].in_tool and not table["presenter"].in_tool
    assert table["presenter"] == NodeVisibility("user", 0, f"{root}/presenter")


def test_inside_a_tool_pipeline_an_early_step_is_internal_and_the_last_speaks():
    inner = Pipeline(Agent("collector").outputs("notes"), Agent("writer"), name="research")
    table = infer_visibility_table((Agent("lead").tool(inner) >> Agent("after")).to_ir())
    assert table["collector"].visibility == "internal"
    assert table["writer"].visibility == "user"
    assert table["research"].visibility == "zero_cost"


def test_agents_inside_a_custom_agent_take_the_custom_agents_visibility():
    table = infer_visibility_table((planner() >> Agent("b")).to_ir())
    assert table["planner"].visibility == table["drafter"].visibility == "internal"
    assert table["drafter"].path.endswith("planner/drafter")
    last = infer_visibility_table((Agent("a") >> planner()).to_ir())
    assert last["planner"].visibility == last["drafter"].visibility == "user"


# -- the name check -------------------------------------------------------------------------------


def test_an_inner_agent_named_like_an_outer_one_is_refused_naming_both_paths():
    tree = Agent("lead").tool(Agent("writer").instruct("inner")) >> Agent("writer")
    with pytest.raises(DuplicateNameError) as caught:
        tree.build()
    message = str(caught.value)
    assert "agent 'writer'" in message
    assert "pipeline__lead__writer > lead > writer" in message
    assert "pipeline__lead__writer > writer" in message


def test_two_different_tool_trees_with_one_name_are_refused():
    tree = Agent("a").tool(Agent("helper").instruct("one")) >> Agent("b").tool(
        Agent("helper").instruct("two")
    )
    with pytest.raises(DuplicateNameError, match="at pipeline__a__b > a > helper and at"):
        tree.build()


def test_one_tool_tree_used_by_two_agents_is_allowed():
    shared = Agent("helper").instruct("Look it up.")
    built = (Agent("a").tool(shared) >> Agent("b").tool(shared)).build()
    first, second = built.sub_agents[0].tools[0].agent, built.sub_agents[1].tools[0].agent
    assert first.name == second.name == "helper" and first is not second


def test_a_name_inside_a_custom_agent_counts():
    tree = planner() >> Agent("drafter")
    with pytest.raises(DuplicateNameError) as caught:
        tree.build()
    message = str(caught.value)
    assert "pipeline__planner__drafter > planner > drafter" in message
    assert "pipeline__planner__drafter > drafter" in message


def test_a_tool_named_like_its_caller_is_refused():
    with pytest.raises(DuplicateNameError):
        Agent("lead").tool(Agent("lead").instruct("inner")).build()


# -- mock_backend.check_tree ----------------------------------------------------------------------


def test_mock_backend_accepts_scripts_for_inner_agents_of_tools_and_custom_agents():
    tree = research_tree() >> planner() >> Native(Stamper(name="stamper"))
    backend = mock_backend(
        {
            "lead": "x",
            "researcher": "x",
            "fact_checker": "x",
            "presenter": "x",
            "drafter": "x",
        }
    )
    backend.check_tree(tree.to_ir())  # no error: each is an LLM agent of the tree


@pytest.mark.parametrize(
    "scripted, fragment",
    [
        ("fact_checkr", "did you mean 'fact_checker'"),
        ("stamper", "no LLM agent of that name"),  # a custom agent calls no model itself
        ("planner", "no LLM agent of that name"),
    ],
)
def test_mock_backend_refuses_a_script_for_an_agent_it_cannot_stand_in_for(scripted, fragment):
    tree = research_tree() >> planner() >> Stamper(name="stamper")
    with pytest.raises(BuildError) as caught:
        mock_backend({scripted: "x"}).check_tree(tree.to_ir())
    assert f"agent '{scripted}'" in str(caught.value) and fragment in str(caught.value)
