"""The scanner imports only the classes it scans, seen from a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

from adk_fluent_codegen.targets import PLUGIN_BASE, SCAN_TARGETS


def test_scan_imports_only_the_classes_it_scans() -> None:
    """Walking every ADK module trips its optional imports; the scan imports its targets only.

    Baseline: importing each scanned class the way user code would (ADK 2.x exposes some
    lazily, so the attribute access is part of it). The scan must import nothing beyond that.
    """
    targets = [(t.name, t.modules) for t in SCAN_TARGETS] + [(PLUGIN_BASE[1], (PLUGIN_BASE[0],))]
    probe = f"""
import importlib, json, sys
for name, modules in {targets!r}:
    for module in modules:
        try:
            getattr(importlib.import_module(module), name, None)
        except ImportError:
            pass
before = {{m for m in sys.modules if m.startswith("google.adk")}}
from adk_fluent_codegen.scan import scan
scan()
after = {{m for m in sys.modules if m.startswith("google.adk")}}
print(json.dumps(sorted(after - before)))
"""
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
