"""An auditor: a checker that looks claims up with a tool (which records what it consulted in
state) and a rewriter, each with an after-model callback that edits the model's reply (the
shape of adk-samples' LLM auditor: critic, then reviser, both post-processing their replies)."""

from __future__ import annotations

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmResponse
from google.adk.tools import ToolContext
from google.genai import types

from adk_fluent import Agent
from adk_fluent.testing import call

SHAPE = "sequential auditor; a tool and after_model callbacks that write state / edit replies"
MODEL = "gemini-2.5-flash"
END_MARK = "<<done>>"

REFERENCE = {
    "boiling point": "Water boils at 100 C at sea level.",
    "moon distance": "The Moon is about 384,400 km from Earth.",
}

CHECK = (
    "Split the answer under review into claims. Look each claim up with lookup_reference and "
    "label it accurate, inaccurate or unverifiable."
)
REWRITE = (
    "Rewrite the answer so that every claim labelled inaccurate is corrected.\n"
    "Findings:\n{audit_findings}\nEnd your rewrite with " + END_MARK + "."
)


def lookup_reference(topic: str, tool_context: ToolContext) -> dict:
    """Look a topic up in the reference notes."""
    consulted = tool_context.state.get("consulted_topics", [])
    tool_context.state["consulted_topics"] = [*consulted, topic]
    return {"topic": topic, "note": REFERENCE.get(topic, "no reference found")}


def cite_consulted(callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
    """Append the topics consulted to a text reply."""
    parts = llm_response.content.parts if llm_response.content else None
    topics = callback_context.state.get("consulted_topics")
    if not parts or not parts[-1].text or not topics:
        return llm_response
    parts[-1].text += "\nConsulted: " + ", ".join(topics)
    return llm_response


def cut_at_end_mark(callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
    """Drop whatever the model wrote after the end mark."""
    for part in (llm_response.content.parts if llm_response.content else None) or []:
        if part.text and END_MARK in part.text:
            part.text = part.text.split(END_MARK, 1)[0].rstrip()
    return llm_response


def native():
    checker = LlmAgent(
        name="claim_checker",
        model=MODEL,
        instruction=CHECK,
        tools=[lookup_reference],
        after_model_callback=cite_consulted,
        output_key="audit_findings",
    )
    rewriter = LlmAgent(
        name="answer_rewriter",
        model=MODEL,
        instruction=REWRITE,
        after_model_callback=cut_at_end_mark,
        generate_content_config=types.GenerateContentConfig(temperature=0.0),
    )
    return SequentialAgent(
        name="fact_auditor",
        description="Checks an answer's claims against references and corrects it.",
        sub_agents=[checker, rewriter],
    )


def fluent():
    checker = (
        Agent("claim_checker", MODEL)
        .instruct(CHECK)
        .tool(lookup_reference)
        .after_model(cite_consulted)
        .outputs("audit_findings")
    )
    rewriter = (
        Agent("answer_rewriter", MODEL)
        .instruct(REWRITE)
        .after_model(cut_at_end_mark)
        .generate_content_config(types.GenerateContentConfig(temperature=0.0))
    )
    return (
        (checker >> rewriter)
        .named("fact_auditor")
        .description("Checks an answer's claims against references and corrects it.")
    )


TURNS = ["Water boils at 90 C at sea level, and the Moon is 384,400 km away."]
SCRIPTS = {
    "claim_checker": [
        call("lookup_reference", topic="boiling point"),
        call("lookup_reference", topic="moon distance"),
        "Boiling point: inaccurate (100 C). Moon distance: accurate.",
    ],
    "answer_rewriter": [
        "Water boils at 100 C at sea level, and the Moon is 384,400 km away. "
        + END_MARK
        + " (notes the model should not have added)"
    ],
}
AGENTS = 3
