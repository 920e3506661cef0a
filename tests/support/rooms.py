"""The rooms of the core as the architecture tests see them (tests/unit/architecture reads
the sources, tests/integration/architecture imports them in a fresh interpreter)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {
    "adk_fluent": REPO / "src" / "adk_fluent",
    "adk_fluent_generated": REPO / "generated" / "adk_fluent_generated",
}
FACADE = "adk_fluent"  # the lazy (PEP 562) public surface; it belongs to no room

# Room -> level. A module may import its own room and rooms on a lower level; rooms on the
# same level are independent of each other.
ROOMS = {
    "adk_fluent.cli": 8,  # the command: loads the user's builders, calls check_contracts
    "adk_fluent.patterns": 7,  # functions over the builders returning ordinary expressions
    "adk_fluent.api": 6,
    "adk_fluent.testing": 6,
    "adk_fluent.evaluation": 6,  # FluentEvalSuite over ADK's eval stack; the cli's `eval` above it
    "adk_fluent.middleware": 5,  # the built-ins; ir.middleware is the protocol, adk.plugins the plugin
    "adk_fluent.telemetry": 5,  # span enrichment and cost attribution (middleware too)
    "adk_fluent.remote": 5,  # A2A: cards from the IR, serving; RemoteAgent's builder is in api
    "adk_fluent.replay": 5,  # record and replay: Recorder (middleware), ReplayerBackend, diffs
    "adk_fluent.run": 4,
    "adk_fluent.adk": 3,
    "adk_fluent.analysis": 2,
    "adk_fluent.ir": 1,
    "adk_fluent.arguments": 0.5,  # the argument checks every entry point states its rules with
    "adk_fluent_generated": 0,
    "adk_fluent.errors": 0,
}
ADK_ROOMS = (
    "adk_fluent.adk",
    "adk_fluent.run",
    "adk_fluent.middleware",
    "adk_fluent.telemetry",
    "adk_fluent.remote",
    "adk_fluent.replay",
    "adk_fluent.evaluation",
    "adk_fluent.testing",
)
CODEGEN_TOOLS = ("jinja2", "libcst", "typer", "ruff", "deepdiff")


def _module_name(package: str, root: Path, path: Path) -> tuple[str, bool]:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


@cache
def source_modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the two packages: name -> (file, is a package's __init__)."""
    modules = {}
    for package, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            name, is_package = _module_name(package, root, path)
            modules[name] = (path, is_package)
    return modules


def room_of(module: str) -> str | None:
    for room in sorted(ROOMS, key=len, reverse=True):
        if module == room or module.startswith(room + "."):
            return room
    return None
