"""C: what conversation each agent sees. Specs are plain frozen values (ir/context_spec); the
ADK room turns them into views (adk/context_view).

    Agent("booker").instruct("Book it.").context(C.user_only() + C.from_state("intent"))

A spec has a history filter (default / none / user_only / from_agents / exclude_agents /
last_n_turns) and optional state blocks (`from_state`, `template`). `+` combines them: the
later history filter wins, state blocks accumulate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adk_fluent.api.state_steps import S, StateStep
from adk_fluent.arguments import checked_count, checked_some, checked_text
from adk_fluent.errors import UnknownSetterError, did_you_mean
from adk_fluent.ir.context_spec import ContextSpec
from adk_fluent.ir.state_keys import check_key
from adk_fluent.ir.steps import CaptureTurns


def _names(names: tuple[str, ...], what: str, example: str) -> tuple[str, ...]:
    checked_some(names, None, "context", shown=what, items="name", hint=example)
    for name in names:
        checked_text(name, None, "context", what="names (strings)", hint=example, shown=what)
    return names


# adk-fluent 0.x's spellings (docs/from-adk-fluent-0x.md)
_SPELT_DIFFERENTLY = {
    "window": "the last n turns of the conversation are C.last_n_turns(n).",
}


class _CType(type):
    """Gives a misspelt `C.method` the did-you-mean that builders give."""

    def _missing_attribute(cls, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        methods = [n for n in dir(cls) if not n.startswith("_")]
        raise UnknownSetterError(
            f"C has no method '{attr}'",
            field=attr,
            hint=_SPELT_DIFFERENTLY.get(attr)
            or did_you_mean(attr, methods)
            or "see help(C) for its context specs.",
        )

    # Hidden from type checkers, which then report `C.usr_only()` themselves (see BuilderBase).
    if not TYPE_CHECKING:
        __getattr__ = _missing_attribute


class C(metaclass=_CType):
    """Context transforms: attach with `Agent(...).context(spec)`; combine with `+`."""

    @staticmethod
    def default() -> ContextSpec:
        """ADK's full conversation history (what an agent sees without any spec)."""
        return ContextSpec("default", history_set=True)

    @staticmethod
    def none() -> ContextSpec:
        """No history: only this turn's user message (and the agent's own tool calls this turn).

        Unlike ADK's include_contents='none', another agent's latest reply is not included.
        """
        return ContextSpec("none", history_set=True)

    @staticmethod
    def user_only() -> ContextSpec:
        """The user's messages (with their images and files) and the agent's own replies; no other agent."""
        return ContextSpec("user_only", history_set=True)

    @staticmethod
    def from_agents(*names: str) -> ContextSpec:
        """The user's messages plus replies (and tool calls) of the named agents only."""
        return ContextSpec(
            "from_agents",
            agents=_names(names, "C.from_agents()", "e.g. C.from_agents('researcher')."),
            history_set=True,
        )

    @staticmethod
    def exclude_agents(*names: str) -> ContextSpec:
        """The full history minus the named agents' events."""
        return ContextSpec(
            "exclude_agents",
            agents=_names(names, "C.exclude_agents()", "e.g. C.exclude_agents('router')."),
            history_set=True,
        )

    @staticmethod
    def last_n_turns(n: int) -> ContextSpec:
        """Only the last n turns (a turn starts at a user message)."""
        checked_count(
            n, None, "context", least=1, hint="e.g. C.last_n_turns(3).", shown="C.last_n_turns(n)"
        )
        return ContextSpec("last_n_turns", turns=n, history_set=True)

    @staticmethod
    def from_state(*keys: str) -> ContextSpec:
        """State values as a delimited context block; alone, it also means no history."""
        example = "e.g. C.from_state('intent')."
        for key in _names(keys, "C.from_state()", example):
            check_key(key, "C.from_state()", field="context", hint=example)
        return ContextSpec("none", state_keys=keys)

    @staticmethod
    def template(text: str) -> ContextSpec:
        """A context block rendered from state: `{key}` required, `{key?}` optional."""
        checked_text(
            text,
            None,
            "context",
            what="a non-empty template string",
            hint="e.g. C.template('Draft: {draft}. Notes: {notes?}').",
            shown="C.template(text)",
        )
        return ContextSpec("default", templates=(text,))

    @staticmethod
    def capture(key: str) -> StateStep:
        """Store the user's latest message in state[key] (the same step as S.capture)."""
        return S.capture(key)

    @staticmethod
    def capture_turns(key: str, n: int = 5) -> StateStep:
        """Store the last n turns, as 'author: text' lines, in state[key]."""
        checked_count(
            n,
            None,
            "n",
            least=1,
            hint="e.g. C.capture_turns('recent', 3).",
            shown="C.capture_turns(key, n)",
        )
        check_key(
            key, "C.capture_turns(key, n)", field="key", hint="e.g. C.capture_turns('recent', 3)."
        )
        return StateStep(CaptureTurns(key, n))
