"""The rooms of the core depend downward only, read from the sources: a room can then be read,
tested and changed knowing only the rooms below it, and ADK's internals stay in one room.

Reads the source of src/adk_fluent and generated/adk_fluent_generated with the standard
library's `ast` (no import-linter needed) and checks, module by module:

  - no import cycle, counting imports inside functions (a lazy import that closes a cycle is
    still a cycle) and imports under `if TYPE_CHECKING:` (they never run, but a reader still
    follows them: an annotation-only import that closes a circle or points up is a knot);
    the one designed exception is the generated visitor naming the hand-written nodes;
  - no room imports a room above it: cli > api | testing > middleware > run > adk > analysis > ir >
    adk_fluent_generated | errors (`|`: the same level, and neither imports the other);
  - only adk/, run/, middleware/ and testing/ import google.adk; no module imports the generator's tools
    (jinja2, libcst, typer, ruff, deepdiff).

Every failure names the importer, the imported module and the file:line of the import. The
run-time side (imports in a fresh interpreter, lint-imports) is in
tests/integration/architecture/test_layers_process.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.support.rooms import (
    ADK_ROOMS,
    CODEGEN_TOOLS,
    FACADE,
    PACKAGES,
    REPO,
    ROOMS,
    room_of,
    source_modules,
)

NAMESPACE_PACKAGES = ("google",)  # `from google import adk` imports the module google.adk


@dataclass(frozen=True)
class Import:
    """One import statement's edge: `importer` imports `imported` at `path`:`line`."""

    importer: str
    imported: str
    path: Path
    line: int
    lazy: bool  # inside a function: runs on first call, still a dependency
    typing_only: bool = False  # under `if TYPE_CHECKING:`: never runs, still read

    def __str__(self) -> str:
        where = f"{self.path.relative_to(REPO)}:{self.line}"
        return (
            f"{self.importer} -> {self.imported} ({where}{', in a function' if self.lazy else ''})"
        )


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
        self.typing_depth = 0
        self.found: list[Import] = []

    def _add(self, imported: str, node: ast.stmt) -> None:
        self.found.append(
            Import(
                self.module,
                imported,
                self.path,
                node.lineno,
                self.function_depth > 0,
                self.typing_depth > 0,
            )
        )

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self.typing_depth += 1
            for statement in node.body:
                self.visit(statement)
            self.typing_depth -= 1
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


# Annotation-only imports allowed to point up or close a circle: the generated visitor names the
# hand-written node classes (adk_fluent.ir.nodes imports the visitor), and the facade lists its
# lazy exports for type checkers.
TYPING_EXCEPTIONS = ("adk_fluent_generated.visitor", FACADE)


@cache
def every_import() -> tuple[Import, ...]:
    """Every import statement's edge in both packages (TYPE_CHECKING ones too), in file order."""
    modules = source_modules()
    known = set(modules)
    found: list[Import] = []
    for name, (path, is_package) in modules.items():
        collector = _ImportCollector(name, path, is_package, known)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found += collector.found
    return tuple(found)


def all_imports() -> tuple[Import, ...]:
    """Every run-time import statement's edge (not the TYPE_CHECKING ones)."""
    return tuple(edge for edge in every_import() if not edge.typing_only)


def internal_imports(*, typing: bool = False) -> list[Import]:
    """Imports of one module of the two packages by another (`typing`: with the annotation-only
    ones, except TYPING_EXCEPTIONS')."""
    roots = tuple(PACKAGES)
    return [
        edge
        for edge in (every_import() if typing else all_imports())
        if edge.imported.split(".")[0] in roots
        and edge.imported != edge.importer
        and not (edge.typing_only and edge.importer in TYPING_EXCEPTIONS)
    ]


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


def test_the_scan_sees_the_rooms():
    """Guards the scanner itself: it finds the modules and a known lazy import."""
    modules = source_modules()
    assert "adk_fluent.ir.nodes" in modules and "adk_fluent_generated.visitor" in modules
    assert any(
        edge.importer == "adk_fluent.adk.compile"
        and edge.imported == "adk_fluent.adk.custom_agents.flow"
        and edge.lazy
        for edge in all_imports()
    ), "the scan lost function-level imports"
    assert not any(
        edge.importer == "adk_fluent_generated.visitor" and edge.imported.startswith("adk_fluent.")
        for edge in all_imports()
    ), "the scan counted a TYPE_CHECKING-only import"


def test_every_module_belongs_to_a_room():
    homeless = [
        f"{name} ({path.relative_to(REPO)})"
        for name, (path, _) in source_modules().items()
        if name != FACADE and room_of(name) is None
    ]
    assert not homeless, (
        "modules in no room; give the new room its level in ROOMS here and in .importlinter:\n  "
        + "\n  ".join(homeless)
    )


def test_no_import_cycles_even_through_lazy_or_annotation_imports():
    graph: dict[str, set[str]] = {}
    lines: dict[tuple[str, str], list[Import]] = {}
    for edge in internal_imports(typing=True):
        graph.setdefault(edge.importer, set()).add(edge.imported)
        graph.setdefault(edge.imported, set())
        lines.setdefault((edge.importer, edge.imported), []).append(edge)
    problems = []
    for component in _strongly_connected(graph):
        cycle = _one_cycle(component[0], set(component), graph)
        steps = [
            "; ".join(str(edge) for edge in lines[(a, b)])
            for a, b in zip(cycle, cycle[1:], strict=False)
        ]
        problems.append(
            f"import cycle ({len(component)} modules lie on cycles together; one cycle):\n    "
            + "\n    ".join(steps)
        )
    assert not problems, "\n".join(problems)


def test_no_room_imports_a_room_above_it():
    problems = []
    for edge in internal_imports(typing=True):
        if edge.importer == FACADE:
            continue  # its imports are TYPE_CHECKING-only; the subprocess test below checks it
        importer_room, imported_room = room_of(edge.importer), room_of(edge.imported)
        if importer_room is None or imported_room is None or importer_room == imported_room:
            continue
        below, above = ROOMS[importer_room], ROOMS[imported_room]
        if below < above:
            problems.append(f"{importer_room} imports the higher room {imported_room}: {edge}")
        elif below == above:
            problems.append(
                f"{importer_room} imports {imported_room}, a room it must stay independent "
                f"of: {edge}"
            )
    assert not problems, "imports against the layer order:\n  " + "\n  ".join(problems)


def test_only_adk_run_and_testing_import_google_adk():
    problems = [
        f"{edge} (only {', '.join(ADK_ROOMS)} may import google.adk)"
        for edge in all_imports()
        if (edge.imported == "google.adk" or edge.imported.startswith("google.adk."))
        and room_of(edge.importer) not in ADK_ROOMS
    ]
    assert not problems, "\n  ".join(["google.adk imported outside its rooms:", *problems])


def test_no_module_imports_the_generators_tools():
    """jinja2, libcst, typer, ruff, deepdiff are the `codegen` extra: no module of adk_fluent
    or adk_fluent_generated imports them, not even inside a function."""
    problems = [str(edge) for edge in all_imports() if edge.imported.split(".")[0] in CODEGEN_TOOLS]
    assert not problems, "\n  ".join(["the generator's tools imported at run time:", *problems])
