"""ExecutionConfig(timeout_seconds=...) through the real Runner on SQLite (both ADK ends): a turn
that runs past it is stopped, the client's last event is a TIMEOUT error, the store keeps the
events the turn completed and the TIMEOUT event after them, and nothing of the step that was
cut off (its model's wait is cancelled, its output key never written); ask() raises it; a turn
within the limit is untouched."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, ExecutionConfig, RunError
from adk_fluent.testing import mock_backend, streamed
from tests.conftest import fresh_db_service

LIMIT = ExecutionConfig(timeout_seconds=1.5)


def pipeline():
    return Agent("fast").instruct("Answer.").outputs("a") >> Agent("slow").instruct(
        "Think."
    ).outputs("b")


async def warm(url: str) -> None:
    """A turn within the limit first: the App is compiled and ADK's imports are done, so the
    limit below measures the turn, not the process starting."""
    backend = mock_backend({"fast": "quick", "slow": "done"})
    events = await pipeline().run("warm", backend=backend, config=LIMIT, session_store=url)
    assert [e.error_code for e in events] == [None, None]


@pytest.mark.parametrize("streaming", [None, "sse"])
async def test_a_turn_past_the_limit_ends_with_timeout_and_keeps_what_completed(
    sqlite_url, streaming
):
    await warm(sqlite_url)
    slow = streamed("never ", "finished", gap=30.0)
    backend = mock_backend({"fast": "quick", "slow": slow})
    options = {"streaming": streaming} if streaming else {}
    events = [
        e
        async for e in pipeline().stream(
            "go", backend=backend, session_id="t", config=LIMIT, session_store=sqlite_url, **options
        )
    ]
    assert events[-1].error_code == "TIMEOUT"
    assert "1.5 s" in events[-1].error_message
    assert ("fast", "quick") in [(e.author, e.content) for e in events if not e.is_partial]
    assert slow.cancelled  # the model's wait was cut off, not waited out
    session = await fresh_db_service(sqlite_url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id="t"
    )
    stored = [(e.author, e.error_code) for e in session.events]
    assert stored[0] == ("user", None) and ("fast", None) in stored
    assert stored[-1][1] == "TIMEOUT"
    assert session.state == {"a": "quick"}  # the cut-off step wrote nothing


async def test_ask_raises_the_timeout_and_a_turn_within_the_limit_is_untouched(sqlite_url):
    await warm(sqlite_url)
    backend = mock_backend({"fast": "quick", "slow": streamed("late", gap=30.0)})
    with pytest.raises(RunError, match="TIMEOUT"):
        await pipeline().ask("go", backend=backend, config=LIMIT, session_store=sqlite_url)
    quick = mock_backend({"fast": "quick", "slow": "done"})
    answer = await pipeline().ask("go", backend=quick, config=LIMIT, session_store=sqlite_url)
    assert answer == "done"
