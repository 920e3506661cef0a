"""Route, Fallback, map_over, loop_until, gate, tap, timeout and race through the real Runner,
on SQLite, checked after reloading the session through a fresh service."""

from __future__ import annotations

import pytest

from adk_fluent import (
    Agent,
    Route,
    gate,
)
from tests.conftest import fresh_db_service, system_instruction


async def stored(url: str, session_id: str):
    return await fresh_db_service(url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id=session_id
    )


def router():
    return Agent("classifier").outputs("intent") >> Route("intent").eq(
        "booking", Agent("booker").outputs("reply")
    ).eq("info", Agent("info").outputs("reply")).otherwise(Agent("helper").outputs("reply"))


def _echo_item(request):
    instruction = system_instruction(request)
    return "summary of " + instruction.split("Summarise: ", 1)[1].split("\n", 1)[0]


def approval_pipeline():
    return (
        Agent("drafter").outputs("draft")
        >> gate(lambda s: "refund" in s["draft"], "Send this refund email?")
        >> Agent("sender").instruct("Send: {draft}")
    )


def test_gate_words_must_not_overlap():
    from adk_fluent import BuildError

    with pytest.raises(BuildError, match="field 'reject'.*would both approve and reject"):
        gate(True, "?", approve=("ok",), reject=("OK",))
