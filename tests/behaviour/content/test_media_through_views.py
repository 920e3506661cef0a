"""Images, audio and files carried intact: the user's media and an earlier agent's media reach the
next agent's model request byte for byte (same bytes, MIME type and name) through every context
view that includes their message, through fan-outs, loops, SSE, filtered mode and a SQLite
reload, and no request-side edit reaches the stored history."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C, FanOut, Loop
from adk_fluent.testing import mock_backend, repeat
from tests.behaviour.content.media import (
    AGENT_IMAGE,
    AGENT_VIDEO,
    USER_AUDIO,
    USER_IMAGE,
    USER_PDF,
    item,
    media,
    reply,
    request_media,
)
from tests.conftest import fresh_db_service

PROMPT = ["Look at these.", USER_IMAGE, USER_PDF, USER_AUDIO]
USER_MEDIA = [item(USER_IMAGE), item(USER_PDF), item(USER_AUDIO)]
PAINTER_MEDIA = [item(AGENT_IMAGE), item(AGENT_VIDEO)]

# view -> (shows the user's message, shows the painter's reply), in a painter >> viewer pipeline
VIEWS = {
    "default": (None, True, True),
    "C.default()": (C.default(), True, True),
    "C.user_only()": (C.user_only(), True, False),
    "C.from_agents('painter')": (C.from_agents("painter"), True, True),
    "C.exclude_agents('nobody')": (C.exclude_agents("nobody"), True, True),
    "C.exclude_agents('painter')": (C.exclude_agents("painter"), True, False),
    "C.last_n_turns(1)": (C.last_n_turns(1), True, True),
    "C.none()": (C.none(), True, False),
    "C.from_state('caption')": (C.from_state("caption"), True, False),
    "C.template(...)": (C.template("Caption: {caption}"), True, True),
    "C.user_only() + C.from_state(...)": (C.user_only() + C.from_state("caption"), True, False),
    "include_contents='none'": ("none", False, True),
}


def _viewer(view):
    agent = Agent("viewer").instruct("Describe what you are shown.")
    if view == "none":
        return agent.include_contents("none")
    return agent if view is None else agent.context(view)


def _painter():
    return Agent("painter").instruct("Draw.").outputs("caption")


@pytest.mark.parametrize("name", list(VIEWS))
async def test_media_reach_the_next_agent_byte_for_byte_through_every_view(name):
    view, shows_user, shows_painter = VIEWS[name]
    backend = mock_backend(
        {"painter": [reply(AGENT_IMAGE, AGENT_VIDEO)], "viewer": ["It is a drawing."]}
    )
    events = await (_painter() >> _viewer(view)).run(PROMPT, backend=backend)

    assert not [e for e in events if e.is_error]
    (request,) = backend.requests["viewer"]
    expected = (USER_MEDIA if shows_user else []) + (PAINTER_MEDIA if shows_painter else [])
    assert request_media(request) == expected
    names = [p.inline_data.display_name for c in request.contents for p in c.parts if p.inline_data]
    assert names == (["photo.jpg", None] if shows_user else []) + (  # the audio has no name
        ["drawing.png"] if shows_painter else []
    )
    # the painter saw the user's media too, and the client got the painter's media whole
    assert request_media(backend.requests["painter"][0]) == USER_MEDIA
    (painted,) = [e for e in events if e.author == "painter"]
    assert media(painted.raw.content.parts) == PAINTER_MEDIA


async def test_a_fanout_joiner_sees_every_branchs_media_and_branches_see_none_of_each_other():
    drawing = Agent("drawer").instruct("Draw.")
    filming = Agent("filmer").instruct("Film.")
    joiner = Agent("joiner").instruct("Combine.").context(C.from_agents("drawer", "filmer"))
    backend = mock_backend(
        {"drawer": [reply(AGENT_IMAGE)], "filmer": [reply(AGENT_VIDEO)], "joiner": ["both"]}
    )
    await (FanOut(drawing, filming) >> joiner).run(PROMPT, backend=backend)

    assert request_media(backend.requests["drawer"][0]) == USER_MEDIA
    assert request_media(backend.requests["filmer"][0]) == USER_MEDIA
    assert sorted(request_media(backend.requests["joiner"][0])) == sorted(
        [*USER_MEDIA, item(AGENT_IMAGE), item(AGENT_VIDEO)]
    )


async def test_in_a_loop_an_agent_sees_its_own_earlier_image_as_its_own_reply():
    artist = Agent("artist").instruct("Improve the drawing.").context(C.user_only())
    backend = mock_backend({"artist": [reply(AGENT_IMAGE), reply(AGENT_VIDEO)]})
    await Loop(artist, max_iterations=2).run(["Draw."], backend=backend)

    second = backend.requests["artist"][1]
    own = [c for c in second.contents if c.role == "model"]
    assert [media(c.parts) for c in own] == [[item(AGENT_IMAGE)]]


async def test_sse_streaming_carries_the_final_replys_media_to_the_client_and_the_next_agent():
    backend = mock_backend({"painter": [reply(AGENT_IMAGE)], "viewer": ["Nice drawing."]})
    pipeline = _painter() >> _viewer(C.from_agents("painter"))
    events = [e async for e in pipeline.stream(PROMPT, backend=backend, streaming="sse")]

    finals = [e for e in events if e.author == "painter" and not e.is_partial]
    assert [media(e.raw.content.parts) for e in finals] == [[item(AGENT_IMAGE)]]
    assert [media(e.media) for e in finals] == [[item(AGENT_IMAGE)]]  # AgentEvent.media
    assert [e.media for e in events if e.author == "viewer"] == [(), (), ()]  # partials too
    assert request_media(backend.requests["viewer"][0]) == [*USER_MEDIA, item(AGENT_IMAGE)]


async def test_media_survive_the_sqlite_store_and_reach_the_next_turn_byte_for_byte(sqlite_url):
    store = sqlite_url.replace("sqlite:///", "sqlite+aiosqlite:///")
    backend = mock_backend(
        {"painter": repeat(reply(AGENT_IMAGE, AGENT_VIDEO)), "viewer": repeat("Seen.")}
    )
    pipeline = _painter() >> _viewer(C.user_only())
    await pipeline.run(PROMPT, backend=backend, session_id="s", session_store=store)
    await pipeline.run("And now?", backend=backend, session_id="s", session_store=store)

    # the stored events, read by a fresh service from the file
    stored = await fresh_db_service(sqlite_url).get_session(
        app_name=pipeline.to_app(backend=backend).name, user_id="user", session_id="s"
    )
    by_author = [(e.author, media(e.content.parts)) for e in stored.events if e.content]
    assert ("user", USER_MEDIA) in by_author
    assert ("painter", PAINTER_MEDIA) in by_author
    # turn 2 was built from what the store gave back: the same bytes
    second_painter = backend.requests["painter"][1]
    assert request_media(second_painter) == [*USER_MEDIA, *PAINTER_MEDIA]
    assert request_media(backend.requests["viewer"][1]) == USER_MEDIA


async def test_filtered_mode_keeps_an_internal_agents_media_from_the_client_not_from_the_next():
    backend = mock_backend({"painter": [reply(AGENT_IMAGE)], "viewer": ["A cat."]})
    pipeline = (_painter() >> _viewer(None)).filtered()
    events = await pipeline.run(PROMPT, backend=backend, session_id="f")

    assert [e.author for e in events if e.raw.content and media(e.raw.content.parts)] == []
    assert request_media(backend.requests["viewer"][0]) == [*USER_MEDIA, item(AGENT_IMAGE)]


def _clear_display_names(callback_context, llm_request):
    """What ADK's Gemini class does to a request for the Gemini API (google_llm.py): it clears
    `display_name` on inline_data and file_data, in place."""
    for content in llm_request.contents:
        for part in content.parts or []:
            if part.inline_data is not None:
                part.inline_data.display_name = None


@pytest.mark.parametrize(
    "view",
    [C.user_only(), C.from_agents("painter"), C.last_n_turns(2)],
    ids=lambda spec: spec.describe(),
)
async def test_an_edit_to_the_request_never_reaches_the_stored_history(view):
    # the view builds the request from the session's own events: an in-place edit of a media
    # part there must not change the stored event, nor what the next agent is shown
    painter = _painter().context(view).before_model(_clear_display_names)
    backend = mock_backend({"painter": [reply(AGENT_IMAGE)], "viewer": ["Seen."]})
    pipeline = painter >> _viewer(C.from_agents("painter"))
    await pipeline.run(PROMPT, backend=backend, session_id="m")

    stored = await pipeline.session("m", backend=backend)
    names = [
        p.inline_data.display_name
        for e in stored.events
        if e.content
        for p in e.content.parts or []
        if p.inline_data is not None
    ]
    assert names == ["photo.jpg", None, "drawing.png"]  # USER_AUDIO has no name
    viewer = backend.requests["viewer"][0]
    assert [p.inline_data.display_name for c in viewer.contents for p in c.parts
            if p.inline_data] == ["photo.jpg", None, "drawing.png"]  # fmt: skip
