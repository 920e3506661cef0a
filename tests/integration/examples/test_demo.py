"""`make demo` (examples/demo.py) as a newcomer runs it: offline with no key, and on Gemini with
GOOGLE_API_KEY set.

The Gemini run goes through the real google-genai client over HTTP, to a stand-in of the
Gemini API on 127.0.0.1 (google-genai reads GOOGLE_GEMINI_BASE_URL): the request the demo
sends is the one Gemini would get, and the stand-in answers as Gemini does (a label, a
function call, a confirmation).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "examples" / "demo.py"
TIMEOUT = 120


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "ADK_FLUENT_DEMO"))}
    env.update(extra)
    return env


def _reply(parts: list[dict]) -> dict:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3, "totalTokenCount": 13},
    }


class _Gemini(BaseHTTPRequestHandler):
    """generateContent as Gemini answers it, for the demo's two agents."""

    seen: list[tuple[str, dict, str]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((self.path, body, self.headers.get("x-goog-api-key", "")))
        system = json.dumps(body.get("systemInstruction", {}))
        answered = any(
            "functionResponse" in part
            for content in body.get("contents", [])
            for part in content.get("parts", [])
        )
        if "Classify" in system:
            reply = _reply([{"text": "booking"}])
        elif not answered:
            reply = _reply([{"functionCall": {"name": "book", "args": {"city": "Paris"}}}])
        else:
            reply = _reply([{"text": "Booked: your trip to Paris, reference BK-PAR-001."}])
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:  # keep the test output quiet
        pass


@pytest.fixture
def gemini():
    _Gemini.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gemini)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Gemini.seen
    finally:
        server.shutdown()
        server.server_close()


def _demo(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DEMO)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=TIMEOUT,
        check=False,
    )


def test_the_demo_runs_offline_without_a_key():
    done = _demo(_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Model: scripted (offline)" in out
    assert "BK-PAR-001" in out  # the booker's confirmation reached the client
    for section in ("Event stream", "Session history", "Final state", "Diagnostics", "Diagram"):
        assert section in out
    assert "intent = 'booking'" in out


def test_with_a_key_the_demo_runs_on_gemini(gemini):
    url, seen = gemini
    done = _demo(_env(GOOGLE_API_KEY="test-key", GOOGLE_GEMINI_BASE_URL=url))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Model: gemini-2.5-flash (live)" in out
    assert "calls book({'city': 'Paris'})" in out
    assert "BK-PAR-001" in out
    # three model calls: the classifier, the booker's tool call, its confirmation; each a
    # generateContent request for the demo's model, with the key in its header
    assert [path.rsplit("/", 1)[-1] for path, _, _ in seen] == [
        "gemini-2.5-flash:generateContent"
    ] * 3
    assert {key for _, _, key in seen} == {"test-key"}
    tools = seen[1][1]["tools"][0]["functionDeclarations"]
    assert [tool["name"] for tool in tools] == ["book"]


def test_the_demo_model_is_chosen_by_environment(gemini):
    url, seen = gemini
    done = _demo(
        _env(
            GOOGLE_API_KEY="test-key",
            GOOGLE_GEMINI_BASE_URL=url,
            ADK_FLUENT_DEMO_MODEL="gemini-2.5-pro",
        )
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Model: gemini-2.5-pro (live)" in done.stdout
    assert seen and all(path.endswith("gemini-2.5-pro:generateContent") for path, _, _ in seen)
