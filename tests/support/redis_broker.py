"""A real Redis for the queue-boundary tests: a throwaway server on 127.0.0.1 on a free port,
started from `redis-server` (PATH or /usr/bin; `.ci/install-redis` installs Debian's package),
stopped by its PID, its data in a temp folder (no snapshots unless asked: a test that restarts
the broker chooses).

Use it from a test module by naming the fixture there:

    from tests.support import redis_broker

    redis_server = redis_broker.redis_server

then ask for `redis_server` (a RedisServer: `.url`, `.restart()`, `.stop()`). Tests skip,
with the reason, only where no server can be had; `.ci/run` sets ADK_FLUENT_REQUIRE_REDIS once
one was installed, and then a missing server fails them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.servers import free_port

REQUIRE_ENV = "ADK_FLUENT_REQUIRE_REDIS"
START_SECONDS = 20.0


class Unavailable(Exception):
    """No Redis server can be had here; the message says why."""


def find_server() -> str | None:
    """The redis-server binary: PATH first, then Debian's place."""
    found = shutil.which("redis-server")
    if found:
        return found
    return "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None


@dataclass
class RedisServer:
    """A redis-server process of the tests'. `url` is what boundaries and workers are given."""

    binary: str
    port: int
    folder: Path
    process: subprocess.Popen | None = None
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.folder / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (or start again, on the same port and folder) and wait until it answers."""
        command = [
            self.binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.folder),
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            str(self.log),
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited:\n{self._tail()}")
            if self.answers():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer in {START_SECONDS}s:\n{self._tail()}")

    def answers(self) -> bool:
        """Whether the server answers PING now."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the server by its PID (SIGTERM, then SIGKILL)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

    def restart(self) -> None:
        """Stop and start again: with no snapshot, everything it held is gone."""
        self.stop()
        self.start()

    def _tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""


def start_server() -> RedisServer:
    """A new redis-server on a free port; Unavailable when there is none to run."""
    binary = find_server()
    if binary is None:
        raise Unavailable(
            "no redis-server on PATH or in /usr/bin; .ci/install-redis installs it "
            "(Debian: apt-get install redis-server)"
        )
    try:
        import redis  # noqa: F401
    except ImportError:
        raise Unavailable("the redis client is not installed (the `queue` extra)") from None
    folder = Path(tempfile.mkdtemp(prefix="adk-fluent-redis-"))
    server = RedisServer(binary, free_port(), folder)
    server.start()
    return server


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A Redis for this test module, stopped (and its folder removed) at its end."""
    try:
        server = start_server()
    except Unavailable as why:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{REQUIRE_ENV} is set but no Redis can be had: {why}")
        pytest.skip(str(why))
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)
