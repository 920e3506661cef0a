"""StateSchema fields checked where they are declared and written, seen from a real tool on the
real ADK Runner: a default is validated when the class is defined, so an unset field reads back
as its declared type (a dict default as the model), and a dict that does not fit a model field
is refused with the failing part named, leaving nothing of it in the event's state_delta."""

from __future__ import annotations

from pydantic import BaseModel

from adk_fluent import Agent, StateSchema
from adk_fluent.errors import StateTypeError
from adk_fluent.testing import call, mock_backend


class Profile(BaseModel):
    name: str
    vip: bool = False


class Account(StateSchema):
    profile: Profile = {"name": "guest"}  # type: ignore[assignment]  # plain data, as writes take
    balance: float = 0
    note: str | None = None


def inspect_account(reason: str, tool_context) -> dict:  # noqa: ANN001 - ADK injects its context
    """Read the account's defaults, then try a profile that does not fit."""
    state = Account.bind(tool_context)
    defaults = {
        "profile": type(state.profile).__name__,
        "vip": state.profile.vip,
        "balance": type(state.balance).__name__,
    }
    try:
        state.profile = {"name": "Ada", "vip": "maybe"}
    except StateTypeError as error:
        refused = str(error)
    state.note = reason
    return {"defaults": defaults, "refused": refused}


async def test_defaults_read_typed_and_a_misfit_dict_is_refused_in_a_tool():
    pipeline = Agent("clerk").tool(inspect_account)
    backend = mock_backend({"clerk": [call("inspect_account", reason="audit"), "Done."]})
    events = await pipeline.run("Check my account", backend=backend, session_id="s")
    backend.assert_consumed()
    response = next(e for e in events if e.tool_responses)
    result = response.tool_responses[0].result
    # the defaults come back as the declared types: the dict as a Profile, 0 as a float
    assert result["defaults"] == {"profile": "Profile", "vip": False, "balance": "float"}
    # the misfit is refused naming the field, the failing part and what to do
    assert "Account.profile" in result["refused"] and "(at vip)" in result["refused"]
    assert "Hint:" in result["refused"]
    # the refused write left nothing in state; the later valid write travelled
    assert "profile" not in response.state_delta
    assert response.state_delta["note"] == "audit"
