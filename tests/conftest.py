"""Shared test helpers. Every behaviour test runs the real ADK Runner with scripted models."""

from __future__ import annotations

import importlib.metadata

import pytest

ADK_VERSION = importlib.metadata.version("google-adk")
ADK_MAJOR = int(ADK_VERSION.split(".")[0])


def request_texts(request) -> list[str]:
    """Every text part in an LlmRequest's contents, in order (what the model was shown)."""
    texts = []
    for content in request.contents or []:
        for part in content.parts or []:
            if part.text:
                texts.append(part.text)
    return texts


def system_instruction(request) -> str:
    value = request.config.system_instruction if request.config else None
    return value if isinstance(value, str) else str(value or "")


@pytest.fixture
def sqlite_url(tmp_path):
    """A session store on a fresh SQLite file."""
    return f"sqlite:///{tmp_path / 'sessions.db'}"


_DB_SERVICES: list = []


def fresh_db_service(url: str):
    """A new DatabaseSessionService on the same file: proves what was really persisted."""
    from google.adk.sessions.database_session_service import DatabaseSessionService

    service = DatabaseSessionService(db_url=url.replace("sqlite:///", "sqlite+aiosqlite:///"))
    _DB_SERVICES.append(service)
    return service


@pytest.fixture(autouse=True)
async def _close_db_services():
    """Dispose the engines tests opened, so no connection outlives its event loop."""
    yield
    from adk_fluent import close_session_stores

    await close_session_stores()
    while _DB_SERVICES:
        engine = getattr(_DB_SERVICES.pop(), "db_engine", None)
        if engine is not None:
            await engine.dispose()
