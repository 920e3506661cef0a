"""PostgreSQL session-store URLs that cannot work are refused before ADK sees them: a scheme
SQLAlchemy does not know, no driver, a synchronous driver, an async driver that is not
installed. Each names the store with its password hidden and hints at the URL that works.
(A working `postgresql+asyncpg://` URL opens a real store: tests/behaviour/run/test_postgres_store.py.)"""

from __future__ import annotations

import sys

import pytest

from adk_fluent import Agent
from adk_fluent.errors import BuildError
from adk_fluent.run.stores import session_service_for

SECRET = "s3cr3t-pw"


def _refused(url: str) -> BuildError:
    with pytest.raises(BuildError) as caught:
        session_service_for(url)
    error = caught.value
    assert error.field == "session_store"
    assert SECRET not in str(error)
    assert error.hint
    return error


@pytest.mark.parametrize(
    "url",
    [
        f"postgres://app:{SECRET}@db.internal:5432/sessions",
        f"postgres+asyncpg://app:{SECRET}@db.internal/sessions",
        f"POSTGRES://app:{SECRET}@db.internal/sessions",
    ],
)
def test_the_postgres_scheme_is_refused_with_the_postgresql_spelling(url):
    error = _refused(url)
    assert "SQLAlchemy does not know" in error.message
    assert "postgresql+asyncpg://" in error.hint
    assert "app:***@db.internal" in error.message


def test_a_postgresql_url_without_a_driver_is_refused():
    error = _refused(f"postgresql://app:{SECRET}@db.internal:5432/sessions")
    assert "names no driver" in error.message and "asynchronous" in error.message
    assert "postgresql+asyncpg://" in error.hint and "[db]' (from a checkout" in error.hint


@pytest.mark.parametrize("driver", ["psycopg2", "pg8000", "psycopg2cffi"])
def test_a_synchronous_driver_is_refused(driver):
    error = _refused(f"postgresql+{driver}://app:{SECRET}@db.internal/sessions")
    assert repr(driver) in error.message and "asyncpg" in error.message
    assert "postgresql+asyncpg://" in error.hint


def test_asyncpg_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "asyncpg", None)  # `import asyncpg` raises ImportError
    error = _refused(f"postgresql+asyncpg://app:{SECRET}@db.internal/sessions")
    assert "asyncpg package" in error.message
    assert error.hint.startswith("pip install -e '") and "[db]' (from a checkout" in error.hint


def test_psycopg_missing_names_its_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    error = _refused(f"postgresql+psycopg://app:{SECRET}@db.internal/sessions")
    assert "psycopg package" in error.message
    assert "psycopg[binary]" in error.hint


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"postgresql://:{SECRET}@db/s", "postgresql://:***@db/s"),  # no user name
        (f"postgresql://app:a@b{SECRET}@db/s", "postgresql://app:***@db/s"),  # '@' in it
        (
            f"postgresql://db/s?user=app&password={SECRET}&ssl=require",
            "postgresql://db/s?user=app&password=***&ssl=require",
        ),
    ],
)
def test_the_password_is_hidden_wherever_the_url_carries_it(url, shown):
    error = _refused(url)
    assert shown in error.message


def test_a_url_without_a_password_is_shown_as_given():
    error = _refused("postgresql://app@db.internal:5432/sessions")
    assert "'postgresql://app@db.internal:5432/sessions'" in error.message


def test_to_runner_refuses_the_same_url_before_building_a_runner():
    with pytest.raises(BuildError, match="names no driver"):
        Agent("greeter").to_runner(session_store="postgresql://app@db/sessions")
