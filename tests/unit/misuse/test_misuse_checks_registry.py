"""Misuse of the contract-check registry: taking a name that is already used. A built-in
check's name is refused unless `replace=True` (even after `unregister_check`, which frees only
your own checks' names), and so is a name your own check already has. Each attempt runs with
the registry put back as it was, whatever happens."""

from __future__ import annotations

import pytest

from adk_fluent import register_check
from adk_fluent.analysis.contracts import registry, unregister_check
from tests.support.misuse import case, check, ids


def quiet(ctx):
    """Reports nothing."""
    return ()


def _restoring(attempt):
    def run():
        saved, builtin = dict(registry._REGISTRY), set(registry._BUILTIN)
        try:
            return attempt()
        finally:
            registry._REGISTRY.clear()
            registry._REGISTRY.update(saved)
            registry._BUILTIN.clear()
            registry._BUILTIN.update(builtin)

    return run


def _after_unregistering(name):
    def attempt():
        unregister_check(name)
        register_check(name)(quiet)

    return attempt


def _twice(name):
    def attempt():
        register_check(name)(quiet)
        register_check(name, description="a second one")(quiet)

    return attempt


CASES = [
    case(
        "checks-registry-builtin-name",
        _restoring(lambda: register_check("context")(quiet)),
        "'context'",
        "built-in",
        "field 'name'",
        "replace=True",
    ),
    case(
        "checks-registry-builtin-name-by-function-name",
        _restoring(lambda: register_check()(_named("context"))),
        "'context'",
        "built-in",
        "replace=True",
    ),
    case(
        "checks-registry-builtin-name-after-unregister",
        _restoring(_after_unregistering("context")),
        "'context'",
        "built-in",
        "replace=True",
    ),
    case(
        "checks-registry-own-name-twice",
        _restoring(_twice("no-shouting")),
        "'no-shouting'",
        "already registered",
        "replace=True",
    ),
]


def _named(name):
    def fn(ctx):
        return ()

    fn.__name__ = name
    return fn


@pytest.mark.parametrize("misuse", CASES, ids=ids(CASES))
def test_misuse(misuse):
    check(misuse)
