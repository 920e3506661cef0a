"""A blog coordinator that hands the conversation to two writing loops, each ended by a
checker agent (a BaseAgent subclass that escalates once the text in state passes), then to an
editor with a tool that saves the post and writes state (the shape of adk-samples' blog writer:
robust planner and writer loops with validation checkers, over several turns)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.adk.agents import BaseAgent, LlmAgent, LoopAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions
from google.adk.tools import ToolContext

from adk_fluent import Agent, Loop, exit_when
from adk_fluent.testing import call

SHAPE = "blog writing loops ended by checker agents; delegating coordinator; tool writing state"
MODEL = "gemini-2.5-flash"
VARIANT = "exit_when() steps instead of the checker agents"


class EnoughWords(BaseAgent):
    """Ends its loop (escalates) once state[key] holds at least `min_words` words."""

    key: str
    min_words: int

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = str(ctx.session.state.get(self.key, ""))
        if len(text.split()) >= self.min_words:
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                actions=EventActions(escalate=True),
            )


def save_post(title: str, tool_context: ToolContext) -> dict:
    """Save the edited post under a title."""
    tool_context.state["saved_title"] = title
    return {"saved": True, "title": title}


COORDINATE = (
    "You help write technical blog posts. For a new topic hand over to outline_loop; once "
    "the user likes the outline, to draft_loop; when asked to publish, to post_editor."
)
OUTLINE = "Write a bullet outline (at least five bullets) for a post on the user's topic."
DRAFT = "Write the post following this outline:\n{outline}\nAt least 30 words."
EDIT = "Polish this post and save it with save_post under a short title:\n{draft}"


def native():
    outline_loop = LoopAgent(
        name="outline_loop",
        description="Writes an outline until it is long enough.",
        max_iterations=3,
        sub_agents=[
            LlmAgent(name="outline_writer", model=MODEL, instruction=OUTLINE, output_key="outline"),
            EnoughWords(name="outline_check", key="outline", min_words=10),
        ],
    )
    draft_loop = LoopAgent(
        name="draft_loop",
        description="Drafts the post until it is long enough.",
        max_iterations=3,
        sub_agents=[
            LlmAgent(name="post_drafter", model=MODEL, instruction=DRAFT, output_key="draft"),
            EnoughWords(name="draft_check", key="draft", min_words=30),
        ],
    )
    editor = LlmAgent(
        name="post_editor",
        model=MODEL,
        description="Polishes and saves the post.",
        instruction=EDIT,
        tools=[save_post],
        output_key="post",
    )
    return LlmAgent(
        name="blog_coordinator",
        model=MODEL,
        instruction=COORDINATE,
        sub_agents=[outline_loop, draft_loop, editor],
    )


def fluent():
    outline_loop = Loop(
        Agent("outline_writer", MODEL).instruct(OUTLINE).outputs("outline"),
        EnoughWords(name="outline_check", key="outline", min_words=10),
        max_iterations=3,
        name="outline_loop",
    ).description("Writes an outline until it is long enough.")
    draft_loop = Loop(
        Agent("post_drafter", MODEL).instruct(DRAFT).outputs("draft"),
        EnoughWords(name="draft_check", key="draft", min_words=30),
        max_iterations=3,
        name="draft_loop",
    ).description("Drafts the post until it is long enough.")
    editor = (
        Agent("post_editor", MODEL)
        .description("Polishes and saves the post.")
        .instruct(EDIT)
        .tool(save_post)
        .outputs("post")
    )
    return (
        Agent("blog_coordinator", MODEL)
        .instruct(COORDINATE)
        .delegate(outline_loop, draft_loop, editor)
    )


def fluent_variant():
    """The same tree with adk-fluent's idiom for the checker agents: `exit_when(...)` steps
    (named like the checkers) instead of a BaseAgent subclass; the tree differs, the run does
    not."""

    def words(key):
        return lambda state: len(str(state.get(key, "")).split())

    outline_loop = Loop(
        Agent("outline_writer", MODEL).instruct(OUTLINE).outputs("outline"),
        exit_when(lambda state: words("outline")(state) >= 10, name="outline_check"),
        max_iterations=3,
        name="outline_loop",
    ).description("Writes an outline until it is long enough.")
    draft_loop = Loop(
        Agent("post_drafter", MODEL).instruct(DRAFT).outputs("draft"),
        exit_when(lambda state: words("draft")(state) >= 30, name="draft_check"),
        max_iterations=3,
        name="draft_loop",
    ).description("Drafts the post until it is long enough.")
    editor = (
        Agent("post_editor", MODEL)
        .description("Polishes and saves the post.")
        .instruct(EDIT)
        .tool(save_post)
        .outputs("post")
    )
    return (
        Agent("blog_coordinator", MODEL)
        .instruct(COORDINATE)
        .delegate(outline_loop, draft_loop, editor)
    )


LONG_DRAFT = (
    "Caching is the art of remembering answers. Start by measuring what is slow. Then pick a "
    "cache close to the reader, decide how long entries live, and plan how they are "
    "invalidated when data changes."
)
TURNS = [
    "A post about caching for beginners.",
    "The outline looks good, write the post.",
    "Publish it.",
]
SCRIPTS = {
    "blog_coordinator": [
        call("transfer_to_agent", agent_name="outline_loop"),
        call("transfer_to_agent", agent_name="draft_loop"),
        call("transfer_to_agent", agent_name="post_editor"),
    ],
    "outline_writer": [
        "- what a cache is",
        "- what a cache is\n- measure first\n- where to cache\n- expiry\n- invalidation",
    ],
    "post_drafter": [LONG_DRAFT],
    "post_editor": [call("save_post", title="Caching basics"), "Saved 'Caching basics'."],
}
AGENTS = 8
# what the installed ADK must be able to do for this sample to run (tests/support/samples.py)
NEEDS = ("transfer_beside_workflow_agents",)
