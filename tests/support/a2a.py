"""A2A servers for the integration tests: `adk-fluent serve` in a subprocess on 127.0.0.1 (with
this interpreter's ADK or another environment's), any ASGI app of a test module under uvicorn
(an `a2a_app` with card options, or one wrapped in a test's own middleware), a stdlib HTTP server
publishing an A2A 1.x card, and finding a sibling environment with the other google-adk release.

Every server is started on a free port, waited for (bounded) until its agent card answers, and
stopped by its PID.
"""

from __future__ import annotations

import functools
import http.server
import importlib.metadata
import json
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.servers import REPO, STOP_SECONDS, ServerProcess, free_port

CARD_PATH = "/.well-known/agent-card.json"
ADK_VERSION = importlib.metadata.version("google-adk")


def skip_without_a2a() -> None:
    """Skip, with the reason, where this environment has no A2A support to test."""
    for module, why in (
        ("a2a", "a2a-sdk (the a2a extra) is not installed"),
        ("httpx", "httpx (a2a-sdk's HTTP client) is not installed"),
        ("uvicorn", "uvicorn (a2a-sdk[http-server]) is not installed"),
    ):
        pytest.importorskip(module, reason=why)


def write_module(folder: Path, name: str, source: str) -> str:
    """`folder/name.py` holding `source` (dedented); returns its module name."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return name


_MAIN = "import sys; from adk_fluent.cli import main; sys.exit(main())"


class A2AServer(ServerProcess):
    """`adk-fluent serve MODULE:ATTR` run by `python` in `folder` (where the module is)."""

    def __init__(
        self,
        folder: Path,
        target: str,
        *,
        python: Path | str = sys.executable,
        session_store: str | None = None,
    ) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        self.card_url = f"http://127.0.0.1:{port}{CARD_PATH}"
        script = Path(python).parent / "adk-fluent"  # the console script, as users run it
        launcher = [str(script)] if script.exists() else [str(python), "-c", _MAIN]
        command = [*launcher, "serve", target, "--host", "127.0.0.1", "--port", str(port)]
        if session_store:
            command += ["--session-store", session_store]
        super().__init__(
            command, port=port, ready_path=CARD_PATH, log=folder / f"server-{port}.log", cwd=folder
        )


@contextmanager
def serving(folder: Path, target: str, **options: object) -> Iterator[A2AServer]:
    """A started `adk-fluent serve`, stopped by its PID when the block ends."""
    skip_without_a2a()
    server = A2AServer(folder, target, **options)  # type: ignore[arg-type]
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


class AsgiServer(ServerProcess):
    """`python -m uvicorn MODULE:ATTR` in `folder` on 127.0.0.1; the module reads its port from
    the environment variable PORT (an `a2a_app` advertises it on its card)."""

    def __init__(
        self,
        folder: Path,
        target: str,
        *,
        python: Path | str = sys.executable,
        ready_path: str = CARD_PATH,
        env: dict[str, str] | None = None,
    ) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        self.card_url = f"http://127.0.0.1:{port}{CARD_PATH}"
        command = [str(python), "-m", "uvicorn", target, "--host", "127.0.0.1"]
        command += ["--port", str(port), "--log-level", "warning"]
        super().__init__(
            command,
            port=port,
            ready_path=ready_path,
            log=folder / f"server-{port}.log",
            cwd=folder,
            env={"PORT": str(port), **(env or {})},
        )


@contextmanager
def serving_app(folder: Path, target: str, **options: object) -> Iterator[AsgiServer]:
    """A started `uvicorn MODULE:ATTR` (see AsgiServer), stopped by its PID when the block ends."""
    skip_without_a2a()
    server = AsgiServer(folder, target, **options)  # type: ignore[arg-type]
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


# A card as a2a-sdk 1.x publishes it (A2A protocol 1.0): no top-level `url`, interfaces instead.
A2A_1X_CARD = {
    "name": "payments",
    "description": "Refunds.",
    "version": "1.0.0",
    "protocolVersion": "1.0",
    "supportedInterfaces": [
        {"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}


@contextmanager
def card_server(card: dict) -> Iterator[str]:
    """A stdlib HTTP server on 127.0.0.1 answering every GET with `card`; yields the card URL."""
    body = json.dumps(card).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:  # quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{CARD_PATH}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=STOP_SECONDS)


_PROBE = (
    "import importlib.metadata as m, pathlib, adk_fluent, a2a, uvicorn; "
    "print(m.version('google-adk')); print(pathlib.Path(adk_fluent.__file__).resolve())"
)


@functools.lru_cache(maxsize=1)
def other_adk_python() -> tuple[Path, str] | None:
    """(interpreter, google-adk version) of a sibling environment of this checkout (.venv,
    .nox/*) whose google-adk differs from the running one, with this checkout's adk_fluent and
    a2a-sdk importable; None when there is none."""
    here = Path(sys.prefix).resolve()
    candidates = [REPO / ".venv" / "bin" / "python"]
    candidates += sorted((REPO / ".nox").glob("*/bin/python"))
    source = (REPO / "src" / "adk_fluent").resolve()
    for python in candidates:
        if not python.exists() or python.parent.parent.resolve() == here:
            continue
        try:
            probe = subprocess.run(
                [str(python), "-c", _PROBE], capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = probe.stdout.split()
        if probe.returncode != 0 or len(lines) != 2:
            continue
        version, package = lines
        if version != ADK_VERSION and Path(package).parent == source:
            return python, version
    return None


def need_other_adk() -> tuple[Path, str]:
    """The other-release interpreter, or a visible skip saying none is set up."""
    found = other_adk_python()
    if found is None:
        pytest.skip(
            f"no sibling environment (.venv, .nox/*) of {REPO} with a google-adk other than "
            f"{ADK_VERSION} and adk_fluent + a2a-sdk importable; `make test` creates them"
        )
    return found


def run_client_on_other_adk(
    source: str, card_url: str, folder: Path, timeout: float
) -> tuple[dict, str]:
    """Run the client script `source` on the other ADK release against `card_url` (its last
    stdout line is JSON): (that JSON, the other release's version); skips where no such
    environment is set up, fails with the script's stderr when it fails."""
    python, version = need_other_adk()
    script = folder / "client.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    done = subprocess.run(
        [str(python), str(script), card_url],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), version


def message_params(text: str, metadata: dict | None = None) -> dict:
    """The params of an A2A `message/send` or `message/stream` holding one user text, as any
    A2A client writes them (JSON-RPC by hand)."""
    params: dict = {
        "message": {
            "kind": "message",
            "messageId": uuid.uuid4().hex,
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
        }
    }
    if metadata is not None:
        params["metadata"] = metadata
    return params
