"""The documentation site as built by MkDocs: every page of the nav, every generated setter with
its ADK field doc on its builder's page, and a strict build that fails on a broken link, a
missing anchor or an unresolved API reference.

`make docs` builds the site and then runs this file on it (ADK_FLUENT_SITE_DIR=site). Run
alone, it builds the site itself into a temporary folder. The `docs` extra (MkDocs and its
plugins) is not part of `dev`, so in the test environments of other ADK releases, which install
only `dev`, these tests skip, saying so; `make docs` in CI is where they run.
"""

from __future__ import annotations

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
CONFIG = REPO / "mkdocs.yml"
BUILD_TIMEOUT = 300
HAS_MKDOCS = importlib.util.find_spec("mkdocs") is not None
needs_mkdocs = pytest.mark.skipif(
    not HAS_MKDOCS,
    reason="the docs extra (mkdocs) is not installed here; `make docs` runs these tests",
)


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its `!!python/name:` tags read as plain strings."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: suffix)


def mkdocs(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("ADK_FLUENT_SITE_DIR")
    if given:
        path = (REPO / given).resolve()
        assert (path / "index.html").is_file(), f"{path} holds no built site"
        return path
    if not HAS_MKDOCS:
        pytest.skip("the docs extra (mkdocs) is not installed here; `make docs` runs these tests")
    out = tmp_path_factory.mktemp("site")
    built = mkdocs("build", "--strict", "--site-dir", str(out), cwd=REPO)
    assert built.returncode == 0, built.stdout + built.stderr
    return out


def nav_pages(nav: list) -> list[str]:
    pages = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def built_file(site: Path, page: str) -> Path:
    """Where MkDocs writes a page with use_directory_urls: a/b.md -> a/b/index.html."""
    stem = page.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return site / f"{stem}.html"
    return site / stem / "index.html"


def text_of(fragment: str) -> str:
    """The visible text of some HTML, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def sections(page_html: str) -> dict[str, str]:
    """The text under each mkdocstrings heading, by its anchor (adk_fluent.Agent.model -> ...)."""
    heads = list(re.finditer(r'<h\d id="([\w.]+)" class="doc doc-heading"', page_html))
    return {
        head.group(1): text_of(page_html[head.end() : nxt.start() if nxt else len(page_html)])
        for head, nxt in zip(heads, [*heads[1:], None], strict=True)
    }


def test_every_page_of_the_nav_is_built(site: Path) -> None:
    config = yaml.load(CONFIG.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506
    pages = nav_pages(config["nav"])
    assert "index.md" in pages and "reference/builders.md" in pages
    missing = [page for page in pages if not built_file(site, page).is_file()]
    assert not missing, f"pages in the nav that were not built: {missing}"
    # and no page of docs/ is left out of the nav (the strict build warns about those too)
    on_disk = {str(p.relative_to(REPO / "docs")) for p in (REPO / "docs").rglob("*.md")}
    assert on_disk <= set(pages), f"pages not in the nav: {sorted(on_disk - set(pages))}"


@pytest.mark.parametrize("builder", ["Agent", "Pipeline", "FanOut", "Loop"])
def test_every_generated_setter_is_documented_on_its_builders_page(
    site: Path, builder: str
) -> None:
    """Each setter a builder gets from its generated mixin has a heading on the Builders page,
    with ADK's own field doc and the releases that have the field (what inspect.getdoc gives)."""
    import adk_fluent

    cls = getattr(adk_fluent, builder)
    mixin = next(b for b in cls.__mro__ if b.__module__ == "adk_fluent_generated.builder_bases")
    setters = sorted(mixin._GENERATED_SETTERS)
    assert setters, f"{builder} has no generated setters"
    found = sections(built_file(site, "reference/builders.md").read_text(encoding="utf-8"))
    problems = []
    for setter in setters:
        anchor = f"adk_fluent.{builder}.{setter}"
        if anchor not in found:
            problems.append(f"{anchor}: no heading")
            continue
        doc = inspect.getdoc(getattr(cls, setter)) or ""
        releases = re.search(r"In google-adk [^\n]*", doc)
        expected = [doc.splitlines()[0], releases.group(0) if releases else "In google-adk"]
        for line in expected:
            wanted = text_of(line.replace("`", ""))
            if wanted not in found[anchor]:
                problems.append(f"{anchor}: the page lacks {wanted!r}")
    assert not problems, "\n".join(problems)


def test_the_methods_every_builder_shares_are_documented_once(site: Path) -> None:
    found = sections(built_file(site, "reference/builders.md").read_text(encoding="utf-8"))
    for method in ("run", "stream", "ask", "to_app", "build", "session"):
        assert f"adk_fluent.api.expression.Expression.{method}" in found
        assert f"adk_fluent.Agent.{method}" not in found  # filtered from each builder


def test_every_reference_directive_is_rendered(site: Path) -> None:
    """Each `::: target` became a heading with that anchor (griffe found the object)."""
    missing = []
    for page in sorted((REPO / "docs" / "reference").glob("*.md")):
        targets = re.findall(r"^::: (\S+)", page.read_text(encoding="utf-8"), re.M)
        rendered = built_file(site, f"reference/{page.name}").read_text(encoding="utf-8")
        missing += [f"{page.name}: {t}" for t in targets if f'id="{t}"' not in rendered]
    assert not missing, "directives without a rendered heading:\n" + "\n".join(missing)


@needs_mkdocs
def test_a_strict_build_fails_on_broken_links_anchors_and_references(tmp_path: Path) -> None:
    """The validation settings of mkdocs.yml, inherited by a two-page site with one broken link,
    one link to a missing anchor and one reference to a name that does not exist."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        "# Home\n\nSee [the page](page.md), [nowhere](missing.md) and"
        " [a section](page.md#no-such-section).\n",
        encoding="utf-8",
    )
    (docs / "page.md").write_text(
        "# Page\n\nThe builder is [`Agent`][adk_fluent.Agent]; [`Nope`][adk_fluent.NoSuchName]"
        " is not.\n\n::: adk_fluent.Agent\n    options:\n      members: false\n",
        encoding="utf-8",
    )
    for folder in ("src", "generated"):  # mkdocstrings' paths are relative to the config
        (tmp_path / folder).symlink_to(REPO / folder)
    (tmp_path / "mkdocs.yml").write_text(
        f"INHERIT: {CONFIG}\ndocs_dir: docs\nsite_dir: site\nnav:\n  - index.md\n  - page.md\n",
        encoding="utf-8",
    )
    built = mkdocs("build", "--strict", cwd=tmp_path)
    output = built.stdout + built.stderr
    assert built.returncode != 0, output
    assert "missing.md" in output, output
    assert "no-such-section" in output, output
    assert "adk_fluent.NoSuchName" in output, output
    assert "adk_fluent.Agent'" not in output  # the good reference resolved
