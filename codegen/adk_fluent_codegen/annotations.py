"""Normalise type annotations into stable, valid-Python text.

The same ADK type is spelt differently between versions and Python releases
(`Optional[X]`, `Union[X, None]`, `X | None`, `typing.List`, full module paths). The manifest
must only change when the type does, so every annotation is rendered structurally:
unions flattened with `None` last, short class names, `typing.` dropped. The output parses
with `ast` so the generator (and the diff's widening rules) can reason about it.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

_NONE_TYPE = type(None)
_SPECIAL_NAMES = {typing.Any: "Any", Ellipsis: "...", _NONE_TYPE: "None", None: "None"}
_CALLABLE_ORIGINS = {collections.abc.Callable, typing.Callable}


def _is_union(origin: Any) -> bool:
    return origin is typing.Union or origin is types.UnionType


def render(tp: Any) -> str:
    """Render an annotation object as normalised text."""
    for special, name in _SPECIAL_NAMES.items():
        if tp is special:
            return name
    if isinstance(tp, str):
        return normalise_text(tp)
    if isinstance(tp, typing.ForwardRef):
        return normalise_text(tp.__forward_arg__)
    if isinstance(tp, typing.TypeVar):
        return tp.__name__
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return render(args[0])
    if _is_union(origin):
        return _join_union([render(arg) for arg in args])
    if origin is typing.Literal:
        return "Literal[" + ", ".join(repr(a) for a in args) + "]"
    if origin in _CALLABLE_ORIGINS:
        if not args:
            return "Callable"
        params, ret = args[:-1], args[-1]
        if len(params) == 1 and isinstance(params[0], list | tuple):
            params = tuple(params[0])
        if len(params) == 1 and params[0] is Ellipsis:
            return f"Callable[..., {render(ret)}]"
        return "Callable[[" + ", ".join(render(p) for p in params) + f"], {render(ret)}]"
    if origin is not None:
        name = _origin_name(origin)
        if not args:
            return name
        return f"{name}[" + ", ".join(render(a) for a in args) + "]"
    if isinstance(tp, type):
        return tp.__name__
    # Typing specials without an origin (e.g. typing.Callable bare).
    text = getattr(tp, "_name", None) or repr(tp)
    return str(text).replace("typing.", "")


def _origin_name(origin: Any) -> str:
    builtin_names = {
        list: "list",
        dict: "dict",
        set: "set",
        frozenset: "frozenset",
        tuple: "tuple",
        type: "type",
    }
    if origin in builtin_names:
        return builtin_names[origin]
    if origin in (collections.abc.Awaitable, typing.Awaitable):
        return "Awaitable"
    if origin in (collections.abc.Sequence, typing.Sequence):
        return "Sequence"
    if origin in (collections.abc.Mapping, typing.Mapping):
        return "Mapping"
    if origin in (collections.abc.AsyncGenerator,):
        return "AsyncGenerator"
    return getattr(origin, "__name__", None) or str(origin).replace("typing.", "")


def _split_union(text: str) -> list[str]:
    """Split `A | B[C | D] | E` at top-level bars only."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def union_members(text: str) -> list[str]:
    """The top-level members of a normalised annotation (a non-union has one)."""
    return _split_union(text)


def normalise_text(text: str) -> str:
    """Normalise an annotation written as source text (unresolved forward references)."""
    import ast

    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text.replace("typing.", "")
    return _render_ast(tree)


def _render_ast(node: Any) -> str:
    import ast

    if isinstance(node, ast.Constant):
        if node.value is None:
            return "None"
        return "..." if node.value is Ellipsis else repr(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.X, types.Content -> X, Content
        return node.attr
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _join_union([_render_ast(node.left), _render_ast(node.right)])
    if isinstance(node, ast.List | ast.Tuple):
        return ", ".join(_render_ast(elt) for elt in node.elts)
    if isinstance(node, ast.Subscript):
        head = _render_ast(node.value)
        inner = node.slice
        items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if head == "Optional":
            return _join_union([_render_ast(items[0]), "None"])
        if head == "Union":
            return _join_union([_render_ast(item) for item in items])
        if head in ("List", "Dict", "Set", "Tuple", "Type", "FrozenSet"):
            head = head.lower()
        rendered = []
        for item in items:
            text = _render_ast(item)
            rendered.append(f"[{text}]" if isinstance(item, ast.List) else text)
        return f"{head}[" + ", ".join(rendered) + "]"
    return ast.unparse(node)


def _join_union(parts: list[str]) -> str:
    members: list[str] = []
    for part in parts:
        for member in _split_union(part):
            if member not in members:
                members.append(member)
    if "None" in members:
        members.remove("None")
        members.append("None")
    return " | ".join(members)
