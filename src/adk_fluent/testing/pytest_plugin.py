"""pytest plugin (auto-registered): the `mock_adk` fixture.

`mock_adk({...})` returns a mock backend; at teardown every backend it made must have used
all its scripted steps, so a test cannot pass while part of its script never ran.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from adk_fluent.testing.mock import MockBackend


@pytest.fixture
def mock_adk() -> Iterator[Callable[..., MockBackend]]:
    """`mock_adk({"agent": [...]}, model=...)`: a mock_backend whose scripts must all be used
    by the end of the test."""
    from adk_fluent.testing.mock import MockBackend

    made: list[MockBackend] = []

    def factory(responses: Mapping[str, Any], **options: Any) -> MockBackend:
        backend = MockBackend(responses, **options)
        made.append(backend)
        return backend

    yield factory
    for backend in made:
        backend.assert_consumed()
