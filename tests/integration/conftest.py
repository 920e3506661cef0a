"""The integration tier: subprocesses (the CLIs, ruff, lint-imports), servers on 127.0.0.1
(`adk api_server`), and tools outside the Python process."""

from __future__ import annotations

import pytest

from tests.conftest import close_opened_stores


@pytest.fixture(autouse=True)
async def _close_opened_stores():
    yield
    await close_opened_stores()
