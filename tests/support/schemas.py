"""The StateSchema the contract tests share: the unit tier checks its declarations, the
behaviour tier binds it in a real tool on the Runner."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel

from adk_fluent import AppScoped, StateSchema, Temp, UserScoped
from adk_fluent.errors import StateFieldError, StateTypeError


class Profile(BaseModel):
    name: str
    vip: bool = False


class Ticketing(StateSchema):
    intent: str
    ticket_id: str
    attempts: int = 0
    profile: Profile | None = None
    tier: Annotated[str, UserScoped]
    release: Annotated[str, AppScoped]
    scratch: Annotated[dict, Temp]


# Schema.bind in a real tool --------------------------------------------------------
def open_ticket(summary: str, tool_context) -> dict:  # noqa: ANN001 - ADK injects its context
    """Open a ticket for the summary."""
    state = Ticketing.bind(tool_context)
    state.ticket_id = f"T-{summary}"
    state.attempts = state.attempts + 1
    state.tier = "gold"
    state.profile = Profile(name="Ada", vip=True)
    try:
        state.attempts = "many"
    except StateTypeError as error:
        refused = str(error)
    try:
        state.nonexistent = 1
    except StateFieldError as error:
        typo = str(error)
    return {"ticket": state.ticket_id, "intent": state.intent, "refused": refused, "typo": typo}
