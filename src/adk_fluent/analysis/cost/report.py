"""What a cost estimate returns: NodeCost per agent path and the CostModel with its table."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from adk_fluent.errors import BuildError, did_you_mean
from adk_fluent.ir.names import below_root


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
