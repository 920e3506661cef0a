"""Test, matrix and lint sessions over the supported google-adk range (1.25.0 to the newest).

* `tests`: the whole suite on the two ends (what `make test` and CI run).
* `tide`: the whole suite on a sample of releases across the range (`make tide`).
* `tide_one`: the whole suite on one release: the one named after `--`, `newest` (the newest
  scanned release), or by default one middle release, any scanned release between the ends,
  that rotates with the commit (CI runs it beside the two ends).

Scans of releases are not nox sessions: `adk-fluent-codegen scan-releases` (`make regen
RELEASES=...`) builds a throwaway environment per release.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import nox

OLDEST_ADK = "1.25.0"
NEWEST_ADK = "2.13.0"
SUPPORTED_ADK = [OLDEST_ADK, NEWEST_ADK]

# The tide sample: the two ends, the last 1.x and the first 2.x, and the releases where the
# scans (docs/compatibility.md) show a behaviour change or a wave of field changes.
# tests/unit/codegen/test_tide_sample.py keeps it honest: every release where a behaviour probe
# starts answering differently must be in it.
TIDE_RELEASES = [
    OLDEST_ADK,
    "1.27.1",  # temp: keys carry over to the next agent; output_schema's annotation widens
    "1.31.0",  # plugin edits are stored (filtered visibility's second mechanism); live_session_id
    "1.34.2",  # Event.turn_complete_reason appears (gone again in 2.0.0 and 2.1.0)
    "1.39.1",  # the last 1.x
    "2.0.0",  # the first 2.x: Workflow, the workflow agents warn, the 2.x agent fields
    "2.2.0",  # Runner.run_async(state_delta=) stored again for an LlmAgent root
    "2.4.0",  # RunConfig.response_modalities narrows to list[Modality]; Event.environment_id
    "2.5.0",  # a retried tool-confirmation answer fails in ADK (until 2.6.0)
    "2.6.1",  # ... and is taken again
    "2.8.0",  # other agents' replies reach a model as quoted content; max_llm_calls default
    "2.10.0",  # App.root_agent becomes BaseNode | None
    NEWEST_ADK,
]

# uv when available (it is in the dev extra): environments in seconds instead of minutes.
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]  # plain `nox`: the two ends; the matrix is opt-in


def _suite(session: nox.Session, adk: str, pytest_args: list[str]) -> None:
    """Install adk-fluent with google-adk `adk` and run every tier on every core."""
    session.install("-e", ".[dev]", f"google-adk=={adk}")
    # Let pytest cache its rewritten test modules even where bytecode caching is turned off.
    session.env["PYTHONDONTWRITEBYTECODE"] = ""
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", *pytest_args)


@nox.session(python=None)
@nox.parametrize("adk", SUPPORTED_ADK, ids=SUPPORTED_ADK)
def tests(session: nox.Session, adk: str) -> None:
    """The whole suite (every tier) against one end of the range, on every core (xdist).

    `nox -s tests -- tests/unit` passes its arguments on to pytest. The tier table at the end
    (tests/conftest.py) shows each tier's count and time. nox accepts only exit code 0, so
    pytest's 5 (no tests collected) fails the session.
    """
    _suite(session, adk, session.posargs)


@nox.session(python=None)
def tests_workflow(session: nox.Session) -> None:
    """The behaviour tier again on the newest ADK, every tree compiled to an ADK 2.x Workflow
    graph (ADK_FLUENT_TARGET=workflow; docs/workflow.md): the same behaviour on both targets.
    `make test-workflow`; tests marked for the classic target still run on it."""
    session.env["ADK_FLUENT_TARGET"] = "workflow"
    _suite(session, NEWEST_ADK, session.posargs or ["tests/behaviour"])


@nox.session(python=None)
@nox.parametrize("adk", TIDE_RELEASES, ids=TIDE_RELEASES)
def tide(session: nox.Session, adk: str) -> None:
    """The whole suite against one release of the tide sample (`nox -s tide` runs them all)."""
    _suite(session, adk, session.posargs)


def scanned_releases() -> list[str]:
    """Every release with a committed scan in generated/manifests/, oldest first."""
    versions = [
        json.loads(path.read_text(encoding="utf-8"))["adk_version"]
        for path in Path("generated/manifests").glob("google-adk-*.json")
    ]
    return sorted(versions, key=lambda v: tuple(int(p) for p in v.split(".")))


def newest_scanned() -> str:
    """The newest release with a committed scan in generated/manifests/."""
    return scanned_releases()[-1]


def pick_middle(commit: str) -> str:
    """The middle release for a commit id (hex): any scanned release strictly between the two
    ends, not only the tide sample's (a release outside the sample can break what the sample's
    pass: google-adk 2.6.0 did), so successive commits walk them all, and the same commit
    always gets the same release."""
    middle = [v for v in scanned_releases() if v not in SUPPORTED_ADK]
    return middle[int(commit[:8] or "0", 16) % len(middle)]


def rotating_middle() -> str:
    """The release CI runs beside the two ends: ADK_FLUENT_TIDE_RELEASE when set, else the
    commit's pick (the first middle release outside a git checkout)."""
    forced = os.environ.get("ADK_FLUENT_TIDE_RELEASE")
    if forced:
        return forced
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return pick_middle(head)


@nox.session(python=None)
def tide_one(session: nox.Session) -> None:
    """The whole suite on one release: `-- 2.4.0`, `-- newest`, or the rotating middle one."""
    named = [a for a in session.posargs if a == "newest" or a[:1].isdigit()]
    adk = named[0] if named else rotating_middle()
    if adk == "newest":
        adk = newest_scanned()
    session.log(f"google-adk {adk}")
    _suite(session, adk, [a for a in session.posargs if a not in named])


# What a user installs, one at a time: the package alone and each extra. `extras` proves each
# works alone (imports and one real use, tests/support/extra_smoke.py); a missing dependency of
# one extra that another extra happens to bring (jinja2 for eval, once) shows only this way.
EXTRAS = ["base", "db", "a2a", "eval", "otel", "report", "queue", "codegen", "docs"]
# The extras docs/ and README's blocks use between them.
USER_EXTRAS = "db,a2a,eval,otel,report"


def _install_as_user(session: nox.Session, extras: str) -> None:
    """adk-fluent built as a wheel and installed with `extras` (not the source tree on sys.path:
    what a user's `pip install` gives), rebuilt from this checkout on every run."""
    target = f".[{extras}]" if extras else "."
    session.install("--reinstall-package", "adk-fluent", target, f"google-adk=={NEWEST_ADK}")


@nox.session(python=None)
@nox.parametrize("extra", EXTRAS, ids=EXTRAS)
def extras(session: nox.Session, extra: str) -> None:
    """adk-fluent with one extra only (or none: `base`), installed as a wheel, checked by one real
    use from a folder outside the checkout."""
    _install_as_user(session, "" if extra == "base" else extra)
    script = Path("tests/support/extra_smoke.py").resolve()
    with (
        tempfile.TemporaryDirectory(prefix=f"adk-fluent-extra-{extra}-") as folder,
        session.chdir(folder),
    ):
        session.run("python", str(script), extra)


@nox.session(python=None)
def docs_as_user(session: nox.Session) -> None:
    """Every python block of README.md and docs/ again, with adk-fluent installed as a wheel with
    the extras the pages use (tests/support/doc_blocks.py runs each block outside the checkout,
    the checkout off sys.path); the test checks the package is not the source tree."""
    _install_as_user(session, USER_EXTRAS)
    session.install("pytest>=8", "pytest-asyncio>=0.23", "pytest-xdist>=3.5", "hypothesis>=6.100")
    session.env["ADK_FLUENT_DOCS_AS_USER"] = "1"
    session.env["PYTHONDONTWRITEBYTECODE"] = ""
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", "tests/behaviour/docs")


@nox.session(python=None)
def lint(session: nox.Session) -> None:
    """ruff and mypy over the codegen, the core and the generated package."""
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "codegen", "src", "tests", "bench", "examples", "noxfile.py")
    session.run("lint-imports", "--no-cache")
    session.run("mypy", "generated/adk_fluent_generated", "src/adk_fluent")
