"""Harvest attribute docstrings (`field: T = x` followed by a string) from ADK's source.

Read with the standard library's `ast` (a C parser: the ten modules a scan reads parse in
milliseconds; libcst took most of a second, and as long again to import). The rule is the
concrete-syntax one: the string is the first statement of the line after the annotated
assignment, and the assignment opens its own line in an indented class body.
"""

from __future__ import annotations

import ast
import functools
import inspect


@functools.cache
def _module(path: str) -> tuple[ast.Module, tuple[str, ...]]:
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return ast.parse(source), tuple(source.splitlines())


def class_attribute_docs(cls: type) -> dict[str, str]:
    """Map attribute name -> docstring for attributes declared in `cls`'s own body."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        return {}
    if not path:
        return {}
    tree, lines = _module(path)
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef) and statement.name == cls.__name__:
            return _docs_in_body(statement, lines)
    return {}


def _opens_its_line(statement: ast.stmt, lines: tuple[str, ...]) -> bool:
    """Nothing but indentation before the statement on its first line."""
    return not lines[statement.lineno - 1][: statement.col_offset].strip()


def _logical_lines(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The body's statements grouped as lines: simple statements joined by `;` share one, a
    compound statement (def, class, if, ...) is one of its own."""
    grouped: list[list[ast.stmt]] = []
    for statement in body:
        previous = grouped[-1][-1] if grouped else None
        if (
            previous is not None
            and _is_simple(previous)
            and _is_simple(statement)
            and statement.lineno == previous.end_lineno
        ):
            grouped[-1].append(statement)
        else:
            grouped.append([statement])
    return grouped


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)


def _is_simple(statement: ast.stmt) -> bool:
    return not isinstance(statement, _COMPOUND)


def _docs_in_body(class_def: ast.ClassDef, lines: tuple[str, ...]) -> dict[str, str]:
    docs: dict[str, str] = {}
    if not class_def.body or not _opens_its_line(class_def.body[0], lines):
        return docs  # `class X: a: int = 1; "..."`, a body on the header's line
    body = _logical_lines(class_def.body)
    for current, following in zip(body, body[1:], strict=False):
        name = _annotated_target(current[0])
        if name is None or not _is_simple(following[0]):
            continue
        first = following[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            docs[name] = inspect.cleandoc(first.value.value)
    return docs


def _annotated_target(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    return None
