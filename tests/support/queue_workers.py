"""`adk-fluent worker` processes for the queue-boundary tests and bench: each serves the "heavy"
boundary of tests/support/queue_pipeline.py from a Redis on 127.0.0.1, is waited for until it
says it serves (bounded), and is stopped by its PID (SIGTERM, then SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.queue_pipeline import MARKS_ENV, SERVICE
from tests.support.servers import REPO, STARTUP_SECONDS

TARGET = "tests.support.queue_pipeline:pipeline"


def checkout_path() -> str:
    """PYTHONPATH for the worker processes: this checkout (its tests, src, generated and codegen
    folders) ahead of what this process was given, so a worker imports the same adk_fluent as
    its parent (not the one an editable install elsewhere points at)."""
    entries = [str(REPO), *(str(REPO / part) for part in ("src", "generated", "codegen"))]
    entries += os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return os.pathsep.join(dict.fromkeys(e for e in entries if e))


class WorkerProcess:
    """One `adk-fluent worker` process, its output in `log`."""

    def __init__(
        self,
        queue: str,
        store: str,
        log: Path,
        *,
        python: str = sys.executable,
        marks: Path | None = None,
        visibility_timeout: float = 30.0,
        max_tries: int = 3,
        concurrency: int = 4,
        processes: int = 1,
    ) -> None:
        self.log = log
        self.processes = processes
        command = [python, "-m", "adk_fluent.cli", "worker", TARGET, "--boundary", SERVICE]
        command += ["--queue", queue, "--session-store", store]
        command += ["--visibility-timeout", str(visibility_timeout)]
        command += ["--max-tries", str(max_tries), "--concurrency", str(concurrency)]
        command += ["--processes", str(processes)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": checkout_path()}
        if marks is not None:
            env[MARKS_ENV] = str(marks)
        self._file = log.open("wb")
        self.process = subprocess.Popen(
            command, cwd=REPO, stdout=self._file, stderr=subprocess.STDOUT, env=env
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def serving(self) -> bool:
        """Whether every worker process has said it serves; RuntimeError once it exited."""
        if self.output().count(" boundary heavy on ") >= self.processes:
            return True
        if self.process.poll() is not None:
            raise RuntimeError(f"the worker exited ({self.process.returncode}):\n{self.output()}")
        return False

    def wait_serving(self) -> None:
        """Until every worker process says it serves; RuntimeError with the output if the
        process exits or takes too long."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.serving():
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the worker did not start in {STARTUP_SECONDS}s:\n{self.output()}")

    def kill(self) -> None:
        """SIGKILL: what a lost machine does (no cleanup, the job in hand left pending)."""
        self.process.kill()
        self.process.wait(15)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)
        self._file.close()


def marks_of(path: Path) -> list[tuple[int, str]]:
    """(pid, question) of every call of the heavy step's model, in order."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(int(line.split(" ", 1)[0]), line.split(" ", 1)[1]) for line in lines if line]
