"""ContextSpec: a declared view of the conversation for one agent (built with the C module).

A plain frozen value, shared by the builders (C), the IR (`context` on LLM agent nodes), the
ADK room's context views (adk/context_view) and the contract checker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from adk_fluent.arguments import checked_choice, checked_count
from adk_fluent.errors import BuildError

# The history filters the context views know (adk/context_view selects events by these).
HISTORY_FILTERS: tuple[str, ...] = (
    "default",
    "none",
    "user_only",
    "from_agents",
    "exclude_agents",
    "last_n_turns",
)


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

    def __post_init__(self) -> None:
        # a hand-made spec is checked here, not when a turn's view is assembled
        checked_choice(
            self.history,
            None,
            "context",
            HISTORY_FILTERS,
            hint="build specs with C: C.default(), C.none(), C.user_only(), "
            "C.from_agents(...), C.exclude_agents(...), C.last_n_turns(n).",
        )
        if self.history == "last_n_turns":
            checked_count(
                self.turns, None, "context", least=1, hint="C.last_n_turns(3)", shown="turns"
            )

    def __add__(self, other: object) -> ContextSpec:
        if not isinstance(other, ContextSpec):
            return cast(ContextSpec, _refuse_step(other))
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

    def __radd__(self, other: object) -> ContextSpec:
        return cast(ContextSpec, _refuse_step(other))

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


def _refuse_step(other: object) -> Any:
    """`+` joins views only: a step or agent builder there (C.capture is a step) is refused
    with a hint; anything else is Python's TypeError (NotImplemented)."""
    name = getattr(other, "name", None)
    if not (isinstance(name, str) and callable(getattr(other, "to_ir", None))):
        return NotImplemented
    raise BuildError(
        f"'{name[:60]}' is a step, not part of a context view: it cannot join a spec with `+`",
        agent=name[:60],
        field="context",
        hint="run it in the pipeline with >>: C.capture('q') >> Agent(...).context(spec); "
        "`+` combines C specs, e.g. C.user_only() + C.from_state('q').",
    )
