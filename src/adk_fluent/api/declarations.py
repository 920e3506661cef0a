"""What every agent-like builder shares beyond its ADK fields: state-key declarations for the
checker (`.reads()` / `.writes()`) and the agent callbacks every ADK agent has
(`.before_agent()` / `.after_agent()`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

from adk_fluent.api.state_schema import declare

if TYPE_CHECKING:
    from adk_fluent.api.builder import BuilderBase

    _Base = BuilderBase
else:
    _Base = object


def _fields_of(model: Any) -> frozenset[str]:
    fields = getattr(model, "model_fields", None)
    return frozenset(fields) if isinstance(fields, dict) else frozenset()


class DeclaresState(_Base):
    """`.reads()` / `.writes()`: keys that code the checker cannot read (tools, callbacks, a
    custom agent's own code) reads or writes. No effect at run time."""

    _consumes: Any = None  # a pydantic model (.consumes()), or a DeclaredState from .reads()
    _produces: Any = None  # a pydantic model (.produces()), or a DeclaredState from .writes()

    def reads(self, *fields: Any) -> Self:
        """Declare state keys this step's tools, callbacks or own code read:
        `.reads(Billing.intent)` or `.reads("intent")` (checked by check_contracts)."""
        declared = declare(self._consumes, fields, agent=self._name, what="reads")
        return self._copy(_consumes=declared)

    def writes(self, *fields: Any) -> Self:
        """Declare state keys this step's tools, callbacks or own code write:
        `.writes(Billing.ticket_id)` or `.writes("ticket_id")` (checked by check_contracts).
        On a composite, the keys count as written when it starts (as by a before_agent
        callback), so its own steps and everything after it may read them."""
        declared = declare(self._produces, fields, agent=self._name, what="writes")
        return self._copy(_produces=declared)

    def _declared_fields(self) -> dict[str, Any]:
        """The IR fields for the declarations: the declared types and their key names."""
        extras: dict[str, Any] = {}
        if self._consumes is not None:
            extras["consumes_type"] = self._consumes
            extras["reads_keys"] = _fields_of(self._consumes)
        if self._produces is not None:
            extras["produces_type"] = self._produces
            extras["writes_keys"] = _fields_of(self._produces)
        return extras


class AgentCallbacks(_Base):
    """The callbacks every ADK agent has (BaseAgent's), accumulated in order."""

    def before_agent(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context)` before this agent (or composite); returning Content skips it."""
        return self._add_callbacks("before_agent_callback", (fn,))

    def after_agent(self, fn: Callable[..., Any]) -> Self:
        """Run `fn(callback_context)` after this agent (or composite); returned Content is added."""
        return self._add_callbacks("after_agent_callback", (fn,))
