"""A planner that drafts a research plan with an agent tool and hands approved work to a
research pipeline: plan sections, research them (an after-agent callback collects the sources
into state), evaluate in a loop (structured output) that a checker agent ends when the grade
passes, search more otherwise, then write the report (an after-agent callback rewrites its
citation markers). The shape of adk-samples' deep search."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal

from google.adk.agents import BaseAgent, LlmAgent, LoopAgent, SequentialAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions
from google.adk.tools.agent_tool import AgentTool
from google.genai import types
from pydantic import BaseModel, Field

from adk_fluent import Agent, Loop
from adk_fluent.testing import call

SHAPE = (
    "deep research: planner with an agent tool delegating to a pipeline; a loop ended by a "
    "checker agent; output_schema; callbacks writing state"
)
MODEL = "gemini-2.5-flash"

PAGES = {
    "tidal energy cost": ("https://example.org/tidal-cost", "Tidal power costs fell 40%."),
    "tidal energy ecology": ("https://example.org/tidal-fish", "Turbines slowed for fish."),
}


def web_search(query: str) -> dict:
    """Search the web; returns the best page's address and a snippet."""
    url, snippet = PAGES.get(query, ("https://example.org/none", "no result"))
    return {"url": url, "snippet": snippet}


class Feedback(BaseModel):
    """The evaluator's verdict on the research so far."""

    grade: Literal["pass", "fail"] = Field(description="pass when the research is sufficient")
    comment: str
    follow_up_queries: list[str] = Field(default_factory=list)


class GradeCheck(BaseAgent):
    """Ends the refinement loop once the evaluation passes."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        feedback = ctx.session.state.get("evaluation") or {}
        if feedback.get("grade") == "pass":
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                actions=EventActions(escalate=True),
            )


def collect_sources(callback_context: CallbackContext) -> None:
    """Number every page the research used so far (state['sources']: url -> 'src-N')."""
    sources = dict(callback_context.state.get("sources") or {})
    for event in callback_context.session.events:
        for part in (event.content.parts if event.content else None) or []:
            response = part.function_response
            url = (response.response or {}).get("url") if response else None
            if url and url not in sources:
                sources[url] = f"src-{len(sources) + 1}"
    callback_context.state["sources"] = sources


def link_citations(callback_context: CallbackContext) -> types.Content:
    """Replace the report's citation markers with links and keep it as the final report."""
    report = str(callback_context.state.get("report_draft", ""))
    for url, label in (callback_context.state.get("sources") or {}).items():
        report = report.replace(f"[{label}]", f"[{label}]({url})")
    callback_context.state["final_report"] = report
    return types.Content(role="model", parts=[types.Part(text=report)])


PLAN = "Write a research plan of at most four goals for the user's topic."
INTERACT = (
    "Agree a research plan with the user: draft it with plan_writer and show it. Once the "
    "user approves, hand over to research_pipeline."
)
SECTIONS = "Turn the plan into report sections (markdown headings):\n{plan}"
RESEARCH = "Research every goal of this plan with web_search; summarise what you found:\n{plan}"
EVALUATE = (
    "Judge whether these findings cover the plan:\n{findings}\nPlan:\n{plan}\n"
    "Fail them and suggest follow-up queries when something is missing."
)
SEARCH_MORE = (
    "Run the follow-up queries in this evaluation with web_search and add what you find to "
    "the findings:\n{evaluation}\nFindings so far:\n{findings}"
)
REPORT = (
    "Write the report with these sections:\n{sections}\nFrom these findings:\n{findings}\n"
    "Cite pages with their labels from {sources} as [src-N]."
)


def native():
    plan_writer = LlmAgent(
        name="plan_writer",
        model=MODEL,
        description="Drafts a research plan.",
        instruction=PLAN,
        output_key="plan",
    )
    refinement = LoopAgent(
        name="refinement_loop",
        max_iterations=3,
        sub_agents=[
            LlmAgent(
                name="research_evaluator",
                model=MODEL,
                instruction=EVALUATE,
                output_schema=Feedback,
                output_key="evaluation",
                disallow_transfer_to_parent=True,
                disallow_transfer_to_peers=True,
            ),
            GradeCheck(name="grade_check"),
            LlmAgent(
                name="follow_up_searcher",
                model=MODEL,
                instruction=SEARCH_MORE,
                tools=[web_search],
                output_key="findings",
                after_agent_callback=collect_sources,
            ),
        ],
    )
    pipeline = SequentialAgent(
        name="research_pipeline",
        description="Carries out an approved plan and writes a cited report.",
        sub_agents=[
            LlmAgent(
                name="section_planner", model=MODEL, instruction=SECTIONS, output_key="sections"
            ),
            LlmAgent(
                name="section_researcher",
                model=MODEL,
                instruction=RESEARCH,
                tools=[web_search],
                output_key="findings",
                after_agent_callback=collect_sources,
            ),
            refinement,
            LlmAgent(
                name="report_writer",
                model=MODEL,
                instruction=REPORT,
                output_key="report_draft",
                after_agent_callback=link_citations,
                generate_content_config=types.GenerateContentConfig(temperature=0.4),
            ),
        ],
    )
    return LlmAgent(
        name="research_planner",
        model=MODEL,
        instruction=INTERACT,
        tools=[AgentTool(agent=plan_writer)],
        sub_agents=[pipeline],
    )


def fluent():
    plan_writer = (
        Agent("plan_writer", MODEL)
        .description("Drafts a research plan.")
        .instruct(PLAN)
        .outputs("plan")
    )
    evaluator = (
        Agent("research_evaluator", MODEL)
        .instruct(EVALUATE)
        .output_schema(Feedback)
        .outputs("evaluation")
        .disallow_transfer_to_parent(True)
        .disallow_transfer_to_peers(True)
    )
    searcher = (
        Agent("follow_up_searcher", MODEL)
        .instruct(SEARCH_MORE)
        .tool(web_search)
        .outputs("findings")
        .after_agent(collect_sources)
    )
    pipeline = (
        Agent("section_planner", MODEL).instruct(SECTIONS).outputs("sections")
        >> Agent("section_researcher", MODEL)
        .instruct(RESEARCH)
        .tool(web_search)
        .outputs("findings")
        .after_agent(collect_sources)
        >> Loop(evaluator, GradeCheck(name="grade_check"), searcher, max_iterations=3).named(
            "refinement_loop"
        )
        >> Agent("report_writer", MODEL)
        .instruct(REPORT)
        .outputs("report_draft")
        .after_agent(link_citations)
        .generate_content_config(types.GenerateContentConfig(temperature=0.4))
    )
    return (
        Agent("research_planner", MODEL)
        .instruct(INTERACT)
        .tool(plan_writer)
        .delegate(
            pipeline.named("research_pipeline").description(
                "Carries out an approved plan and writes a cited report."
            )
        )
    )


TURNS = ["Research tidal energy for me.", "The plan is fine, go ahead."]
SCRIPTS = {
    "research_planner": [
        call("plan_writer", request="A plan on tidal energy"),
        "Plan: 1. costs 2. ecology. Shall I start?",
        call("transfer_to_agent", agent_name="research_pipeline"),
    ],
    "plan_writer": ["1. What tidal energy costs. 2. Its effect on sea life."],
    "section_planner": ["## Costs\n## Ecology"],
    "section_researcher": [call("web_search", query="tidal energy cost"), "Costs fell 40%."],
    "research_evaluator": [
        {"grade": "fail", "comment": "Ecology missing.", "follow_up_queries": ["ecology"]},
        {"grade": "pass", "comment": "Covered.", "follow_up_queries": []},
    ],
    "follow_up_searcher": [
        call("web_search", query="tidal energy ecology"),
        "Costs fell 40%. Turbines slow down for fish.",
    ],
    "report_writer": ["## Costs\nDown 40% [src-1].\n## Ecology\nTurbines slow for fish [src-2]."],
}
AGENTS = 10
