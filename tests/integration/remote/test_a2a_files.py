"""Images and files across the A2A boundary, as users run it: `adk-fluent serve` in a subprocess
and a client pipeline with a RemoteAgent step (here, or in the other google-adk release's
interpreter). ADK turns parts into A2A FileParts and back; what is proved is that nothing is
lost on the way, on both ends:

* the user's image (bytes) and PDF (a URI) reach the served agent's model request with the
  same bytes, MIME type and URI, and so does an image an earlier client agent drew;
* the image the served agent replies with reaches the client's events, its stored session and
  the next client agent's model request byte for byte.
"""

from __future__ import annotations

import hashlib

import pytest

from adk_fluent import Agent, RemoteAgent
from adk_fluent.testing import mock_backend, repeat
from tests.behaviour.content.media import (
    USER_IMAGE,
    USER_PDF,
    blob,
    item,
    media,
    reply,
    request_media,
)
from tests.support.a2a import (
    ADK_VERSION,
    need_other_adk,
    run_client_on_other_adk,
    serving,
    write_module,
)

pytest.importorskip("httpx", reason="httpx (a2a-sdk's HTTP client) is not installed")

REQUEST_SECONDS = 60

# The served agent reports every part it was shown (role, kind, MIME type, then a digest and
# the length of bytes, or the URI) and replies with text and an image of its own.
VISION = """
import hashlib

from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_fluent import Agent
from adk_fluent.testing import ScriptedModel, repeat

SERVED_IMAGE = b"GIF89a" + bytes(range(256))[::-1]


def look(request):
    seen = []
    for content in request.contents or []:
        for part in content.parts or []:
            if part.inline_data is not None:
                data = part.inline_data.data
                digest = hashlib.sha256(data).hexdigest()
                seen.append(f"{content.role}|inline|{part.inline_data.mime_type}|{digest}|{len(data)}")
            elif part.file_data is not None:
                data = part.file_data
                seen.append(f"{content.role}|file|{data.mime_type}|{data.file_uri}")
    reply = types.Content(
        role="model",
        parts=[
            types.Part(text="SEEN " + " ; ".join(seen)),
            types.Part(inline_data=types.Blob(mime_type="image/gif", data=SERVED_IMAGE)),
        ],
    )
    usage = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=1, candidates_token_count=1, total_token_count=2
    )
    return LlmResponse(content=reply, usage_metadata=usage)


pipeline = Agent("vision").instruct("Look.").model(ScriptedModel([repeat(look)]))
"""

SERVED_IMAGE = b"GIF89a" + bytes(range(256))[::-1]
PROMPT = ["What is in these?", USER_IMAGE, USER_PDF]

# The client, run by the other release's interpreter: one turn, what crossed as JSON.
CLIENT = """
import asyncio, hashlib, json, sys, warnings

warnings.simplefilter("ignore")
from google.genai import types

from adk_fluent import Agent, RemoteAgent
from adk_fluent.testing import mock_backend, repeat

IMAGE = bytes(range(256)) * 4


def media(parts):
    found = []
    for part in parts or []:
        if part.inline_data is not None:
            data = part.inline_data.data
            found.append([part.inline_data.mime_type, hashlib.sha256(data).hexdigest(), len(data)])
    return found


async def main():
    pipeline = RemoteAgent("vision", sys.argv[1]) >> Agent("after").instruct("Answer.")
    backend = mock_backend({"after": repeat("Answered.")})
    prompt = ["What is this?", types.Part(inline_data=types.Blob(mime_type="image/jpeg", data=IMAGE))]
    events = await pipeline.run(prompt, backend=backend, session_id="s1")
    (after,) = backend.requests["after"]
    print(json.dumps({
        "errors": [e.error_code for e in events if e.is_error],
        "remote_text": [e.content for e in events if e.author == "vision" and e.content],
        "remote_media": [media(e.raw.content.parts) for e in events if e.author == "vision"],
        "after_media": [m for c in after.contents for m in media(c.parts)],
    }))


asyncio.run(main())
"""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _seen(data: bytes, mime: str, role: str = "user") -> str:
    return f"{role}|inline|{mime}|{_digest(data)}|{len(data)}"


@pytest.fixture(scope="module")
def vision(tmp_path_factory):
    """The vision agent served by this environment's ADK."""
    folder = tmp_path_factory.mktemp("vision")
    write_module(folder, "vision_app", VISION)
    with serving(folder, "vision_app:pipeline") as server:
        yield server


def _remote_text(events) -> str:
    texts = [e.content for e in events if e.author == "vision" and e.content]
    assert texts, [(e.author, e.content, e.error_code, e.error_message) for e in events]
    return texts[-1]


async def _roundtrip(card: str, session_id: str):
    pipeline = RemoteAgent("vision", card) >> Agent("after").instruct("Answer.")
    backend = mock_backend({"after": repeat("Answered.")})
    events = await pipeline.run(PROMPT, backend=backend, session_id=session_id)
    return pipeline, backend, events


async def test_the_users_image_and_file_reach_the_served_model_intact(vision):
    _, _, events = await _roundtrip(vision.card_url, "to-server")

    assert not [e for e in events if e.is_error]
    seen = _remote_text(events).removeprefix("SEEN ").split(" ; ")
    image = USER_IMAGE.inline_data
    assert seen == [
        _seen(image.data, image.mime_type),
        f"user|file|application/pdf|{USER_PDF.file_data.file_uri}",
    ]


async def test_the_served_agents_image_reaches_the_client_its_store_and_next_agent(vision):
    pipeline, backend, events = await _roundtrip(vision.card_url, "to-client")

    (remote,) = [e for e in events if e.author == "vision" and e.raw.content]
    assert media(remote.raw.content.parts) == [("image/gif", SERVED_IMAGE)]
    stored = await pipeline.session("to-client", backend=backend)
    kept = [media(e.content.parts) for e in stored.events if e.author == "vision" and e.content]
    assert [("image/gif", SERVED_IMAGE)] in kept
    (after,) = backend.requests["after"]
    assert request_media(after) == [item(USER_IMAGE), item(USER_PDF), ("image/gif", SERVED_IMAGE)]


async def test_an_earlier_client_agents_image_reaches_the_served_model(vision):
    drawing = blob("image/webp", b"RIFF\x00\x00WEBP" + bytes(range(200)))
    pipeline = (
        Agent("painter").instruct("Draw.")
        >> RemoteAgent("vision", vision.card_url)
        >> Agent("after").instruct("Answer.")
    )
    backend = mock_backend({"painter": [reply(drawing)], "after": ["Answered."]})
    events = await pipeline.run(["Draw a cat."], backend=backend, session_id="painted")

    seen = _remote_text(events).removeprefix("SEEN ").split(" ; ")
    assert seen == [_seen(drawing.inline_data.data, "image/webp")]


async def test_this_client_and_a_server_on_the_other_adk_release(tmp_path):
    python, version = need_other_adk()
    write_module(tmp_path, "vision_app", VISION)
    with serving(tmp_path, "vision_app:pipeline", python=python) as server:
        _, backend, events = await _roundtrip(server.card_url, "cross")

    assert not [e for e in events if e.is_error], (ADK_VERSION, version)
    image = USER_IMAGE.inline_data
    assert _seen(image.data, image.mime_type) in _remote_text(events)
    assert request_media(backend.requests["after"][0])[-1] == ("image/gif", SERVED_IMAGE)


def test_a_client_on_the_other_adk_release_and_this_server(vision, tmp_path):
    outcome, version = run_client_on_other_adk(
        CLIENT, vision.card_url, tmp_path, REQUEST_SECONDS * 2
    )

    sent = bytes(range(256)) * 4
    assert outcome["errors"] == [], version
    assert _seen(sent, "image/jpeg") in outcome["remote_text"][-1]
    served = [["image/gif", _digest(SERVED_IMAGE), len(SERVED_IMAGE)]]
    assert served in outcome["remote_media"]
    assert outcome["after_media"][-1] == served[0]
