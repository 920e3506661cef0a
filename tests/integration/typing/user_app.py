"""A user's module, as someone who installed adk-fluent writes it: a support pipeline, its state
schema, and offline tests of it. tests/integration/typing/test_user_code_types.py copies it out of
the checkout, runs `mypy --strict` on it against the installed package, and runs it.

It is typed the way `mypy --strict` asks (every function annotated, no implicit Any) and uses
each public building block once: builders and their setters, the operators, S, C, Route, Loop,
until, map_over, gate, tap, agent tools, presets, the @agent decorator, a StateSchema,
ExecutionConfig, the test doubles, run / ask / stream, check_contracts, build and to_app.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from adk_fluent import (
    Agent,
    AgentEvent,
    AgentTool,
    C,
    ContractError,
    ContractReport,
    ExecutionConfig,
    FanOut,
    Loop,
    Pipeline,
    Preset,
    ReadOnlyState,
    Route,
    S,
    StateSchema,
    UserScoped,
    agent,
    check_contracts,
    final_text,
    gate,
    map_over,
    tap,
    until,
)
from adk_fluent.testing import AgentHarness, MockBackend, ScriptedModel, mock_backend


class Support(StateSchema):
    """The keys the pipeline keeps in session state."""

    intent: str
    draft: str
    verdict: str
    tier: Annotated[str, UserScoped] = "free"


def lookup_order(order_id: str) -> dict[str, str]:
    """Look an order up by its id."""
    return {"order_id": order_id, "status": "shipped"}


def log_keys(state: ReadOnlyState) -> None:
    """A tap: sees the state, changes nothing."""
    print("state keys:", sorted(state))


def approved(state: ReadOnlyState) -> bool:
    """The loop's exit: the critic said ok."""
    return bool(state.get("verdict") == "ok")


polite = Preset(model="gemini-2.5-flash", description="Answers customers politely.")


@agent(use=polite)
def greeter() -> None:
    """Greet the customer in one sentence."""


classifier: Agent = (
    Agent("classifier")
    .use(polite)
    .instruct("Classify the request as 'billing' or 'shipping'. Answer with one word.")
    .outputs("intent")
    .context(C.user_only())
    .writes(Support.intent)
)
billing = (
    Agent("billing")
    .instruct("Answer the billing question about order {intent}.")
    .tool(lookup_order)
    .context(C.from_state("intent") + C.last_n_turns(2))
)
shipping = (
    Agent("shipping")
    .instruct("Answer the shipping question.")
    .description("Answers shipping questions.")
    .include_contents("none")
)
router: Route = Route("intent").eq("billing", billing).otherwise(shipping)

writer = Agent("writer").instruct("Draft a reply.").outputs("draft")
critic = Agent("critic").instruct("Answer 'ok' if the draft is good.").outputs("verdict")
review: Loop = (writer >> critic) * until(approved, max=3)

researcher = Agent("researcher").instruct("Find the order's history.")
helper = Agent("helper").instruct("Use the researcher when needed.").tool(AgentTool(researcher))
checks: FanOut = (
    Agent("tone").instruct("Check the tone.") | Agent("facts").instruct("Check.")
).merge("dict", into="checks")
fallback = Agent("fast").instruct("Answer.") // Agent("slow").instruct("Answer carefully.")
summaries = map_over("items", Agent("summariser").instruct("Summarise {item}."), output_key="sums")

pipeline: Pipeline = (
    S.set(items=["a", "b"])
    >> greeter
    >> classifier
    >> router
    >> tap(log_keys)
    >> review
    >> gate(lambda state: not approved(state), "Send the reply anyway?")
    >> S.pick("draft", "intent", "items")
)

config = ExecutionConfig(app_name="support", max_llm_calls=20)


def scripted() -> MockBackend:
    """Scripted answers for each agent of the pipeline (no model is called)."""
    return mock_backend(
        {
            "greeter": "Hello!",
            "classifier": "billing",
            "billing": "Your order has shipped.",
            "writer": "Dear customer, it has shipped.",
            "critic": "ok",
        }
    )


async def main() -> str:
    """Check the pipeline, run it three ways, and return the answer `ask` gives."""
    report: ContractReport = check_contracts(pipeline)
    assert not report.by_severity("error"), list(report)
    try:
        pipeline.strict().build(backend=scripted())
    except ContractError as error:
        print("\n".join(issue.to_text() for issue in error.report))
        raise

    events: list[AgentEvent] = await pipeline.run("Where is my order?", backend=scripted())
    first = final_text(events)

    backend = scripted()
    answer: str = await pipeline.ask("Where is my order?", backend=backend)
    backend.assert_consumed()

    seen: list[str] = []
    async for event in pipeline.stream("Where is my order?", backend=scripted()):
        seen.append(event.author)

    harness = AgentHarness(pipeline, backend=scripted())
    reply = await harness.send("Where is my order?")
    state = await harness.state()
    assert not reply.errors and state["draft"].startswith("Dear"), (reply.errors, state)

    Agent("solo", ScriptedModel(["hi"])).build()
    app = pipeline.to_app(config, backend=scripted())
    print(first, seen[-1], app.name, helper, checks, fallback, summaries)
    return answer


if __name__ == "__main__":
    print("answer:", asyncio.run(main()))
