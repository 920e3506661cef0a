"""The rooms of the core depend downward only, at run time: in a fresh interpreter,
`import adk_fluent` loads neither google.adk nor the generator's tools, importing a module
outside adk/, run/, testing/ loads no google.adk, and every name in `adk_fluent.__all__`
resolves. `.importlinter` at the repository root states the contracts the source scan
(tests/unit/architecture/test_layers.py) checks; the last test runs `lint-imports` when it is
installed next to this Python.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.rooms import (
    ADK_ROOMS,
    CODEGEN_TOOLS,
    FACADE,
    PACKAGES,
    REPO,
    room_of,
    source_modules,
)


def _fresh_python(code: str) -> str:
    """Run `code` in a new interpreter that imports the packages from this checkout's sources
    (the ones the scan above reads), and return what it printed."""
    path = [str(root.parent) for root in PACKAGES.values()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


FORBIDDEN_AT_IMPORT = ("google.adk", *CODEGEN_TOOLS)


def test_import_adk_fluent_loads_no_adk_and_no_codegen_tools():
    loaded = json.loads(
        _fresh_python(
            """
            import json, sys
            import adk_fluent
            print(json.dumps(sorted(sys.modules)))
            """
        )
    )
    bad = [
        name
        for name in loaded
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_AT_IMPORT)
    ]
    ours = [name for name in loaded if name.split(".")[0] in PACKAGES]
    assert not bad, (
        f"`import adk_fluent` loaded {', '.join(bad[:10])}{' ...' if len(bad) > 10 else ''}; "
        f"adk-fluent modules it loaded: {', '.join(ours)}"
    )


def test_rooms_below_adk_load_no_adk_when_imported():
    """The run-time side of the google.adk rule (it also sees importlib): importing any module
    of api, cli, analysis, ir, errors or the generated package loads no google.adk module."""
    modules = [name for name in source_modules() if room_of(name) not in (*ADK_ROOMS, None)]
    report = json.loads(
        _fresh_python(
            f"""
            import importlib, json, sys

            def adk_loaded():
                return sorted(m for m in sys.modules if m.split(".")[:2] == ["google", "adk"])

            found = {{}}
            # the facade first: every submodule import runs it, so blame it on its own
            for name in ["{FACADE}", *{modules!r}]:
                importlib.import_module(name)
                if adk_loaded():
                    found[name] = adk_loaded()[:5]
                    break
            print(json.dumps(found))
            """
        )
    )
    assert not report, "\n  ".join(
        ["importing a module outside adk/, run/, testing/ loaded google.adk:"]
        + [f"import {name} loaded {', '.join(loaded)}" for name, loaded in report.items()]
    )


def test_every_public_name_resolves():
    report = json.loads(
        _fresh_python(
            """
            import json
            import adk_fluent

            problems = []
            for name in adk_fluent.__all__:
                try:
                    getattr(adk_fluent, name)  # what `from adk_fluent import name` does
                except Exception as error:  # report every failing name, not just the first
                    problems.append(f"from adk_fluent import {name}: {type(error).__name__}: {error}")
            print(json.dumps({"all": adk_fluent.__all__, "problems": problems}))
            """
        )
    )
    assert len(set(report["all"])) == len(report["all"]), "adk_fluent.__all__ repeats a name"
    assert not report["problems"], "\n  ".join(
        ["public names that do not resolve:", *report["problems"]]
    )


LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="lint-imports is not installed here")
def test_lint_imports_keeps_every_contract():
    # --no-cache: leave no .import_linter_cache behind in the checkout
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(REPO / ".importlinter")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
