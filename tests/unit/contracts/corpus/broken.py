"""Broken pipelines: each makes one real mistake (sometimes with its knock-on effects) that the
checker must name. Snapshots of the full report live in tests/unit/contracts/snapshots/."""

from __future__ import annotations

import datetime
from typing import Annotated

from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.adk.planners import BuiltInPlanner, PlanReActPlanner
from google.genai import types
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    C,
    CapturedBy,
    Loop,
    Native,
    Pipeline,
    RemoteAgent,
    Route,
    S,
    StateSchema,
    UserScoped,
    exit_when,
    gate,
    loop_until,
    map_over,
    race,
    timeout,
)

from . import Case, collector

BROKEN: dict[str, Case] = {}
broken = collector(BROKEN)


def lookup(query: str) -> dict:
    """Look something up."""
    return {"query": query}


class Intent(BaseModel):
    category: str
    confidence: float


class IntentText(BaseModel):
    category: str
    confidence: str


class Resolution(BaseModel):
    category: str
    ticket: str


class Billing(StateSchema):
    intent: str
    confidence: float
    tier: Annotated[str, UserScoped]


def classifier():
    return Agent("classifier").instruct("Classify the request.").outputs("intent")


# -- reads before writes: templates, Route keys ------------------------------------------------
@broken("read-before-write", where="sequence, template")
def template_key_misspelt():
    return classifier() >> Agent("booker").instruct("Book the {intnet} request.")


@broken("read-before-write", where="sequence, template")
def template_key_never_written():
    return classifier() >> Agent("presenter").instruct("Present {summary} for {intent}.")


@broken("read-before-write", where="sequence order")
def reader_before_writer():
    return Agent("reviewer").instruct("Review {draft}.") >> Agent("writer").outputs("draft")


@broken("read-before-write", where="route key")
def route_key_misspelt():
    return classifier() >> Route("intnet").eq("booking", Agent("booker")).otherwise(Agent("helper"))


@broken("read-before-write", where="route branch")
def route_branch_reads_unknown_key():
    return classifier() >> Route("intent").eq(
        "booking", Agent("booker").instruct("Book {city}.")
    ).otherwise(Agent("helper"))


@broken("maybe-unset", where="route join")
def key_from_one_route_branch_read_after_join():
    return (
        classifier()
        >> Route("intent")
        .eq("booking", Agent("booker").outputs("booking"))
        .otherwise(Agent("helper").outputs("help"))
        >> Agent("presenter").instruct("Present {booking}.")
    )


@broken("maybe-unset", where="route without otherwise")
def route_without_otherwise_then_read():
    return (
        classifier()
        >> Route("intent")
        .eq("booking", Agent("booker").outputs("answer"))
        .eq("info", Agent("informer").outputs("answer"))
        >> Agent("presenter").instruct("Present {answer}.")
    )


@broken("maybe-unset", where="route key set on one branch of an earlier route")
def second_route_key_maybe_unset():
    return (
        classifier()
        >> Route("intent")
        .eq("booking", Agent("booker").outputs("urgency"))
        .otherwise(Agent("helper").outputs("help_text"))
        >> Route("urgency").eq("high", Agent("escalator")).eq("low", Agent("queuer"))
    )


# -- fan-out, race -----------------------------------------------------------------------------
@broken("parallel-sibling-read", where="fan-out branch")
def fanout_branch_reads_sibling_output():
    return Agent("researcher").outputs("facts") | Agent("writer").instruct("Write up {facts}.")


@broken("parallel-write-conflict", where="fan-out branches")
def fanout_branches_write_one_key():
    return (Agent("optimist").outputs("view") | Agent("pessimist").outputs("view")) >> Agent(
        "judge"
    ).instruct("Judge {view}.")


@broken("parallel-race", where="fan-out branch")
def fanout_branch_reads_key_sibling_overwrites():
    return S.set(plan="draft") >> (
        Agent("planner").outputs("plan") | Agent("critic").instruct("Criticise {plan}.")
    )


@broken("read-before-write", where="nested fan-out branch")
def fanout_branch_reads_unknown_key():
    return (
        classifier()
        >> (
            Agent("a").instruct("Use {intent}.").outputs("a_out")
            | (Agent("b").instruct("Use {tone}.").outputs("b_out") >> Agent("c").outputs("c_out"))
        )
        >> Agent("merger").instruct("{a_out} {b_out} {c_out}")
    )


@broken("parallel-sibling-read", where="race alternative")
def race_alternative_reads_other_alternative():
    return race(Agent("fast").outputs("guess"), Agent("careful").instruct("Check {guess}."))


@broken("maybe-unset", where="race join")
def race_only_one_alternative_writes():
    return race(Agent("fast").outputs("answer"), Agent("careful")) >> Agent("presenter").instruct(
        "Present {answer}."
    )


# -- loops, map_over ---------------------------------------------------------------------------
@broken("read-before-write", where="loop first iteration")
def loop_reads_what_it_writes_later():
    return (
        Agent("critic").instruct("Criticise {draft}.").outputs("critique")
        >> Agent("writer").instruct("Improve using {critique}.").outputs("draft")
    ) * 3


@broken("read-after-delete", where="loop later iterations")
def loop_deletes_key_it_reads():
    return (
        S.set(topic="tides")
        >> (Agent("writer").instruct("Write about {topic}.").outputs("text") >> S.drop("topic")) * 2
        >> Agent("presenter").instruct("{text}")
    )


@broken("maybe-unset", where="loop_until body route")
def loop_until_key_written_on_one_branch():
    body = Agent("checker").outputs("verdict") >> Route("verdict").eq(
        "fix", Agent("fixer").outputs("patch")
    ).otherwise(S.set(done="y"))
    return loop_until(lambda s: s.get("done") == "y", body, max_iterations=4) >> Agent(
        "reporter"
    ).instruct("Report {patch}.")


@broken("read-before-write", where="map_over list")
def map_over_list_never_written():
    return map_over("docs", Agent("summariser").instruct("Summarise {item}.")) >> Agent(
        "presenter"
    ).instruct("{results}")


@broken("read-after-delete", where="map_over item after the map")
def map_over_item_read_after_map():
    return (
        S.set(docs=["a", "b"])
        >> map_over("docs", Agent("summariser").instruct("Summarise {doc}."), item_key="doc")
        >> Agent("presenter").instruct("Last doc: {doc}; all: {results}")
    )


@broken("read-before-write", where="map_over body")
def map_over_body_reads_wrong_item_key():
    return (
        S.set(docs=["a"])
        >> map_over(
            "docs", Agent("summariser").instruct("Summarise {doc}."), output_key="summaries"
        )
        >> Agent("presenter").instruct("{summaries}")
    )


@broken("maybe-unset", where="map_over may run zero times")
def map_over_body_output_read_after():
    return (
        S.set(docs=[])
        >> map_over(
            "docs",
            Agent("summariser").instruct("Summarise {item}.").outputs("summary"),
            output_key="summaries",
        )
        >> Agent("presenter").instruct("Last summary: {summary}; {summaries}")
    )


@broken("map-over-item-clobbers", where="map_over item key")
def map_over_item_key_clobbers_state():
    return (
        Agent("picker").outputs("doc")
        >> S.set(docs=["a", "b"])
        >> map_over("docs", Agent("summariser").instruct("{doc}"), item_key="doc")
        >> Agent("presenter").instruct("{results}")
    )


@broken("read-before-write", where="map_over concurrent items")
def map_over_concurrent_items_share_nothing():
    body = Agent("accumulator").instruct("Add {item} to {total}.").outputs("total")
    return (
        S.set(numbers=[1, 2, 3])
        >> map_over("numbers", body, concurrency=3)
        >> Agent("presenter").instruct("{results}")
    )


# -- fallback, timeout, gate, delegates --------------------------------------------------------
@broken("maybe-unset", where="fallback alternative")
def fallback_alternative_reads_failed_alternative_output():
    primary = Agent("drafter").outputs("draft") >> Agent("polisher").outputs("final")
    backup = Agent("rescuer").instruct("Salvage {draft}.").outputs("final")
    return (primary // backup) >> Agent("presenter").instruct("{final}")


@broken("maybe-unset", where="fallback join")
def fallback_only_first_alternative_writes():
    return (Agent("primary").outputs("answer") // Agent("backup")) >> Agent("presenter").instruct(
        "Present {answer}."
    )


@broken("maybe-unset", where="timeout")
def timeout_body_output_read_after():
    return timeout(Agent("slow").outputs("analysis"), 5) >> Agent("presenter").instruct(
        "Present {analysis}."
    )


@broken("temp-key-not-carried", where="gate, temp key", target_adk="2.13.0")
def temp_key_across_gate():
    return (
        Agent("planner").outputs("temp:plan")
        >> gate(True, "Proceed with the plan?")
        >> Agent("executor").instruct("Execute {temp:plan}.")
    )


@broken("temp-key-not-carried", where="temp key across agents on ADK 1.25", target_adk="1.25.0")
def temp_key_across_agents_on_adk1():
    return Agent("drafter").outputs("temp:draft") >> Agent("editor").instruct("Edit {temp:draft}.")


@broken("temp-key-not-carried", where="S step temp key on ADK 1.25", target_adk="1.25.0")
def temp_key_from_state_step_on_adk1():
    return S.set(**{"temp:mode": "terse"}) >> Agent("writer").instruct("Write in {temp:mode} mode.")


# the coordinator's reply is stored only when it answers itself: a delegate finds it only from
# an earlier turn (advice, not an error: sample code relies on it)
@broken("model-dependent-read", where="delegate")
def delegate_reads_coordinator_output():
    return (
        Agent("coordinator")
        .outputs("plan")
        .delegate(Agent("executor").instruct("Carry out {plan}."))
    )


@broken("maybe-unset", where="delegate join")
def delegate_output_read_after_coordinator():
    coordinator = Agent("coordinator").delegate(Agent("booker").outputs("booking"))
    return coordinator >> Agent("presenter").instruct("Present {booking}.")


# -- S steps -----------------------------------------------------------------------------------
@broken("read-after-delete", where="S.drop")
def read_after_drop():
    return (
        Agent("drafter").outputs("draft")
        >> S.drop("draft")
        >> Agent("editor").instruct("Edit {draft}.")
    )


@broken("read-after-delete", where="S.pick")
def read_after_pick():
    return (
        Agent("drafter").outputs("draft")
        >> S.set(style="terse")
        >> S.pick("style")
        >> Agent("editor").instruct("Edit {draft} in a {style} style.")
    )


@broken("read-after-delete", where="S.rename")
def read_old_name_after_rename():
    return (
        Agent("drafter").outputs("draft")
        >> S.rename(draft="text")
        >> Agent("editor").instruct("Edit {draft}; the text is {text}.")
    )


@broken("read-before-write", where="S.merge")
def merge_of_missing_key():
    return (
        Agent("a").outputs("left")
        >> S.merge("left", "right", into="both")
        >> Agent("b").instruct("{both}")
    )


@broken("read-before-write", where="S.transform")
def transform_of_missing_key():
    return S.transform("score", float) >> Agent("grader").instruct("Score: {score}")


@broken("unknown-key-in-step", where="S.drop")
def drop_misspelt_key():
    return (
        Agent("drafter").outputs("draft")
        >> Agent("editor").instruct("Edit {draft}.").outputs("edited")
        >> S.drop("drfat")
        >> Agent("presenter").instruct("{edited}")
    )


@broken("unknown-key-in-step", "read-before-write", where="S.rename")
def rename_misspelt_key():
    return (
        Agent("drafter").outputs("summary")
        >> S.rename(summry="abstract")
        >> Agent("presenter").instruct("{abstract}")
    )


# -- C specs -----------------------------------------------------------------------------------
@broken("from-state-unset", where="C.from_state")
def from_state_key_never_written():
    return classifier() >> Agent("writer").context(C.from_state("summary", "intent"))


@broken("read-before-write", where="C.template")
def context_template_key_never_written():
    return Agent("writer").context(C.user_only() + C.template("The user asked: {question}"))


@broken("context-unknown-agent", where="C.from_agents")
def from_agents_misspelt():
    return classifier() >> Agent("writer").context(C.from_agents("clasifier"))


@broken("context-unknown-agent", where="C.exclude_agents in a route branch")
def exclude_agents_unknown():
    return classifier() >> Route("intent").eq(
        "booking", Agent("booker").context(C.exclude_agents("classifer"))
    ).otherwise(Agent("helper"))


@broken("tools-history-hidden", where="C.none with tools")
def tools_with_no_history():
    return Agent("researcher").tool(lookup).context(C.none())


@broken("data-loss", where="C.none after an agent without outputs")
def reply_lost_to_c_none():
    return Agent("researcher").instruct("Find facts.") >> Agent("writer").context(C.none())


@broken("data-loss", where="C.user_only in route branches")
def reply_lost_in_route_branches():
    return (
        Agent("analyst").instruct("Analyse the request.")
        >> S.set(kind="a")
        >> Route("kind")
        .eq("a", Agent("writer").context(C.user_only()))
        .otherwise(Agent("other").context(C.user_only()))
    )


@broken("internal-no-output", where="filtered mode")
def filtered_internal_without_outputs():
    return (Agent("researcher").instruct("Research.") >> Agent("writer")).filtered()


# -- outputs and channels ----------------------------------------------------------------------
@broken("dead-state", where=".outputs() nobody reads")
def outputs_nobody_reads():
    return Agent("researcher").outputs("notes") >> Agent("writer").instruct("Write it up.")


@broken("dead-state", where="map_over item nobody reads")
def map_over_body_ignores_item():
    return (
        S.set(docs=["a"])
        >> map_over("docs", Agent("summariser").outputs("s"), output_key="r")
        >> Agent("presenter").instruct("{r}")
    )


@broken("channel-duplication", where="template + default history")
def producer_text_twice():
    return Agent("classifier").outputs("intent") >> Agent("booker").instruct(
        "The intent is {intent}."
    )


@broken("optional-never-written", where="optional template")
def optional_key_misspelt():
    return Agent("drafter").outputs("notes") >> Agent("writer").instruct("Use {note?}. {notes}")


# -- typed contracts ---------------------------------------------------------------------------
@broken("consumes-missing-field", where="produces / consumes")
def consumer_needs_field_producer_lacks():
    return Agent("classifier").produces(Intent) >> Agent("resolver").consumes(Resolution)


@broken("type-mismatch", where="produces / consumes types")
def producer_and_consumer_disagree_on_type():
    return Agent("classifier").produces(IntentText) >> Agent("resolver").consumes(Intent)


@broken("type-mismatch", where="schema vs produces", schema=Billing)
def produces_conflicts_with_schema():
    return Agent("classifier").produces(IntentText) >> Agent("resolver").instruct(
        "{category} {confidence}"
    )


@broken("type-mismatch", where="schema vs S.set value", schema=Billing)
def set_value_conflicts_with_schema():
    return S.set(confidence="high") >> Agent("resolver").instruct("{confidence}")


@broken("schema-unknown-key", "read-before-write", where="schema", schema=Billing)
def key_not_in_schema():
    return Agent("classifier").outputs("intnet") >> Agent("resolver").instruct("{intent}")


@broken("scope-mismatch", where="schema scope", schema=Billing)
def scoped_key_used_unscoped():
    return Agent("greeter").instruct("Greet the {tier} customer.")


@broken("planner-without-effect", where="planner, output_schema")
def react_planner_with_json_reply():
    return Agent("researcher").instruct("Find the city.").planner(PlanReActPlanner()).output_schema(
        Intent
    ).outputs("found") >> Agent("writer").instruct("Write about {found}.")


@broken("planner-thinking-replaced", where="planner, generate_content_config")
def builtin_planner_thinking_twice():
    thinking = types.ThinkingConfig(thinking_budget=512)
    return (
        Agent("thinker")
        .instruct("Think it through.")
        .planner(BuiltInPlanner(thinking_config=thinking))
        .generate_content_config(
            types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_budget=64))
        )
    )


class Captured(StateSchema):
    user_message: Annotated[str, CapturedBy(C.capture)]
    intent: Annotated[str, CapturedBy("classifier")]


@broken("captured-by-other", where="schema producer", schema=Captured)
def captured_key_written_by_another_step():
    return (
        S.set(user_message="hi")
        >> C.capture("user_message")
        >> Agent("a").instruct("{user_message}")
    )


@broken("captured-by-missing", where="schema producer", schema=Captured)
def captured_key_producer_missing():
    return Agent("triage").instruct("Classify.") >> Agent("reply").instruct("{intent?}")


@broken("type-mismatch", where=".writes / .reads refs")
def declared_refs_disagree():
    class Left(StateSchema):
        score: str

    class Right(StateSchema):
        score: float

    return Agent("scorer").writes(Left.score) >> Agent("judge").reads(Right.score)


@broken("read-before-write", where=".reads() declaration")
def declared_read_never_written():
    return Agent("refunder").tool(lookup).reads("account_id")


@broken("read-before-write", where="output_schema fields are not state keys")
def output_schema_field_read_as_key():
    return Agent("classifier").output_schema(Intent).outputs("intent") >> Agent(
        "resolver"
    ).instruct("{category}")


@broken("read-before-write", where="route in fan-out in loop")
def deep_nesting_misspelt_key():
    inner = (
        Route("mood")
        .eq("happy", Agent("cheer"))
        .otherwise(Agent("console").instruct("Console about {moood_reason}."))
    )
    return (
        S.set(mood="sad")
        >> (Agent("observer").outputs("note") | inner) * 2
        >> Agent("closer").instruct("{note}")
    )


@broken("user-text-in-instruction", where="S.capture into an instruction template")
def captured_user_text_in_instruction():
    return S.capture("q") >> Agent("researcher").instruct("Research: {q}")


@broken("user-text-in-instruction", where="C.capture_turns into a delegate's instruction")
def captured_turns_in_delegate_instruction():
    return C.capture_turns("recent", 3) >> Agent("coordinator").instruct("Route.").delegate(
        Agent("helper").instruct("Recent turns: {recent}").context(C.user_only())
    )


@broken("agent-text-in-instruction", where="a tool-using agent's reply into an instruction")
def tool_agent_reply_in_instruction():
    return Agent("researcher").instruct("Research.").tool(lookup).outputs("notes") >> Agent(
        "writer"
    ).instruct("Write from: {notes}").context(C.user_only())


# -- code the checker reads: tools, callbacks, custom agents, agent tools ----------------------
def refund(amount: float, tool_context) -> str:
    """Refund an amount to the customer's account."""
    account = tool_context.state["acount_id"]  # misspelt: nothing writes it
    return f"refunded {amount} to {account}"


def require_locale(callback_context) -> None:
    """Check the locale before the agent runs."""
    locale = callback_context.state["locale"]
    callback_context.state["greeting"] = "Hello" if locale == "en" else "Hallo"


def pick_persona(callback_context, llm_request) -> None:
    """Choose a persona before each model call (too late for the first instruction)."""
    callback_context.state["persona"] = "a patient tutor"


def mark_left(callback_context) -> None:
    """Record that the left branch ran."""
    callback_context.state["last_branch"] = "left"


def mark_right(callback_context) -> None:
    """Record that the right branch ran."""
    callback_context.state["last_branch"] = "right"


class QuotaGuard(BaseAgent):
    """Reads the quota the app was supposed to set."""

    async def _run_async_impl(self, ctx):
        quota = ctx.session.state["quota"]
        yield Event(author=self.name, custom_metadata={"quota": quota})


@broken("tool-read-unset", where="tool reads a key nothing writes")
def tool_reads_never_written_key():
    return S.set(account_id="A-1") >> Agent("refunder").instruct("Refund.").tool(refund)


@broken("read-before-write", where="before_agent callback reads a key nothing writes")
def callback_reads_unset_key():
    return Agent("greeter").before_agent(require_locale).instruct("{greeting}, customer.")


@broken("read-before-write", where="before_model callback writes too late for its instruction")
def before_model_write_read_by_own_instruction():
    return Agent("tutor").before_model(pick_persona).instruct("You are {persona}.")


@broken("read-before-write", where="agent tool's inner agent")
def agent_tool_inner_reads_unknown_key():
    return Agent("lead").instruct("Delegate.").tool(
        Agent("summariser").instruct("Summarise {sources}.").outputs("summary")
    ) >> Agent("writer").instruct("{summary?}")


@broken("read-before-write", where="custom agent reads a key nothing writes")
def native_agent_reads_unwritten_key():
    return Native(QuotaGuard(name="quota_guard")).writes("checked") >> Agent("worker").instruct(
        "Work within {checked}."
    )


@broken("read-before-write", where="composite .reads() of a key nothing writes")
def composite_declared_read_never_written():
    return Pipeline(Agent("a").outputs("x"), Agent("b").instruct("{x}"), name="inner").reads(
        "budget"
    )


@broken("parallel-write-conflict", where="fan-out branches' callbacks write one key")
def fanout_callbacks_write_one_key():
    return (
        Agent("left").before_agent(mark_left).outputs("left_out")
        | Agent("right").before_agent(mark_right).outputs("right_out")
    ) >> Agent("merger").instruct("{left_out} {right_out} after {last_branch}")


@broken("loop-never-ends", where="loop without a maximum or an exit")
def loop_never_ends():
    return Loop(
        Agent("writer").instruct("Improve {draft?}.").outputs("draft"),
        Agent("critic").instruct("Criticise {draft}.").outputs("critique"),
    )


@broken("maybe-unset", where="loop exit_when before a later step")
def exit_when_skips_later_step():
    return Loop(
        Agent("drafter").instruct("Draft.").outputs("draft"),
        exit_when(lambda s: "done" in s.get("draft", "")),
        Agent("reviewer").instruct("Review {draft}.").outputs("review"),
        max_iterations=3,
    ) >> Agent("presenter").instruct("{draft} / {review}")


class Trip(StateSchema):
    depart: datetime.date


@broken("remote-value-not-json", "read-before-write", where="remote agent sends a date")
def remote_agent_sent_a_date():
    return (
        Agent("planner").instruct("Plan the trip.").writes(Trip.depart)
        >> RemoteAgent(
            "booker", "http://booker:8001/.well-known/agent-card.json", sends=["depart", "city"]
        )
        >> Agent("confirm").instruct("Confirm.")
    )
