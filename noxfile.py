"""Test, scan and lint sessions against both ends of the supported google-adk range."""

from __future__ import annotations

import nox

OLDEST_ADK = "1.25.0"
NEWEST_ADK = "2.13.0"
SUPPORTED_ADK = [OLDEST_ADK, NEWEST_ADK]
# Releases whose scans are committed too, so the diff reports show where each change arrived.
SCANNED_ADK = [OLDEST_ADK, "1.39.1", "2.0.0", NEWEST_ADK]

# uv when available (it is in the dev extra): environments in seconds instead of minutes.
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"


@nox.session(python=None)
@nox.parametrize("adk", SUPPORTED_ADK, ids=SUPPORTED_ADK)
def tests(session: nox.Session, adk: str) -> None:
    """The whole suite (every tier) against one google-adk release, on every core (xdist).

    `nox -s tests -- tests/unit` passes its arguments on to pytest. The tier table at the end
    (tests/conftest.py) shows each tier's count and time. nox accepts only exit code 0, so
    pytest's 5 (no tests collected) fails the session.
    """
    session.install("-e", ".[dev]", f"google-adk=={adk}")
    # Let pytest cache its rewritten test modules even where bytecode caching is turned off.
    session.env["PYTHONDONTWRITEBYTECODE"] = ""
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", *session.posargs)


@nox.session(python=None)
@nox.parametrize("adk", SCANNED_ADK, ids=SCANNED_ADK)
def scan(session: nox.Session, adk: str) -> None:
    """Scan one google-adk release into generated/manifests/, in its own environment."""
    session.install("-e", ".[codegen]", f"google-adk=={adk}")
    session.run("adk-fluent-codegen", "scan")


@nox.session(python=None)
def lint(session: nox.Session) -> None:
    """ruff and mypy over the codegen, the core and the generated package."""
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "codegen", "src", "tests", "bench", "examples", "noxfile.py")
    session.run("lint-imports", "--no-cache")
    session.run("mypy", "generated/adk_fluent_generated", "src/adk_fluent")
