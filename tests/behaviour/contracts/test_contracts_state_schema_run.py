"""StateSchema at run time: `Schema.bind(ctx)` in a real tool on the real ADK Runner, persisted
through SQLite and read back typed."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, tap
from adk_fluent.errors import StateKeyError, StateWriteError
from adk_fluent.testing import call, mock_backend
from tests.conftest import fresh_db_service
from tests.support.schemas import Profile, Ticketing, open_ticket


# -- run time: Schema.bind in a real tool (tests/support/schemas.open_ticket) ---------------
async def test_bind_in_a_tool_writes_through_the_event_state_delta(sqlite_url):
    pipeline = Agent("classifier").instruct("Classify.").outputs("intent") >> Agent(
        "ticketer"
    ).tool(open_ticket).writes(Ticketing.ticket_id, Ticketing.attempts)
    backend = mock_backend(
        {"classifier": "billing", "ticketer": [call("open_ticket", summary="bill"), "Opened."]}
    )
    events = await pipeline.run(
        "My bill", backend=backend, session_store=sqlite_url, session_id="s"
    )
    backend.assert_consumed()
    response = next(e for e in events if e.tool_responses)
    result = response.tool_responses[0].result
    assert result["ticket"] == "T-bill" and result["intent"] == "billing"
    assert "Ticketing.attempts is declared int; cannot write str 'many'" in result["refused"]
    assert "has no field 'nonexistent'" in result["typo"]
    # the writes travelled in that event's state_delta ...
    assert response.state_delta["ticket_id"] == "T-bill"
    assert response.state_delta["user:tier"] == "gold"
    assert response.state_delta["profile"] == {"name": "Ada", "vip": True}
    # ... so a fresh connection to the store sees them
    service = fresh_db_service(sqlite_url)
    session = await service.get_session(app_name="adk_fluent_app", user_id="user", session_id="s")
    assert session.state["ticket_id"] == "T-bill" and session.state["attempts"] == 1
    assert session.state["user:tier"] == "gold"
    typed = Ticketing.bind(session.state)
    assert typed.profile == Profile(name="Ada", vip=True) and typed.attempts == 1


async def test_bind_on_a_mapping_reads_typed_values_and_refuses_writes():
    seen: list = []

    def look(state):
        bound = Ticketing.bind(state)
        seen.append((bound.intent, bound.attempts, bound.to_dict()))
        with pytest.raises(StateWriteError, match="read-only"):
            bound.intent = "other"
        with pytest.raises(StateKeyError, match=r"state\['ticket_id'\] is not set"):
            _ = bound.ticket_id

    pipeline = Agent("classifier").outputs("intent") >> tap(look)
    await pipeline.run("hi", backend=mock_backend({"classifier": "billing"}))
    assert seen == [("billing", 0, {"intent": "billing", "attempts": 0, "profile": None})]
