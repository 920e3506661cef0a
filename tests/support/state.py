"""Helpers for the state tests: reload a session through a fresh store, pick error events."""

from __future__ import annotations

from typing import Any

from tests.conftest import fresh_db_service


async def reloaded(pipeline: Any, url: str, session_id: str) -> Any:
    """The session as a new DatabaseSessionService on the same file reads it back."""
    return await fresh_db_service(url).get_session(
        app_name=pipeline.to_app().name, user_id="user", session_id=session_id
    )


def errors(events: list[Any]) -> list[Any]:
    """The error events among a run's events (client side or stored)."""
    return [e for e in events if e.error_code]
