"""Where filtered mode keeps an event's content that no client may receive, and how it gets it
back: a session artifact (JSON bytes in one Part: an event's artifact_delta carries only names
and versions, never content), or, where the artifact store would not outlive the session store,
a companion session in the session store itself (see `companion_app`)."""

from __future__ import annotations

import json
from typing import Any

from adk_fluent.adk.compat import session_known

MIME = "application/json"
# In a companion session's event: the id of the event whose content it keeps.
HIDDEN_OF = "adk_fluent.hidden_of"


def content_as_part(content: Any) -> Any:
    """The Part an artifact service stores for `content`."""
    from google.genai import types

    payload = json.dumps(content.model_dump(mode="json", exclude_none=True))
    return types.Part.from_bytes(data=payload.encode("utf-8"), mime_type=MIME)


def content_from_part(part: Any) -> Any:
    """The Content a stored Part holds (the reverse of content_as_part)."""
    from google.genai import types

    return types.Content.model_validate(json.loads(part.inline_data.data))


def artifacts_last_as_long(artifact_service: Any, session_service: Any) -> bool:
    """Whether what `artifact_service` keeps lives as long as what `session_service` keeps: not
    when artifacts are held in the server's memory (`--artifact_service_uri memory://`) while
    sessions are in a database, a restart would keep the events and lose the texts."""
    from google.adk.artifacts.in_memory_artifact_service import InMemoryArtifactService
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    if not isinstance(artifact_service, InMemoryArtifactService):
        return True  # a file, GCS or custom store: kept beside the sessions it belongs to
    return isinstance(session_service, InMemorySessionService)


def companion_app(app_name: str) -> str:
    """The app name under which the session store keeps the hidden texts of `app_name`'s
    sessions: one companion session per session (same user and session id). ADK's servers list
    the apps of their agents folder only, so no UI lists it; like an artifact, it is read by a
    caller that asks for it by name."""
    return f"{app_name}.adk_fluent_hidden"


async def keep_in_companion(session_service: Any, session: Any, event: Any) -> None:
    """Append `event`'s content to the companion session of `session` (created when missing)."""
    from google.adk.events.event import Event
    from google.adk.sessions.base_session_service import GetSessionConfig

    where = {
        "app_name": companion_app(session.app_name),
        "user_id": session.user_id,
        "session_id": session.id,
    }
    known = session_known(session_service, **where)
    if known:  # in memory: any copy takes an append, so no read (a deep copy) is needed
        from google.adk.sessions.session import Session

        companion = Session(id=session.id, app_name=where["app_name"], user_id=session.user_id)
    else:
        # read afresh before each append: a database store refuses an append to a stale session
        companion = await session_service.get_session(
            **where, config=GetSessionConfig(num_recent_events=1)
        )
    if companion is None:
        companion = await session_service.create_session(**where)
    kept = Event(
        author=event.author,
        invocation_id=event.invocation_id,
        content=event.content,
        custom_metadata={HIDDEN_OF: event.id},
    )
    await session_service.append_event(session=companion, event=kept)


async def companion_contents(
    session_service: Any, app_name: str, user_id: str, session_id: str
) -> dict[str, Any]:
    """Event id -> the content the companion session of that session keeps for it."""
    companion = await session_service.get_session(
        app_name=companion_app(app_name), user_id=user_id, session_id=session_id
    )
    if companion is None:
        return {}
    return {
        str((kept.custom_metadata or {})[HIDDEN_OF]): kept.content
        for kept in companion.events
        if HIDDEN_OF in (kept.custom_metadata or {}) and kept.content is not None
    }
