"""The walk of a tree that turns traffic assumptions into a CostModel (one visitor case per
node type, each told its parent's path and how many times it runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

from adk_fluent.analysis.cost.assumptions import (
    _NAMED_MAPS,
    _TOKENS_PER_CHUNK,
    _TOLERANCE,
    TrafficAssumptions,
    _agent_label,
)
from adk_fluent.analysis.cost.report import CostModel, NodeCost
from adk_fluent.errors import BuildError, describe_value, did_you_mean
from adk_fluent.ir.model_selection import ModelSelectorNode, SelectionInput, select_model
from adk_fluent.ir.nodes import (
    ChunkedEdgeNode,
    FallbackNode,
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
    UntilNode,
    Walk,
)
from adk_fluent.ir.prices import ModelPrice


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
class _TreeNames(NodeVisitor[None, None]):
    """The names each per-name map of the assumptions may use: one case per node type, each
    adding what its own node names (`of` visits every node of the tree once)."""

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
            names.visit(node, None)
        return names

    def visit_llm_agent(self, node: LlmAgentNode, ctx: None) -> None:
        self.agents.add(node.name)
        self.tools.update(tree.name for tree in node.attached)
        for child in node.children:  # delegates: keyed like route branches
            self.branches.update((child.name, f"{node.name}/{child.name}"))

    def visit_native_agent(self, node: NativeAgentNode, ctx: None) -> None:
        self.agents.update(node.llm_agents)

    def visit_loop_agent(self, node: LoopAgentNode, ctx: None) -> None:
        self.loops.add(node.name)

    def visit_map_over(self, node: MapOverNode, ctx: None) -> None:
        self.maps.add(node.name)

    def visit_fallback(self, node: FallbackNode, ctx: None) -> None:
        self.fallback_children.update(child.name for child in node.children)

    def visit_chunked_edge(self, node: ChunkedEdgeNode, ctx: None) -> None:
        self.edges.add(node.name)

    def visit_route(self, node: RouteNode, ctx: None) -> None:
        for index in range(len(node.children)):
            for key in _rule_keys(node, index):
                self.branches.update((key, f"{node.name}/{key}"))

    def _unnamed(self, node: Node, ctx: None) -> None:
        """Nothing in the assumptions is keyed by these nodes' names."""

    visit_sequential_agent = visit_parallel_agent = visit_until = visit_transform = _unnamed
    visit_gate = visit_tap = visit_timeout = visit_race = visit_remote_agent = _unnamed
    visit_boundary = _unnamed

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
    """One walk of the tree under one set of assumptions: one case per node type (a case with
    children yields each with its path and runs)."""

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
    def visit_llm_agent(self, node: LlmAgentNode, at: _At) -> Walk[_At, None]:
        return self.agent(node, at.path(node), at.runs)

    def visit_native_agent(self, node: NativeAgentNode, at: _At) -> None:
        self.native(node, at.path(node), at.runs)

    def visit_remote_agent(self, node: RemoteAgentNode, at: _At) -> None:
        self.notes.append(
            f"remote agent '{node.name}': its model calls are made and billed by the "
            "service that serves it, not counted here"
        )

    def _free(self, node: Node, at: _At) -> None:
        """Zero-cost steps and gates call no model."""

    visit_transform = visit_tap = visit_until = visit_gate = _free

    def _each_once(self, node: Node, at: _At) -> Walk[_At, None]:
        """A pipeline, timeout or boundary runs each child once per run of its own."""
        return self.children(node.children, at.path(node), at.runs)

    visit_sequential_agent = visit_timeout = visit_boundary = _each_once

    def visit_parallel_agent(self, node: ParallelAgentNode, at: _At) -> Walk[_At, None]:
        if node.join is not None:
            self.notes.append(
                f"FanOut '{node.name}' (first_complete): every branch counted in full (the "
                "others are cancelled when the first finishes): an upper bound"
            )
        return self.children(node.children, at.path(node), at.runs)

    def visit_race(self, node: RaceNode, at: _At) -> Walk[_At, None]:
        self.notes.append(
            f"race '{node.name}': every branch counted in full (the losers are cancelled "
            "part way): an upper bound"
        )
        return self.children(node.children, at.path(node), at.runs)

    def visit_chunked_edge(self, node: ChunkedEdgeNode, at: _At) -> Walk[_At, None]:
        path = at.path(node)
        producer, consumer = node.children
        yield producer, _At(path, at.runs)
        yield consumer, _At(path, at.runs * self.chunks(node, producer))

    def visit_loop_agent(self, node: LoopAgentNode, at: _At) -> Walk[_At, None]:
        return self.children(node.children, at.path(node), at.runs * self.iterations(node))

    def visit_map_over(self, node: MapOverNode, at: _At) -> Walk[_At, None]:
        return self.children(node.children, at.path(node), at.runs * self.items(node))

    def visit_route(self, node: RouteNode, at: _At) -> Walk[_At, None]:
        keys = [_rule_keys(node, i) for i in range(len(node.children))]
        shares = self.shares(node.name, keys, "route")
        for child, share in zip(node.children, shares, strict=True):
            yield child, _At(at.path(node), at.runs * share)

    def visit_fallback(self, node: FallbackNode, at: _At) -> Walk[_At, None]:
        reached = 1.0
        for child in node.children:
            yield child, _At(at.path(node), at.runs * reached)
            reached *= self.a.failure_rates.get(child.name, 0.0)

    def children(self, children: Iterable[Node], path: str, runs: float) -> Walk[_At, None]:
        for child in children:
            yield child, _At(path, runs)

    def agent(self, node: LlmAgentNode, path: str, runs: float) -> Walk[_At, None]:
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
                yield child, _At(path, runs * share)
        for tree in node.attached:
            yield tree, _At(path, runs * self.a.tool_calls.get(tree.name, 1))

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
