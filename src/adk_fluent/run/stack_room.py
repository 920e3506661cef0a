"""Room on the Python stack for ADK's run of a deep tree.

Our own walks over a tree are iterative, but ADK runs a tree recursively: each level of nested
agents holds about 7 frames of ADK's generators while its leaves run, so Python's default limit
of 1000 frames ends a run near 140 levels (and the engine's fingerprint of a tree, value_key,
recurses too). `stack_room(frames)` raises the limit while one turn, session() or rewind() of
a tree that deep is open, by what it needs and only when it needs it, and gives it back when
the last one open ends. Shallow trees (nearly every tree) never touch the limit.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from adk_fluent.ir.nodes import Node

FRAMES_PER_LEVEL = 12  # measured about 7 on ADK 2.x (its telemetry adds two a level)
MARGIN = 300  # for what runs beneath the deepest agent: a model call, pydantic, a tool

_lock = threading.Lock()
_open: list[int] = []  # the limits the runs open now asked for
_saved = 0  # the limit before the first of them


def tree_depth(root: Node) -> int:
    """The number of levels of agents in `root`'s tree (agent tools' trees count under their
    caller: ADK runs them inside the calling agent's turn), counted without recursion."""
    deepest = 0
    stack = [(root, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in (*node.children, *node.attached))
    return deepest


def frames_needed(depth: int) -> int:
    """The recursion limit a run `depth` levels deep needs (0: the default is enough)."""
    needed = depth * FRAMES_PER_LEVEL + MARGIN
    return needed if needed > 1000 else 0


@contextmanager
def stack_room(needed: int) -> Iterator[None]:
    """A recursion limit of at least `needed` while this block is open (see the module doc)."""
    global _saved
    if needed <= sys.getrecursionlimit() and not _open:
        yield
        return
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
