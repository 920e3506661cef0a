"""The prompt guard: a user's message with an image (audio, a PDF, a file) is refused when it is
sent, before anything is stored or any model is called, if an agent that declared what it
accepts would be shown that modality; a message it may take runs as usual."""

from __future__ import annotations

import pytest

from adk_fluent import Agent, C
from adk_fluent.errors import BuildError
from adk_fluent.testing import mock_backend
from tests.behaviour.content.media import USER_AUDIO, USER_IMAGE, USER_PDF, request_media


def _reader():
    return Agent("reader").instruct("Summarise.").accepts("text")


def _vision():
    return Agent("vision").instruct("Describe.").accepts("image").outputs("description")


async def test_an_image_for_a_text_only_first_agent_is_refused_before_anything_runs(sqlite_url):
    store = sqlite_url.replace("sqlite:///", "sqlite+aiosqlite:///")
    pipeline = _reader()
    backend = mock_backend({"reader": ["A summary."]})
    with pytest.raises(BuildError) as caught:
        await pipeline.run(["What is this?", USER_IMAGE], backend=backend, session_id="g",
                           session_store=store)  # fmt: skip

    assert caught.value.agent == "reader" and caught.value.field == "prompt"
    assert "image" in str(caught.value) and ".accepts(" in str(caught.value)
    assert backend.requests == {}  # no model was called
    assert await pipeline.session("g", backend=backend, session_store=store) is None
    # a text message to the same pipeline runs
    assert await pipeline.ask("Summarise cats.", backend=backend) == "A summary."


@pytest.mark.parametrize(
    ("part", "word"), [(USER_PDF, "pdf"), (USER_AUDIO, "audio")], ids=["pdf", "audio"]
)
async def test_every_stream_entry_refuses_a_modality_the_agent_does_not_accept(part, word):
    pipeline = _vision() >> _reader()
    backend = mock_backend({})
    with pytest.raises(BuildError, match=word):
        pipeline.stream(["Look.", part], backend=backend)
    with pytest.raises(BuildError, match=word):
        await pipeline.ask(["Look.", part], backend=backend)


async def test_an_image_reaches_the_vision_agent_when_the_writer_is_shown_only_its_reply():
    pipeline = _vision() >> _reader().include_contents("none")
    backend = mock_backend({"vision": ["A cat on a mat."], "reader": ["Cat."]})
    await pipeline.run(["What is this?", USER_IMAGE], backend=backend)

    assert request_media(backend.requests["vision"][0]) == [
        ("image/jpeg", USER_IMAGE.inline_data.data)
    ]
    assert request_media(backend.requests["reader"][0]) == []


async def test_a_writer_shown_the_users_message_in_any_c_view_still_refuses_it():
    # every C view shows the user's message; only include_contents='none' after another agent
    # leaves it out
    pipeline = _vision() >> _reader().context(C.from_state("description"))
    with pytest.raises(BuildError, match="'reader'"):
        await pipeline.run(["What is this?", USER_IMAGE], backend=mock_backend({}))


async def test_pipelines_that_declare_nothing_take_any_message():
    pipeline = Agent("a").instruct("Look.") >> Agent("b").instruct("Write.")
    backend = mock_backend({"a": ["Seen."], "b": ["Written."]})
    events = await pipeline.run(["Look.", USER_IMAGE, USER_PDF, USER_AUDIO], backend=backend)
    assert [e.content for e in events if e.content] == ["Seen.", "Written."]
