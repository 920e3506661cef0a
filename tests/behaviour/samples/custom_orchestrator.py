"""A custom orchestrator (a BaseAgent subclass with its own `_run_async_impl`) between two
ordinary agents: it runs a drafter, a review loop and a check pipeline it holds in its fields,
and runs the drafter once more when a check says so (the shape of the ADK docs' custom-agent
story flow)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.adk.agents import BaseAgent, LlmAgent, LoopAgent, SequentialAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event

from adk_fluent import Agent, Loop, Native

SHAPE = "custom orchestrator agent (BaseAgent subclass) composed between LLM agents"
MODEL = "gemini-2.5-flash"


class ReleaseNotesFlow(BaseAgent):
    """Draft release notes, review them in a loop, check them; redraft once when the risk
    check answers 'high'."""

    drafter: LlmAgent
    review_loop: LoopAgent
    checks: SequentialAgent

    def __init__(
        self, name: str, drafter: LlmAgent, review_loop: LoopAgent, checks: SequentialAgent
    ) -> None:
        super().__init__(
            name=name,
            drafter=drafter,
            review_loop=review_loop,
            checks=checks,
            sub_agents=[drafter, review_loop, checks],
        )

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        async for event in self.drafter.run_async(ctx):
            yield event
        if not ctx.session.state.get("notes"):
            return  # nothing to review
        async for event in self.review_loop.run_async(ctx):
            yield event
        async for event in self.checks.run_async(ctx):
            yield event
        if str(ctx.session.state.get("risk", "")).strip().lower() == "high":
            async for event in self.drafter.run_async(ctx):
                yield event


COLLECT = "List the changes the user describes, one per line, as 'area: change'."
DRAFT = (
    "Write release notes for these changes:\n{changes}\n"
    "Reviewer feedback so far (may be empty): {feedback?}\nRisk found: {risk?}"
)
REVIEW = "Review these release notes for clarity:\n{notes}\nGive one piece of feedback."
POLISH = "Apply the feedback to the release notes.\nNotes:\n{notes}\nFeedback:\n{feedback}"
STYLE = "Does this follow the house style (short lines, no jargon)? Answer yes or no.\n{notes}"
RISK = "Do these notes promise anything risky? Answer exactly high or low.\n{notes}"
ANNOUNCE = "Write a two-sentence announcement of this release:\n{notes}"


def native():
    collector = LlmAgent(
        name="change_collector", model=MODEL, instruction=COLLECT, output_key="changes"
    )
    flow = ReleaseNotesFlow(
        name="release_notes_flow",
        drafter=LlmAgent(name="notes_drafter", model=MODEL, instruction=DRAFT, output_key="notes"),
        review_loop=LoopAgent(
            name="notes_review",
            max_iterations=2,
            sub_agents=[
                LlmAgent(
                    name="notes_reviewer", model=MODEL, instruction=REVIEW, output_key="feedback"
                ),
                LlmAgent(
                    name="notes_polisher", model=MODEL, instruction=POLISH, output_key="notes"
                ),
            ],
        ),
        checks=SequentialAgent(
            name="notes_checks",
            sub_agents=[
                LlmAgent(name="style_checker", model=MODEL, instruction=STYLE, output_key="style"),
                LlmAgent(name="risk_checker", model=MODEL, instruction=RISK, output_key="risk"),
            ],
        ),
    )
    announcer = LlmAgent(
        name="release_announcer", model=MODEL, instruction=ANNOUNCE, output_key="announcement"
    )
    return SequentialAgent(name="release_desk", sub_agents=[collector, flow, announcer])


# Its custom agent's fields are typed LlmAgent / LoopAgent / SequentialAgent, and a Workflow is
# no agent: under ADK_FLUENT_TARGET=workflow these tests build for the classic target.
CLASSIC_TARGET = "a custom agent whose fields are typed with ADK's classic agent classes"


def fluent():
    flow = ReleaseNotesFlow(
        name="release_notes_flow",
        drafter=Agent("notes_drafter", MODEL).instruct(DRAFT).outputs("notes").build(),
        review_loop=Loop(
            Agent("notes_reviewer", MODEL).instruct(REVIEW).outputs("feedback"),
            Agent("notes_polisher", MODEL).instruct(POLISH).outputs("notes"),
            max_iterations=2,
            name="notes_review",
        ).build(),
        checks=(
            Agent("style_checker", MODEL).instruct(STYLE).outputs("style")
            >> Agent("risk_checker", MODEL).instruct(RISK).outputs("risk")
        )
        .named("notes_checks")
        .build(),
    )
    return (
        Agent("change_collector", MODEL).instruct(COLLECT).outputs("changes")
        >> Native(flow).reads("changes").writes("notes", "feedback", "style", "risk")
        >> Agent("release_announcer", MODEL).instruct(ANNOUNCE).outputs("announcement")
    ).named("release_desk")


TURNS = ["Search is faster; the export button moved; we dropped Python 3.8 support."]
SCRIPTS = {
    "change_collector": ["search: faster\nexport: button moved\npython: 3.8 dropped"],
    "notes_drafter": [
        "Search is 10x faster! Export moved. 3.8 gone. Zero bugs guaranteed.",
        "Search is faster. The export button moved to the toolbar. Python 3.8 is no longer "
        "supported.",
    ],
    "notes_reviewer": ["Say where the export button went.", "Drop the exclamation mark."],
    "notes_polisher": [
        "Search is 10x faster! Export is in the toolbar. 3.8 gone. Zero bugs guaranteed.",
        "Search is 10x faster. Export is in the toolbar. 3.8 gone. Zero bugs guaranteed.",
    ],
    "style_checker": ["no"],
    "risk_checker": ["high"],
    "release_announcer": ["Our new release makes search faster. Export now lives in the toolbar."],
}
AGENTS = 11
