"""docs/contracts.md, "ContentSpec": every python block runs (top-level await allowed), and the
output the page shows after a block is what the block prints."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "contracts.md"
_TEXT = PAGE.read_text(encoding="utf-8")
_START = _TEXT.index("\n## ContentSpec")
_END = _TEXT.find("\n## ", _START + 1)
SECTION = _TEXT[_START : _END if _END != -1 else len(_TEXT)]
# a python block, and the plain block right after it (the output it shows), if any
_BLOCK = re.compile(r"^```python\n(.*?)^```\n(?:\n?```\n(.*?)^```)?", re.S | re.M)
BLOCKS = [
    (_TEXT.count("\n", 0, _START + m.start(1)) + 1, m.group(1), m.group(2))
    for m in _BLOCK.finditer(SECTION)
]


def test_the_section_has_its_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize(("line", "source", "shown"), BLOCKS, ids=[f"line {b[0]}" for b in BLOCKS])
async def test_block_runs_and_prints_what_the_page_shows(line, source, shown):
    code = compile(
        "\n" * (line - 1) + source,
        str(PAGE),
        "exec",
        flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
        dont_inherit=True,
    )
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = eval(code, {"__name__": f"docs_contracts_{line}"})  # noqa: S307 - our own page
        if inspect.isawaitable(result):
            await result
    if shown:
        assert shown.strip() in printed.getvalue(), printed.getvalue()
