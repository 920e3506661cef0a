"""Every install command in README.md and docs/ installs this repository, never the unrelated
project that holds the name adk-fluent on PyPI: `pip install 'adk-fluent[db]'` gives a user that
other project. The bare name may appear only in a sentence that warns against it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# `pip install` (or `uv pip install`, `pipx install`) with adk-fluent by name as a requirement:
# adk-fluent, 'adk-fluent[db]', "adk-fluent>=0.1"; a path (./adk-fluent, -e path/to/adk-fluent)
# is a checkout and fine.
BARE = re.compile(
    r"""pip\s+install\b[^`\n]*?(?<![\w./-])["']?adk-fluent(?![\w./-]*/)(?=[\s"'\[=<>~!`]|$)"""
)
WARNING_WORDS = ("unrelated", "different project", "not `pip install")


def bare_installs(text: str) -> list[str]:
    """Lines that install adk-fluent from PyPI by name, outside a sentence that warns."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        warns = any(word in paragraph.lower() for word in WARNING_WORDS)
        for line in paragraph.splitlines():
            if BARE.search(line) and not warns:
                found.append(line.strip())
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_no_page_installs_the_pypi_project_of_the_same_name(page: Path) -> None:
    assert bare_installs(page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "line",
    [
        "pip install 'adk-fluent[eval]'",
        'Install the extra: `pip install "adk-fluent[a2a]"` (see',
        "pip install adk-fluent",
        "uv pip install adk-fluent>=0.1",
    ],
)
def test_the_bare_form_is_caught(line: str) -> None:
    assert bare_installs(line) == [line]


@pytest.mark.parametrize(
    "line",
    [
        "pip install -e path/to/adk-fluent",
        "pip install -e './adk-fluent[db]'   # your checkout",
        'pip install -e "./adk-fluent[a2a]"',
        "pip install ./adk-fluent",
        "**Not** `pip install adk-fluent`: that name on PyPI belongs to an unrelated project.",
        "pip install 'google-adk[extensions]'",
    ],
)
def test_a_checkout_or_a_warning_is_fine(line: str) -> None:
    assert bare_installs(line) == []


SOURCES = sorted((ROOT / "src").rglob("*.py")) + sorted((ROOT / "codegen").rglob("*.py"))


def test_no_error_hint_installs_the_pypi_project_of_the_same_name() -> None:
    # hints say errors.install_extra(...): the checkout the package runs from
    found = [
        f"{path.relative_to(ROOT)}: {line}"
        for path in SOURCES
        for line in bare_installs(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_install_extra_names_a_checkout() -> None:
    from adk_fluent.errors import install_extra

    hint = install_extra("db")
    assert hint.startswith("pip install -e '") and hint.split("'")[1].endswith("[db]")
    assert bare_installs(hint) == []
