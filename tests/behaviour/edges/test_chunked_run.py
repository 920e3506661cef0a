"""Chunked edges through the real Runner, scripted, on SQLite: the consumer runs on each chunk
of the producer's reply, in order, while the producer is still writing (with SSE), and the
store holds every step after a reload."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, S
from adk_fluent.testing import mock_backend
from tests.conftest import fresh_db_service, system_instruction

REPLY = "First point. Second point! Third point? Last point."
CHUNKS = ["First point.", "Second point!", "Third point?", "Last point."]


def edge(**options):
    writer = Agent("writer").instruct("Write four points.").outputs("draft")
    speaker = Agent("speaker").instruct("Read aloud: {chunk}").outputs("spoken")
    return writer.then(speaker, edge="chunked", **options)


def backend():
    return mock_backend({"writer": REPLY, "speaker": [f"said {i}" for i in range(1, 5)]})


async def stored(url: str, session_id: str):
    return await fresh_db_service(url).get_session(
        app_name="adk_fluent_app", user_id="user", session_id=session_id
    )


def chunk_seen(request) -> str:
    """The chunk a speaker request was rendered with (its instruction's tail)."""
    return system_instruction(request).split("Read aloud: ", 1)[1].split("\n", 1)[0]


@pytest.mark.parametrize("streaming", ["sse", None])
async def test_the_consumer_runs_on_each_chunk_in_order(sqlite_url, streaming):
    scripted = backend()
    options = {"streaming": streaming} if streaming else {}
    await edge().run("go", backend=scripted, session_id="c", session_store=sqlite_url, **options)
    assert [chunk_seen(r) for r in scripted.requests["speaker"]] == CHUNKS
    scripted.assert_consumed()


async def test_with_sse_the_consumer_starts_before_the_producer_has_finished(sqlite_url):
    events: list = []  # what the client has received so far
    writer_done_at_request: list[bool] = []  # per speaker request: had the writer finished?

    def answer(number: int):
        def step(request):
            finished = any(e.author == "writer" and not e.is_partial for e in events)
            writer_done_at_request.append(finished)
            return f"said {number}"

        return step

    scripted = mock_backend({"writer": REPLY, "speaker": [answer(i) for i in range(1, 5)]})
    async for event in edge().stream(
        "go", backend=scripted, session_store=sqlite_url, streaming="sse"
    ):
        events.append(event)
    assert writer_done_at_request[0] is False  # the first request came before the writer's end
    assert writer_done_at_request[-1] is True
    writer_final = next(
        i for i, e in enumerate(events) if e.author == "writer" and not e.is_partial
    )
    first_speaker = next(i for i, e in enumerate(events) if e.author == "speaker")
    first_chunk = next(i for i, e in enumerate(events) if e.state_delta.get("chunk"))
    assert first_chunk < first_speaker < writer_final
    # the producer's stream did not wait: it kept yielding partials while the speaker ran
    between = events[first_speaker:writer_final]
    assert any(e.author == "writer" and e.is_partial for e in between)
    # the speaker's requests show each chunk, never the writer's whole reply
    for request in scripted.requests["speaker"]:
        assert REPLY not in " ".join(
            p.text or "" for c in request.contents or [] for p in c.parts or []
        )


async def test_without_sse_the_whole_reply_is_chunked_when_it_ends(sqlite_url):
    events = await edge().run("go", backend=backend(), session_store=sqlite_url)
    writer_final = next(i for i, e in enumerate(events) if e.author == "writer")
    first_speaker = next(i for i, e in enumerate(events) if e.author == "speaker")
    assert writer_final < first_speaker


@pytest.mark.parametrize("streaming", ["sse", None])
async def test_the_store_holds_every_step_after_a_reload(sqlite_url, streaming):
    options = {"streaming": streaming} if streaming else {}
    await edge().run("go", backend=backend(), session_id="s", session_store=sqlite_url, **options)
    session = await stored(sqlite_url, "s")
    texts: dict[str, list[str]] = {}  # author -> the texts stored for it, in order
    for event in session.events:
        if event.content and event.content.parts and event.content.parts[0].text:
            texts.setdefault(event.author, []).append(event.content.parts[0].text)
    assert texts["writer"] == [REPLY]  # the full reply (partials are never stored)
    assert texts["speaker"] == ["said 1", "said 2", "said 3", "said 4"]
    writes = [
        e.actions.state_delta["chunk"]
        for e in session.events
        if e.author == "chunked__writer__speaker" and "chunk" in e.actions.state_delta
    ]
    assert writes == [*CHUNKS, None]  # each chunk, then the key cleared
    assert session.state["draft"] == REPLY
    assert session.state["spoken"] == "said 1 said 2 said 3 said 4"
    assert session.state.get("chunk") is None
    # each chunk was stored before the speaker's reply to it
    order = [
        e.actions.state_delta.get("chunk") or e.author
        for e in session.events
        if e.author in ("speaker", "chunked__writer__speaker")
    ]
    assert order[:4] == ["First point.", "speaker", "Second point!", "speaker"]


async def test_by_size_and_custom_key(sqlite_url):
    writer = Agent("writer").instruct("Write.")
    speaker = Agent("speaker").instruct("Read aloud: {part}")
    pipeline = writer.then(speaker, edge="chunked", by=14, key="part")
    scripted = mock_backend({"writer": "one two three four five six", "speaker": ["a", "b"]})
    await pipeline.run("go", backend=scripted, session_store=sqlite_url, streaming="sse")
    seen = [
        system_instruction(r).split("Read aloud: ")[1].split("\n")[0]
        for r in scripted.requests["speaker"]
    ]
    assert seen == ["one two three", "four five six"]  # at most 14 characters, whole words
    scripted.assert_consumed()


async def test_the_speaker_is_what_the_user_sees_in_filtered_mode(sqlite_url):
    pipeline = edge().filtered()
    events = await pipeline.run("go", backend=backend(), session_store=sqlite_url, streaming="sse")
    spoken = [e.content for e in events if e.content and not e.is_partial]
    assert spoken == ["said 1", "said 2", "said 3", "said 4"]
    assert all(e.author != "writer" for e in events if e.content)


async def test_the_consumer_keeps_its_own_history_and_not_the_producers(sqlite_url):
    scripted = backend()
    await edge().run("go", backend=scripted, session_store=sqlite_url, streaming="sse")
    last = scripted.requests["speaker"][-1]
    shown = [p.text for c in last.contents or [] for p in c.parts or [] if p.text]
    assert shown[0] == "go"
    assert "said 1" in " ".join(shown) and "said 3" in " ".join(shown)
    assert REPLY not in " ".join(shown)  # the writer's reply reaches it only chunk by chunk


async def test_a_failed_step_in_the_consumer_ends_the_run(sqlite_url):
    writer = Agent("writer").instruct("Write.").outputs("draft")
    consumer = Agent("speaker").instruct("Read aloud: {chunk}") >> S.guard(
        lambda state: state["chunk"] != "Second point!", "no second point"
    )
    pipeline = writer.then(consumer, edge="chunked") >> Agent("after")
    scripted = mock_backend({"writer": REPLY, "speaker": ["said 1", "said 2"]})
    events = await pipeline.run("go", backend=scripted, session_id="f", session_store=sqlite_url)
    assert events[-1].error_code == "STATE_GUARD_FAILED"
    assert [chunk_seen(r) for r in scripted.requests["speaker"]] == CHUNKS[:2]
    session = await stored(sqlite_url, "f")
    assert session.events[-1].error_code == "STATE_GUARD_FAILED"
    assert "after" not in {e.author for e in session.events}


async def test_a_producer_that_raises_raises_and_nothing_is_left_running(sqlite_url):
    pipeline = edge()
    scripted = mock_backend({"writer": RuntimeError("model down")})
    with pytest.raises(RuntimeError, match="model down"):
        await pipeline.run("go", backend=scripted, session_store=sqlite_url, streaming="sse")
