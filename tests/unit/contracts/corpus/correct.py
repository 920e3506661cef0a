"""Correct pipelines: every node kind used properly. They must produce no error and no warning
(advice at info level, such as channel duplication, is allowed)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel

from adk_fluent import (
    Agent,
    C,
    Route,
    S,
    StateSchema,
    Temp,
    UserScoped,
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
