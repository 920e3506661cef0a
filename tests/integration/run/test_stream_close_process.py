"""Leaving a stream early: `break` out of `.stream()`, `aclose()` it, or cancel the task that
reads it. ADK's generator is closed in the context that opened it (no OpenTelemetry "created in
a different Context"), nothing runs on after the consumer left, no task is left pending, and
no switch outlives the stream: a plain Runner used next in the same task still filters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_breaking_out_logs_nothing_and_a_plain_runner_still_filters():
    script = Path(__file__).with_name("stream_break_script.py")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[3],
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("BROKE")] == [
        f"BROKE {n}" for n in range(1, 6)
    ]
    # after every early exit, the plain Runner's client got the user-facing answer only
    plain = [line for line in lines if line.startswith("PLAIN")]
    assert plain == [f"PLAIN {n} [('answer', 'Final answer.')]" for n in range(1, 6)]
    assert "PENDING 0" in lines and lines[-1] == "DONE"
    for symptom in ("different Context", "Failed to detach", "Task was destroyed", "Traceback"):
        assert symptom not in done.stderr, done.stderr[-3000:]
