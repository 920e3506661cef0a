"""Contract checking on a support pipeline: `pipeline` is sound, `broken` has the usual mistakes.

    adk-fluent check examples.contracts_example:pipeline            # exit 0
    adk-fluent check examples.contracts_example:broken              # exit 1, every mistake named
    adk-fluent check examples.contracts_example:pipeline --schema examples.contracts_example:SupportState
    adk-fluent visualize examples.contracts_example:pipeline        # mermaid
    python examples/contracts_example.py                            # both reports

Nothing here calls a model: checking reads the pipeline's structure only.
"""

from typing import Annotated

from adk_fluent import Agent, C, Route, S, StateSchema, UserScoped, check_contracts, map_over


class SupportState(StateSchema):
    """Every state key the pipeline uses, with its type and scope."""

    question: str
    intent: str
    ticket_id: str
    articles: list
    article: str
    summary: str
    summaries: list
    answer: str
    user_tier: Annotated[str, UserScoped]


def open_ticket(summary: str, tool_context) -> dict:  # noqa: ANN001 - ADK passes its ToolContext
    """Open a support ticket; records its id in state through the typed schema."""
    state = SupportState.bind(tool_context)
    state.ticket_id = f"T-{sum(map(ord, summary)) % 10_000:04d}"
    return {"ticket": state.ticket_id}


classifier = (
    Agent("classifier")
    .instruct("Classify the question as billing, bug or other. Answer with one word.")
    .outputs("intent")
)
ticketer = (
    Agent("ticketer")
    .instruct("Open a ticket for this {intent} question with the open_ticket tool.")
    .tool(open_ticket)
    .writes(SupportState.ticket_id)
    .context(C.user_only())
)
confirmer = Agent("confirmer").instruct(
    "Tell the user (a {user:user_tier?} customer) that ticket {ticket_id} is open."
)
summariser = (
    Agent("summariser")
    .instruct("Summarise this help article in one line: {article}")
    .outputs("summary")
    .context(C.none())
)
answerer = (
    Agent("answerer")
    .instruct("Answer the question using these article summaries: {summaries}")
    .context(C.user_only() + C.from_state("question"))
    .outputs("answer")
)

pipeline = (
    S.capture("question")
    >> classifier
    >> Route("intent")
    .eq("billing", ticketer >> confirmer)
    .otherwise(
        S.set(articles=["Resetting a password", "Changing your plan"])
        >> map_over("articles", summariser, item_key="article", output_key="summaries")
        >> answerer
    )
)

# The same shape with three mistakes the checker reports before any model call.
broken = (
    S.capture("question")
    >> classifier
    >> Route("intnet")  # misspelt key
    .eq("billing", ticketer >> confirmer)
    .otherwise(
        map_over("articles", summariser, item_key="article", output_key="summaries")  # no list
        >> answerer.instruct("Answer using {summaries} and {ticket_id}.")  # not on this branch
    )
)


if __name__ == "__main__":
    for name, value in (("pipeline", pipeline), ("broken", broken)):
        print(f"== {name} " + "=" * 60)
        print(check_contracts(value, SupportState).to_text())
