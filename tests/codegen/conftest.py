"""Shared fixtures for the code generator's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codegen_helpers import FIXTURES, copy_checkout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A throwaway copy of the checkout's generator inputs and outputs."""
    return copy_checkout(tmp_path / "repo")


@pytest.fixture(scope="session")
def installed_manifest() -> dict[str, Any]:
    """One scan of the installed google-adk, shared by the tests that only read it."""
    from adk_fluent_codegen.scan import scan

    return scan()


@pytest.fixture
def synthetic_manifests() -> list[dict[str, Any]]:
    """The two small synthetic manifests under fixtures/manifests, oldest first."""
    from adk_fluent_codegen.manifest import load_manifests

    return load_manifests(FIXTURES / "manifests")
