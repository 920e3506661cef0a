"""Cost-aware model selection: an agent picks its model per call.

`Agent(...).model_select(strategy, candidates)` puts a ModelSelectorNode on the agent's IR node
(`model_selector`); the compiler turns it into a before-model step that sets the request's model
(adk/model_selection.py); the mermaid diagram, the cost estimate and the telemetry attributes read
it from the IR. The rule that picks lives here, without ADK, so the estimate and the runtime
agree.

Strategies (each skips candidates that lack a required capability, whose `max_input_tokens` is
below the request's estimated size, or whose `condition` says no):

* `cost_optimized`: the cheapest candidate left;
* `quality_optimized`: the highest `quality_tier` left (the cheaper on a tie);
* `budget_bounded`: the highest tier whose estimated cost for this call fits the budget left in
  `state[budget_key]` (USD; `cost_attribution(budget_key=...)` spends it); when none fits,
  `fallback_model`. A state without the key is treated as an unlimited budget (the contract
  checker reports the key as read but never written).

* `adaptive`: start cheap, promote on quality feedback. Candidates are tried from the cheapest
  up: one with fewer than `min_ratings` recent ratings in its `ModelFeedback` is picked (to
  gather them), one whose recent mean rating is at least `target` is picked, one below it is
  passed over (promotion); when every candidate falls short, the highest tier. Ratings age out
  of the feedback's window, so a model passed over comes back once its recent ratings do
  (demotion to the cheaper model). With `explore` > 0, that share of calls (drawn from a
  random generator seeded with `seed`) tries the next cheaper candidate instead, so a model
  passed over keeps getting the ratings that can bring it back.

When no candidate is left, `fallback_model` is used, else the agent's own model.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import NoneType
from typing import Any, Literal

from adk_fluent.arguments import (
    checked_callable,
    checked_choice,
    checked_count,
    checked_instance,
    checked_number,
    checked_some,
    checked_text,
)
from adk_fluent.errors import BuildError, describe_value
from adk_fluent.ir.prices import ModelPrice, Prices, checked_prices
from adk_fluent.ir.state_keys import check_key

Strategy = Literal["cost_optimized", "quality_optimized", "budget_bounded", "adaptive"]
STRATEGIES: tuple[str, ...] = ("cost_optimized", "quality_optimized", "budget_bounded", "adaptive")
SELECTED_KEY = "adk_fluent.model.selected"  # a model reply's custom_metadata: the model picked
CHARS_PER_TOKEN = 4  # the request-size estimate: about four characters of text per token


@dataclass(frozen=True)
class SelectionInput:
    """What a selection sees for one call: a read-only state, the request's estimated input
    tokens and the agent's name (a candidate's `condition` receives it)."""

    state: Mapping[str, Any]
    input_tokens: int
    agent: str


@dataclass(frozen=True)
class ModelCandidate:
    """One model an agent may call: its quality tier (higher is better), its price (None: from
    the selector's price table), the largest prompt it takes, what it can do, and an optional
    `condition(SelectionInput) -> bool`."""

    model: str
    quality_tier: int = 1
    price: ModelPrice | None = None
    max_input_tokens: int | None = None
    capabilities: frozenset[str] = frozenset()
    condition: Callable[[SelectionInput], bool] | None = None

    def __post_init__(self) -> None:
        checked_text(
            self.model,
            None,
            "model",
            what="a model name",
            hint='e.g. ModelCandidate("gemini-2.5-flash", quality_tier=1).',
        )
        if isinstance(self.quality_tier, bool) or not isinstance(self.quality_tier, int):
            raise BuildError(
                f"quality_tier must be a whole number, not {describe_value(self.quality_tier)}",
                field="quality_tier",
                hint="higher tiers are better models, e.g. 1 for flash, 2 for pro.",
            )
        if self.max_input_tokens is not None:
            checked_count(
                self.max_input_tokens,
                None,
                "max_input_tokens",
                least=1,
                hint="the largest prompt (in tokens) this model should get, e.g. 1_000_000.",
            )
        capabilities = _names(self.capabilities, None, "capabilities", "{'vision', 'long_context'}")
        object.__setattr__(self, "capabilities", capabilities)
        checked_instance(
            self.price,
            None,
            "price",
            (ModelPrice, NoneType),
            what="a ModelPrice",
            hint="e.g. price=ModelPrice(input=0.30, output=2.50) (USD per million tokens).",
        )
        if self.condition is not None:
            checked_callable(
                self.condition, None, "condition", "condition=lambda s: s.input_tokens < 10_000."
            )


def _names(value: Any, agent: str | None, field: str, example: str) -> frozenset[str]:
    """Capability names: one name, or a collection of them."""
    hint = f"e.g. {field}={example}."
    if isinstance(value, str):
        value = (value,)
    names = tuple(
        checked_instance(value, agent, field, Iterable, what="capability names", hint=hint)
    )
    for name in names:
        checked_text(name, agent, field, what="capability names", hint=hint)
    return frozenset(names)


class ModelFeedback:
    """Quality ratings of the models an agent used, for the `adaptive` strategy.

    A rating is a score from 0 to 1 for one agent's calls of one model: an evaluation's score,
    a user's thumbs up (1.0) or down (0.0), a judge's grade. Only the last `window` ratings of
    each agent and model count, so a model's standing follows its recent ratings. One
    ModelFeedback is shared by the agents given it, in this process; `to_dict()` /
    `from_dict()` carry it across restarts or replicas through your own store.
    """

    def __init__(self, window: int = 50) -> None:
        self.window = checked_count(
            window, None, "window", least=1, hint="the recent ratings that count, e.g. 50."
        )
        self._ratings: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def record(self, agent: str, model: str, score: float) -> None:
        """One rating of `agent`'s calls of `model` (0 worst, 1 best)."""
        checked_text(agent, None, "agent", what="an agent's name", hint="record('writer', ...)")
        checked_text(
            model, None, "model", what="a model name", hint="record(..., 'gemini-2.5-flash', 0.9)"
        )
        value = _score(score)
        with self._lock:
            ratings = self._ratings.setdefault((agent, model), deque(maxlen=self.window))
            ratings.append(value)

    def rate(self, events: Any, score: float, *, agent: str | None = None) -> int:
        """Rate the models that answered in `events` (a run's events, or a session), for every
        agent that picked its model by a policy (or `agent` only); returns how many ratings
        were recorded. The pick is read from each reply (`.model_select()` writes it there)."""
        value = _score(score)
        picked: set[tuple[str, str]] = set()
        for event in getattr(events, "events", events):
            raw = getattr(event, "raw", event)
            model = (getattr(raw, "custom_metadata", None) or {}).get(SELECTED_KEY)
            author = getattr(raw, "author", None)
            mine = agent is None or author == agent
            if isinstance(model, str) and isinstance(author, str) and mine:
                picked.add((author, model))
        if not picked:
            raise BuildError(
                "no reply in these events names the model a policy picked"
                + (f" for agent {agent!r}" if agent else ""),
                field="events",
                hint="rate the events of a run whose agent has .model_select(...), e.g. "
                "feedback.rate(await pipeline.run(...), 1.0).",
            )
        for author, model in sorted(picked):
            self.record(author, model, value)
        return len(picked)

    def stats(self, agent: str, model: str) -> tuple[int, float | None]:
        """How many recent ratings `agent`'s calls of `model` have, and their mean."""
        with self._lock:
            ratings = tuple(self._ratings.get((agent, model), ()))
        return len(ratings), (sum(ratings) / len(ratings) if ratings else None)

    def to_dict(self) -> dict[str, Any]:
        """The ratings as JSON data (agent -> model -> recent scores)."""
        with self._lock:
            data: dict[str, dict[str, list[float]]] = {}
            for (agent, model), ratings in self._ratings.items():
                data.setdefault(agent, {})[model] = list(ratings)
        return {"window": self.window, "ratings": data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelFeedback:
        """A ModelFeedback from `to_dict()`'s data."""
        feedback = cls(window=data.get("window", 50))
        for agent, models in dict(data.get("ratings", {})).items():
            for model, scores in dict(models).items():
                for score in scores:
                    feedback.record(agent, model, score)
        return feedback

    def __repr__(self) -> str:
        return f"ModelFeedback(window={self.window}, {len(self._ratings)} agent-model pair(s))"


def _score(score: Any) -> float:
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        raise BuildError(
            f"a rating is a score from 0 to 1, not {describe_value(score)}",
            field="score",
            hint="1.0 for a good answer, 0.0 for a bad one; scale other grades (a 4 of 5 is 0.8).",
        )
    return float(score)


@dataclass(frozen=True)
class Selection:
    """The model picked for one call, and why (shown in span attributes and logs)."""

    model: str
    reason: str
    estimated_cost: float | None = None


@dataclass(frozen=True)
class ModelSelectorNode:
    """An agent's model policy, held in the IR on the agent's node (`model_selector`)."""

    name: str  # the agent it belongs to
    strategy: Strategy
    candidates: tuple[ModelCandidate, ...]
    budget_key: str | None = None
    fallback_model: str | None = None
    requires: frozenset[str] = frozenset()
    prices: Prices = field(default_factory=Prices)
    expected_output_tokens: int = 500  # for the cost of a call before it is made
    # adaptive: the ratings, the mean a model must keep, the ratings it needs before it is
    # judged, the share of calls that try a cheaper model, and that draw's seed
    feedback: ModelFeedback | None = field(default=None, compare=False)
    target: float = 0.8
    min_ratings: int = 5
    explore: float = 0.0
    seed: int | None = None

    def price_of(self, candidate: ModelCandidate) -> ModelPrice | None:
        return candidate.price or self.prices.price_of(candidate.model)

    def estimated_cost(self, candidate: ModelCandidate, input_tokens: int) -> float | None:
        """USD for one call of `candidate` with this prompt size and the expected output."""
        price = self.price_of(candidate)
        if price is None:
            return None
        return price.cost(input_tokens, self.expected_output_tokens)

    @property
    def reads_keys(self) -> frozenset[str]:
        return frozenset({self.budget_key}) if self.budget_key else frozenset()

    def describe(self) -> str:
        """One line for diagrams: 'cost_optimized: gemini-2.5-flash | gemini-2.5-pro'."""
        return f"{self.strategy}: {' | '.join(c.model for c in self.candidates)}"


def _fits(candidate: ModelCandidate, selector: ModelSelectorNode, seen: SelectionInput) -> bool:
    if not selector.requires <= candidate.capabilities:
        return False
    if candidate.max_input_tokens is not None and seen.input_tokens > candidate.max_input_tokens:
        return False
    return candidate.condition is None or bool(candidate.condition(seen))


def _budget_left(state: Mapping[str, Any], key: str) -> float | None:
    value = state.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def select_model(
    selector: ModelSelectorNode, seen: SelectionInput, default: str, draw: float | None = None
) -> Selection:
    """The model for one call (the module docstring gives the rules); `default` is the agent's
    own model, used when no candidate is left and there is no fallback; `draw` is the adaptive
    strategy's uniform random number for this call (None: no exploration)."""
    left = [c for c in selector.candidates if _fits(c, selector, seen)]

    def cost(candidate: ModelCandidate) -> float:
        value = selector.estimated_cost(candidate, seen.input_tokens)
        return float("inf") if value is None else value

    def fallback(reason: str) -> Selection:
        model = selector.fallback_model or default
        return Selection(model, reason + (" (fallback)" if selector.fallback_model else ""))

    if not left:
        return fallback("no candidate meets the requirements")
    if selector.strategy == "cost_optimized":
        best = min(left, key=lambda c: (cost(c), -c.quality_tier))
        return Selection(best.model, "cheapest candidate", cost(best))
    if selector.strategy == "adaptive":
        return _adaptive(
            selector, sorted(left, key=lambda c: (cost(c), -c.quality_tier)), seen, draw, cost
        )
    ranked = sorted(left, key=lambda c: (-c.quality_tier, cost(c)))
    if selector.strategy == "quality_optimized":
        return Selection(ranked[0].model, "highest quality tier", cost(ranked[0]))
    budget = _budget_left(seen.state, selector.budget_key or "")
    if budget is None:
        return Selection(ranked[0].model, "no budget in state: highest tier", cost(ranked[0]))
    for candidate in ranked:
        if cost(candidate) <= budget:
            return Selection(
                candidate.model, f"fits the budget left ({budget:.6f} USD)", cost(candidate)
            )
    return fallback(f"budget left ({budget:.6f} USD) too small for any candidate")


def _adaptive(
    selector: ModelSelectorNode,
    cheapest_first: list[ModelCandidate],
    seen: SelectionInput,
    draw: float | None,
    cost: Callable[[ModelCandidate], float],
) -> Selection:
    feedback = selector.feedback
    assert feedback is not None  # model_selector requires it
    chosen: ModelCandidate | None = None
    reason = ""
    for candidate in cheapest_first:
        count, mean = feedback.stats(seen.agent, candidate.model)
        if count < selector.min_ratings:
            chosen = candidate
            reason = f"gathering ratings ({count} of {selector.min_ratings})"
            break
        if mean is not None and mean >= selector.target:
            chosen = candidate
            reason = (
                f"cheapest meeting the target: mean {mean:.2f} >= {selector.target:g} over {count}"
            )
            break
    if chosen is None:
        chosen = max(cheapest_first, key=lambda c: (c.quality_tier, -cost(c)))
        reason = f"no candidate keeps a mean of {selector.target:g}: highest tier"
    place = cheapest_first.index(chosen)
    if draw is not None and draw < selector.explore and place > 0:
        chosen = cheapest_first[place - 1]
        reason = f"exploring the next cheaper model (share {selector.explore:g})"
    return Selection(chosen.model, reason, cost(chosen))


def estimate_tokens(text_chars: int) -> int:
    """Tokens in `text_chars` characters of text (the selection's and the estimate's rule)."""
    return (max(text_chars, 0) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def model_selector(
    agent: str,
    strategy: str,
    candidates: Iterable[ModelCandidate | str],
    *,
    budget_key: str | None = None,
    fallback_model: str | None = None,
    requires: Iterable[str] | str | None = (),
    prices: Any = None,
    expected_output_tokens: int = 500,
    feedback: Any = None,
    target: float = 0.8,
    min_ratings: int = 5,
    explore: float = 0.0,
    seed: int | None = None,
) -> ModelSelectorNode:
    """A checked ModelSelectorNode for `agent` (what `.model_select(...)` builds); every mistake
    is refused here, naming the agent, the field and a hint."""
    checked_choice(strategy, agent, "strategy", STRATEGIES, hint="e.g. 'cost_optimized'.")
    _check_adaptive(agent, strategy, feedback, target, min_ratings, explore, seed)
    if isinstance(candidates, ModelCandidate | str):
        candidates = [candidates]
    example = 'e.g. [ModelCandidate("gemini-2.5-flash"), "gemini-2.5-pro"].'
    checked_instance(
        candidates,
        agent,
        "candidates",
        (list, tuple),
        what="a list of ModelCandidates or model names",
        hint=example,
    )
    listed = [ModelCandidate(c) if isinstance(c, str) else c for c in candidates]
    for index, candidate in enumerate(listed):
        what = "a ModelCandidate or a model name"
        checked_instance(
            candidate, agent, f"candidates[{index}]", ModelCandidate, what=what, hint=example
        )
    checked_some(listed, agent, "candidates", shown="model_select", items="candidate", hint=example)
    names = [c.model for c in listed]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise BuildError(
            f"candidate model(s) {', '.join(duplicates)} listed twice",
            agent=agent,
            field="candidates",
            hint="list each model once; put conditions on one candidate.",
        )
    table = checked_prices(prices, agent)
    if strategy != "quality_optimized":
        unpriced = [c.model for c in listed if c.price is None and table.price_of(c.model) is None]
        if unpriced:
            raise BuildError(
                f"no price for candidate model(s) {', '.join(unpriced)}, so the "
                f"{strategy} strategy cannot compare costs",
                agent=agent,
                field="candidates",
                hint="give the candidate a price (ModelCandidate(..., price=ModelPrice(0.3, 2.5))) "
                "or pass prices={...} to model_select.",
            )
    if strategy == "budget_bounded" and not budget_key:
        raise BuildError(
            "the budget_bounded strategy needs budget_key: the state key holding the budget "
            "left (USD)",
            agent=agent,
            field="budget_key",
            hint="e.g. .model_select('budget_bounded', [...], budget_key='budget_usd'), spent by "
            "cost_attribution(budget_key='budget_usd').",
        )
    if budget_key is not None:  # a state key like any other (the S steps' rules)
        check_key(
            budget_key,
            "model_select(budget_key=)",
            agent=agent,
            field="budget_key",
            hint="name the state key holding the budget left in USD, e.g. budget_key='budget_usd'.",
        )
    if fallback_model is not None:
        checked_text(
            fallback_model,
            agent,
            "fallback_model",
            what="a model name",
            hint="e.g. fallback_model='gemini-2.5-flash-lite'.",
        )
    required = _names(() if requires is None else requires, agent, "requires", "{'vision'}")
    checked_count(
        expected_output_tokens,
        agent,
        "expected_output_tokens",
        least=0,
        hint="the output a call is expected to produce, for comparing costs, e.g. 500.",
    )
    if required and not any(required <= c.capabilities for c in listed):
        raise BuildError(
            f"no candidate has every required capability ({', '.join(sorted(required))})",
            agent=agent,
            field="requires",
            hint="add the capability to a candidate: ModelCandidate(..., capabilities={'vision'}).",
        )
    return ModelSelectorNode(
        name=agent,
        strategy=strategy,  # type: ignore[arg-type]
        candidates=tuple(listed),
        budget_key=budget_key,
        fallback_model=fallback_model,
        requires=required,
        prices=table,
        expected_output_tokens=expected_output_tokens,
        feedback=feedback,
        target=float(target),
        min_ratings=min_ratings,
        explore=float(explore),
        seed=seed,
    )


def _check_adaptive(
    agent: str, strategy: str, feedback: Any, target: Any, min_ratings: Any, explore: Any, seed: Any
) -> None:
    """The adaptive strategy's settings: its feedback is required, and given only with it."""
    if strategy != "adaptive":
        given = [
            name
            for name, value, default in (
                ("feedback", feedback, None),
                ("target", target, 0.8),
                ("min_ratings", min_ratings, 5),
                ("explore", explore, 0.0),
                ("seed", seed, None),
            )
            if value != default or (default is None and value is not None)
        ]
        if given:
            raise BuildError(
                f"{given[0]}= is a setting of the adaptive strategy, not of {strategy}",
                agent=agent,
                field=given[0],
                hint="use .model_select('adaptive', [...], feedback=ModelFeedback()), or drop it.",
            )
        return
    checked_instance(
        feedback,
        agent,
        "feedback",
        ModelFeedback,
        what="a ModelFeedback (the ratings the strategy adapts to)",
        hint="feedback = ModelFeedback(); .model_select('adaptive', [...], feedback=feedback), "
        "then feedback.rate(events, 1.0) or feedback.record(agent, model, 0.4).",
    )
    checked_number(
        target,
        agent,
        "target",
        positive=True,
        what="a mean rating from 0 to 1",
        most=1,
        hint="target=0.8: a model is kept while its recent ratings average 0.8 or more.",
    )
    checked_count(min_ratings, agent, "min_ratings", least=1, hint="min_ratings=5")
    checked_number(
        explore,
        agent,
        "explore",
        positive=False,
        what="the share of calls that try a cheaper model",
        most=0.5,
        hint="explore=0.05 tries the next cheaper model on one call in twenty.",
    )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise BuildError(
            f"seed must be a whole number, not {describe_value(seed)}",
            agent=agent,
            field="seed",
            hint="seed=7 makes the exploration draws repeat from run to run.",
        )
