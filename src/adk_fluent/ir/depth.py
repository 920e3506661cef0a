"""Deep trees: room on the Python stack for the recursive walks over one tree.

ADK builds a hand-written tree hundreds of levels deep, so adk-fluent must too. The walks over a
tree (builders to IR, IR to ADK agents, the contract checker, mermaid) are recursive visitors,
a few Python frames per level; Python's default limit of 1000 frames ends them near 100 levels.
`recursion_room(depth)` raises the limit for the duration of one walk, by what that depth needs
and only when it needs it, and restores it when the last open walk ends. Shallow trees (nearly
every tree) never touch the limit.
Building the IR does not even measure: a builder's `to_ir()` measures and retries only when
the first attempt hits the limit.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Measured on the deepest walk (the contract checker's data flow over nested pipelines uses
# about 12 frames a level; building IR from builders about 5): generous, the cost is only a
# higher ceiling while a deep tree is walked.
FRAMES_PER_LEVEL = 40
MARGIN = 200  # frames for what runs beneath a walk (pydantic, ADK's own validation)

_lock = threading.Lock()
_open: list[int] = []  # the limits asked for by the walks open now
_saved = 0  # the limit before the first of them


def tree_depth(root: Any, children: Any = None) -> int:
    """The number of levels of a tree, counted without recursion. `children(node)` lists a
    node's children (default: its `.children` and the trees of its agent tools)."""
    kids = children if children is not None else (lambda node: (*node.children, *node.attached))
    deepest = 0
    stack: list[tuple[Any, int]] = [(root, 1)]
    seen: set[int] = set()
    while stack:
        node, level = stack.pop()
        if id(node) in seen:  # a shared subtree is measured once (its depth is the same)
            continue
        seen.add(id(node))
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in kids(node))
    return deepest


def _frames_in_use() -> int:
    frame = sys._getframe()
    count = 0
    while frame is not None:
        count += 1
        frame = frame.f_back  # type: ignore[assignment]
    return count


def needs_room(depth: int) -> bool:
    """Whether walking `depth` levels from here would pass the recursion limit."""
    needed = depth * FRAMES_PER_LEVEL + MARGIN
    return needed > 1000 and needed + _frames_in_use() > sys.getrecursionlimit()


@contextmanager
def recursion_room(depth: int) -> Iterator[None]:
    """Enough recursion limit for walking a tree `depth` levels deep (see the module doc)."""
    global _saved
    if not needs_room(depth):
        yield
        return
    needed = depth * FRAMES_PER_LEVEL + MARGIN + _frames_in_use()
    with _lock:
        if not _open:
            _saved = sys.getrecursionlimit()
        _open.append(needed)
        sys.setrecursionlimit(max(_saved, *_open))
    try:
        yield
    finally:
        with _lock:
            _open.remove(needed)
            sys.setrecursionlimit(max(_saved, *_open) if _open else _saved)


class _Walking(threading.local):
    """Whether an outermost synchronous walk (a builder's `to_ir()` building its children's)
    runs in this thread: only the outermost one handles a RecursionError."""

    active = False


walking = _Walking()
