"""Names in the tree: what ADK accepts as an agent name, and readable default step names."""

from __future__ import annotations

import re


def is_valid_name(name: object) -> bool:
    """ADK agent names are Python identifiers other than 'user'."""
    return isinstance(name, str) and name.isidentifier() and name != "user"


def slug(*parts: str) -> str:
    """A readable default step name from its parts (`set_tier`, `map_docs`)."""
    text = "_".join(re.sub(r"\W+", "_", p).strip("_") for p in parts if p)
    text = text or "step"
    return text if text[0].isalpha() else f"s_{text}"


def name_problem(name: object) -> str:
    """Why `name` is not an agent name (for the error message)."""
    if not isinstance(name, str):
        return f"a name is text, not {type(name).__name__}"
    if not name:
        return "it is empty"
    if name == "user":
        return "'user' is reserved for the person's own messages"
    if name[0].isdigit():
        return "it starts with a digit"
    bad = sorted({c for c in name if not (c.isalnum() or c == "_")})
    if bad:
        return "it contains " + ", ".join(repr(c) for c in bad[:5])
    return "it is not a Python identifier"


def below_root(paths: list[str]) -> tuple[str, list[str]]:
    """`(root, paths without it)` when every path ('root/classifier') starts with the same root
    segment and goes below it, else `("", paths)`: a table of agents names the root once, so a
    long generated root name ('pipeline__classifier__route_intent') does not widen every row."""
    roots = {path.split("/", 1)[0] for path in paths}
    if len(roots) != 1 or not all("/" in path for path in paths):
        return "", list(paths)
    (root,) = roots
    return root, [path.split("/", 1)[1] for path in paths]
