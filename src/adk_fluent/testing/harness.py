"""AgentHarness: drive an expression turn by turn in one session and inspect the results."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from adk_fluent.run.events import AgentEvent, final_text

if TYPE_CHECKING:
    from google.adk.sessions import Session


@dataclass(frozen=True)
class HarnessResponse:
    """What one turn produced: the client's events, the final text, errors, and the stored state."""

    events: list[AgentEvent]
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def final_text(self) -> str:
        """The turn's final reply text ('' when there is none)."""
        return final_text(self.events)

    @property
    def errors(self) -> list[AgentEvent]:
        """The turn's error events (a model or tool error ADK reported as an event)."""
        return [e for e in self.events if e.is_error]


class AgentHarness:
    """`await AgentHarness(pipeline, backend=mock_backend({...})).send("Hi")`."""

    def __init__(
        self,
        expression: Any,
        *,
        backend: Any = None,
        session_store: Any = None,
        user_id: str = "user",
        session_id: str | None = None,
        config: Any = None,
    ) -> None:
        self.expression = expression
        self.options = {"backend": backend, "session_store": session_store, "config": config}
        self.user_id = user_id
        self.session_id = session_id or f"harness_{uuid.uuid4().hex[:12]}"

    async def send(self, prompt: str) -> HarnessResponse:
        """Run one turn in this harness's session."""
        events = await self.expression.run(
            prompt, user_id=self.user_id, session_id=self.session_id, **self.options
        )
        return HarnessResponse(events, await self.state())

    async def state(self) -> dict[str, Any]:
        """The session state as the session store holds it."""
        session = await self.session()
        return dict(session.state) if session is not None else {}

    async def session(self) -> Session | None:
        """The stored ADK session (None before the first turn)."""
        session: Session | None = await self.expression.session(
            self.session_id, user_id=self.user_id, **self.options
        )
        return session
