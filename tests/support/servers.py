"""Server processes for the integration tests (`adk api_server`, `adk-fluent serve`, a split
pipeline's service): each on 127.0.0.1 on a free port, waited for until it answers (bounded),
and stopped by its own PID, its output kept in a log file for the failure message."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 90.0  # importing ADK 1.x in a fresh process is slow on a shared 2-core machine
STOP_SECONDS = 15.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerFailed(RuntimeError):
    """A server exited or did not answer in time; the message holds its log's tail."""


class ServerProcess:
    """`command`, which must listen on 127.0.0.1:`port`, run in `cwd` with its output in `log`;
    ready once `ready_path` answers 200."""

    def __init__(
        self,
        command: list[str],
        *,
        port: int,
        ready_path: str,
        log: Path,
        cwd: Path = REPO,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.ready_url = self.base + ready_path
        self.log = log
        self._log_file = log.open("wb")
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )

    def ready(self) -> bool:
        """Whether the server answers now; ServerFailed once its process has exited."""
        import httpx

        if self.process.poll() is not None:
            raise ServerFailed(
                f"{self.process.args[0]} exited ({self.process.returncode}):\n{self.log_tail()}"
            )
        try:
            return httpx.get(self.ready_url, timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def wait_ready(self, seconds: float = STARTUP_SECONDS) -> None:
        """Return once the server answers; ServerFailed when it exits or the time is up."""
        wait_all([self], seconds)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of what the server printed."""
        self._log_file.flush()
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-chars:]

    def stop(self) -> None:
        """Stop this PID only (terminate, then kill if it lingers); idempotent."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_SECONDS)
        self._log_file.close()


def wait_all(servers: Iterable[ServerProcess], seconds: float = STARTUP_SECONDS) -> None:
    """Wait until every server answers; ServerFailed (naming the first late one) otherwise."""
    deadline = time.monotonic() + seconds
    waiting = list(servers)
    while waiting:
        waiting = [server for server in waiting if not server.ready()]
        if not waiting:
            return
        if time.monotonic() > deadline:
            late = waiting[0]
            raise ServerFailed(
                f"no answer at {late.ready_url} within {seconds:.0f} s:\n{late.log_tail()}"
            )
        time.sleep(0.2)


def run_request(app: str, text: str, *, user: str = "u1", session: str = "s1") -> dict:
    """The JSON body of one turn for `adk api_server` / `adk web`'s `/run` (and `/run_sse`)."""
    return {
        "app_name": app,
        "user_id": user,
        "session_id": session,
        "new_message": {"role": "user", "parts": [{"text": text}]},
    }
