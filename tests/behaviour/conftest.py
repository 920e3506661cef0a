"""The behaviour tier: the real ADK Runner with scripted models, in memory and on SQLite.

No subprocess and no network (tests/support/tiers.py guards both); those are integration tests.
"""

from __future__ import annotations

import pytest

from tests.conftest import close_opened_stores


@pytest.fixture(autouse=True)
async def _close_opened_stores():
    yield
    await close_opened_stores()
