"""Rule-based hand-offs: `Agent("front").transfer_to(vip, when=lambda s: s["tier"] == "gold")`.

`RuleTransfer` is a before-model callback of the agent that hands over: when its predicate holds
for the state, it answers in the model's place with a call of ADK's own `transfer_to_agent`
tool, so the model is never asked and ADK transfers exactly as for a model's choice: the target
runs now, and the next turns go to it (ADK's runner starts a turn at the agent that answered
last, where transfers allow). The reply is marked (custom_metadata TRANSFER_RULE) so a stored
session says the hand-off was a rule's, not the model's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent.adk.model_selection import state_view
from adk_fluent.ir.steps import ReadOnlyState

TRANSFER_TOOL = "transfer_to_agent"  # ADK's transfer tool, on every supported release
TRANSFER_RULE = "adk_fluent.transfer_rule"  # custom_metadata: the agent a rule handed over to


class RuleTransfer:
    """The before-model callback of one `.transfer_to(target, when=...)` rule."""

    def __init__(self, agent: str, target: str, when: Callable[[Any], Any]) -> None:
        self.agent = agent
        self.target = target
        self.when = when

    def __call__(self, callback_context: Any, llm_request: Any) -> LlmResponse | None:
        view = ReadOnlyState(
            state_view(callback_context),
            self.agent,
            owner=f"transfer_to('{self.target}', when=...) of agent '{self.agent}'",
        )
        try:
            hands_over = bool(self.when(view))
        except Exception as error:
            error.add_note(
                f"adk-fluent: raised by the when= predicate of agent '{self.agent}''s "
                f"transfer_to('{self.target}'), before its model call"
            )
            raise
        if not hands_over:
            return None
        call = types.FunctionCall(name=TRANSFER_TOOL, args={"agent_name": self.target})
        return LlmResponse(
            content=types.Content(role="model", parts=[types.Part(function_call=call)]),
            custom_metadata={TRANSFER_RULE: self.target},
        )

    def __repr__(self) -> str:
        return f"transfer_to({self.target!r}, when={getattr(self.when, '__name__', 'predicate')})"
