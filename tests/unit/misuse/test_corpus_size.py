"""The corpus as a whole: at least 150 cases, ids unique across areas."""

from __future__ import annotations

import importlib
import pkgutil

import tests.behaviour.misuse as behaviour  # namespace packages (no __init__), like every
import tests.unit.misuse as unit  # test folder
from tests.support.misuse import Misuse


def _all_cases() -> list[Misuse]:
    """The build-time cases (unit tier) and the ones that need a session store (behaviour)."""
    cases: list[Misuse] = []
    for package in (unit, behaviour):
        for module in pkgutil.iter_modules(package.__path__):
            if module.name.startswith("test_misuse_"):
                name = f"{package.__name__}.{module.name}"
                cases.extend(importlib.import_module(name).CASES)
    return cases


def test_the_corpus_has_150_cases_with_unique_ids():
    cases = _all_cases()
    names = [c.id for c in cases]
    assert len(set(names)) == len(names), sorted(n for n in names if names.count(n) > 1)
    assert len(cases) >= 150, f"only {len(cases)} misuse cases"
