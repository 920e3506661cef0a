"""Shared test helpers, the tiers and their guards (tests/support/tiers.py).

Every test lives in a tier folder (tests/unit, tests/behaviour, tests/integration, tests/matrix)
and carries that tier's marker: `pytest -m unit`, or `make test-unit`. Every behaviour test runs
the real ADK Runner with scripted models.
"""

from __future__ import annotations

import gc
import importlib.metadata
import json
import os
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.support import tiers

ADK_VERSION = importlib.metadata.version("google-adk")
ADK_MAJOR = int(ADK_VERSION.split(".")[0])
TESTS = Path(__file__).resolve().parent

# Property tests: a bounded default so the tiers stay fast, and a deep profile for long runs
# (HYPOTHESIS_PROFILE=deep make test-fast). A test's own @settings may lower the bound further.
settings.register_profile(
    "default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# Start-up and collection (pytest, ADK and the test modules with all they import) make some
# 400,000 objects that live to the end of the session. The cyclic garbage collector would walk
# them again and again while they are made, and again in every full collection while tests run
# (seconds of the unit tier). So it is off until collection is done; then what exists is frozen
# (gc.freeze: never walked again) and it runs on what the tests make, with full collections
# ten times rarer than Python's default (modules that tests import, ADK's eval stack or
# SQLAlchemy, made one every time the objects outside the frozen ones grew by a quarter).
gc.disable()


def _start_collecting_garbage() -> None:
    if not gc.isenabled():
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 100)
        gc.enable()


_TIER_OF_FILE: dict[str, str | None] = {}


def _tier(nodeid: str) -> str | None:
    path = nodeid.split("::", 1)[0]
    try:
        return _TIER_OF_FILE[path]
    except KeyError:
        parts = Path(path).parts
        tier = tiers.tier_of(parts[1:]) if parts[:1] == ("tests",) else None
        _TIER_OF_FILE[path] = tier
        return tier


# Per-tier counts and seconds of this pytest process (the controller's, under xdist).
_TALLY: dict[str, dict] = defaultdict(lambda: {"tests": 0, "failed": 0, "seconds": 0.0})
_STARTED = time.perf_counter()


def pytest_configure(config: pytest.Config) -> None:
    tiers.install()


# What the autouse fixture below needs of each test, worked out once at collection: its tier,
# and whether it is a `classic_target` test. (A fixture asking for `request` and `monkeypatch`
# costs every test three fixture set-ups and tear-downs; this one costs one.)
_SETUP_KEY = pytest.StashKey[tuple[str, str, bool]]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its folder's tier; a test outside every tier folder is an error."""
    marks = {name: getattr(pytest.mark, name) for name in tiers.TIERS}
    for item in items:
        tier = _tier(item.nodeid)
        if tier is None:
            raise pytest.UsageError(
                f"{item.nodeid}: every test lives in a tier folder: "
                + ", ".join(f"tests/{name}/" for name in tiers.TIERS)
            )
        item.add_marker(marks[tier])
        classic = item.get_closest_marker("classic_target") is not None
        item.stash[_SETUP_KEY] = (tier, item.nodeid, classic)


def pytest_collection_finish(session: pytest.Session) -> None:
    _start_collecting_garbage()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    _start_collecting_garbage()  # an xdist controller collects nothing itself


_running: list[tuple[str, str, bool]] = []  # the test being set up (pytest_runtest_setup)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _running[:] = [
        item.stash.get(_SETUP_KEY, None) or (_tier(item.nodeid) or "", item.nodeid, False)
    ]


@pytest.fixture(autouse=True)
def _tier_guard():
    """What the test's tier may not reach (a Runner in a unit test, ...) raises TierViolation.

    A `classic_target` test builds for the classic target whatever ADK_FLUENT_TARGET says:
    `.ci/run` runs the behaviour tier a second time with ADK_FLUENT_TARGET=workflow, and these
    tests are about the classic target (their reasons are docs/workflow.md's list of gaps).
    """
    tier, nodeid, classic = _running[0]
    if not classic:
        with tiers.guarded(tier, nodeid):
            yield
        return
    before = os.environ.get("ADK_FLUENT_TARGET")
    os.environ["ADK_FLUENT_TARGET"] = "classic"
    try:
        with tiers.guarded(tier, nodeid):
            yield
    finally:
        if before is None:
            os.environ.pop("ADK_FLUENT_TARGET", None)
        else:
            os.environ["ADK_FLUENT_TARGET"] = before


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    row = _TALLY[_tier(report.nodeid) or "other"]
    row["seconds"] += report.duration
    if report.when == "call" or (report.when == "setup" and not report.passed):
        row["tests"] += 1
    if report.failed:
        row["failed"] += 1


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """Per-tier counts and time (summed over tests, so with workers it exceeds the wall time);
    ADK_FLUENT_TIER_REPORT=<file> appends the same as one JSON line for CI's closing table."""
    tally = _TALLY
    if not tally or hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    wall = time.perf_counter() - _STARTED
    terminalreporter.write_sep("-", "tiers")
    for tier, row in sorted(tally.items()):
        terminalreporter.write_line(
            f"{tier:<12} {row['tests']:>5} tests  {row['failed']:>3} failed  "
            f"{row['seconds']:7.1f} s in tests"
        )
    target = os.environ.get("ADK_FLUENT_TIER_REPORT")
    if target:
        # a run on the Workflow target (ADK_FLUENT_TARGET=workflow, `make test-workflow`) and
        # the docs blocks run against the installed wheel (`nox -s docs_as_user`) are rows of
        # their own: each runs part of the suite only
        label = ADK_VERSION
        if os.environ.get("ADK_FLUENT_TARGET") == "workflow":
            label += "/workflow"
        if os.environ.get("ADK_FLUENT_DOCS_AS_USER"):
            label += "/as-user"
        record = {"adk": label, "wall_seconds": round(wall, 1), "exit": exitstatus}
        record["tiers"] = {k: dict(v, seconds=round(v["seconds"], 1)) for k, v in tally.items()}
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


def request_texts(request) -> list[str]:
    """Every text part in an LlmRequest's contents, in order (what the model was shown)."""
    texts = []
    for content in request.contents or []:
        for part in content.parts or []:
            if part.text:
                texts.append(part.text)
    return texts


def system_instruction(request) -> str:
    value = request.config.system_instruction if request.config else None
    return value if isinstance(value, str) else str(value or "")


@pytest.fixture
def db_dir(tmp_path):
    """A fresh folder for a test's SQLite files, in RAM (/dev/shm) where the machine has one.

    They stay real SQLite files, reopened by a fresh service to prove what was stored; RAM only
    spares the disk's fsync on every commit, which was most of a SQLite test's time here.
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="adk-fluent-test-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def sqlite_url(db_dir):
    """A session store on a fresh SQLite file."""
    return f"sqlite:///{db_dir / 'sessions.db'}"


_DB_SERVICES: list = []


def fresh_db_service(url: str):
    """A new DatabaseSessionService on the same file: proves what was really persisted."""
    from google.adk.sessions.database_session_service import DatabaseSessionService

    service = DatabaseSessionService(db_url=url.replace("sqlite:///", "sqlite+aiosqlite:///"))
    _DB_SERVICES.append(service)
    return service


async def close_opened_stores() -> None:
    """Dispose the engines a test opened, so no connection outlives its event loop. Run after
    every behaviour and integration test (their conftests); a unit test opens none, and an async
    fixture would cost each of them an event loop."""
    from adk_fluent import close_session_stores

    await close_session_stores()
    while _DB_SERVICES:
        engine = getattr(_DB_SERVICES.pop(), "db_engine", None)
        if engine is not None:
            await engine.dispose()


# The code generator's fixtures (its tests live in the unit and integration tiers).


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A throwaway copy of the checkout's generator inputs and outputs."""
    from tests.support.codegen import copy_checkout

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

    from tests.support.codegen import FIXTURES

    return load_manifests(FIXTURES / "manifests")
