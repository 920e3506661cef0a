"""Cost estimate without running: expected model calls, tokens and USD per LLM
agent of a tree, from its IR and a set of traffic assumptions.

    model = estimate_cost(pipeline, TrafficAssumptions(invocations=10_000,
                          branch_probabilities={"billing": 0.6, "technical": 0.3}))
    print(model.table())

How the tree is walked (each node's expected runs per invocation; the root runs once):

* a sequence, a parallel fan-out and a timeout run each child once per run of themselves;
* a Route runs each branch with its probability: `branch_probabilities` keys a branch by its
  child's name, by an `eq` rule's value ("billing") or, for one route only, "route/key"; the
  branches not listed share what is left equally (a route whose listed branches sum above 1 is
  refused);
* a loop runs its body `loop_iterations[loop]` times, else its `max_iterations` (an upper
  bound when it can stop early); its exit check (until / exit_when) costs nothing;
* a map_over runs its body `items[map]` times (required: the list's length is not in the tree);
* a fallback (`a // b`) runs each later child with the probability that every earlier one
  failed (`failure_rates`, default 0); a failed child is counted in full;
* a race, and a FanOut with `.first_complete()`, run every child in full: the others are
  cancelled part way, so this is an upper bound (a FanOut's `.merge()` calls no model);
* a chunked edge (`a.then(b, edge="chunked")`) runs its producer once and its consumer once
  per chunk: `chunks[edge]` times, else the producer's output tokens per run divided by the
  tokens of one chunk (about 25 for a sentence, 15 for a line, 120 for a paragraph, n/4 for n
  characters), at least once;
* a gate, a state step (S.*), a tap and a loop check cost nothing; a gate is assumed approved;
* an LLM agent makes `calls[agent]` model calls per run (default 1; an agent that calls a tool
  makes at least 2), each of `tokens[agent]` (else the average) tokens, priced for its model:
  its model string, else `default_model`; an agent with `.model_select(...)` is priced with the
  model the selection picks under the assumptions (`initial_state`, its input tokens);
* an LLM agent's delegates (transfer targets) are treated like a route's branches: one of them
  per run, shared equally unless `branch_probabilities` names them;
* an agent used as a tool runs `tool_calls[tool]` times per run of the agent that calls it
  (default 1);
* a native custom agent counts each LLM agent inside it (`llm_agents`) as an agent run once per
  run of it, priced with `default_model` (its own model objects are not read).

Every figure is an expected value (a float): probabilities make fractional calls. A model
without a price costs 0 and is listed in `CostModel.unpriced`, never silently dropped. Names in
the assumptions that the tree does not have are refused with a did-you-mean: a typo would
otherwise give a wrong estimate without a word.
"""

from adk_fluent.analysis.cost.assumptions import DEFAULT_ESTIMATE_MODEL, TrafficAssumptions
from adk_fluent.analysis.cost.estimate import estimate_cost
from adk_fluent.analysis.cost.report import CostModel, NodeCost

__all__ = [
    "DEFAULT_ESTIMATE_MODEL",
    "CostModel",
    "NodeCost",
    "TrafficAssumptions",
    "estimate_cost",
]
