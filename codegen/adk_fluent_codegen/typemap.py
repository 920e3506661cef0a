"""Turn a normalised ADK annotation into a Python type the generated code can spell.

Generated code imports nothing from ADK at module level (ADK's types move between versions),
so ADK classes become `Any`; builtins, literals and containers of them stay precise. The
exact ADK annotation goes into each setter's docstring.
"""

from __future__ import annotations

import ast

_SIMPLE = {"str", "int", "float", "bool", "None", "bytes"}


def python_type(annotation: str) -> str:
    """A type expression valid in generated code for `annotation`."""
    try:
        tree = ast.parse(annotation, mode="eval").body
    except SyntaxError:
        return "Any"
    return _convert(tree)


def _convert(node: ast.expr) -> str:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members: list[str] = []
        for part in (_convert(node.left), _convert(node.right)):
            for member in part.split(" | "):
                if member not in members:
                    members.append(member)
        if "Any" in members:
            return "Any"
        return " | ".join(members)
    if isinstance(node, ast.Name):
        return node.id if node.id in _SIMPLE else "Any"
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        head = node.value.id
        if head == "Literal":
            return ast.unparse(node)
        if head == "Callable":
            return "Callable[..., Any]"
        if head in ("list", "tuple", "set", "frozenset"):
            inner = node.slice
            if head == "tuple":
                return "tuple[Any, ...]"
            return f"{head}[{_convert(inner)}]"
        if head == "dict":
            return "dict[Any, Any]"
    return "Any"


def list_item_type(annotation: str) -> str:
    """The element type of a `list[...]` annotation, for append-style setters."""
    try:
        tree = ast.parse(annotation, mode="eval").body
    except SyntaxError:
        return "Any"
    if (
        isinstance(tree, ast.Subscript)
        and isinstance(tree.value, ast.Name)
        and tree.value.id == "list"
    ):
        return _convert(tree.slice)
    return "Any"
