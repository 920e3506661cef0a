"""Harvest attribute docstrings (`field: T = x` followed by a string) from ADK's source with libcst."""

from __future__ import annotations

import functools
import inspect

import libcst as cst


@functools.cache
def _module_tree(path: str) -> cst.Module:
    with open(path, encoding="utf-8") as handle:
        return cst.parse_module(handle.read())


def _string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        if isinstance(value, bytes):
            return None
        return value
    return None


def class_attribute_docs(cls: type) -> dict[str, str]:
    """Map attribute name -> docstring for attributes declared in `cls`'s own body."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        return {}
    if not path:
        return {}
    tree = _module_tree(path)
    for statement in tree.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == cls.__name__:
            return _docs_in_body(statement)
    return {}


def _docs_in_body(class_def: cst.ClassDef) -> dict[str, str]:
    docs: dict[str, str] = {}
    body = list(class_def.body.body)
    for current, following in zip(body, body[1:], strict=False):
        name = _annotated_target(current)
        if name is None or not isinstance(following, cst.SimpleStatementLine):
            continue
        first = following.body[0] if following.body else None
        if isinstance(first, cst.Expr):
            text = _string_value(first.value)
            if text is not None:
                docs[name] = inspect.cleandoc(text)
    return docs


def _annotated_target(statement: cst.CSTNode) -> str | None:
    if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
        return None
    small = statement.body[0]
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target.value
    return None
