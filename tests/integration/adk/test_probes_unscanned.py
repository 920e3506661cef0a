"""On a release the scans do not cover, adk-fluent asks the behaviour probes in a child process:
a probe runs real ADK turns, and nothing of them may reach the user's own telemetry (no span,
no metric point, no log line at INFO or above) or the user's process (no session)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from adk_fluent_generated.behaviours import UnknownBehaviour, behaviour_on

from adk_fluent.adk.compat import adk_version
from adk_fluent.adk.probes import PROBES

PROBE_WORDS = ("probe", "adk_fluent_probe", "adk-fluent-probe-model")


def _run_script() -> dict:
    script = Path(__file__).with_name("unscanned_release_script.py")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[3],
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_probes_of_an_unscanned_release_leave_no_trace_in_the_users_telemetry():
    seen = _run_script()
    assert seen["reply"] == "Noted." and "gold" in seen["system"]  # run(state=) worked
    assert sorted(seen["answers"]) == sorted(PROBES)  # every probe answered, in the child
    for name, answer in seen["answers"].items():  # ... as the probe answers on this release
        try:
            recorded = behaviour_on(name, adk_version())
        except UnknownBehaviour:
            continue
        assert json.loads(json.dumps(recorded)) == answer, name
    assert seen["spans"], "the user's own run traced nothing: the exporter is not wired"
    leaked = [
        span for span in seen["spans"] if any(word in json.dumps(span) for word in PROBE_WORDS)
    ]
    assert leaked == []
    assert not [p for p in seen["points"] if any(w in json.dumps(p) for w in PROBE_WORDS)]
    assert not [line for line in seen["logs"] if any(w in line for w in PROBE_WORDS)]
