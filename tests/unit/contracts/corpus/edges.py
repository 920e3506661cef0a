"""Contract corpus cases for edges: broken ones register in BROKEN, correct ones in CORRECT.

Chunked edges (`a.then(b, edge="chunked")`), FanOut merges and first_complete FanOuts."""

from __future__ import annotations

from pydantic import BaseModel

from adk_fluent import Agent, FanOut, Route, S

from .broken import broken
from .correct import correct

__all__ = ["broken", "correct"]


class Draft(BaseModel):
    title: str
    body: str


def writer(**outputs: str):
    agent = Agent("writer").instruct("Write the answer in short sentences.")
    return agent.outputs(outputs["key"]) if "key" in outputs else agent


def speaker():
    return Agent("speaker").instruct("Read this sentence aloud: {chunk}").outputs("spoken")


# -- chunked edges ---------------------------------------------------------------------------------
@broken("chunked-producer-structured", where="chunked edge, output_schema")
def chunked_producer_with_output_schema():
    producer = Agent("writer").instruct("Write.").output_schema(Draft).outputs("draft")
    return producer.then(speaker(), edge="chunked") >> Agent("editor").instruct("Edit {draft}.")


@broken("chunked-consumer-route", where="chunked edge, route")
def chunked_consumer_is_a_route():
    classify = writer(key="intent")
    route = Route("intent").eq("billing", Agent("billing")).otherwise(Agent("helper"))
    return classify.then(route, edge="chunked")


@broken("chunked-consumer-route", where="chunked edge, pipeline starting with a route")
def chunked_consumer_begins_with_a_route():
    route = Route("intent").eq("billing", Agent("billing")).otherwise(Agent("helper"))
    return writer(key="intent").then(route >> Agent("closer").instruct("Close."), edge="chunked")


@broken("chunked-key-unread", where="chunked edge, template")
def chunked_consumer_never_reads_the_chunk():
    return writer().then(Agent("speaker").instruct("Read the text aloud."), edge="chunked")


@broken("chunked-key-unread", "read-before-write", where="chunked edge, custom key")
def chunked_consumer_reads_the_default_key_instead_of_its_own():
    return writer().then(speaker(), edge="chunked", key="sentence")


@broken("chunked-key-clash", where="chunked edge, outputs")
def chunked_consumer_writes_the_chunk_key():
    consumer = Agent("speaker").instruct("Read aloud: {chunk}").outputs("chunk")
    return writer().then(consumer, edge="chunked")


@broken("read-after-delete", where="chunked edge, after the edge")
def chunk_key_read_after_the_edge():
    return writer().then(speaker(), edge="chunked") >> Agent("summary").instruct("Sum up {chunk}.")


@broken("maybe-unset", where="chunked edge, producer output read by the consumer")
def chunked_consumer_reads_the_producers_output_key():
    consumer = Agent("speaker").instruct("Read {chunk} (the whole text: {draft}).")
    return writer(key="draft").then(consumer, edge="chunked")


# -- FanOut merges and first_complete ------------------------------------------------------------
@broken("merge-into-clash", where="fan-out merge, outputs")
def fanout_merges_into_a_key_a_branch_writes():
    fan = FanOut(
        Agent("web").instruct("Search the web.").outputs("results"),
        Agent("docs").instruct("Search the docs.").outputs("docs_hits"),
    ).merge("dict", into="results")
    return fan >> Agent("writer").instruct("Write up {results} and {docs_hits}.")


@broken("merge-into-clash", where="fan-out merge, S step in a branch")
def fanout_branch_sets_the_merge_key():
    fan = FanOut(
        Agent("web").instruct("Search the web.").outputs("web_hits"),
        Agent("docs").instruct("Search the docs.") >> S.set(report="docs done"),
    ).merge("concat", into="report")
    return fan >> Agent("writer").instruct("Write up {report} with {web_hits}.")


@broken("parallel-sibling-read", where="fan-out first_complete")
def first_complete_branch_reads_a_siblings_output():
    return FanOut(
        Agent("fast").instruct("Answer.").outputs("answer"),
        Agent("careful").instruct("Check {answer}.").outputs("checked"),
    ).first_complete()


@broken("maybe-unset", where="fan-out first_complete, a key one branch writes")
def first_complete_key_only_one_branch_writes():
    fan = FanOut(
        Agent("fast").instruct("Answer.").outputs("answer"),
        Agent("careful").instruct("Answer carefully.").outputs("careful_answer"),
    ).first_complete()
    return fan >> Agent("presenter").instruct("Present {careful_answer}.")


@correct()
def chunked_speaker_reads_each_sentence():
    return writer(key="draft").then(speaker(), edge="chunked") >> Agent("closer").instruct(
        "Close with {spoken} (from {draft})."
    )


@correct()
def chunked_by_paragraph_into_a_custom_key():
    consumer = Agent("translator").instruct("Translate: {para}").outputs("translated")
    return writer().then(consumer, edge="chunked", by="paragraph", key="para") >> Agent(
        "checker"
    ).instruct("Check {translated}.")


@correct()
def chunked_edge_inside_a_pipeline_by_size():
    consumer = Agent("speaker").instruct("Say: {piece}")
    return Agent("planner").instruct("Plan.").outputs("plan") >> Agent("writer").instruct(
        "Write from {plan}."
    ).then(consumer, edge="chunked", by=120, key="piece")


@correct()
def fanout_merged_into_a_dict_read_downstream():
    fan = FanOut(
        Agent("web").instruct("Search the web.").outputs("web_hits"),
        Agent("docs").instruct("Search the docs."),
    ).merge("dict", into="results")
    return fan >> Agent("writer").instruct("Write up {results}; the web said {web_hits}.")


@correct()
def fanout_merged_with_a_reducer():
    def longest(outputs: dict) -> str:
        return max((v for v in outputs.values() if v), key=len, default="")

    fan = FanOut(Agent("a").instruct("Draft."), Agent("b").instruct("Draft.")).merge(
        longest, into="best"
    )
    return fan >> Agent("editor").instruct("Polish {best}.")


@correct()
def first_complete_answer_from_whichever_branch():
    fan = FanOut(
        Agent("fast").instruct("Answer.").outputs("answer"),
        Agent("careful").instruct("Answer carefully.").outputs("answer"),
        join="first_complete",
    ).merge("concat", into="winner")
    return fan >> Agent("presenter").instruct("Present {answer} ({winner}).")
