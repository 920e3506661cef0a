"""Events compaction through the real Runner on SQLite, on both ADK ends: the token trigger
summarises all but the last events after a turn whose prompt reached the threshold, the next
request carries the summary, and the store keeps every event; a token-only config on an
ADK that always needs the interval pair is refused when the App is built."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, BuildError, CompactionConfig, ExecutionConfig
from adk_fluent.adk.compat import compaction_settings
from adk_fluent.testing import mock_backend, repeat, with_usage
from tests.conftest import request_texts

pytestmark = pytest.mark.filterwarnings("ignore:.*EXPERIMENTAL.*:UserWarning")


def _summary_or(reply: str):
    """A step answering ADK's summary request (made with the root agent's own model, once or,
    on some releases, again before the next turn) with the summary, and the chat's with
    `reply`: how many summaries ADK asks for is its own business."""

    def step(request):
        asked = " ".join(p.text or "" for c in request.contents for p in c.parts or ())
        return "SUMMARY OF EARLIER" if "summarize" in asked else reply

    return step


async def test_a_large_prompt_triggers_a_summary_the_next_request_is_built_from(sqlite_url):
    config = ExecutionConfig(
        compaction=CompactionConfig(
            interval=100, overlap=1, token_threshold=4000, event_retention_size=1
        )
    )
    chat = Agent("chat").instruct("Chat.")
    backend = mock_backend(
        {"chat": [with_usage("first answer", input=5000, output=10), repeat(_summary_or("done"))]}
    )
    options = {"backend": backend, "config": config, "session_store": sqlite_url}
    await chat.run("hello", session_id="s", **options)
    answer = await chat.ask("again", session_id="s", **options)

    assert answer == "done"
    last = backend.requests["chat"][-1]
    sent = "\n".join(request_texts(last))
    # the summary reaches the next request; how much of the summarised range ADK still sends
    # besides differs between releases (1.35 keeps the first user message; 1.27 summarises the
    # summary and the retained answer again before the turn; 1.25 and 2.13 send the summary and
    # the retained answer)
    assert "SUMMARY OF EARLIER" in sent and "again" in sent
    stored = (await chat.session("s", **options)).events
    texts = [e.content.parts[0].text for e in stored if e.content and e.content.parts]
    assert texts[:2] == ["hello", "first answer"]  # summarised, still stored
    assert "again" in texts and texts[-1] == "done"
    assert any(getattr(e.actions, "compaction", None) for e in stored)


async def test_a_token_only_config_where_adk_needs_the_interval_pair_is_refused():
    config = ExecutionConfig(
        compaction=CompactionConfig(
            interval=None, overlap=None, token_threshold=4000, event_retention_size=5
        )
    )
    build = lambda: Agent("chat").instruct("Chat.").to_app(config)  # noqa: E731
    _, required = compaction_settings()
    if "compaction_interval" in required:
        with pytest.raises(BuildError, match="always needs interval"):
            build()
    else:
        app = build()
        assert app.events_compaction_config.token_threshold == 4000
        assert app.events_compaction_config.compaction_interval is None
