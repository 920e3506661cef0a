"""Contract corpus cases for content: broken ones register in BROKEN, correct ones in CORRECT.

Each broken case shows an agent that declared `.accepts(...)` being shown a reply with a
modality it does not accept (or media an agent tool drops, or an input bound too small);
each correct one the same kind of pipeline done right."""

from __future__ import annotations

from pydantic import BaseModel

from adk_fluent import Agent, C, FanOut, Loop, Route

from .broken import broken
from .correct import correct

__all__ = ["broken", "correct"]


def painter():
    return Agent("painter").instruct("Draw what the user asks for.").produces_modality("image")


def describer():
    return (
        Agent("describer")
        .instruct("Describe the picture in words.")
        .accepts("image", "text")
        .outputs("description")
    )


def text_writer():
    return Agent("writer").instruct("Write the caption.").accepts("text")


# -- broken ------------------------------------------------------------------------------------
@broken("modality-mismatch", where="sequence, content: an image producer and a text-only consumer")
def image_producer_feeds_text_only_consumer():
    return painter() >> text_writer()


@broken("modality-mismatch", where="sequence, content: include_contents='none' sees the latest")
def text_only_consumer_with_no_history_still_sees_latest_image():
    return painter() >> text_writer().include_contents("none")


@broken("modality-mismatch", where="fan-out, content: audio from a branch reaches the joiner")
def audio_branch_reaches_text_only_summary():
    narrator = Agent("narrator").instruct("Read the story aloud.").produces_modality("audio")
    outline = Agent("outliner").instruct("Outline the story.").outputs("outline")
    summary = Agent("summary").instruct("Summarise {outline}.").accepts("text")
    return FanOut(narrator, outline) >> summary


@broken("modality-mismatch", where="loop, content: the reviser is shown the generator's image")
def loop_reviser_sees_generated_image():
    return Loop(
        Agent("generator").instruct("Draw.").produces_modality("image"),
        Agent("critic").instruct("Criticise.").accepts("image").outputs("critique"),
        Agent("reviser").instruct("Revise after {critique}.").accepts("text").outputs("plan"),
        max_iterations=3,
    )


@broken("modality-mismatch", where="route, content: one branch draws, the writer after reads")
def route_branch_image_reaches_writer():
    return (
        Agent("classifier").instruct("draw or explain?").outputs("kind")
        >> Route("kind").eq("draw", painter()).otherwise(Agent("explainer").instruct("Explain."))
        >> text_writer()
    )


@broken("modality-mismatch", where="C.from_agents, content: the view names the image producer")
def from_agents_names_the_image_producer():
    return painter() >> describer() >> text_writer().context(C.from_agents("painter"))


@broken("modality-mismatch", where="sequence, content: a later turn shows an earlier image")
def earlier_turn_image_reaches_first_agent():
    # in the session's next turn, the writer's default history holds the painter's image
    return text_writer().outputs("caption") >> painter()


@broken("modality-dropped", where="agent tool, content: AgentTool returns text only")
def agent_tool_drops_generated_image():
    return Agent("planner").instruct("Plan; draw when useful.").tool(painter())


@broken("token-budget", where="sequence, content: declared bounds exceed the input bound")
def replies_exceed_declared_input_bound():
    return (
        Agent("researcher").instruct("Research.").produces_modality("text", max_tokens=6000)
        >> Agent("analyst").instruct("Analyse.").produces_modality("text", max_tokens=4000)
        >> Agent("editor").instruct("Edit.").accepts("text", max_tokens=8000)
    )


# -- correct -----------------------------------------------------------------------------------
@correct(where="content: a vision agent reads the image before a text-only writer")
def vision_agent_then_text_writer_on_latest_reply():
    return painter() >> describer() >> text_writer().include_contents("none")


@correct(where="content: an image consumer that accepts images")
def image_producer_feeds_vision_agent():
    return painter() >> describer()


@correct(where="content: the text-only writer leaves the painter out, every turn")
def writer_excludes_the_image_producer():
    return painter() >> describer() >> text_writer().context(C.exclude_agents("painter"))


@correct(where="content: the writer reads the description from state only")
def writer_reads_the_description_from_state():
    return (
        painter()
        >> describer()
        >> text_writer().instruct("Caption it.").context(C.from_state("description"))
    )


class Invoice(BaseModel):
    total: float
    currency: str


@correct(where="content: structured output is text to every model")
def structured_output_feeds_text_only_consumer():
    return Agent("extractor").instruct("Extract the invoice.").output_schema(Invoice).outputs(
        "inv"
    ) >> Agent("reporter").instruct("Report {inv}.").accepts("text")


@correct(where="content: fan-out branches never see each other")
def audio_branch_hidden_from_sibling_branch():
    narrator = Agent("narrator").instruct("Read aloud.").produces_modality("audio")
    outline = Agent("outliner").instruct("Outline.").accepts("text").outputs("outline")
    return FanOut(narrator, outline)


@correct(where="content: an undeclared consumer accepts anything")
def undeclared_consumer_after_image_producer():
    return painter() >> Agent("commenter").instruct("Comment.")


@correct(where="content: bounds that fit")
def replies_within_declared_input_bound():
    return Agent("researcher").instruct("Research.").produces_modality(
        "text", max_tokens=2000
    ) >> Agent("editor").instruct("Edit.").accepts("text", max_tokens=8000)
