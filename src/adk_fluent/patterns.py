"""Pre-built patterns: functions that return an ordinary expression of the shape many pipelines
share, with its state keys wired (docs/patterns.md).

    from adk_fluent.patterns import classifier_router
    desk = classifier_router(classify, {"billing": billing, "tech": tech}, otherwise=general)

Each returns what you would have written with the operators (`>>`, `|`, `//`, Route, gate,
map_over, loop_until), so the result is inspected (`to_mermaid()`), changed (`>> more`,
`.named(...)`) and checked (`check_contracts`) like any other; the arguments are checked when
the pattern is made, naming the pattern, the argument and a fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from adk_fluent.api.agent import Agent
from adk_fluent.api.control import gate, loop_until, map_over
from adk_fluent.api.expression import Fallback, FanOut, Pipeline
from adk_fluent.api.route import Route
from adk_fluent.arguments import checked_count, checked_function, checked_instance, checked_text
from adk_fluent.errors import BuildError, describe_value

__all__ = [
    "classifier_router",
    "draft_review",
    "escalate_to_human",
    "fallback_chain",
    "fan_out_synthesise",
    "map_reduce",
]


def classifier_router(
    classifier: Agent,
    routes: Mapping[str, Any],
    *,
    key: str = "intent",
    otherwise: Any = None,
    name: str | None = None,
) -> Pipeline:
    """`classifier.outputs(key) >> Route(key).eq(label, branch)... .otherwise(otherwise)`.

    The classifier's reply (a label) is stored in state[key] and picks the branch whose label it
    equals; `otherwise` runs for any other label (without it, no branch runs for one). Say the
    labels in the classifier's instruction: the pattern does not change what it is told.
    """
    where = "classifier_router()"
    _check_agent(
        classifier, where, "classifier", "Agent('classify').instruct('Answer billing or tech.')"
    )
    checked_text(key, None, "key", what="a state key", hint="key='intent'", where=where)
    written = classifier._fields.get("output_key")
    if written is not None and written != key:
        raise BuildError(
            f"the classifier already stores its reply in {written!r}, but the route reads {key!r}",
            agent=classifier._name,
            field="key",
            hint=f"classifier_router(..., key={written!r}), or drop the classifier's .outputs().",
        )
    if not isinstance(routes, Mapping) or not routes:
        raise BuildError(
            "routes must be a non-empty mapping of label to step, got "
            + ("an empty one" if isinstance(routes, Mapping) else describe_value(routes)),
            where=where,
            field="routes",
            hint="classifier_router(classify, {'billing': billing_agent, 'tech': tech_agent}).",
        )
    route = Route(key)
    for label, branch in routes.items():
        checked_text(
            label,
            None,
            "routes",
            what="a label (the classifier's reply)",
            hint="{'billing': billing_agent}",
            where=where,
        )
        route = route.eq(label, branch)
    if otherwise is not None:
        route = route.otherwise(otherwise)
    return Pipeline(classifier.outputs(key), route, name=name)


def draft_review(
    writer: Agent,
    reviewer: Agent,
    *,
    approved: str | Callable[[Any], bool] = "APPROVED",
    draft_key: str = "draft",
    review_key: str = "review",
    max_rounds: int = 3,
    name: str | None = None,
) -> Any:
    """`loop_until(approved, writer.outputs(draft_key) >> reviewer.outputs(review_key))`, at most
    `max_rounds` rounds.

    `approved` is a word the review starts with (case and surrounding space ignored) or a
    predicate of the state. The writer reads the last review as `{review?}` (optional: there is
    none in the first round) and the reviewer reads `{draft}`; put them in their instructions.
    The last draft is in state[draft_key] whether or not it was approved.
    """
    where = "draft_review()"
    _check_agent(writer, where, "writer", "Agent('writer').instruct('Write... {review?}')")
    _check_agent(reviewer, where, "reviewer", "Agent('reviewer').instruct('Review {draft}...')")
    checked_text(
        draft_key, None, "draft_key", what="a state key", hint="draft_key='draft'", where=where
    )
    checked_text(
        review_key, None, "review_key", what="a state key", hint="review_key='review'", where=where
    )
    if draft_key == review_key:
        raise BuildError(
            f"draft_key and review_key are both {draft_key!r}: the review would overwrite the draft",
            where=where,
            field="review_key",
            hint="give each its own key: draft_key='draft', review_key='review'.",
        )
    checked_count(max_rounds, None, "max_rounds", least=1, hint="max_rounds=3", where=where)
    if isinstance(approved, str):
        checked_text(
            approved, None, "approved", what="a word", hint="approved='APPROVED'", where=where
        )
        word = approved.strip().casefold()

        def done(state: Any) -> bool:
            return str(state.get(review_key) or "").strip().casefold().startswith(word)

        predicate: Callable[[Any], bool] = done
    else:
        checked_function(
            approved,
            None,
            "approved",
            takes=1,
            what="draft_review(approved=...)",
            hint="approved=lambda state: state['score'] >= 8",
        )
        predicate = approved
    body = writer.outputs(draft_key) >> reviewer.outputs(review_key)
    loop = loop_until(predicate, body, max_iterations=max_rounds)
    return loop.named(name) if name is not None else loop


def map_reduce(
    mapper: Any,
    reducer: Any,
    *,
    items_key: str,
    item_key: str = "item",
    results_key: str = "results",
    concurrency: int = 1,
    name: str | None = None,
) -> Pipeline:
    """`map_over(items_key, mapper, item_key=..., output_key=results_key) >> reducer`.

    The mapper runs once per item of the list in state[items_key] and reads it as `{item}`; the
    reducer reads every result as `{results}` (a list, in item order). `concurrency=n` runs up
    to n items at once, each on its own copy of the session.
    """
    where = "map_reduce()"
    checked_text(
        items_key,
        None,
        "items_key",
        what="the state key of the list",
        hint="items_key='documents'",
        where=where,
    )
    mapped = map_over(
        items_key,
        mapper,
        item_key=item_key,
        output_key=results_key,
        concurrency=concurrency,
    )
    return Pipeline(mapped, reducer, name=name)


def fan_out_synthesise(*branches: Any, synthesiser: Any, name: str | None = None) -> Pipeline:
    """`(branch_1 | branch_2 | ...) >> synthesiser`: the branches run side by side, then one
    step combines what they stored. Give each branch its own `.outputs(key)` and have the
    synthesiser read them (`check_contracts` reports a key read that no branch writes)."""
    where = "fan_out_synthesise()"
    if len(branches) < 2:
        raise BuildError(
            f"fan_out_synthesise needs at least two branches, got {len(branches)}",
            where=where,
            field="branches",
            hint="fan_out_synthesise(Agent('web').outputs('web'), Agent('docs').outputs('docs'), "
            "synthesiser=Agent('writer').instruct('Combine {web} and {docs}.')).",
        )
    return Pipeline(FanOut(*branches), synthesiser, name=name)


def escalate_to_human(
    step: Any,
    when: Callable[[Any], bool],
    message: str = "A person needs to approve this before it goes on.",
    *,
    then: Any = None,
    gate_name: str = "escalation",
    name: str | None = None,
) -> Pipeline:
    """`step >> gate(when, message) [>> then]`: after `step`, a person approves or rejects
    whenever `when(state)` holds; otherwise the run goes straight on. The pause survives
    restarts and the next turn's 'approve' continues after the gate (see `gate`)."""
    checked_function(
        when,
        None,
        "when",
        takes=1,
        what="escalate_to_human(when=...)",
        hint="when=lambda state: float(state['amount']) > 100",
    )
    steps = [step, gate(when, message, name=gate_name)]
    if then is not None:
        steps.append(then)
    return Pipeline(*steps, name=name)


def fallback_chain(*steps: Any, name: str | None = None) -> Fallback:
    """`first // second // ...`: each step runs only when the one before it raised (a model
    that is down, a tool that fails); the last one's error is raised if every step fails."""
    if len(steps) < 2:
        raise BuildError(
            f"fallback_chain needs at least two steps, got {len(steps)}",
            where="fallback_chain()",
            field="steps",
            hint="fallback_chain(Agent('a', 'gemini-2.5-pro'), Agent('b', 'gemini-2.5-flash')).",
        )
    return Fallback(*steps, name=name)


def _check_agent(value: Any, where: str, field: str, example: str) -> None:
    checked_instance(
        value,
        None,
        field,
        Agent,
        what="an Agent builder (its reply is stored in state)",
        hint=f"{field}={example}",
        where=where,
    )
