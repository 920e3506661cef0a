"""The ```python blocks of README.md and docs/, and how one runs: as written, offline.

Each block is a program of its own (fresh globals), run like a notebook cell. A block with a
top-level `await` runs in the caller's event loop; any other block runs in a worker thread with
no event loop, as a script would (so `pipeline.ask_sync(...)` and `asyncio.run(main())` work).
Model names resolve to an offline scripted model, and every block runs in a fresh temporary
folder (tests/support/doc_fixtures.py).

A block runs as a reader who installed the package runs it: every name it uses is defined in
it, the checkout is not on `sys.path` while it runs, and it may not import the checkout's own
`examples` or `tests` (a reader has neither). `nox -s docs_as_user` (CI) runs them all again in
an environment where adk-fluent is installed as a wheel, not from the source tree.

A block that truly needs a real model starts with the line `# needs a real Gemini key` and is
skipped.

`python -m tests.support.doc_blocks [page.md ...]` runs the blocks of the given pages (all of
them without arguments) and prints each one's outcome: what a writer checks a page with before
the suite (tests/behaviour/docs/test_doc_snippets.py) runs it the same way.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import re
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

from tests.support.doc_fixtures import isolated

ROOT = Path(__file__).resolve().parents[2]
SKIP_LINE = "# needs a real Gemini key"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    page: str  # path relative to the repository root, with forward slashes
    line: int  # line of the block's first code line in the page
    source: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def skipped(self) -> bool:
        """The block says it needs a real Gemini key."""
        return self.source.lstrip().startswith(SKIP_LINE)


def pages() -> list[Path]:
    """README.md and every page under docs/ (new pages are picked up with no list to edit)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    """Every ```python block of one page."""
    text = page.read_text(encoding="utf-8")
    name = page.resolve().relative_to(ROOT).as_posix()
    found = []
    for match in _BLOCK.finditer(text):
        line = text.count("\n", 0, match.start(1)) + 1
        found.append(Block(name, line, match.group(1)))
    return found


def all_blocks() -> list[Block]:
    """Every ```python block of README.md and docs/, page by page."""
    return [block for page in pages() for block in blocks(page)]


def compile_block(block: Block) -> CodeType:
    """The block as a program; tracebacks point at the page's own lines."""
    padded = "\n" * (block.line - 1) + block.source
    return compile(
        padded,
        str(ROOT / block.page),
        "exec",
        flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
        dont_inherit=True,
    )


def has_top_level_await(code: CodeType) -> bool:
    return bool(code.co_flags & inspect.CO_COROUTINE)


# Top-level packages of the checkout a reader does not have.
CHECKOUT_ONLY = ("examples", "tests")


def checkout_imports(code: str) -> list[str]:
    """The modules of the checkout itself (examples, tests) a block imports."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [name for name in names if name.split(".")[0] in CHECKOUT_ONLY]
    return found


@contextlib.contextmanager
def without_checkout_on_path() -> Iterator[None]:
    """sys.path without the checkout's root (and the current folder, which a test run starts
    in) while a block runs: `import examples` fails for the block as for a reader. A module
    of the root's own files (noxfile) that another test of this process imported is set
    aside too: the import cache would otherwise hand it to the block."""
    saved = list(sys.path)
    sys.path[:] = [
        entry for entry in saved if entry not in ("", ".") and Path(entry).resolve() != ROOT
    ]
    root_modules = {
        name: module
        for name, module in list(sys.modules.items())
        if getattr(module, "__file__", None) and Path(module.__file__).resolve().parent == ROOT
    }
    for name in root_modules:
        del sys.modules[name]
    try:
        yield
    finally:
        sys.path[:] = saved
        sys.modules.update(root_modules)


async def run_block(block: Block) -> dict[str, Any]:
    """Run one block offline, in a fresh folder, as a reader with the installed package would;
    returns the block's globals (what it defined)."""
    imported = checkout_imports(block.source)
    if imported:
        raise AssertionError(
            f"{block.id} imports {', '.join(imported)} from the checkout; a reader who installed "
            "adk-fluent has no such module: define what the block uses in the block"
        )
    code = compile_block(block)
    async with isolated():
        scope = {"__name__": "docs_" + re.sub(r"\W", "_", block.id)}
        with without_checkout_on_path():
            if has_top_level_await(code):
                await eval(code, scope)  # noqa: S307 - the project's own documentation
            else:
                await asyncio.to_thread(exec, code, scope)  # noqa: S102 - as above
    return scope


def main(names: list[str]) -> int:
    chosen = [Path(name) for name in names] or pages()
    failed = 0
    for page in chosen:
        for block in blocks(page):
            if block.skipped:
                print(f"skip {block.id}")
                continue
            try:
                asyncio.run(run_block(block))
            except BaseException:  # noqa: BLE001 - report every block
                failed += 1
                print(f"FAIL {block.id}")
                traceback.print_exc()
            else:
                print(f"ok   {block.id}")
    print(f"{failed} failed" if failed else "all passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
