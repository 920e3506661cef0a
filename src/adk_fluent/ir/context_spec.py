"""ContextSpec: a declared view of the conversation for one agent (built with the C module).

A plain frozen value, shared by the builders (C), the IR (`context` on LLM agent nodes), the
ADK room's context views (adk/context_view) and the contract checker.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContextSpec:
    """A declared view of the conversation for one agent."""

    history: str = (
        "default"  # default | none | user_only | from_agents | exclude_agents | last_n_turns
    )
    agents: tuple[str, ...] = ()
    turns: int = 0
    state_keys: tuple[str, ...] = ()
    templates: tuple[str, ...] = ()
    history_set: bool = False  # whether this spec chose a history filter (for `+`)

    def __add__(self, other: ContextSpec) -> ContextSpec:
        if not isinstance(other, ContextSpec):
            return NotImplemented
        if other.history_set:
            source = other
        elif self.history_set:
            source = self
        else:  # neither chose explicitly: from_state implies no history, a template keeps it
            source = self if self.state_keys or not other.state_keys else other
        return ContextSpec(
            history=source.history,
            agents=source.agents,
            turns=source.turns,
            state_keys=tuple(dict.fromkeys((*self.state_keys, *other.state_keys))),
            templates=(*self.templates, *other.templates),
            history_set=self.history_set or other.history_set,
        )

    @property
    def reads_keys(self) -> frozenset[str]:
        """State keys the view reads (for contracts and diagrams)."""
        from adk_fluent.ir.instruction_keys import template_keys

        keys = set(self.state_keys)
        for text in self.templates:
            required, optional = template_keys(text)
            keys |= required | optional
        return frozenset(keys)

    @property
    def needs_view(self) -> bool:
        """False only for plain C.default(): then ADK's own assembly is used unchanged."""
        return self.history != "default" or bool(self.state_keys or self.templates)

    def describe(self) -> str:
        parts = [self.history if not self.agents else f"{self.history}({', '.join(self.agents)})"]
        if self.history == "last_n_turns":
            parts[0] = f"last_n_turns({self.turns})"
        if self.state_keys:
            parts.append(f"from_state({', '.join(self.state_keys)})")
        parts.extend("template" for _ in self.templates)
        return " + ".join(parts)
