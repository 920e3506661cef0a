"""A story written chapter by chapter: a premise, then a loop in which two writers draft the
next chapter side by side and a judge (structured output) picks one, which an after-agent
callback appends to the book in state; an editor finishes (the shape of adk-samples' story
teller: parallel writers inside a loop, callbacks keeping the chapters)."""

from __future__ import annotations

from google.adk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from google.adk.agents.callback_context import CallbackContext
from pydantic import BaseModel, Field

from adk_fluent import Agent, Loop

SHAPE = "story writing loop: parallel writers, a judge with output_schema, callbacks writing state"
MODEL = "gemini-2.5-flash"
CHAPTERS = 2


class ChapterChoice(BaseModel):
    """The judge's pick."""

    pick: str = Field(description="'bold' or 'careful'")
    reason: str


def open_book(callback_context: CallbackContext) -> None:
    """Start an empty book."""
    callback_context.state["chapters"] = []


def keep_chosen_chapter(callback_context: CallbackContext) -> None:
    """Append the draft the judge picked to the book."""
    state = callback_context.state
    pick = state["choice"]["pick"]
    state["chapters"] = [*state["chapters"], state[f"{pick}_draft"]]


PREMISE = "Turn the user's idea into a one-paragraph premise: setting, hero, conflict."
BOLD = (
    "Premise:\n{premise}\nChapters so far:\n{chapters}\n"
    "Write the next chapter, taking a risk with the plot. About 80 words."
)
CAREFUL = (
    "Premise:\n{premise}\nChapters so far:\n{chapters}\n"
    "Write the next chapter, staying close to the premise. About 80 words."
)
JUDGE = (
    "Two drafts of the next chapter.\nBold:\n{bold_draft}\nCareful:\n{careful_draft}\n"
    "Pick the one that serves the story better."
)
EDIT = "Edit these chapters into one story with a title; keep the plot:\n{chapters}"


def native():
    premise = LlmAgent(
        name="premise_writer", model=MODEL, instruction=PREMISE, output_key="premise"
    )
    bold = LlmAgent(name="bold_writer", model=MODEL, instruction=BOLD, output_key="bold_draft")
    careful = LlmAgent(
        name="careful_writer", model=MODEL, instruction=CAREFUL, output_key="careful_draft"
    )
    judge = LlmAgent(
        name="chapter_judge",
        model=MODEL,
        instruction=JUDGE,
        output_schema=ChapterChoice,
        output_key="choice",
        after_agent_callback=keep_chosen_chapter,
    )
    chapter_loop = LoopAgent(
        name="chapter_loop",
        max_iterations=CHAPTERS,
        sub_agents=[ParallelAgent(name="chapter_drafts", sub_agents=[bold, careful]), judge],
    )
    editor = LlmAgent(name="story_editor", model=MODEL, instruction=EDIT, output_key="story")
    return SequentialAgent(
        name="story_teller",
        sub_agents=[premise, chapter_loop, editor],
        before_agent_callback=open_book,
    )


def fluent():
    premise = Agent("premise_writer", MODEL).instruct(PREMISE).outputs("premise")
    bold = Agent("bold_writer", MODEL).instruct(BOLD).outputs("bold_draft")
    careful = Agent("careful_writer", MODEL).instruct(CAREFUL).outputs("careful_draft")
    judge = (
        Agent("chapter_judge", MODEL)
        .instruct(JUDGE)
        .output_schema(ChapterChoice)
        .outputs("choice")
        .after_agent(keep_chosen_chapter)
    )
    drafts = (bold | careful).named("chapter_drafts")
    chapter_loop = Loop(drafts, judge, max_iterations=CHAPTERS, name="chapter_loop")
    editor = Agent("story_editor", MODEL).instruct(EDIT).outputs("story")
    return (premise >> chapter_loop >> editor).named("story_teller").before_agent(open_book)


TURNS = ["A lighthouse keeper who finds a door in the sea."]
SCRIPTS = {
    "premise_writer": ["On a storm-bound isle, keeper Ida finds a door in the waves."],
    "bold_writer": ["Ida opens the door and steps into a drowned city.", "The city floods up."],
    "careful_writer": ["Ida logs the door and watches it for a week.", "Ida rows out at dawn."],
    "chapter_judge": [
        {"pick": "bold", "reason": "It moves the plot."},
        {"pick": "careful", "reason": "It keeps the mystery."},
    ],
    "story_editor": ["The Door in the Sea: Ida steps into a drowned city, then rows home."],
}
AGENTS = 8
