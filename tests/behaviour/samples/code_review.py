"""A sequential pipeline whose agents hand their work on through output keys and `{key}`
templates (the shape of the ADK docs' sequential code pipeline: write, review, rewrite)."""

from __future__ import annotations

from google.adk.agents import LlmAgent, SequentialAgent
from google.genai import types

from adk_fluent import Agent

SHAPE = "sequential pipeline, output_key handoffs, generate_content_config"
MODEL = "gemini-2.5-flash"

WRITE = "Write one small Python function that does what the user asks. Reply with the code only."
REVIEW = (
    "You review code. The function under review:\n{draft_code}\n"
    "List at most three concrete problems, most important first."
)
REWRITE = (
    "Rewrite the function so that every review point is addressed.\n"
    "Function:\n{draft_code}\nReview:\n{review_notes}\nReply with the code only."
)


def native():
    writer = LlmAgent(
        name="function_writer",
        model=MODEL,
        description="Turns a request into a first version of a function.",
        instruction=WRITE,
        output_key="draft_code",
    )
    reviewer = LlmAgent(
        name="code_reviewer",
        model=MODEL,
        instruction=REVIEW,
        output_key="review_notes",
        generate_content_config=types.GenerateContentConfig(temperature=0.2),
    )
    rewriter = LlmAgent(
        name="code_rewriter",
        model=MODEL,
        instruction=REWRITE,
        output_key="final_code",
    )
    return SequentialAgent(
        name="code_review_pipeline",
        description="Writes, reviews and rewrites a function.",
        sub_agents=[writer, reviewer, rewriter],
    )


def fluent():
    return (
        (
            Agent("function_writer", MODEL)
            .description("Turns a request into a first version of a function.")
            .instruct(WRITE)
            .outputs("draft_code")
            >> Agent("code_reviewer", MODEL)
            .instruct(REVIEW)
            .outputs("review_notes")
            .generate_content_config(types.GenerateContentConfig(temperature=0.2))
            >> Agent("code_rewriter", MODEL).instruct(REWRITE).outputs("final_code")
        )
        .named("code_review_pipeline")
        .description("Writes, reviews and rewrites a function.")
    )


TURNS = ["A function that adds two numbers."]
SCRIPTS = {
    "function_writer": ["def add(a, b):\n    return a + b"],
    "code_reviewer": ["1. No type hints. 2. No docstring."],
    "code_rewriter": ['def add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b'],
}
AGENTS = 4
