"""The rooms of the core depend downward only (DESIGN.md, rule 1 of the house).

Reads the source of src/adk_fluent and generated/adk_fluent_generated with the standard
library's `ast` (no import-linter needed) and checks, module by module:

  - no import cycle, counting imports inside functions (a lazy import that closes a cycle is
    still a cycle); imports under `if TYPE_CHECKING:` never run and are not counted;
  - no room imports a room above it: cli > api | testing > run > adk > analysis > ir >
    adk_fluent_generated | errors (`|`: the same level, and neither imports the other);
  - only adk/, run/ and testing/ import google.adk; no module imports the generator's tools
    (jinja2, libcst, typer, ruff, deepdiff);
  - at run time, in a fresh interpreter: `import adk_fluent` loads neither google.adk nor the
    generator's tools, importing a module outside adk/, run/, testing/ loads no google.adk,
    and every name in `adk_fluent.__all__` resolves.

Every failure names the importer, the imported module and the file:line of the import.

`.importlinter` at the repository root states the same contracts for `lint-imports`; the last
test runs it when it is installed next to this Python.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PACKAGES = {
    "adk_fluent": REPO / "src" / "adk_fluent",
    "adk_fluent_generated": REPO / "generated" / "adk_fluent_generated",
}
FACADE = "adk_fluent"  # the lazy (PEP 562) public surface; it belongs to no room

# Room -> level. A module may import its own room and rooms on a lower level; rooms on the
# same level are independent of each other.
ROOMS = {
    "adk_fluent.cli": 6,  # the command: loads the user's builders, calls check_contracts
    "adk_fluent.api": 5,
    "adk_fluent.testing": 5,
    "adk_fluent.run": 4,
    "adk_fluent.adk": 3,
    "adk_fluent.analysis": 2,
    "adk_fluent.ir": 1,
    "adk_fluent_generated": 0,
    "adk_fluent.errors": 0,
}
ADK_ROOMS = ("adk_fluent.adk", "adk_fluent.run", "adk_fluent.testing")
CODEGEN_TOOLS = ("jinja2", "libcst", "typer", "ruff", "deepdiff")
NAMESPACE_PACKAGES = ("google",)  # `from google import adk` imports the module google.adk


@dataclass(frozen=True)
class Import:
    """One import statement's edge: `importer` imports `imported` at `path`:`line`."""

    importer: str
    imported: str
    path: Path
    line: int
    lazy: bool  # inside a function: runs on first call, still a dependency

    def __str__(self) -> str:
        where = f"{self.path.relative_to(REPO)}:{self.line}"
        return (
            f"{self.importer} -> {self.imported} ({where}{', in a function' if self.lazy else ''})"
        )


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


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _ImportCollector(ast.NodeVisitor):
    """The run-time imports of one module: module level and inside functions, not the
    `if TYPE_CHECKING:` branch (its `else:` branch runs, so it is kept)."""

    def __init__(self, module: str, path: Path, is_package: bool, known: set[str]) -> None:
        self.module, self.path, self.known = module, path, known
        self.package = module if is_package else module.rpartition(".")[0]
        self.function_depth = 0
        self.found: list[Import] = []

    def _add(self, imported: str, node: ast.stmt) -> None:
        self.found.append(
            Import(self.module, imported, self.path, node.lineno, self.function_depth > 0)
        )

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for statement in node.orelse:
                self.visit(statement)
        else:
            self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base_parts = self.package.split(".")
            base_parts = base_parts[: len(base_parts) - (node.level - 1)]
            base = ".".join([*base_parts, *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            # `from pkg import name` imports the submodule pkg.name when there is one
            if submodule in self.known or base in NAMESPACE_PACKAGES:
                self._add(submodule, node)
            else:
                self._add(base, node)


@cache
def all_imports() -> tuple[Import, ...]:
    """Every run-time import statement's edge in both packages, in file order."""
    modules = source_modules()
    known = set(modules)
    found: list[Import] = []
    for name, (path, is_package) in modules.items():
        collector = _ImportCollector(name, path, is_package, known)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found += collector.found
    return tuple(found)


def internal_imports() -> list[Import]:
    """Imports of one module of the two packages by another."""
    roots = tuple(PACKAGES)
    return [
        edge
        for edge in all_imports()
        if edge.imported.split(".")[0] in roots and edge.imported != edge.importer
    ]


def room_of(module: str) -> str | None:
    for room in sorted(ROOMS, key=len, reverse=True):
        if module == room or module.startswith(room + "."):
            return room
    return None


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _one_cycle(start: str, members: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path start -> ... -> start inside one strongly connected component."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is not on a cycle")


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
