"""Correct pipelines: every node kind used properly. They must produce no error and no warning
(advice at info level, such as channel duplication, is allowed)."""

from __future__ import annotations

import functools
from typing import Annotated

from google.adk.agents import BaseAgent
from google.adk.events import Event, EventActions
from google.adk.tools import FunctionTool, exit_loop, google_search
from pydantic import BaseModel

from adk_fluent import (
    Agent,
    AgentTool,
    C,
    Loop,
    Native,
    Pipeline,
    RemoteAgent,
    Route,
    S,
    StateSchema,
    Temp,
    UserScoped,
    exit_when,
    gate,
    loop_until,
    map_over,
    race,
    tap,
    timeout,
)

from . import Case, collector

CORRECT: dict[str, Case] = {}
correct = collector(CORRECT)


def lookup(query: str) -> dict:
    """Look something up."""
    return {"query": query}


class Intent(BaseModel):
    category: str
    confidence: float


class IntentView(BaseModel):
    category: str
    confidence: float | None = None
    note: str = ""


class Support(StateSchema):
    question: str
    intent: str
    confidence: float
    answer: str
    tier: Annotated[str, UserScoped]
    scratch: Annotated[dict, Temp]


@correct(where="route, templates")
def classify_and_route():
    return Agent("classifier").instruct("Classify.").outputs("intent") >> Route("intent").eq(
        "booking", Agent("booker").instruct("Book it ({intent}).").context(C.user_only())
    ).otherwise(Agent("helper").instruct("Help."))


@correct(where="S.capture, C.from_state")
def capture_then_read():
    return (
        S.capture("question")
        >> Agent("classifier")
        .instruct("Classify the question.")
        .context(C.from_state("question"))
        .outputs("intent")
        >> Agent("answerer")
        .instruct("Answer the {intent} question.")
        .context(C.user_only() + C.from_state("question"))
    )


@correct(where="loop with initialised state")
def loop_with_initial_draft():
    return (
        S.set(draft="")
        >> (
            Agent("critic").instruct("Criticise {draft}.").outputs("critique")
            >> Agent("writer")
            .instruct("Improve {draft} using {critique}.")
            .outputs("draft")
            .context(C.user_only())
        )
        * 3
        >> Agent("presenter").instruct("{draft}").context(C.user_only())
    )


@correct(where="loop_until, S.default")
def loop_until_done():
    body = Agent("checker").instruct("Check {attempt?}.").outputs("verdict") >> S.set(
        attempt="again"
    )
    return (
        S.default(verdict="unknown")
        >> loop_until(lambda s: s.get("verdict") == "ok", body)
        >> Agent("reporter").instruct("Verdict: {verdict}").context(C.user_only())
    )


@correct(where="map_over")
def map_over_documents():
    return (
        S.set(docs=["a", "b"])
        >> map_over(
            "docs",
            Agent("summariser").instruct("Summarise {doc}.").outputs("summary").context(C.none()),
            item_key="doc",
            output_key="summaries",
        )
        >> Agent("presenter").instruct("{summaries}")
    )


@correct(where="map_over concurrent")
def map_over_concurrently():
    return (
        S.set(numbers=[1, 2, 3])
        >> map_over("numbers", Agent("squarer").instruct("Square {item}."), concurrency=3)
        >> Agent("presenter").instruct("{results}")
    )


@correct(where="fan-out, S.merge")
def fanout_then_merge():
    return (
        (Agent("pro").outputs("pros") | Agent("con").outputs("cons"))
        >> S.merge("pros", "cons", into="both")
        >> Agent("judge").instruct("Weigh {both}.").context(C.user_only())
    )


@correct(where="fan-out branches read what was set before")
def fanout_reads_shared_input():
    return (
        S.capture("topic")
        >> (
            Agent("poet")
            .instruct("A poem on the topic.")
            .context(C.from_state("topic"))
            .outputs("poem")
            | Agent("essayist")
            .instruct("An essay on the topic.")
            .context(C.from_state("topic"))
            .outputs("essay")
        )
        >> Agent("editor").instruct("Pick: {poem} / {essay}").context(C.user_only())
    )


@correct(where="fallback")
def fallback_both_write():
    return (Agent("primary").outputs("answer") // Agent("backup").outputs("answer")) >> Agent(
        "presenter"
    ).instruct("{answer}").context(C.user_only())


@correct(where="race")
def race_both_write():
    return race(Agent("fast").outputs("answer"), Agent("careful").outputs("answer")) >> Agent(
        "presenter"
    ).instruct("{answer}").context(C.user_only())


@correct(where="timeout, reader inside")
def timeout_around_producer_and_reader():
    return timeout(
        Agent("analyst").outputs("analysis")
        >> Agent("presenter").instruct("{analysis}").context(C.user_only()),
        30,
    )


@correct(where="timeout, S.default after")
def timeout_then_default():
    return (
        timeout(Agent("slow").outputs("analysis"), 5)
        >> S.default(analysis="(timed out)")
        >> Agent("presenter").instruct("{analysis}").context(C.user_only())
    )


@correct(where="gate with session keys")
def gate_keeps_session_keys():
    return (
        Agent("planner").outputs("plan")
        >> gate(True, "Proceed?")
        >> Agent("executor").instruct("Execute {plan}.").context(C.user_only())
    )


@correct(where="temp key on ADK 2.x", target_adk="2.13.0")
def temp_key_across_agents_on_adk2():
    return S.set(**{"temp:mode": "terse"}) >> Agent("writer").instruct("Write {temp:mode}.")


@correct(where="initial keys", initial_keys=("tenant",))
def initial_state_declared():
    return Agent("greeter").instruct("Greet the {tenant} user.")


@correct(where="produces / consumes")
def produces_consumes_compatible():
    return Agent("classifier").produces(Intent) >> Agent("resolver").consumes(IntentView)


@correct(where="schema, .writes / .reads", schema=Support)
def schema_typed_pipeline():
    return (
        S.capture("question")
        >> Agent("classifier")
        .instruct("Classify the question.")
        .writes(Support.intent, Support.confidence)
        .tool(lookup)
        .context(C.user_only() + C.from_state("question"))
        >> Agent("answerer")
        .reads(Support.intent, Support.confidence)
        .instruct("Answer for a {user:tier?} customer.")
        .outputs("answer")
    )


@correct(where="C.template, optional reads")
def context_template_optional():
    return S.capture("question") >> Agent("writer").context(
        C.user_only() + C.template("Asked: {question}. Notes: {notes?}")
    )


@correct(where="C.from_agents")
def from_agents_real_name():
    return (
        Agent("researcher").instruct("Research.")
        >> Agent("critic").instruct("Criticise.")
        >> Agent("writer").context(C.from_agents("researcher", "critic"))
    )


@correct(where="user: key (info only)")
def user_key_read():
    return Agent("greeter").instruct("Greet {user:name}.")


@correct(where="function step (info only)")
def function_step_writes():
    return (lambda state: {"score": 1}) >> Agent("grader").instruct("Score: {score}")


@correct(where="delegates")
def coordinator_with_delegates():
    ask = C.user_only() + C.from_state("question")
    return S.capture("question") >> Agent("coordinator").instruct("Route it.").context(
        ask
    ).delegate(
        Agent("booker").instruct("Book it.").context(ask),
        Agent("helper").instruct("Help with it.").context(ask),
    )


@correct(where="Route.when, every branch writes")
def route_when_all_branches_write():
    return (
        S.set(score=3)
        >> Route("score")
        .gt(5, Agent("praiser").outputs("note"))
        .when(lambda s: s.get("score") == 3, Agent("neutral").outputs("note"))
        .otherwise(Agent("critic").outputs("note"))
        >> Agent("presenter").instruct("{note}").context(C.user_only())
    )


@correct(where="S.rename, S.pick")
def rename_then_pick():
    return (
        Agent("drafter").outputs("draft")
        >> S.rename(draft="text")
        >> S.pick("text")
        >> Agent("editor").instruct("Edit {text}.").context(C.user_only())
    )


@correct(where="tools with C.user_only")
def tools_with_own_history():
    return Agent("researcher").tool(lookup).context(C.user_only())


@correct(where="filtered with outputs")
def filtered_with_outputs():
    return (
        Agent("researcher").outputs("facts")
        >> Agent("writer").instruct("{facts}").context(C.user_only())
    ).filtered()


@correct(where="route in fan-out in loop")
def deep_nesting():
    inner = (
        Route("mood")
        .eq("happy", Agent("cheer").outputs("reply"))
        .otherwise(Agent("console").instruct("Console about {mood}.").outputs("reply"))
    )
    return (
        S.set(mood="sad")
        >> (Agent("observer").outputs("note") | inner) * 2
        >> Agent("closer").instruct("{note} {reply}").context(C.user_only())
    )


@correct(where="tap, guard")
def taps_and_guards():
    return (
        Agent("a").outputs("x")
        >> tap(lambda state: None)
        >> S.guard(lambda s: "x" in s, "x missing")
        >> Agent("b").instruct("{x}").context(C.user_only())
    )


@correct(where="drop after the last read")
def drop_after_use():
    return (
        S.capture("question")
        >> Agent("answerer").instruct("Answer.").context(C.from_state("question")).outputs("answer")
        >> S.drop("question")
        >> Agent("presenter").instruct("{answer}").context(C.user_only())
    )


# -- code the checker reads: tools, callbacks, custom agents, agent tools ----------------------
def save_findings(summary: str, tool_context) -> str:
    """Store what the research found."""
    tool_context.state["findings"] = summary
    return "saved"


def record_order(item: str, quantity: int, tool_context) -> dict:
    """Record an order line for the account the app set."""
    account = tool_context.state["account_id"]  # set before the run: a required read
    lines = tool_context.state.get("order_lines", [])
    tool_context.state["order_lines"] = [*lines, {"item": item, "quantity": quantity}]
    return {"account": account, "lines": len(lines) + 1}


def revise_draft(note: str, tool_context) -> str:
    """Apply a note to the draft the agent itself wrote in an earlier turn."""
    draft = tool_context.state["draft"]
    return f"{draft} ({note})"


def load_profile(callback_context) -> None:
    """Load the user's profile before the agent runs."""
    callback_context.state["profile"] = {"name": "Ada", "tier": "gold"}


def stamp_review(callback_context) -> None:
    """Mark the review as done after the agent ran."""
    if "review" in callback_context.state:
        callback_context.state["review_status"] = "done"


def count_model_calls(callback_context, llm_request) -> None:
    """Count the model calls (a before_model callback)."""
    calls = callback_context.state.get("model_calls", 0)
    callback_context.state["model_calls"] = calls + 1


def open_session(callback_context) -> None:
    """Set the defaults a whole pipeline relies on."""
    callback_context.state.update({"locale": "en", "units": "metric"})


def approve_when_clean(verdict: str, tool_context) -> str:
    """End the loop when the reviewer finds nothing to fix."""
    if verdict == "clean":
        tool_context.actions.escalate = True
    return verdict


def archive_everything(tool_context) -> str:
    """Archive the session (its keys are computed, so the checker cannot name them)."""
    for key, value in list(tool_context.state.to_dict().items()):
        tool_context.state[f"archived_{key}"] = value
    return "archived"


class StopWhenApproved(BaseAgent):
    """Ends the loop around it once the review says approved."""

    async def _run_async_impl(self, ctx):
        if ctx.session.state.get("review") == "approved":
            yield Event(author=self.name, actions=EventActions(escalate=True))


class TicketOpener(BaseAgent):
    """Opens a ticket and stores its id in state."""

    async def _run_async_impl(self, ctx):
        yield Event(
            author=self.name,
            actions=EventActions(state_delta={"ticket_id": "T-1", "ticket_queue": "billing"}),
        )


class Planner(BaseAgent):
    """Runs its own sub-agents: what they write cannot be read from its code."""

    async def _run_async_impl(self, ctx):
        for agent in self.sub_agents:
            async for event in agent.run_async(ctx):
                yield event


@correct(where="tool writes state, read downstream (info only)")
def tool_writes_state_read_downstream():
    return Agent("researcher").instruct("Research, then save.").tool(save_findings) >> Agent(
        "writer"
    ).instruct("Write up {findings}.")


@correct(where="tool reads keys the app sets", initial_keys=("account_id",))
def tool_reads_initial_key():
    return Agent("clerk").instruct("Take the order.").tool(record_order).outputs(
        "receipt"
    ) >> Agent("presenter").instruct("Summarise {receipt}; lines: {order_lines?}").context(
        C.user_only()
    )


@correct(where="tool reads its own agent's earlier output (info only)")
def tool_reads_own_output():
    return Agent("drafter").instruct("Draft, or revise with the tool.").tool(revise_draft).outputs(
        "draft"
    ) >> Agent("presenter").instruct("{draft}").context(C.user_only())


@correct(where="callbacks write state the agent and later steps read")
def callbacks_write_state():
    return Agent("advisor").before_agent(load_profile).before_model(count_model_calls).instruct(
        "Advise {profile}."
    ).outputs("review").after_agent(stamp_review) >> Agent("presenter").instruct(
        "{review} ({review_status?}) after {model_calls} calls"
    ).context(C.user_only())


@correct(where="FunctionTool, partial and ADK built-in tools", initial_keys=("account_id",))
def wrapped_and_builtin_tools():
    return Agent("searcher").instruct("Search, then save.").tools(
        FunctionTool(save_findings), functools.partial(record_order, quantity=1), google_search
    ) >> Agent("writer").instruct("{findings}")


@correct(where="delegate reads its coordinator's callback and tool writes")
def delegate_sees_coordinator_state():
    return (
        Agent("coordinator")
        .instruct("Route it.")
        .before_agent(load_profile)
        .tool(save_findings)
        .delegate(
            Agent("specialist").instruct("Serve {profile} using {findings}.").context(C.user_only())
        )
    )


@correct(where="agent tool reads the caller's state; its output read after (info only)")
def agent_tool_reads_caller_state():
    researcher = Agent("researcher").instruct("Research {topic}.").outputs("notes")
    return (
        S.set(topic="tides")
        >> Agent("lead").instruct("Use the researcher.").tool(researcher)
        >> Agent("writer").instruct("Write from {notes}.")
    )


@correct(where="agent tools nested two deep, one reading another's output")
def agent_tools_nested():
    fact_checker = Agent("fact_checker").instruct("Check {claims}.").outputs("checked")
    analyst = Agent("analyst").instruct("Find claims.").outputs("claims").tool(fact_checker)
    editor = AgentTool(Agent("editor").instruct("Edit using {checked}.").outputs("edited"))
    return Agent("chief").instruct("Coordinate.").tool(analyst).tool(editor).outputs(
        "report"
    ) >> Agent("presenter").instruct("{report}").context(C.user_only())


@correct(where="loop with exit_when mid-body, no maximum")
def exit_when_mid_body():
    return Loop(
        Agent("drafter").instruct("Draft.").outputs("draft"),
        exit_when(lambda s: "final" in s.get("draft", "")),
        Agent("reviser").instruct("Revise {draft}.").outputs("draft"),
    ) >> Agent("presenter").instruct("{draft}").context(C.user_only())


@correct(where="loop ended by ADK's exit_loop tool")
def loop_ended_by_exit_loop():
    return S.set(document="") >> Loop(
        Agent("critic").instruct("Criticise {document}.").outputs("critique"),
        Agent("refiner")
        .instruct("Apply {critique} to {document}, or call exit_loop.")
        .tool(exit_loop)
        .outputs("document"),
    )


@correct(where="loop ended by an escalating tool of the user's")
def loop_ended_by_escalating_tool():
    return Loop(
        Agent("reviewer").instruct("Review; call approve_when_clean.").tool(approve_when_clean)
    )


@correct(where="loop ended by a custom checker agent")
def loop_ended_by_native_checker():
    return Loop(
        Agent("reviewer").instruct("Review.").outputs("review"),
        StopWhenApproved(name="stop_when_approved"),
    ) >> Agent("presenter").instruct("{review}").context(C.user_only())


@correct(where="custom agent whose state_delta the checker reads")
def native_agent_inferred_writes():
    return Native(TicketOpener(name="ticket_opener")) >> Agent("notifier").instruct(
        "Tell the user ticket {ticket_id} is in {ticket_queue}."
    ).context(C.user_only())


@correct(where="custom agent with declarations")
def native_agent_declared():
    planner = Planner(name="planner", sub_agents=[TicketOpener(name="step_one")])
    return (
        S.set(goal="ship")
        >> Native(planner).reads("goal").writes("plan")
        >> Agent("executor").instruct("Execute {plan}.").context(C.user_only())
    )


@correct(where="composite with .writes() and a before_agent callback")
def composite_declarations_and_callbacks():
    steps = Pipeline(
        Agent("formatter").instruct("Format in {locale} with {units} units; {ledger}."),
        name="formatting",
    )
    return steps.before_agent(open_session).writes("ledger") >> Agent("closer").instruct(
        "Close in {locale}."
    )


@correct(where="opaque tool: later reads are unverified (info only)")
def opaque_tool_then_read():
    return Agent("archivist").instruct("Archive.").tool(archive_everything) >> Agent(
        "presenter"
    ).instruct("{archived_findings}")


@correct(where="remote agent between local agents, execution boundary")
def remote_agent_and_boundary():
    return (
        Agent("classifier").instruct("Classify.").outputs("intent")
        >> RemoteAgent(
            "payments",
            "http://payments:8001/.well-known/agent-card.json",
            sends=["intent"],
            receives=["refund_id"],
        )
        >> Agent("heavy").instruct("Work on {refund_id}.").outputs("result").execution_boundary()
        >> Agent("responder").instruct("Answer from {result} and {intent}.")
    )
