"""The import graph of src/adk_fluent and generated/adk_fluent_generated, read from the sources
with the standard library's `ast` (tests/unit/architecture checks it against the rooms and the
drawing in docs/architecture.md). Read once per test process: both test modules use this one
copy.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.support.rooms import FACADE, PACKAGES, REPO, source_modules

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

    def generic_visit(self, node: ast.AST) -> None:
        # An import is a statement: only statements (and the handlers and cases that hold
        # them) are walked, in the order ast.NodeVisitor would, never the expressions (most of
        # a module's nodes).
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                        self.visit(item)

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


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
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


def one_cycle(start: str, members: set[str], graph: dict[str, set[str]]) -> list[str]:
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
