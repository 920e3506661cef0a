"""What pytest itself spends on every test, cut where it adds up to seconds over the suite.

tests/conftest.py installs it. A cut keeps what pytest does exactly, and applies only to the
pytest code it was written for (checked when installed); any other pytest is left as it is.
"""

from __future__ import annotations

import logging
from typing import Any

# What pytest 9's catching_logs is made of; another one is left alone.
_CATCHING_LOGS_NAMES = frozenset(
    {"getLogger", "addHandler", "attached_loggers", "loggerDict", "propagate", "setLevel"}
)
_CATCHING_LOGS_SLOTS = frozenset({"attached_loggers", "handler", "level", "orig_level"})


class _NonPropagating:
    """The loggers that do not propagate to the root, walked for again only when that can have
    changed: a logger was made or removed (the registry's size), or any logger's `propagate`
    was set (every Logger.__init__ sets it too)."""

    def __init__(self) -> None:
        self.changed = True
        self.size = -1
        self.loggers: list[logging.Logger] = []

    def __call__(self, root: logging.Logger) -> list[logging.Logger]:
        registry = root.manager.loggerDict
        if self.changed or len(registry) != self.size:
            self.changed = False  # before the walk: a change made during it walks again
            self.size = len(registry)
            self.loggers = [
                logger
                for logger in registry.values()
                if isinstance(logger, logging.Logger)
                and not logger.propagate
                and logger is not root
            ]
        return self.loggers


_non_propagating = _NonPropagating()


def _setattr(self: logging.Logger, name: str, value: Any) -> None:
    object.__setattr__(self, name, value)
    if name == "propagate":
        _non_propagating.changed = True


def _enter(self: Any) -> Any:
    """pytest 9's catching_logs.__enter__, except where the non-propagating loggers come from."""
    root_logger = logging.getLogger()
    if self.level is not None:
        self.handler.setLevel(self.level)
    root_logger.addHandler(self.handler)
    self.attached_loggers.append(root_logger)
    for logger in _non_propagating(root_logger):
        logger.addHandler(self.handler)
        self.attached_loggers.append(logger)
    if self.level is not None:
        self.orig_level = root_logger.level
        root_logger.setLevel(min(self.orig_level, self.level))
    return self.handler


def remember_the_non_propagating_loggers() -> bool:
    """pytest's logging plugin enters two log captures around each of a test's three phases
    (`caplog`'s and the report's), and each entry walks every logger there is, to attach
    itself to the ones that do not propagate to the root: six walks per test over the ~1000
    loggers ADK and its dependencies make, the biggest cost pytest adds to a unit test. Here
    the walk's answer is kept until a logger is made or removed or some logger's `propagate`
    is set (Logger learns to say so), so the captures attach to exactly the loggers pytest's
    walk would find, without walking. True when installed.
    """
    try:
        from _pytest import logging as pytest_logging
    except ImportError:
        return False
    catching_logs = getattr(pytest_logging, "catching_logs", None)
    enter = getattr(catching_logs, "__enter__", None)
    if catching_logs is None or enter is None:
        return False
    if enter is not _enter:
        code = getattr(enter, "__code__", None)
        slots = frozenset(getattr(catching_logs, "__slots__", ()))
        if code is None or not _CATCHING_LOGS_NAMES <= set(code.co_names):
            return False
        if slots != _CATCHING_LOGS_SLOTS:
            return False
        if logging.Logger.__setattr__ is not object.__setattr__:  # somebody else's already
            return False
    logging.Logger.__setattr__ = _setattr  # type: ignore[method-assign,assignment]
    _non_propagating.changed = True
    catching_logs.__enter__ = _enter
    return True
