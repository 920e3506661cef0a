"""On the site, a link says where it goes in words: a page's file name (`[models.md](models.md)`)
is not link text. README.md is read on GitHub beside the files, and may name them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = sorted((ROOT / "docs").rglob("*.md"))
FILE_NAME_TEXT = re.compile(r"\[[\w./-]*\.md(#[^\]]*)?\]\(")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_no_link_text_is_a_file_name(page: Path) -> None:
    prose = FENCE.sub("", page.read_text(encoding="utf-8"))
    assert [m.group(0) for m in FILE_NAME_TEXT.finditer(prose)] == []
