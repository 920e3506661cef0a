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

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, cast, overload

from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.model_selection import ModelSelectorNode, SelectionInput, select_model
from adk_fluent.ir.names import below_root
from adk_fluent.ir.nodes import (
    BoundaryNode,
    ChunkedEdgeNode,
    FallbackNode,
    GateNode,
    LlmAgentNode,
    LoopAgentNode,
    MapOverNode,
    NativeAgentNode,
    Node,
    NodeVisitor,
    ParallelAgentNode,
    RaceNode,
    RemoteAgentNode,
    RouteNode,
    SequentialAgentNode,
    TapNode,
    TimeoutNode,
    TransformNode,
    UntilNode,
)
from adk_fluent.ir.prices import ModelPrice, Prices, checked_prices

__all__ = [
    "DEFAULT_ESTIMATE_MODEL",
    "CostModel",
    "NodeCost",
    "TrafficAssumptions",
    "estimate_cost",
]

DEFAULT_ESTIMATE_MODEL = "gemini-2.5-flash"  # for agents that name no model
_TOLERANCE = 1e-9  # probabilities that add up to 1 in floating point may exceed it slightly

# the per-name maps of the assumptions, with what each is keyed by (for messages)
_NAMED_MAPS: dict[str, str] = {
    "tokens": "LLM agent",
    "calls": "LLM agent",
    "branch_probabilities": "route branch",
    "loop_iterations": "loop",
    "items": "map_over",
    "failure_rates": "fallback child",
    "tool_calls": "agent tool",
    "chunks": "chunked edge",
}
_EXAMPLES: dict[str, str] = {
    "invocations": "invocations=10_000 (runs to price, e.g. a day's)",
    "avg_input_tokens": "avg_input_tokens=500 (prompt tokens per model call)",
    "avg_output_tokens": "avg_output_tokens=200 (reply tokens per model call)",
    "tokens": "tokens={'writer': (1200, 400)} (input, output tokens per call)",
    "calls": "calls={'booker': 2} (a tool call takes two model calls)",
    "branch_probabilities": "branch_probabilities={'billing': 0.6, 'technical': 0.3}",
    "loop_iterations": "loop_iterations={'refine': 2.5}",
    "items": "items={'map_docs': 12}",
    "failure_rates": "failure_rates={'primary': 0.05}",
    "tool_calls": "tool_calls={'researcher': 1.5}",
    "chunks": "chunks={'chunked__writer__speaker': 8} (consumer runs per producer run)",
}
# tokens of one chunk, by what a chunked edge cuts at (a number n of characters: n / 4)
_TOKENS_PER_CHUNK = {"sentence": 25.0, "line": 15.0, "paragraph": 120.0}


# -- the assumptions ----------------------------------------------------------------------------
def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _count(
    value: Any, field_name: str, key: str | None = None, *, at_most: float | None = None
) -> float:
    """A non-negative finite number (or a probability when at_most=1), else a BuildError."""
    shown = f"{field_name}[{key!r}]" if key is not None else field_name
    what = "a probability between 0 and 1" if at_most == 1 else "a number, 0 or more"
    if not _is_number(value) or value < 0 or (at_most is not None and value > at_most):
        raise BuildError(
            f"{shown} must be {what}, not {describe_value(value)}",
            agent=_agent_label(field_name, key),
            field=field_name,
            hint=f"e.g. {_EXAMPLES[field_name]}.",
        )
    return cast(float, value)


def _agent_label(field_name: str, key: str | None) -> str | None:
    """The name a message is about: a branch key may be a route value, not a step's name."""
    return None if field_name == "branch_probabilities" else key


def _named(
    value: Any, field_name: str, *, pair: bool = False, at_most: float | None = None
) -> Mapping[str, Any]:
    """A read-only copy of a name -> number map (name -> (input, output) when pair)."""
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, Mapping):
        raise BuildError(
            f"{field_name} must be a dict keyed by {_NAMED_MAPS[field_name]} name, not "
            f"{describe_value(value)}",
            field=field_name,
            hint=f"e.g. {_EXAMPLES[field_name]}.",
        )
    checked: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise BuildError(
                f"{field_name} is keyed by {_NAMED_MAPS[field_name]} name, not "
                f"{describe_value(key)}",
                field=field_name,
                hint=f"e.g. {_EXAMPLES[field_name]}.",
            )
        if pair:
            if not isinstance(item, tuple | list) or len(item) != 2:
                raise BuildError(
                    f"{field_name}[{key!r}] must be an (input, output) pair of tokens per "
                    f"call, not {describe_value(item)}",
                    agent=_agent_label(field_name, key),
                    field=field_name,
                    hint=f"e.g. {_EXAMPLES[field_name]}.",
                )
            checked[key] = (_count(item[0], field_name, key), _count(item[1], field_name, key))
        else:
            checked[key] = _count(item, field_name, key, at_most=at_most)
    return MappingProxyType(checked)


@dataclass(frozen=True, init=False)
class TrafficAssumptions:
    """What the estimate assumes about traffic; every field is checked when it is made.

    `invocations`: runs to price (e.g. per day); `avg_input_tokens` / `avg_output_tokens`: per
    model call; `tokens`: {agent: (input, output)} per call, for some agents; `calls`: {agent:
    model calls per run of it} (default 1); `branch_probabilities`: {branch: p} for routes
    and delegates; `loop_iterations`: {loop: expected iterations} (default its max_iterations);
    `items`: {map_over: expected items} (required for each map_over); `failure_rates`:
    {fallback child: p}; `tool_calls`: {agent tool: calls per run of its caller} (default 1);
    `chunks`: {chunked edge: consumer runs per producer run} (default: from the producer's
    output tokens);
    `default_model`: for agents without a model name; `prices`: a Prices table or a dict added
    to the defaults; `initial_state`: the state a model selection sees."""

    invocations: float = 1
    avg_input_tokens: float = 500
    avg_output_tokens: float = 200
    tokens: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    calls: Mapping[str, float] = field(default_factory=dict)
    branch_probabilities: Mapping[str, float] = field(default_factory=dict)
    loop_iterations: Mapping[str, float] = field(default_factory=dict)
    items: Mapping[str, float] = field(default_factory=dict)
    failure_rates: Mapping[str, float] = field(default_factory=dict)
    tool_calls: Mapping[str, float] = field(default_factory=dict)
    chunks: Mapping[str, float] = field(default_factory=dict)
    default_model: str = DEFAULT_ESTIMATE_MODEL
    prices: Prices = field(default_factory=Prices)
    initial_state: Mapping[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        *,
        invocations: float = 1,
        avg_input_tokens: float = 500,
        avg_output_tokens: float = 200,
        tokens: Mapping[str, tuple[float, float]] | None = None,
        calls: Mapping[str, float] | None = None,
        branch_probabilities: Mapping[str, float] | None = None,
        loop_iterations: Mapping[str, float] | None = None,
        items: Mapping[str, float] | None = None,
        failure_rates: Mapping[str, float] | None = None,
        tool_calls: Mapping[str, float] | None = None,
        chunks: Mapping[str, float] | None = None,
        default_model: str = DEFAULT_ESTIMATE_MODEL,
        prices: Prices | Mapping[str, Any] | None = None,
        initial_state: Mapping[str, Any] | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:  # a dataclass would raise a bare TypeError for a misspelt field
            name = sorted(unknown)[0]
            fields = [f for f in self.__dataclass_fields__ if not f.startswith("_")]
            raise BuildError(
                f"TrafficAssumptions has no field {name!r}",
                field=name,
                hint=did_you_mean(name, fields) or f"its fields are {', '.join(fields)}.",
            )
        values: dict[str, Any] = {
            "invocations": _count(invocations, "invocations"),
            "avg_input_tokens": _count(avg_input_tokens, "avg_input_tokens"),
            "avg_output_tokens": _count(avg_output_tokens, "avg_output_tokens"),
            "tokens": _named(tokens, "tokens", pair=True),
            "calls": _named(calls, "calls"),
            "branch_probabilities": _named(branch_probabilities, "branch_probabilities", at_most=1),
            "loop_iterations": _named(loop_iterations, "loop_iterations"),
            "items": _named(items, "items"),
            "failure_rates": _named(failure_rates, "failure_rates", at_most=1),
            "tool_calls": _named(tool_calls, "tool_calls"),
            "chunks": _named(chunks, "chunks"),
        }
        if not isinstance(default_model, str) or not default_model.strip():
            raise BuildError(
                f"default_model must be a model name, not {describe_value(default_model)}",
                field="default_model",
                hint="the model of agents that name none, e.g. default_model='gemini-2.5-flash'.",
            )
        values["default_model"] = default_model
        if prices is not None and not isinstance(prices, Prices | Mapping):
            raise BuildError(
                f"prices must be a Prices table or a dict of model name -> ModelPrice, not "
                f"{describe_value(prices)}",
                field="prices",
                hint='e.g. prices={"my-model": ModelPrice(input=0.30, output=2.50)} (USD per '
                "million tokens), added to the default table.",
            )
        values["prices"] = checked_prices(prices, "TrafficAssumptions")
        if initial_state is not None and not isinstance(initial_state, Mapping):
            raise BuildError(
                f"initial_state must be a dict of state values, not {describe_value(initial_state)}",
                field="initial_state",
                hint="the state a model selection sees, e.g. initial_state={'budget_usd': 0.5}.",
            )
        values["initial_state"] = MappingProxyType(dict(initial_state or {}))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def tokens_of(self, agent: str) -> tuple[float, float]:
        """(input, output) tokens per model call of `agent`."""
        return self.tokens.get(agent, (self.avg_input_tokens, self.avg_output_tokens))


# -- the result ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class NodeCost:
    """One LLM agent's expected share of one invocation: `expected_calls` (its runs x its calls
    per run), the tokens of those calls, and their cost in USD (0 when `priced` is False: its
    model has no price)."""

    path: str
    agent: str
    model: str
    expected_calls: float
    input_tokens: float
    output_tokens: float
    cost_usd: float
    priced: bool


@dataclass(frozen=True)
class CostModel:
    """An estimate: per LLM agent (`nodes`, in tree order) and in all. `per_invocation` is USD
    for one run, `total_estimated` for `invocations` runs; `unpriced` lists the models without
    a price (counted as 0); `notes` say what the estimate assumed where the tree left it open."""

    nodes: tuple[NodeCost, ...]
    invocations: float
    per_invocation: float
    total_estimated: float
    unpriced: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def expected_calls(self) -> float:
        """Model calls in one invocation."""
        return sum(node.expected_calls for node in self.nodes)

    def node(self, agent_or_path: str) -> NodeCost:
        """The cost of one agent, by name or path."""
        for node in self.nodes:
            if agent_or_path in (node.agent, node.path):
                return node
        known = [n.agent for n in self.nodes] + [n.path for n in self.nodes]
        raise BuildError(
            f"the estimate has no LLM agent {agent_or_path!r}",
            agent=agent_or_path,
            field="agent_or_path",
            hint=did_you_mean(agent_or_path, known)
            or f"its agents: {', '.join(n.agent for n in self.nodes) or 'none'}.",
        )

    def table(self) -> str:
        """A text table: per agent its model, calls, tokens and USD per run and in total."""
        root, paths = below_root([node.path for node in self.nodes])
        title = f"agent in {root}" if root else "agent"
        header = (title, "model", "calls", "input tok", "output tok", "USD/run", "USD total")
        per_run = _usd_column([n.cost_usd for n in self.nodes] + [self.per_invocation])
        total = _usd_column(
            [n.cost_usd * self.invocations for n in self.nodes] + [self.total_estimated]
        )
        rows = [
            (
                paths[i],
                node.model,
                f"{node.expected_calls:,.2f}",
                f"{node.input_tokens:,.0f}",
                f"{node.output_tokens:,.0f}",
                per_run[i] if node.priced else "no price",
                total[i] if node.priced else "no price",
            )
            for i, node in enumerate(self.nodes)
        ]
        totals = (
            "total",
            "",
            f"{self.expected_calls:,.2f}",
            f"{sum(n.input_tokens for n in self.nodes):,.0f}",
            f"{sum(n.output_tokens for n in self.nodes):,.0f}",
            per_run[-1],
            total[-1],
        )
        widths = [max(len(row[i]) for row in (header, *rows, totals)) for i in range(len(header))]

        def line(row: tuple[str, ...]) -> str:
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
            cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:], strict=True)]
            return "  ".join(cells).rstrip()

        rule = "  ".join("-" * width for width in widths)
        out = [f"Estimated cost of {self.invocations:,g} invocation(s)", line(header), rule]
        out += [line(row) for row in rows]
        out += [rule, line(totals)]
        if self.unpriced:
            out.append(f"unpriced models (counted as 0 USD): {', '.join(self.unpriced)}")
        out += [f"note: {note}" for note in self.notes]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """The estimate as JSON-able data (`CostModel.from_dict` reads it back)."""
        return {
            "invocations": self.invocations,
            "per_invocation": self.per_invocation,
            "total_estimated": self.total_estimated,
            "unpriced": list(self.unpriced),
            "notes": list(self.notes),
            "nodes": [asdict(node) for node in self.nodes],
        }

    def to_json(self) -> str:
        """`to_dict()` as JSON text."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CostModel:
        """The estimate `to_dict()` wrote."""
        return cls(
            nodes=tuple(NodeCost(**node) for node in data["nodes"]),
            invocations=data["invocations"],
            per_invocation=data["per_invocation"],
            total_estimated=data["total_estimated"],
            unpriced=tuple(data.get("unpriced", ())),
            notes=tuple(data.get("notes", ())),
        )


def _usd_column(values: list[float]) -> list[str]:
    """USD figures of one column, with one number of decimals: cents once the largest reaches
    100 USD; more digits below, so that small per-call costs still tell agents apart."""
    largest = max(values, default=0.0)
    decimals = 2 if largest >= 100 else 4 if largest >= 1 else 6
    return [f"{value:,.{decimals}f}" for value in values]


# -- reading the tree ---------------------------------------------------------------------------
def _ir_of(pipeline: Any) -> Node:
    """The IR of a builder expression (or an IR tree as it is); anything else is refused."""
    if isinstance(pipeline, Node):
        return pipeline
    if _is_native_agent(pipeline):
        raise BuildError(
            f"estimate_cost reads adk-fluent's IR, not a native ADK agent "
            f"({describe_value(pipeline)}): a built agent no longer says how its parts run",
            field="pipeline",
            hint="pass the expression itself, not its .build(); for a native agent of your "
            "own, estimate_cost(Native(agent), ...).",
        )
    to_ir = getattr(type(pipeline), "to_ir", None)
    if callable(to_ir):
        tree = pipeline.to_ir()
        if isinstance(tree, Node):
            return tree
    raise BuildError(
        f"estimate_cost needs an adk-fluent expression or its IR, not {describe_value(pipeline)}",
        field="pipeline",
        hint="e.g. estimate_cost(Agent('a') >> Agent('b'), TrafficAssumptions(...)).",
    )


def _is_native_agent(value: Any) -> bool:
    # by class name: the analysis room never imports google.adk
    return any(
        klass.__name__ == "BaseAgent" and klass.__module__.startswith("google.adk")
        for klass in type(value).__mro__
    )


def _model_name(model: Any) -> str | None:
    """The model an agent names: its string, or the name a model object carries (BaseLlm's
    `model` field); None when it names none."""
    if isinstance(model, str):
        return model or None
    name = getattr(model, "model", None)
    return name if isinstance(name, str) and name else None


def _rule_keys(node: RouteNode, index: int) -> tuple[str, ...]:
    """The keys that name branch `index`: its child's name and an eq rule's value."""
    child = node.children[index].name
    if index < len(node.rules) and node.rules[index].op == "eq":
        value = str(node.rules[index].value)
        if value != child:
            return (child, value)
    return (child,)


def _tools_of(node: LlmAgentNode) -> tuple[Any, ...]:
    tools = node.tools
    return tuple(tools) if isinstance(tools, tuple | list) else ()


@dataclass
class _TreeNames:
    """The names each per-name map of the assumptions may use, from one walk of the tree."""

    agents: set[str] = field(default_factory=set)
    loops: set[str] = field(default_factory=set)
    maps: set[str] = field(default_factory=set)
    fallback_children: set[str] = field(default_factory=set)
    tools: set[str] = field(default_factory=set)
    branches: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, root: Node) -> _TreeNames:
        names = cls()
        for node in root.walk():
            if isinstance(node, LlmAgentNode):
                names.agents.add(node.name)
                names.tools.update(tree.name for tree in node.attached)
                for child in node.children:  # delegates: keyed like route branches
                    names.branches.update((child.name, f"{node.name}/{child.name}"))
            elif isinstance(node, NativeAgentNode):
                names.agents.update(node.llm_agents)
            elif isinstance(node, LoopAgentNode):
                names.loops.add(node.name)
            elif isinstance(node, MapOverNode):
                names.maps.add(node.name)
            elif isinstance(node, FallbackNode):
                names.fallback_children.update(child.name for child in node.children)
            elif isinstance(node, ChunkedEdgeNode):
                names.edges.add(node.name)
            elif isinstance(node, RouteNode):
                for index in range(len(node.children)):
                    for key in _rule_keys(node, index):
                        names.branches.update((key, f"{node.name}/{key}"))
        return names

    def known(self, field_name: str) -> set[str]:
        return {
            "tokens": self.agents,
            "calls": self.agents,
            "branch_probabilities": self.branches,
            "loop_iterations": self.loops,
            "items": self.maps,
            "failure_rates": self.fallback_children,
            "tool_calls": self.tools,
            "chunks": self.edges,
        }[field_name]

    def check(self, assumptions: TrafficAssumptions) -> None:
        """Refuse a name the tree does not have: a typo must not silently change the estimate."""
        for field_name, kind in _NAMED_MAPS.items():
            given: Mapping[str, Any] = getattr(assumptions, field_name)
            known = self.known(field_name)
            for key in given:
                if key in known:
                    continue
                raise BuildError(
                    f"{field_name} names {key!r}, but the tree has no {kind} of that name",
                    agent=_agent_label(field_name, key),
                    field=field_name,
                    hint=did_you_mean(key, known) or self._elsewhere(key, kind, known),
                )

    def _elsewhere(self, key: str, kind: str, known: set[str]) -> str:
        """A hint for a name that is no typo: the maps it does belong in, else the names there are."""
        fields = [f for f in _NAMED_MAPS if key in self.known(f)]
        if fields:
            other = _NAMED_MAPS[fields[0]]
            article = "an" if other.startswith(("LLM", "agent")) else "a"
            return (
                f"{key!r} is {article} {other}: give it in {' or '.join(f + '=' for f in fields)}."
            )
        return f"its {kind} names: {', '.join(sorted(known)[:12]) or 'none'}."


class _At(NamedTuple):
    """Where a case of the estimate is: its parent's path, and how many times it runs per
    invocation of the whole tree."""

    parent: str
    runs: float

    def path(self, node: Node) -> str:
        return f"{self.parent}/{node.name}" if self.parent else node.name


class _Estimate(NodeVisitor[_At, None]):
    """One walk of the tree under one set of assumptions: one case per node type."""

    def __init__(self, assumptions: TrafficAssumptions) -> None:
        self.a = assumptions
        self.costs: dict[str, NodeCost] = {}
        self.unpriced: set[str] = set()
        self.notes: list[str] = []
        self.per_call: dict[tuple[str, float, float], tuple[float, bool]] = {}

    def result(self) -> CostModel:
        per_invocation = sum(node.cost_usd for node in self.costs.values())
        return CostModel(
            nodes=tuple(self.costs.values()),
            invocations=self.a.invocations,
            per_invocation=per_invocation,
            total_estimated=per_invocation * self.a.invocations,
            unpriced=tuple(sorted(self.unpriced)),
            notes=tuple(self.notes),
        )

    # -- nodes ----------------------------------------------------------------------------------
    def visit_llm_agent(self, node: LlmAgentNode, at: _At) -> None:
        self.agent(node, at.path(node), at.runs)

    def visit_native_agent(self, node: NativeAgentNode, at: _At) -> None:
        self.native(node, at.path(node), at.runs)

    def visit_remote_agent(self, node: RemoteAgentNode, at: _At) -> None:
        self.notes.append(
            f"remote agent '{node.name}': its model calls are made and billed by the "
            "service that serves it, not counted here"
        )

    # zero-cost steps and gates call no model
    def visit_transform(self, node: TransformNode, at: _At) -> None:
        return None

    def visit_tap(self, node: TapNode, at: _At) -> None:
        return None

    def visit_until(self, node: UntilNode, at: _At) -> None:
        return None

    def visit_gate(self, node: GateNode, at: _At) -> None:
        return None

    def visit_sequential_agent(self, node: SequentialAgentNode, at: _At) -> None:
        self.children(node.children, at.path(node), at.runs)

    def visit_timeout(self, node: TimeoutNode, at: _At) -> None:
        self.children(node.children, at.path(node), at.runs)

    def visit_boundary(self, node: BoundaryNode, at: _At) -> None:
        self.children(node.children, at.path(node), at.runs)

    def visit_parallel_agent(self, node: ParallelAgentNode, at: _At) -> None:
        if node.join is not None:
            self.notes.append(
                f"FanOut '{node.name}' (first_complete): every branch counted in full (the "
                "others are cancelled when the first finishes): an upper bound"
            )
        self.children(node.children, at.path(node), at.runs)

    def visit_race(self, node: RaceNode, at: _At) -> None:
        self.notes.append(
            f"race '{node.name}': every branch counted in full (the losers are cancelled "
            "part way): an upper bound"
        )
        self.children(node.children, at.path(node), at.runs)

    def visit_chunked_edge(self, node: ChunkedEdgeNode, at: _At) -> None:
        path = at.path(node)
        producer, consumer = node.children
        self.visit(producer, _At(path, at.runs))
        self.visit(consumer, _At(path, at.runs * self.chunks(node, producer)))

    def visit_loop_agent(self, node: LoopAgentNode, at: _At) -> None:
        self.children(node.children, at.path(node), at.runs * self.iterations(node))

    def visit_map_over(self, node: MapOverNode, at: _At) -> None:
        self.children(node.children, at.path(node), at.runs * self.items(node))

    def visit_route(self, node: RouteNode, at: _At) -> None:
        keys = [_rule_keys(node, i) for i in range(len(node.children))]
        shares = self.shares(node.name, keys, "route")
        for child, share in zip(node.children, shares, strict=True):
            self.visit(child, _At(at.path(node), at.runs * share))

    def visit_fallback(self, node: FallbackNode, at: _At) -> None:
        reached = 1.0
        for child in node.children:
            self.visit(child, _At(at.path(node), at.runs * reached))
            reached *= self.a.failure_rates.get(child.name, 0.0)

    def children(self, children: Iterable[Node], path: str, runs: float) -> None:
        for child in children:
            self.visit(child, _At(path, runs))

    def agent(self, node: LlmAgentNode, path: str, runs: float) -> None:
        name = node.name
        model = _model_name(node.model) or self.a.default_model
        candidate_price: ModelPrice | None = None
        selector = getattr(node, "model_selector", None)
        if isinstance(selector, ModelSelectorNode):
            model, candidate_price = self.selected(selector, name, model)
        tools = _tools_of(node)
        if tools and name not in self.a.calls:
            self.notes.append(
                f"agent '{name}' has tools and is counted at 1 model call per run; a run that "
                f"calls a tool makes 2 or more: calls={{'{name}': 2}}"
            )
        self.add(path, name, model, runs * self.a.calls.get(name, 1), candidate_price)
        if node.children:  # delegates: the agent transfers to one of them
            keys = [(child.name,) for child in node.children]
            shares = self.shares(name, keys, "agent")
            for child, share in zip(node.children, shares, strict=True):
                self.visit(child, _At(path, runs * share))
        for tree in node.attached:
            self.visit(tree, _At(path, runs * self.a.tool_calls.get(tree.name, 1)))

    def native(self, node: NativeAgentNode, path: str, runs: float) -> None:
        if node.llm_agents:
            self.notes.append(
                f"native agent '{node.name}': its LLM agents ({', '.join(node.llm_agents)}) "
                "counted once per run each (calls= and tokens= apply by name), priced with "
                "default_model: the models of a custom agent's insides are not read"
            )
        for name in node.llm_agents:
            inner = path if name == node.name else f"{path}/{name}"
            self.add(inner, name, self.a.default_model, runs * self.a.calls.get(name, 1), None)

    # -- multipliers ----------------------------------------------------------------------------
    def chunks(self, node: ChunkedEdgeNode, producer: Node) -> float:
        """Consumer runs per run of a chunked edge: given, or the producer's reply cut up."""
        given = self.a.chunks.get(node.name)
        if given is not None:
            return given
        by = node.by
        per_chunk = by / 4 if isinstance(by, int) else _TOKENS_PER_CHUNK.get(by, 25.0)
        _, output = self.a.tokens_of(producer.name)
        reply = output * self.a.calls.get(producer.name, 1)
        count = max(1.0, reply / per_chunk)
        self.notes.append(
            f"chunked edge '{node.name}': '{node.children[1].name}' counted at {count:g} "
            f"run(s), one per chunk of '{producer.name}'s ~{reply:g}-token reply (about "
            f"{per_chunk:g} tokens a chunk); chunks={{'{node.name}': n}} sets it"
        )
        return count

    def iterations(self, node: LoopAgentNode) -> float:
        given = self.a.loop_iterations.get(node.name)
        most = node.max_iterations if isinstance(node.max_iterations, int) else None
        if given is None:
            if most is None:
                raise BuildError(
                    f"loop '{node.name}' has no max_iterations, so how many times it runs is "
                    "unknown",
                    agent=node.name,
                    field="loop_iterations",
                    hint=f"give the expected count: loop_iterations={{'{node.name}': 3}}.",
                )
            if any(isinstance(inner, UntilNode) for inner in node.walk()):
                self.notes.append(
                    f"loop '{node.name}': counted at its max_iterations ({most}); it can stop "
                    f"earlier, so set loop_iterations={{'{node.name}': n}} for the expected count"
                )
            return float(most)
        if most is not None and given > most:
            raise BuildError(
                f"loop_iterations[{node.name!r}] is {given:g}, but the loop stops after "
                f"{most} iteration(s)",
                agent=node.name,
                field="loop_iterations",
                hint=f"expect at most {most}: loop_iterations={{'{node.name}': {most}}}.",
            )
        return float(given)

    def items(self, node: MapOverNode) -> float:
        given = self.a.items.get(node.name)
        if given is None:
            raise BuildError(
                f"map_over '{node.name}' runs its body once per item of state"
                f"[{node.list_key!r}], and how many items there will be is unknown",
                agent=node.name,
                field="items",
                hint=f"give the expected count: items={{'{node.name}': 10}}.",
            )
        return float(given)

    def shares(self, owner: str, keys: Sequence[tuple[str, ...]], kind: str) -> list[float]:
        """Each branch's probability: listed ones as given, the rest share what is left."""
        given = self.a.branch_probabilities
        listed: list[float | None] = []
        for branch_keys in keys:
            # "route/key" names a branch of this route only, so it wins over a plain key
            found = [given[f"{owner}/{k}"] for k in branch_keys if f"{owner}/{k}" in given]
            found = found or [given[k] for k in branch_keys if k in given]
            if len(found) > 1:
                raise BuildError(
                    f"branch_probabilities gives {kind} '{owner}' branch "
                    f"{' / '.join(repr(k) for k in branch_keys)} twice",
                    agent=owner,
                    field="branch_probabilities",
                    hint="name each branch once: by its agent's name or by the route value.",
                )
            listed.append(found[0] if found else None)
        total = sum(p for p in listed if p is not None)
        if total > 1 + _TOLERANCE:
            shown = ", ".join(f"{keys[i][-1]}={p:g}" for i, p in enumerate(listed) if p is not None)
            raise BuildError(
                f"branch_probabilities of {kind} '{owner}' add up to {total:g} ({shown}); one "
                "run takes one branch, so they can add up to 1 at most",
                agent=owner,
                field="branch_probabilities",
                hint="scale them down so they sum to 1 or less; branches not listed share "
                "what is left.",
            )
        unlisted = sum(1 for p in listed if p is None)
        rest = max(0.0, 1.0 - total) / unlisted if unlisted else 0.0
        return [rest if p is None else float(p) for p in listed]

    # -- pricing --------------------------------------------------------------------------------
    def selected(
        self, selector: ModelSelectorNode, agent: str, default: str
    ) -> tuple[str, ModelPrice | None]:
        """The model a selection picks for a call under the assumptions, and the candidate's
        own price (used when the price table does not know the model)."""
        input_tokens = round(self.a.tokens_of(agent)[0])
        seen = SelectionInput(self.a.initial_state, input_tokens, agent)
        picked = select_model(selector, seen, default)
        self.notes.append(
            f"agent '{agent}': model_select ({selector.strategy}) picks {picked.model} for "
            f"{input_tokens} input tokens ({picked.reason})"
        )
        own = next((c.price for c in selector.candidates if c.model == picked.model), None)
        return picked.model, own

    def add(
        self, path: str, agent: str, model: str, calls: float, own_price: ModelPrice | None
    ) -> None:
        input_tokens, output_tokens = self.a.tokens_of(agent)
        key = (model, input_tokens, output_tokens)
        known = self.per_call.get(key) if own_price is None else None
        if known is None:
            price = self.a.prices.price_of(model) or own_price
            known = (
                # expected tokens are floats; the price arithmetic takes them as they are
                (price.cost(input_tokens, output_tokens), True)  # type: ignore[arg-type]
                if price is not None
                else (0.0, False)
            )
            if own_price is None:
                self.per_call[key] = known
        per_call, priced = known
        if not priced:
            self.unpriced.add(model)
        previous = self.costs.get(path)
        if previous is not None:  # the same path twice (a repeated zero-cost name): add up
            calls += previous.expected_calls
        self.costs[path] = NodeCost(
            path=path,
            agent=agent,
            model=model,
            expected_calls=calls,
            input_tokens=calls * input_tokens,
            output_tokens=calls * output_tokens,
            cost_usd=calls * per_call,
            priced=priced,
        )


# -- the entry point ----------------------------------------------------------------------------
@overload
def estimate_cost(pipeline: Any, assumptions: TrafficAssumptions | None = None) -> CostModel: ...


@overload
def estimate_cost(
    pipeline: Any, assumptions: Mapping[str, TrafficAssumptions]
) -> dict[str, CostModel]: ...


def estimate_cost(
    pipeline: Any,
    assumptions: TrafficAssumptions | Mapping[str, TrafficAssumptions] | None = None,
) -> CostModel | dict[str, CostModel]:
    """The expected cost of `pipeline` (a builder expression or its IR) under `assumptions`
    (a TrafficAssumptions, or {scenario name: TrafficAssumptions}, which gives {name:
    CostModel}); the module docstring gives the rules. Nothing runs and no model is called."""
    root = _ir_of(pipeline)
    names = _TreeNames.of(root)
    if assumptions is None:
        assumptions = TrafficAssumptions()
    if isinstance(assumptions, TrafficAssumptions):
        return _estimate_one(root, names, assumptions)
    if isinstance(assumptions, Mapping) and assumptions:
        scenarios: dict[str, CostModel] = {}
        for scenario, value in assumptions.items():
            if not isinstance(scenario, str) or not isinstance(value, TrafficAssumptions):
                raise BuildError(
                    f"named scenarios map a name to TrafficAssumptions, not "
                    f"{describe_value(scenario)} to {describe_value(value)}",
                    field="assumptions",
                    hint="e.g. {'peak': TrafficAssumptions(invocations=50_000), 'quiet': "
                    "TrafficAssumptions(invocations=2_000)}; for one scenario pass "
                    "TrafficAssumptions(...) itself.",
                )
            try:
                scenarios[scenario] = _estimate_one(root, names, value)
            except BuildError as error:  # say which scenario the mistake is in
                raise BuildError(
                    f"scenario '{scenario}': {error.message}",
                    agent=error.agent,
                    field=error.field,
                    hint=error.hint,
                ) from error
        return scenarios
    raise BuildError(
        f"assumptions must be TrafficAssumptions or a dict of scenario name -> "
        f"TrafficAssumptions, not {describe_value(assumptions)}",
        field="assumptions",
        hint="e.g. estimate_cost(pipeline, TrafficAssumptions(invocations=10_000, "
        "avg_input_tokens=500)).",
    )


def _estimate_one(root: Node, names: _TreeNames, assumptions: TrafficAssumptions) -> CostModel:
    names.check(assumptions)
    estimate = _Estimate(assumptions)
    estimate.visit(root, _At("", 1.0))
    return estimate.result()
