"""Every ```python block of docs/migration.md, agents.md, middleware.md and telemetry.md runs, as
written, offline.

Each block is a program of its own (fresh globals), run like a notebook cell: a top-level
`await` works. Models are scripted with mock_backend inside the blocks; the behaviour tier's
guard refuses network, so a block that reached a real model would fail here. A block may opt
out only when it needs a real Gemini key, by starting with the line
`# needs a real Gemini key` (and saying so to the reader).
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[3] / "docs"
PAGES = (
    "migration.md",
    "agents.md",
    "middleware.md",
    "telemetry.md",
    "evaluation.md",
    "remote.md",
    "deployment.md",
    "streaming.md",
    "replay.md",
    "workflow.md",
)
SKIP_LINE = "# needs a real Gemini key"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, int, str]]:
    """(page, first line number, source) of every python block of the pages."""
    found = []
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start(1)) + 1
            found.append((page, line, match.group(1)))
    return found


BLOCKS = _blocks()


def test_the_pages_have_python_blocks():
    pages = {page for page, _, _ in BLOCKS}
    assert pages == set(PAGES)
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize(
    "page, line, source", BLOCKS, ids=[f"{page}:{line}" for page, line, _ in BLOCKS]
)
async def test_block_runs(page, line, source):
    if source.lstrip().startswith(SKIP_LINE):
        pytest.skip(f"{page}:{line} needs a real Gemini key (it says so)")
    # line numbers in tracebacks point into the page
    padded = "\n" * (line - 1) + source
    code = compile(
        padded, str(DOCS / page), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
    )
    namespace: dict = {"__name__": f"docs_{page.removesuffix('.md')}_{line}"}
    result = eval(code, namespace)  # noqa: S307 - the project's own documentation
    if inspect.isawaitable(result):
        await result
