"""Every ```python block of README.md and docs/ runs, as written, offline, on this ADK.

The blocks are collected from the pages themselves (tests/support/doc_blocks.py): a new page
under docs/ is covered with no list to edit. Each block is its own program with fresh globals;
one with a top-level `await` runs in the test's event loop, any other in a worker thread with no
loop, as a script would. While a block runs, every model name resolves to an offline scripted
model (tests/support/doc_fixtures.py), and the block runs as a reader who installed the package
(no name it does not define, the checkout off sys.path, no `examples`/`tests` import); the
behaviour tier's guard refuses network, so a block that reached a real model would fail here.
A block may opt out only when it needs a real Gemini key, by starting with the line
`# needs a real Gemini key` (and saying so to the reader).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.doc_blocks import ROOT, Block, all_blocks, run_block
from tests.support.doc_fixtures import OFFLINE_REPLY, isolated

BLOCKS = all_blocks()

# Pages that have had python blocks for long: if one of them contributes none, the collector
# (or the page's fences) broke, and the parametrized test below would just get shorter.
PAGES_WITH_BLOCKS = (
    "README.md",
    "docs/primitives.md",
    "docs/context.md",
    "docs/contracts.md",
    "docs/migration.md",
    "docs/middleware.md",
    "docs/evaluation.md",
)
FLOOR = 150


def test_the_collector_finds_the_blocks():
    pages = {block.page for block in BLOCKS}
    missing = [page for page in PAGES_WITH_BLOCKS if page not in pages]
    assert not missing, f"no python block collected from {missing}"
    assert len(BLOCKS) >= FLOOR, f"only {len(BLOCKS)} python blocks collected"
    assert len({block.id for block in BLOCKS}) == len(BLOCKS)


@pytest.mark.skipif(
    not os.environ.get("ADK_FLUENT_DOCS_AS_USER"), reason="nox -s docs_as_user sets it"
)
def test_as_a_user_the_package_is_installed_not_the_source_tree():
    import adk_fluent_generated

    import adk_fluent

    for package in (adk_fluent, adk_fluent_generated):
        where = Path(package.__file__).resolve()
        assert "site-packages" in where.parts, where
        assert not where.is_relative_to(ROOT / "src") and not where.is_relative_to(
            ROOT / "generated"
        ), where


@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
async def test_block_runs(block):
    if block.skipped:
        pytest.skip(f"{block.id} needs a real Gemini key (it says so)")
    await run_block(block)


# The fixtures themselves: what the blocks above rely on.


async def test_model_names_are_answered_offline_while_a_block_runs():
    from google.adk.models.registry import LLMRegistry

    from adk_fluent import Agent

    before = (LLMRegistry.__dict__["new_llm"], LLMRegistry.__dict__["resolve"])
    async with isolated():  # offline_models(), and the Apps compiled here are forgotten after
        assert await Agent("named", "gemini-2.5-flash").ask("Hi") == OFFLINE_REPLY
        assert await Agent("unnamed").ask("Hi") == OFFLINE_REPLY  # ADK's default model
    assert (LLMRegistry.__dict__["new_llm"], LLMRegistry.__dict__["resolve"]) == before


async def test_a_block_without_await_runs_as_a_script_and_one_with_await_in_the_loop():
    script = Block(
        "docs/probe.md",
        1,
        "import asyncio, os\n"
        "from adk_fluent import Agent\n"
        "assert Agent('a').ask_sync('Hi') == 'This is a scripted reply.'\n"
        "open('written.txt', 'w').close()\n"
        "assert os.path.exists('written.txt')\n",
    )
    cell = Block(
        "docs/probe.md",
        9,
        "import asyncio, os\n"
        "asyncio.get_running_loop()\n"
        "assert not os.path.exists('written.txt')  # a fresh folder per block\n"
        "await asyncio.sleep(0)\n",
    )
    await run_block(script)
    await run_block(cell)
    assert not (ROOT / "written.txt").exists()
    with pytest.raises(NameError):  # no globals carried over, no names given, README included
        await run_block(Block("README.md", 1, "pipeline\n"))


async def test_a_block_runs_as_a_reader_without_the_checkout():
    # the checkout's own modules are out of reach, as for a reader who installed the package
    with pytest.raises(AssertionError, match="imports examples.booking from the checkout"):
        await run_block(Block("docs/probe.md", 1, "from examples.booking import pipeline\n"))
    with pytest.raises(AssertionError, match="imports tests.support"):
        await run_block(Block("docs/probe.md", 1, "import tests.support.doc_fixtures\n"))
    with pytest.raises(ModuleNotFoundError, match="noxfile"):  # a module only the root holds
        await run_block(Block("docs/probe.md", 1, "import noxfile\n"))
    await run_block(Block("docs/probe.md", 1, "import adk_fluent\n"))  # the package is there
