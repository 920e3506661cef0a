"""Contract corpus cases across turns, for ported code and for filtered replies: broken ones
register in BROKEN, correct ones in CORRECT.

* A conversation: an agent whose own agent tools (or instruction) read the key its reply
  writes finds the previous turn's reply from the second turn on (`unset-on-first-turn`,
  a warning); a read of what a later, separate step writes stays `read-before-write`.
* Shapes people port from the PyPI adk-fluent 0.x: `.writes("k")` meant as the output key
  (`write-never-performed`), a model's text reply fed to `map_over` (`map-over-text`).
* Filtered pipelines whose turn can end with no user-facing reply (`no-user-reply`).
"""

from __future__ import annotations

from pydantic import BaseModel

from adk_fluent import Agent, Loop, Route, S, exit_when, map_over

from .broken import broken
from .correct import correct

__all__ = ["broken", "correct"]


class Topics(BaseModel):
    topics: list[str]


def paper_coordinator(read: str = "{seminal_paper}", key: str = "seminal_paper"):
    """A coordinator whose reply is stored in `key` and whose two agent tools read it (the
    shape of Google's academic-research sample)."""
    citations = Agent("citation_finder").instruct(f"Find recent papers that cite {read}.")
    directions = Agent("direction_finder").instruct(f"Suggest research directions from {read}.")
    return (
        Agent("paper_coordinator")
        .instruct("Help the user study the paper they name; use your tools when asked.")
        .tool(citations)
        .tool(directions)
        .outputs(key)
    )


# -- a conversation: reads of the agent's own earlier reply -------------------------------------
@broken("unset-on-first-turn", where="agent tool reads its caller's reply, a later turn")
def agent_tools_read_their_callers_earlier_reply():
    return paper_coordinator()


@broken("unset-on-first-turn", where="agent reads its own reply of the turn before")
def agent_reads_its_own_earlier_reply():
    return (
        Agent("tutor")
        .instruct("Your last answer was: {last_answer}. Go on.")
        .outputs("last_answer")
    )


@broken("unset-on-first-turn", where="agent tool inside a sequence, a later turn")
def agent_tool_reads_caller_reply_after_a_classifier():
    return Agent("classifier").instruct("Label the request.").outputs("intent") >> Agent(
        "assistant"
    ).instruct("Help with the {intent} request.").tool(
        Agent("recap").instruct("Recap what you said last time: {answer}")
    ).outputs("answer")


@broken("read-before-write", where="agent tool reads what a later step writes (one turn)")
def agent_tool_reads_a_later_steps_output():
    lead = Agent("lead").instruct("Plan.").tool(Agent("checker").instruct("Check {summary}."))
    return lead >> Agent("summariser").instruct("Summarise.").outputs("summary")


@broken("read-before-write", where="agent tool reads its caller's reply, dropped at the end")
def agent_tool_reads_caller_reply_that_is_dropped():
    return paper_coordinator() >> S.drop("seminal_paper")


@broken("read-before-write", where="agent tool reads its caller's temp: reply (one turn)")
def agent_tool_reads_caller_temp_reply():
    return paper_coordinator("{temp:seminal_paper}", "temp:seminal_paper")


@correct(where="agent tools read their caller's earlier reply as optional")
def agent_tools_read_their_callers_earlier_reply_optionally():
    return paper_coordinator("{seminal_paper?}")


@correct(where="a default before the coordinator: the first turn has the key too")
def coordinator_reply_defaulted_before_the_first_turn():
    return S.default(seminal_paper="(none yet)") >> paper_coordinator()


# -- shapes ported from adk-fluent 0.x -------------------------------------------------------------
@broken("write-never-performed", where="0.x .writes() meant as the output key, read later")
def ported_writes_meant_as_output_key():
    return Agent("planner").instruct("Plan the trip.").writes("plan") >> Agent("booker").instruct(
        "Book what {plan} says."
    )


@broken("write-never-performed", where="0.x .writes() meant as the output key, never read")
def ported_writes_never_read():
    return Agent("summariser").instruct("Summarise the thread.").writes("summary")


@correct(where=".writes() backed by the agent's tool")
def declared_write_backed_by_a_tool():
    def save_plan(plan: str, tool_context) -> dict:
        """Save the plan."""
        tool_context.state["plan"] = plan
        return {"saved": True}

    return Agent("planner").instruct("Plan, then save it.").tool(save_plan).writes("plan") >> Agent(
        "booker"
    ).instruct("Book what {plan} says.")


@correct(where=".writes() backed by an agent tool's tree")
def declared_write_backed_by_an_agent_tool():
    return Agent("planner").instruct("Plan with the drafter.").tool(
        Agent("drafter").instruct("Draft a plan.").outputs("plan")
    ).writes("plan") >> Agent("booker").instruct("Book what {plan} says.")


@broken("map-over-text", where="map_over of a model's text reply (0.x port)")
def map_over_a_text_reply():
    return Agent("lister").instruct("List three topics.").outputs("topics") >> map_over(
        "topics", Agent("writer").instruct("Write a line about {item}.").outputs("line")
    )


@broken("map-over-text", where="map_over of a structured (dict) reply")
def map_over_a_structured_reply():
    return Agent("lister").instruct("List three topics.").output_schema(Topics).outputs(
        "topics"
    ) >> map_over("topics", Agent("writer").instruct("Write a line about {item}.").outputs("line"))


@broken("map-over-text", where="map_over of a key one route branch fills with text")
def map_over_text_on_one_branch():
    return (
        S.capture("mode")
        >> Route("mode")
        .eq("fixed", S.set(topics=["a", "b"]))
        .otherwise(Agent("lister").instruct("List topics.").outputs("topics"))
        >> map_over("topics", Agent("writer").instruct("Write about {item}.").outputs("line"))
    )


@correct(where="map_over after the text is split into a list")
def map_over_a_text_reply_split_into_lines():
    return (
        Agent("lister").instruct("List three topics, one per line.").outputs("topics")
        >> S.transform("topics", str.splitlines)
        >> map_over("topics", Agent("writer").instruct("Write about {item}.").outputs("line"))
    )


# -- filtered: a turn that ends with no reply for the user -----------------------------------------
def review_loop():
    return Loop(
        Agent("drafter").instruct("Draft the reply.").outputs("draft"),
        Agent("reviewer")
        .instruct("Review {draft}; say APPROVED when it is good.")
        .outputs("review"),
        exit_when(lambda state: "APPROVED" in state.get("review", "")),
        max_iterations=3,
        name="review_loop",
    )


def writing_desk(loop):
    return Agent("classifier").instruct("Answer write or chat.").outputs("intent") >> Route(
        "intent"
    ).eq("write", loop).otherwise(Agent("chatter").instruct("Chat with the user."))


@broken("no-user-reply", where="filtered: a draft-review loop ends a route branch")
def filtered_review_loop_ends_a_route_branch():
    return writing_desk(review_loop()).filtered()


@broken("no-user-reply", where="filtered: a map_over ends the pipeline")
def filtered_map_over_ends_the_pipeline():
    return (
        S.set(cities=["Lisbon", "Porto"])
        >> map_over("cities", Agent("guide").instruct("Describe {item}.").outputs("line"))
    ).filtered()


@broken("no-user-reply", where="filtered: a hidden last agent")
def filtered_hidden_last_agent():
    return (
        Agent("researcher").instruct("Find facts.").outputs("facts")
        >> Agent("writer").instruct("Write from {facts}.").hide()
    ).filtered()


@correct(where="filtered: the loop shows its final round")
def filtered_review_loop_shows_its_final_round():
    return writing_desk(review_loop().show("final")).filtered()


@correct(where="filtered: a map_over followed by an agent that presents its output")
def filtered_map_over_then_a_presenter():
    return (
        S.set(cities=["Lisbon", "Porto"])
        >> map_over("cities", Agent("guide").instruct("Describe {item}."), output_key="lines")
        >> Agent("presenter").instruct("Present {lines}.")
    ).filtered()


@correct(where="filtered: every round of the loop shown")
def filtered_review_loop_shows_every_round():
    return writing_desk(review_loop().show()).filtered()


@correct(where="annotated: a loop at the end is fine (every event reaches the client)")
def annotated_review_loop_ends_a_route_branch():
    return writing_desk(review_loop())
