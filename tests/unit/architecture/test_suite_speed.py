"""What the suite does to keep pytest's own cost per test low (tests/support/speed.py and
tests/conftest.py) changes nothing a test sees: log capture still reaches every logger, and
garbage is still collected while tests run."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator

import pytest
from _pytest import logging as pytest_logging

from tests.support import speed


@pytest.fixture
def quiet_logger() -> Iterator[logging.Logger]:
    """A logger that does not propagate to the root, made so before the test's call phase."""
    logger = logging.getLogger("adk_fluent_tests.quiet")
    logger.propagate = False
    yield logger
    logger.propagate = True


def test_a_non_propagating_logger_is_still_captured_and_reported(
    quiet_logger: logging.Logger, caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest
) -> None:
    quiet_logger.warning("seen")
    assert [record.getMessage() for record in caplog.records] == ["seen"]
    plugin = request.config.pluginmanager.get_plugin("logging-plugin")
    assert plugin.caplog_handler in quiet_logger.handlers  # caplog's capture
    assert plugin.report_handler in quiet_logger.handlers  # a failing test's "Captured log"


def test_the_loggers_are_walked_again_when_they_change() -> None:
    root = logging.getLogger()
    before = speed._non_propagating(root)
    made = logging.getLogger("adk_fluent_tests.made_later")  # a new logger: the registry grew
    made.propagate = False
    assert made in speed._non_propagating(root)
    made.propagate = True  # an existing logger's `propagate` set: walked again
    assert speed._non_propagating(root) == before


def test_the_walk_is_remembered_on_the_pytest_it_was_written_for() -> None:
    if pytest.version_tuple[0] == 9:  # another pytest is left as it is
        assert pytest_logging.catching_logs.__enter__ is speed._enter


def test_garbage_is_collected_while_tests_run() -> None:
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what start-up and collection made, never walked again
