"""Session stores: in memory by default, any SQLAlchemy URL through ADK's DatabaseSessionService,
or a session service the caller built. Stores opened from URLs are adk-fluent's to close."""

from __future__ import annotations

from typing import Any

from adk_fluent.errors import BuildError

_opened_stores: list[Any] = []  # database session services created from a URL by adk-fluent


async def close_session_stores() -> None:
    """Close the database connections of session stores adk-fluent opened from URLs
    (`session_store="sqlite:///..."`): call it when your app shuts down."""
    while _opened_stores:
        engine = getattr(_opened_stores.pop(), "db_engine", None)
        if engine is not None:
            await engine.dispose()


def session_service_for(store: Any) -> Any:
    """A session service from a store spec: None/'memory', 'sqlite:///file.db', any DB URL, or a service."""
    if store is None or store == "memory":
        from google.adk.sessions import InMemorySessionService

        return InMemorySessionService()
    if isinstance(store, str):
        url = store
        if url.startswith("sqlite:///"):
            url = "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
        try:
            from google.adk.sessions.database_session_service import DatabaseSessionService
        except ImportError as error:
            raise BuildError(
                f"session_store={store!r} needs ADK's DatabaseSessionService, which failed to import ({error})",
                field="session_store",
                hint="install the database extra: pip install 'adk-fluent[db]'.",
            ) from None
        service = DatabaseSessionService(db_url=url)
        _opened_stores.append(service)
        return service
    if hasattr(store, "append_event") and hasattr(store, "get_session"):
        return store
    raise BuildError(
        f"unsupported session_store {store!r}",
        field="session_store",
        hint="use 'memory', 'sqlite:///path.db', a database URL, or an ADK session service.",
    )
